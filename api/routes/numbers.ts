// The record's numbers (docs/api.md#the-records-reads): GET /v2/credence and GET /v2/frontier, served from what the
// fold keeps (lib/record/numbers/), never recomputed per read. The credence body is streamed
// from chunks cached until a score in them changes, and carries an ETag naming the tree size,
// so a client that has it gets 304.
import { Readable } from 'node:stream';
import { credenceParts, frontier } from '../../lib/record/numbers/index.js';
import { intParam } from '../params.js';
import { notModified } from '../etag.js';
import { credencePage } from '../../lib/record/views/index.js';
import { places } from '../paging.js';
import type { Handler, ReadEnv } from '../reads/read.js';

/** A page of GET /v2/credence: 1 to 1,000 claims, 200 when only `cursor` is given. */
export const CREDENCE_PAGE = { default: 200, max: 1000 } as const;

/** The handlers of the rows of the numbers (api/reads/numbers.ts). */
export function numbersReads({ record, cursors }: ReadEnv) {
  const state = record.state;

  const credence: Handler = (ctx, query) => {
    // With `limit` or `cursor`, a page of the claims in log order (docs/api.md#lists-and-cursors).
    if (query.size > 0) {
      const limit = intParam(query, 'limit', { min: 1, max: CREDENCE_PAGE.max, default: CREDENCE_PAGE.default });
      ctx.body = credencePage(state, cursors.seq(query, places.credence, 'credence'), limit, cursors.mint(places.credence));
      return;
    }
    // One state per tree size: the tree size names the numbers.
    if (notModified(ctx, `"credence-${state.size}"`)) return;
    // Sent as the cached chunks it is made of, each expanded as it is sent, never joined into one string.
    const { parts, bytes } = credenceParts(state);
    ctx.type = 'application/json; charset=utf-8';
    ctx.length = bytes;
    ctx.body = Readable.from(parts);
  };

  const frontierRead: Handler = (ctx, query) => {
    const limit = intParam(query, 'limit', { min: 1, max: 50, default: 10 });
    ctx.body = frontier(state, limit);
  };

  return { credence, frontier: frontierRead };
}
