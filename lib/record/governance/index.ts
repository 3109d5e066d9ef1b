// governance/0.1 over the state: proposals and votes as the fold keeps them (proposals.ts), the tally and what the close
// decides (tally.ts), and what the governance reads show (views.ts). Its entry types are types/governance.ts.
// Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export { constitutionInForce } from './tally.js';
export { governanceSummary, PROPOSALS_PAGE, proposalView } from './views.js';
