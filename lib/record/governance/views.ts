// What GET /v2/governance and GET /v2/governance/proposals/{id} show (docs/governance.md): each
// proposal with its standing (the tally over the electorate as it stands while open, as it stood
// at the close once closed), and the electorate. Pure functions of the state.
import type { Proposal } from './proposals.js';
import { constitutionVersion, tally } from './tally.js';
import type { State } from '../fold/state.js';
import { mapPage, newestFirst, served, type Mint } from '../views/paging.js';

/** A proposal as the summary lists it: no article texts, no votes one by one. */
export function proposalSummary(state: State, p: Proposal) {
  const standing = p.closed?.tally ?? tally(state, p);
  const enacted = p.closed?.enactedIn == null ? null : constitutionVersion(state, p.closed.enactedIn);
  return {
    id: p.id,
    title: p.title,
    proposer: p.agent,
    operatorId: p.operatorId,
    seq: p.seq,
    ts: p.ts,
    amends: p.amends,
    changes: p.changes,
    entrenched: p.entrenched,
    cosigned: p.cosign === null ? null : { seq: p.cosign.seq },
    status: p.closed === null ? 'open' : 'closed',
    closesAt: new Date(p.closesAt).toISOString(),
    ...standing,
    outcome: p.closed?.outcome ?? null,
    closedSeq: p.closed?.seq ?? null,
    enactedIn: p.closed?.enactedIn ?? null,
    enacted: enacted === null ? null : { version: enacted.version, hash: enacted.hash },
  };
}

/** One proposal in full: the summary, its rationale, every article, the latest vote of each operator. */
export function proposalView(state: State, p: Proposal) {
  const votes = [...p.votes].map(([operatorId, v]) => ({ operatorId, vote: v.vote, agent: v.agent, seq: v.seq }));
  return { ...proposalSummary(state, p), rationale: p.rationale, articles: p.articles, votes };
}

/** Proposals a page of GET /v2/governance lists unless `limit` says otherwise (docs/api.md#lists-and-cursors). */
export const PROPOSALS_PAGE = { default: 50, max: 200 } as const;

/** GET /v2/governance: the constitution in force, the electorate, the proposals newest first, a page at a time (below seq `before`). */
export function governanceSummary(state: State, mint: Mint, before: number | null = null, limit: number = PROPOSALS_PAGE.default) {
  const page = newestFirst(
    [...state.governance.proposals.values()],
    (p) => p.seq,
    before,
    limit,
    () => true,
  );
  const { items, next } = served(
    mint,
    'proposals',
    mapPage(page, (p) => proposalSummary(state, p)),
  );
  return {
    version: 'governance/0.1',
    constitution: { version: state.constitution.version, hash: state.constitution.hash },
    electorate: state.verified.size,
    proposals: items,
    next,
  };
}
