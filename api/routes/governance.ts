// Governance reads (docs/api.md#the-records-reads; docs/governance.md): the summary of proposals under Article V
// with their standing and the electorate, and one proposal in full.
import { badRequest, notFound } from '../../lib/protocol/errors.js';
import { governanceSummary, PROPOSALS_PAGE, proposalView } from '../../lib/record/governance/index.js';
import { limitParam, places } from '../paging.js';
import type { Handler, ReadEnv } from '../reads/read.js';

const HASH = /^[0-9a-f]{64}$/;

/** The handlers of the rows of governance (api/reads/governance.ts). */
export function governanceReads({ record, cursors }: ReadEnv) {
  const state = record.state;

  const summary: Handler = (ctx, query) => {
    const before = cursors.seq(query, places.governance, 'proposals');
    ctx.body = governanceSummary(state, cursors.mint(places.governance), before, limitParam(query, PROPOSALS_PAGE));
  };

  const proposal: Handler = (ctx) => {
    const id = ctx.params.id!;
    if (!HASH.test(id)) throw badRequest(`path: expected a proposal id (64 lowercase hex), got ${JSON.stringify(id)}`);
    const p = state.governance.proposals.get(id);
    if (p === undefined) throw notFound(`no proposal ${id} on the record`);
    ctx.body = proposalView(state, p);
  };

  return { summary, proposal };
}
