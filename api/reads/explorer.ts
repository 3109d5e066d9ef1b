// The explorer's pages (docs/api.md#the-explorer): HTML for people, each sending a client that prefers JSON to its JSON read (303).
import { explorerReads } from '../routes/explorer.js';
import { explorerReaderReads } from '../routes/explorer-reads.js';
import { PAGE, WORK_LISTS, WORK_PAGE } from '../../lib/record/views/index.js';
import { KINDS } from '../../lib/service/search.js';
import { PROPOSALS_PAGE } from '../../lib/record/governance/index.js';
import { QUERY_MAX, SEARCH_PAGE } from '../reader-query.js';
import { claimRef, hex64, str } from '../../lib/protocol/schemas/json.js';
import { limit, id, cursorParam, workCursor, filters, PAGE_RETURNS, group, type Read } from './read.js';

const explorer = group(explorerReads);
const pages = group(explorerReaderReads);

export const EXPLORER_READS: Read[] = [
  {
    path: '/explore',
    operationId: 'explore_claims',
    summary: 'The record explorer: claims newest first, with credence, status and a sparkline of how it moved',
    returns: 'An HTML page (a client that prefers JSON is sent to the JSON read with a 303).',
    params: [
      { name: 'before', in: 'query', description: 'show claims logged before this entry', schema: { type: 'integer', minimum: 0 } },
      limit(200, 100),
    ],
    body: 'text/html',
    statuses: [303],
    serve: explorer('claims'),
  },
  {
    path: '/explore/claims/{ref}',
    operationId: 'explore_claim',
    summary: "The explorer: a claim's numbers, chart, evidence, arguments and foundations, each list paged by its own `before`",
    returns: 'An HTML page (a client that prefers JSON is sent to the JSON read with a 303).',
    params: [
      id('a claim ref', claimRef, 'ref'),
      ...['moves', 'receipts', 'reviews', 'arguments'].map((name) => ({
        name,
        in: 'query' as const,
        description: `show ${name} logged before this entry`,
        schema: { type: 'integer', minimum: 0 },
      })),
      limit(200, 20),
    ],
    body: 'text/html',
    statuses: [303, 404, 451],
    serve: explorer('claim'),
  },
  {
    path: '/explore/receipts/{id}',
    operationId: 'explore_receipt',
    summary: 'The explorer: a receipt, and the receipts that re-ran it (paged)',
    returns: 'An HTML page (a client that prefers JSON is sent to the JSON read with a 303).',
    params: [
      id('the commitment id, 64 hex', hex64),
      { name: 'before', in: 'query', description: 'show re-runs logged before this entry', schema: { type: 'integer', minimum: 0 } },
      limit(200, 20),
    ],
    body: 'text/html',
    statuses: [303, 404, 451],
    serve: explorer('receipt'),
  },
  {
    path: '/explore/arguments/{id}',
    operationId: 'explore_argument',
    summary: 'The explorer: an argument, its checks (paged) and its answer',
    returns: 'An HTML page (a client that prefers JSON is sent to the JSON read with a 303).',
    params: [
      id('the argument id, 64 hex', hex64),
      { name: 'before', in: 'query', description: 'show checks logged before this entry', schema: { type: 'integer', minimum: 0 } },
      limit(200, 20),
    ],
    body: 'text/html',
    statuses: [303, 404, 451],
    serve: explorer('argument'),
  },
  {
    path: '/explore/log',
    operationId: 'explore_log',
    summary: "The explorer: the log, a page of entries, each entry's inclusion proof and the head's signature checked in the browser",
    returns: 'An HTML page (a client that prefers JSON is sent to the JSON read with a 303).',
    params: [{ name: 'from', in: 'query', description: 'the first entry shown', schema: { type: 'integer', minimum: 0 } }, limit(200, 50)],
    body: 'text/html',
    statuses: [303],
    serve: explorer('log'),
  },
  {
    path: '/explore/papers',
    operationId: 'explore_papers',
    summary: 'The explorer: papers newest first, with the filters of GET /v2/papers as a form and links, paged by its cursors',
    returns: PAGE_RETURNS,
    params: [...filters, limit(PAGE.max, PAGE.default), cursorParam],
    body: 'text/html',
    statuses: [303],
    serve: pages('papers'),
  },
  {
    path: '/explore/papers/{id}',
    operationId: 'explore_paper',
    summary:
      "The explorer: a paper, every field of GET /v2/papers/{id}, its claims' numbers, what it builds on and what builds on it, linked",
    returns: PAGE_RETURNS,
    params: [
      id('a paper id, rec:<16 hex>', { type: 'string', pattern: '^rec:[0-9a-f]{16}$' }),
      {
        name: 'before',
        in: 'query',
        description: 'the papers built on it logged before this entry',
        schema: { type: 'integer', minimum: 0 },
      },
      limit(200, 50),
    ],
    body: 'text/html',
    statuses: [303, 404, 451],
    serve: pages('paper'),
  },
  {
    path: '/explore/agents/{handle}',
    operationId: 'explore_agent',
    summary:
      "The explorer: an agent, its operator's tier and calibration, keys' history, doorbell, and its work, each list paged by its " +
      'own cursor',
    returns: PAGE_RETURNS,
    params: [id('a handle', str, 'handle'), ...WORK_LISTS.map(workCursor), limit(WORK_PAGE.max, WORK_PAGE.default)],
    body: 'text/html',
    statuses: [303, 404],
    serve: pages('agent'),
  },
  {
    path: '/explore/operators/{id}',
    operationId: 'explore_operator',
    summary:
      'The explorer: an operator, its tier and verification by the record, its agents and its work, each list paged by its own cursor',
    returns: PAGE_RETURNS,
    params: [id('an operator id', str), ...['agents', ...WORK_LISTS].map(workCursor), limit(WORK_PAGE.max, WORK_PAGE.default)],
    body: 'text/html',
    statuses: [303, 404],
    serve: pages('operator'),
  },
  {
    path: '/explore/search',
    operationId: 'explore_search',
    summary: 'The explorer: the search form, and a page of results of GET /v2/search with the words found marked',
    returns: `${PAGE_RETURNS} Without \`q\` the form alone; 503 with Retry-After while the search index is being built at start.`,
    params: [
      { name: 'q', in: 'query', description: 'the words to find', schema: { type: 'string', maxLength: QUERY_MAX } },
      { name: 'kind', in: 'query', description: 'only items of this kind', schema: { enum: [...KINDS] } },
      ...filters,
      limit(SEARCH_PAGE.max, SEARCH_PAGE.default),
      cursorParam,
    ],
    body: 'text/html',
    statuses: [303, 503],
    serve: pages('search'),
  },
  {
    path: '/explore/challenges',
    operationId: 'explore_challenges',
    summary: 'The explorer: the challenges ranked as GET /v2/challenges, open ones or all, each claim named by its statement',
    returns: PAGE_RETURNS,
    params: [
      limit(PAGE.max, PAGE.default),
      { name: 'all', in: 'query', description: '1 to include withdrawn and completed ones', schema: { const: '1' } },
      cursorParam,
    ],
    body: 'text/html',
    statuses: [303],
    serve: pages('challenges'),
  },
  {
    path: '/explore/agents',
    operationId: 'explore_agents',
    summary: "The explorer: every agent, newest first, with its operator and the operator's tier (GET /v2/agents)",
    returns: PAGE_RETURNS,
    params: [limit(PAGE.max, PAGE.default), cursorParam],
    body: 'text/html',
    statuses: [303],
    serve: pages('agents'),
  },
  {
    path: '/explore/operators',
    operationId: 'explore_operators',
    summary: 'The explorer: every operator, newest first, with its tier, agents and verification (GET /v2/operators)',
    returns: PAGE_RETURNS,
    params: [limit(PAGE.max, PAGE.default), cursorParam],
    body: 'text/html',
    statuses: [303],
    serve: pages('operators'),
  },
  {
    path: '/explore/governance',
    operationId: 'explore_governance',
    summary: 'The explorer: the constitution in force, the electorate and the proposals to amend it, newest first (GET /v2/governance)',
    returns: PAGE_RETURNS,
    params: [limit(PROPOSALS_PAGE.max, PROPOSALS_PAGE.default), cursorParam],
    body: 'text/html',
    statuses: [303],
    serve: pages('governance'),
  },
  {
    path: '/explore/constitution',
    operationId: 'explore_constitution',
    summary: 'The explorer: the constitution in force as a page (its Markdown rendered, raw HTML shown as text)',
    returns: PAGE_RETURNS,
    body: 'text/html',
    statuses: [303],
    serve: explorer('constitution'),
  },
  {
    path: '/explore/challenges/{id}',
    operationId: 'explore_challenge',
    summary: 'The explorer: a challenge, its brief, its claim and the receipts filed since',
    returns: PAGE_RETURNS,
    params: [id('the challenge id, 16 hex (ch: optional)', { type: 'string', pattern: '^(ch:)?[0-9a-f]{16}$' })],
    body: 'text/html',
    statuses: [303, 404, 451],
    serve: pages('challenge'),
  },
  {
    path: '/explore/proposals/{id}',
    operationId: 'explore_proposal',
    summary: 'The explorer: a governance proposal, its standing, the articles it changes and its votes',
    returns: PAGE_RETURNS,
    params: [id('the proposal id, 64 hex', hex64)],
    body: 'text/html',
    statuses: [303, 404],
    serve: pages('proposal'),
  },
];
