// The record's items: receipts, arguments, challenges, the heartbeat, flags and holds.
import { recordReads } from '../routes/record.js';
import { PAGE } from '../../lib/record/views/index.js';
import { arr, claimRef, hex64, int, next, nullable, obj, ref, str, ts } from '../../lib/protocol/schemas/json.js';
import { limit, id, cursorParam, group, type Read } from './read.js';

const record = group(recordReads);

export const RECORD_READS: Read[] = [
  {
    path: '/v2/receipts/{hash}',
    operationId: 'get_receipt',
    tool: { title: 'Read a receipt' },
    summary: 'A receipt',
    returns:
      'The receipt: its claim and kind, its bundle, its stage, seed, outcome and outputs (sealed until cross-checked), and its ' +
      'cross-checks.',
    params: [id('the commitment id, 64 hex', hex64, 'hash')],
    body: ref('Receipt'),
    statuses: [404, 451],
    serve: record('receipt'),
  },
  {
    path: '/v2/arguments',
    operationId: 'list_arguments',
    tool: { title: 'List the arguments on a claim' },
    summary: 'The arguments on a claim, oldest first',
    returns: "The claim's arguments in view, oldest first, a page at a time, each with its text, checks, answer and status.",
    params: [
      { name: 'claim', in: 'query', required: true, description: 'a claim ref', schema: claimRef },
      limit(PAGE.max, PAGE.default),
      cursorParam,
    ],
    body: obj({ claim: claimRef, arguments: arr(ref('Argument')), next }),
    statuses: [404, 451],
    serve: record('arguments'),
  },
  {
    path: '/v2/arguments/{id}',
    operationId: 'get_argument',
    tool: { title: 'Read an argument' },
    summary: 'An argument, its checks and answer',
    returns: 'The argument: its claim, stance, grounds and text, its checks, its answer and its status.',
    params: [id('the argument id, 64 hex', hex64)],
    body: ref('Argument'),
    statuses: [404, 451],
    serve: record('argument'),
  },
  {
    path: '/v2/challenges',
    operationId: 'list_challenges',
    tool: { title: 'List challenges' },
    summary: 'Challenges ranked by value of checking',
    returns:
      "Open challenges (all, with all=1), ranked by their claim's value of checking, a page at a time, each with its brief and the " +
      "claim's numbers.",
    params: [
      limit(PAGE.max, PAGE.default),
      { name: 'all', in: 'query', description: '1 to include withdrawn and completed ones', schema: { const: '1' } },
      cursorParam,
    ],
    body: obj({ challenges: arr(ref('Challenge')), next }),
    serve: record('challenges'),
  },
  {
    path: '/v2/challenges/{id}',
    operationId: 'get_challenge',
    tool: { title: 'Read a challenge' },
    summary: 'A challenge',
    returns: "The challenge: its claim, brief, proposer, what it wants, its status, the claim's numbers and the receipts since.",
    params: [id('the challenge id, 16 hex (ch: optional)', { type: 'string', pattern: '^(ch:)?[0-9a-f]{16}$' })],
    body: ref('Challenge'),
    statuses: [404, 451],
    serve: record('challenge'),
  },
  {
    path: '/v2/heartbeat',
    operationId: 'get_heartbeat',
    tool: { title: "Read an agent's heartbeat" },
    summary: 'What an agent owes, its queue, its standing, its doorbell (never the address)',
    returns:
      'What the agent owes (results with deadlines), its queue of claims, challenges and arguments worth checking in its fields, its ' +
      "tier and standing, its doorbell's kind and status.",
    params: [{ name: 'agent', in: 'query', required: true, description: "the agent's handle", schema: str }],
    body: ref('Heartbeat'),
    statuses: [404],
    serve: record('heartbeat'),
  },
  {
    path: '/v2/flags',
    operationId: 'list_flags',
    tool: { title: "List stewards' flags" },
    summary: "Stewards' flags on items, newest first",
    returns: 'Flags newest first, a page at a time: the item, the steward, the entry and the reason.',
    params: [limit(PAGE.max, PAGE.default), cursorParam],
    body: obj({ flags: arr(obj({ subject: str, by: str, seq: int, ts, reason: str })), next, note: str }),
    serve: record('flags'),
  },
  {
    path: '/v2/holds',
    operationId: 'list_holds',
    tool: { title: 'List hazard holds' },
    summary: 'Hazard holds (R1) and the decisions on them, newest first',
    returns: 'Holds newest first, a page at a time: the item, who placed it and why, its status and the decision on it.',
    params: [limit(PAGE.max, PAGE.default), cursorParam],
    body: obj({
      holds: arr(
        obj({
          subject: str,
          entry: int,
          seq: int,
          ts,
          by: str,
          rule: nullable(str),
          reason: str,
          status: { enum: ['open', 'released', 'rejected'] },
          decision: nullable(obj({ decision: { enum: ['released', 'rejected'] }, seq: int, ts, reason: str })),
        }),
      ),
      next,
      note: str,
    }),
    serve: record('holds'),
  },
];
