// The record's numbers (docs/api.md#the-records-reads): GET /v2/credence and GET /v2/frontier, served from what the
// fold keeps (lib/record/numbers/), never recomputed per read. The credence body is streamed
// from chunks cached until a score in them changes, and carries an ETag naming the tree size,
// so a client that has it gets 304.
import Router from '@koa/router';
import type { State } from '../../lib/record/fold/index.js';
import { Readable } from 'node:stream';
import { credenceParts, frontier } from '../../lib/record/numbers/index.js';
import { intParam, params } from '../params.js';
import { notModified } from '../etag.js';
import { credencePage } from '../../lib/record/views/index.js';
import { places, type Cursors } from '../paging.js';

/** A page of GET /v2/credence: 1 to 1,000 claims, 200 when only `cursor` is given. */
export const CREDENCE_PAGE = { default: 200, max: 1000 } as const;

export function numbersRoutes(state: State, cursors: Cursors): Router {
  const router = new Router();

  router.get('/v2/credence', (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
    // With `limit` or `cursor`, a page of the claims in log order (docs/api.md#lists-and-cursors).
    if (query.size > 0) {
      const limit = intParam(query, 'limit', { min: 1, max: CREDENCE_PAGE.max, default: CREDENCE_PAGE.default });
      ctx.body = credencePage(state, cursors.seq(query, places.credence, 'credence'), limit, cursors.mint(places.credence));
      return;
    }
    // One state per tree size: the tree size names the numbers.
    if (notModified(ctx, `"credence-${state.size}"`)) return;
    // Sent as the cached chunks it is made of, never joined into one string.
    const { parts, bytes } = credenceParts(state);
    ctx.type = 'application/json; charset=utf-8';
    ctx.length = bytes;
    ctx.body = Readable.from(parts);
  });

  router.get('/v2/frontier', (ctx) => {
    const query = params(ctx, ['limit']);
    const limit = intParam(query, 'limit', { min: 1, max: 50, default: 10 });
    ctx.body = frontier(state, limit);
  });

  return router;
}
