// Governance reads (docs/api.md#the-records-reads; docs/governance.md): the summary of proposals under Article V
// with their standing and the electorate, and one proposal in full.
import Router from '@koa/router';
import { badRequest, notFound } from '../../lib/protocol/errors.js';
import type { LiveRecord } from '../../lib/service/live-record.js';
import { governanceSummary, PROPOSALS_PAGE, proposalView } from '../../lib/record/governance/index.js';
import { params } from '../params.js';
import { limitParam, places, type Cursors } from '../paging.js';

const HASH = /^[0-9a-f]{64}$/;

export function governanceRoutes(record: LiveRecord, cursors: Cursors): Router {
  const router = new Router();
  const state = record.state;

  router.get('/v2/governance', (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
    const before = cursors.seq(query, places.governance, 'proposals');
    ctx.body = governanceSummary(state, cursors.mint(places.governance), before, limitParam(query, PROPOSALS_PAGE));
  });

  router.get('/v2/governance/proposals/:id', (ctx) => {
    params(ctx, []);
    const id = ctx.params.id!;
    if (!HASH.test(id)) throw badRequest(`path: expected a proposal id (64 lowercase hex), got ${JSON.stringify(id)}`);
    const p = state.governance.proposals.get(id);
    if (p === undefined) throw notFound(`no proposal ${id} on the record`);
    ctx.body = proposalView(state, p);
  });

  return router;
}
