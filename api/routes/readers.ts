// The readers' reads (docs/api.md#the-records-reads): the list of papers, the lists of agents and
// of operators, an agent and an operator with their work, and the search (docs/api.md#search).
// Every list is a page with a cursor (docs/api.md#lists-and-cursors); items out of view never appear.
import { badRequest, notFound } from '../../lib/protocol/errors.js';
import {
  agentRead,
  agentsList,
  agentsPage,
  operatorRead,
  operatorsList,
  papersPage,
  WORK_LISTS,
  WORK_PAGE,
  workPage,
  agentWork,
  operatorWork,
} from '../../lib/record/views/index.js';
import { searchResult } from '../../lib/service/search.js';
import { limitParam, places } from '../paging.js';
import type { Handler, ReadEnv } from '../reads/read.js';
import { loggedReader } from '../../lib/service/logged.js';
import { filtersOf, HANDLE, OPERATOR, OPERATOR_FORM, searchAsked, searchNext } from '../reader-query.js';

/** The handlers of the rows of the readers' reads (api/reads/readers.ts). */
export function readerReads({ d, record, readers, cursors }: ReadEnv) {
  const state = record.state;
  const logged = loggedReader(d);

  const papers: Handler = (ctx, query) => {
    const f = filtersOf(query);
    const place = places.papers(f);
    ctx.body = papersPage(state, readers.index, f, cursors.seq(query, place, 'papers'), limitParam(query), cursors.mint(place));
  };

  const agents: Handler = (ctx, query) => {
    ctx.body = agentsList(
      state,
      readers.index,
      cursors.seq(query, places.agents, 'agents'),
      limitParam(query),
      cursors.mint(places.agents),
    );
  };

  const operators: Handler = (ctx, query) => {
    ctx.body = operatorsList(
      state,
      readers.index,
      cursors.seq(query, places.operators, 'operators'),
      limitParam(query),
      cursors.mint(places.operators),
    );
  };

  const agent: Handler = async (ctx, query) => {
    const handle = ctx.params.handle!;
    if (!HANDLE.test(handle)) throw badRequest(`path: expected a handle, got ${JSON.stringify(handle)}`);
    const limit = limitParam(query, WORK_PAGE);
    const view = await agentRead(state, readers.index, handle, limit, logged, cursors.mint(places.agent(handle)));
    if (view === undefined) throw notFound(`no agent ${handle} on the record`);
    ctx.body = view;
  };

  const agentList: Handler = async (ctx, query) => {
    const handle = ctx.params.handle!;
    if (!HANDLE.test(handle)) throw badRequest(`path: expected a handle, got ${JSON.stringify(handle)}`);
    const list = listOf(ctx.params.list!, WORK_LISTS);
    const limit = limitParam(query, WORK_PAGE);
    const place = places.agent(handle);
    const before = cursors.seq(query, place, list);
    if (!state.agents.has(handle)) throw notFound(`no agent ${handle} on the record`);
    const page = await workPage(state, agentWork(state, readers.index, handle), list, before, limit, logged, cursors.mint(place));
    ctx.body = { agent: handle, list, ...page };
  };

  const operator: Handler = async (ctx, query) => {
    const id = ctx.params.id!;
    if (!OPERATOR.test(id)) throw badRequest(`path: expected ${OPERATOR_FORM}, got ${JSON.stringify(id)}`);
    const view = await operatorRead(state, readers.index, id, limitParam(query, WORK_PAGE), logged, cursors.mint(places.operator(id)));
    if (view === undefined) throw notFound(`no operator ${id} on the record`);
    ctx.body = view;
  };

  const operatorList: Handler = async (ctx, query) => {
    const id = ctx.params.id!;
    if (!OPERATOR.test(id)) throw badRequest(`path: expected ${OPERATOR_FORM}, got ${JSON.stringify(id)}`);
    const list = listOf(ctx.params.list!, ['agents', ...WORK_LISTS] as const);
    const limit = limitParam(query, WORK_PAGE);
    const place = places.operator(id);
    const before = cursors.seq(query, place, list);
    if (!state.operators.has(id)) throw notFound(`no operator ${id} on the record`);
    const mint = cursors.mint(place);
    const page =
      list === 'agents'
        ? agentsPage(state, id, before, limit, mint)
        : await workPage(state, operatorWork(state, readers.index, id), list, before, limit, logged, mint);
    ctx.body = { operator: id, list, ...page };
  };

  const search: Handler = async (ctx, query) => {
    const asked = searchAsked(query, cursors);
    const { results, next } = await readers.search.search(asked.words, asked.f, asked.at, asked.limit);
    ctx.body = {
      q: asked.q,
      results: await Promise.all(results.map((r) => searchResult(state, r, asked.words, logged))),
      next: searchNext(cursors, asked, next),
    };
  };

  return { papers, agents, operators, agent, agentList, operator, operatorList, search };
}

/** The list a path names, or 400 naming `path`. */
function listOf<T extends string>(name: string, lists: readonly T[]): T {
  if (!(lists as readonly string[]).includes(name))
    throw badRequest(`path: expected a list, one of ${lists.join(', ')}, got ${JSON.stringify(name)}`);
  return name as T;
}
