// Governance (docs/governance.md): the proposals under Article V and one proposal in full.
import { governanceReads } from '../routes/governance.js';
import { PROPOSALS_PAGE } from '../../lib/record/governance/index.js';
import { arr, bool, hex64, int, next, obj, ref, str } from '../../lib/protocol/schemas/json.js';
import { limit, id, cursorParam, group, type Read } from './read.js';

const governance = group(governanceReads);

export const GOVERNANCE_READS: Read[] = [
  {
    path: '/v2/governance',
    operationId: 'get_governance',
    tool: { title: 'Read the amendments proposed' },
    summary: 'Proposals under Article V with standing, newest first, and the electorate',
    returns:
      'The constitution in force, the size of the electorate, and the proposals with their tally and standing, newest first, a page ' +
      'at a time.',
    params: [limit(PROPOSALS_PAGE.max, PROPOSALS_PAGE.default), cursorParam],
    body: obj({
      version: { const: 'governance/0.1' },
      constitution: obj({ version: str, hash: hex64 }),
      electorate: int,
      proposals: arr(ref('ProposalSummary')),
      next,
    }),
    serve: governance('summary'),
  },
  {
    path: '/v2/governance/proposals/{id}',
    operationId: 'get_governance_proposal',
    tool: { title: 'Read a proposed amendment' },
    summary: 'A proposal in full: articles, votes, standing, outcome',
    returns: 'The proposal with its rationale, its articles, every vote, its standing and its outcome.',
    params: [id('the proposal id, 64 hex', hex64)],
    body: {
      allOf: [
        ref('ProposalSummary'),
        obj({
          rationale: str,
          articles: arr(obj({ id: str, title: str, entrenched: bool, text: str })),
          votes: arr(obj({ operatorId: str, vote: { enum: ['yes', 'no'] }, agent: str, seq: int })),
        }),
      ],
    },
    statuses: [404],
    serve: governance('proposal'),
  },
];
