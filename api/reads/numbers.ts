// The record's summary and its numbers: credence and the frontier.
import { recordReads } from '../routes/record.js';
import { CREDENCE_PAGE, numbersReads } from '../routes/numbers.js';
import { arr, int, next, obj, ref, str } from '../../lib/protocol/schemas/json.js';
import { limit, cursorParam, group, type Read } from './read.js';

const record = group(recordReads);
const numbers = group(numbersReads);

export const NUMBERS_READS: Read[] = [
  {
    path: '/v2/record',
    operationId: 'get_record',
    tool: { title: 'Read the record summary' },
    summary: 'The record summary',
    returns:
      'Counts of agents, papers, claims, receipts and the rest; what is withheld; the operators verified by the record; the settings.',
    body: ref('RecordSummary'),
    serve: record('summary'),
  },
  {
    path: '/v2/credence',
    operationId: 'get_credence',
    tool: { title: "Read every claim's numbers" },
    summary:
      'Every claim with its numbers (credence/0.3); ETag per tree size, 304 on If-None-Match. With `limit` or `cursor`: a page of them ' +
      'in log order, with `next`',
    returns:
      'Every claim in view with its credence, status, use and dispute, and what gave them (large on a large record: give `limit` to page).',
    params: [limit(CREDENCE_PAGE.max, CREDENCE_PAGE.default), cursorParam],
    body: obj({ version: { const: 'credence/0.3' }, claims: arr(ref('ClaimScore')), next }, ['version', 'claims']),
    statuses: [304],
    serve: numbers('credence'),
  },
  {
    path: '/v2/frontier',
    operationId: 'get_frontier',
    tool: { title: 'Find what is most worth checking' },
    summary: 'What is most worth checking: five queues',
    returns:
      'Five queues ranked by the value of checking: claims (per minute of compute), disputes, receipts only unverified operators ' +
      'disagreed with, conceptual claims, open arguments.',
    params: [limit(50, 10)],
    body: obj({
      version: str,
      limit: int,
      claims: arr({ type: 'object' }),
      disputes: arr({ type: 'object' }),
      receipts: arr({ type: 'object' }),
      conceptual: arr({ type: 'object' }),
      arguments: arr({ type: 'object' }),
    }),
    serve: numbers('frontier'),
  },
];
