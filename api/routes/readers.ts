// The readers' reads (docs/api.md#the-records-reads): the list of papers, an agent and an operator
// with their work, and the search (docs/api.md#search). Every list is a page with a cursor
// (docs/api.md#lists-and-cursors); items out of view never appear.
import Router from '@koa/router';
import { badRequest, notFound } from '../../lib/protocol/errors.js';
import { FIELDS } from '../../lib/protocol/schemas/index.js';
import type { Deployment } from '../../lib/service/deployment.js';
import type { LiveRecord } from '../../lib/service/live-record.js';
import type { Readers } from '../../lib/service/readers.js';
import {
  agentRead,
  agentsPage,
  operatorRead,
  papersPage,
  STATUSES,
  WORK_LISTS,
  WORK_PAGE,
  workPage,
  type Filters,
} from '../../lib/record/reads.js';
import { agentWork, operatorWork } from '../../lib/record/read-index.js';
import { cursor } from '../../lib/record/paging.js';
import { sha256TextHex } from '../../log/index.js';
import { KINDS, queryWords, searchResult, type SearchFilters } from '../../lib/service/search.js';
import { oneOfParam, optionalParam, params, type Query } from '../params.js';
import { cursorParam, limitParam, numbers, seqCursor } from '../paging.js';
import { loggedReader } from '../logged.js';

const HANDLE = /^[A-Za-z0-9][A-Za-z0-9-]{1,39}$/;
const OPERATOR = /^\S{2,80}$/;

/** Results a page of the search shows. */
export const SEARCH_PAGE = { default: 20, max: 100 } as const;
/** The longest query, in characters. */
export const QUERY_MAX = 200;

/** The filters of the lists of papers and of the search, each checked (400 naming it). */
function filtersOf(query: Query): Filters {
  const f: Filters = {};
  const field = oneOfParam(query, 'field', FIELDS);
  const agent = optionalParam(query, 'agent', HANDLE, 'a handle');
  const operator = optionalParam(query, 'operator', OPERATOR, 'an operator id (2 to 80 characters, no whitespace)');
  const status = oneOfParam(query, 'status', STATUSES);
  if (field !== undefined) f.field = field;
  if (agent !== undefined) f.agent = agent;
  if (operator !== undefined) f.operator = operator;
  if (status !== undefined) f.status = status;
  return f;
}

const FILTERS = ['field', 'agent', 'operator', 'status'];

/** The search's cursor: the tree size of its first page, how many items below it were passed, and which search (a hash of the words and filters). */
const searchCursor = (at: unknown[]): at is [number, number, string] =>
  at.length === 3 && numbers(2)(at.slice(0, 2)) && typeof at[2] === 'string';

export function readerRoutes(d: Deployment, record: LiveRecord, readers: Readers): Router {
  const router = new Router();
  const state = record.state;
  const logged = loggedReader(d);

  router.get('/v2/papers', (ctx) => {
    const query = params(ctx, [...FILTERS, 'limit', 'cursor']);
    const f = filtersOf(query);
    ctx.body = papersPage(state, readers.index, f, seqCursor(query, 'papers'), limitParam(query));
  });

  router.get('/v2/agents/:handle', async (ctx) => {
    const query = params(ctx, ['limit']);
    const handle = ctx.params.handle!;
    if (!HANDLE.test(handle)) throw badRequest(`path: expected a handle, got ${JSON.stringify(handle)}`);
    const limit = limitParam(query, WORK_PAGE);
    const view = await agentRead(state, readers.index, handle, limit, logged);
    if (view === undefined) throw notFound(`no agent ${handle} on the record`);
    ctx.body = view;
  });

  router.get('/v2/agents/:handle/:list', async (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
    const handle = ctx.params.handle!;
    if (!HANDLE.test(handle)) throw badRequest(`path: expected a handle, got ${JSON.stringify(handle)}`);
    const list = listOf(ctx.params.list!, WORK_LISTS);
    const limit = limitParam(query, WORK_PAGE);
    const before = seqCursor(query, list);
    if (!state.agents.has(handle)) throw notFound(`no agent ${handle} on the record`);
    ctx.body = { agent: handle, list, ...(await workPage(state, agentWork(readers.index, handle), list, before, limit, logged)) };
  });

  router.get('/v2/operators/:id', async (ctx) => {
    const query = params(ctx, ['limit']);
    const id = ctx.params.id!;
    if (!OPERATOR.test(id))
      throw badRequest(`path: expected an operator id (2 to 80 characters, no whitespace), got ${JSON.stringify(id)}`);
    const view = await operatorRead(state, readers.index, id, limitParam(query, WORK_PAGE), logged);
    if (view === undefined) throw notFound(`no operator ${id} on the record`);
    ctx.body = view;
  });

  router.get('/v2/operators/:id/:list', async (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
    const id = ctx.params.id!;
    if (!OPERATOR.test(id))
      throw badRequest(`path: expected an operator id (2 to 80 characters, no whitespace), got ${JSON.stringify(id)}`);
    const list = listOf(ctx.params.list!, ['agents', ...WORK_LISTS] as const);
    const limit = limitParam(query, WORK_PAGE);
    const before = seqCursor(query, list);
    if (!state.operators.has(id)) throw notFound(`no operator ${id} on the record`);
    const page =
      list === 'agents'
        ? agentsPage(state, id, before, limit)
        : await workPage(state, operatorWork(readers.index, id), list, before, limit, logged);
    ctx.body = { operator: id, list, ...page };
  });

  router.get('/v2/search', async (ctx) => {
    const query = params(ctx, ['q', ...FILTERS, 'kind', 'limit', 'cursor']);
    const q = query.get('q');
    if (q === undefined) throw badRequest('q: required');
    if (Array.isArray(q)) throw badRequest('q: given more than once');
    const words = queryWords(q);
    if (words.length === 0) throw badRequest(`q: expected words to search for, got ${JSON.stringify(q.slice(0, QUERY_MAX))}`);
    if ([...q].length > QUERY_MAX) throw badRequest(`q: at most ${QUERY_MAX} characters, got ${[...q].length}`);
    const f: SearchFilters = filtersOf(query);
    const kind = oneOfParam(query, 'kind', KINDS);
    if (kind !== undefined) f.kind = kind;
    const limit = limitParam(query, SEARCH_PAGE);
    // A cursor names its search, so that one search's cursor is not read as another's.
    const which = sha256TextHex(
      JSON.stringify([q, f.kind ?? null, f.field ?? null, f.agent ?? null, f.operator ?? null, f.status ?? null]),
    ).slice(0, 12);
    const at = cursorParam(query, 'search', searchCursor);
    if (at !== null && at[2] !== which) throw badRequest('cursor: a cursor of a search for other words or filters');
    const { results, next } = await readers.search.search(
      q,
      f,
      at === null ? { treeSize: state.size, passed: 0 } : { treeSize: at[0], passed: at[1] },
      limit,
    );
    ctx.body = {
      q,
      results: await Promise.all(results.map((r) => searchResult(state, r, words, logged))),
      next: next === null ? null : cursor('search', next.treeSize, next.passed, which),
    };
  });

  return router;
}

/** The list a path names, or 400 naming `path`. */
function listOf<T extends string>(name: string, lists: readonly T[]): T {
  if (!(lists as readonly string[]).includes(name))
    throw badRequest(`path: expected a list, one of ${lists.join(', ')}, got ${JSON.stringify(name)}`);
  return name as T;
}
