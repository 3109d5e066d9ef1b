// The readers' reads (docs/api.md#the-records-reads): the list of papers, the lists of agents and
// of operators, an agent and an operator with their work, and the search (docs/api.md#search).
// Every list is a page with a cursor (docs/api.md#lists-and-cursors); items out of view never appear.
import Router from '@koa/router';
import { badRequest, notFound } from '../../lib/protocol/errors.js';
import type { Deployment } from '../../lib/service/deployment.js';
import type { LiveRecord } from '../../lib/service/live-record.js';
import type { Readers } from '../../lib/service/readers.js';
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
import { params } from '../params.js';
import { limitParam, places, type Cursors } from '../paging.js';
import { loggedReader } from '../logged.js';
import { FILTERS, filtersOf, HANDLE, OPERATOR, OPERATOR_FORM, searchAsked, searchNext } from '../reader-query.js';

export function readerRoutes(d: Deployment, record: LiveRecord, readers: Readers, cursors: Cursors): Router {
  const router = new Router();
  const state = record.state;
  const logged = loggedReader(d);

  router.get('/v2/papers', (ctx) => {
    const query = params(ctx, [...FILTERS, 'limit', 'cursor']);
    const f = filtersOf(query);
    const place = places.papers(f);
    ctx.body = papersPage(state, readers.index, f, cursors.seq(query, place, 'papers'), limitParam(query), cursors.mint(place));
  });

  router.get('/v2/agents', (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
    ctx.body = agentsList(
      state,
      readers.index,
      cursors.seq(query, places.agents, 'agents'),
      limitParam(query),
      cursors.mint(places.agents),
    );
  });

  router.get('/v2/operators', (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
    ctx.body = operatorsList(
      state,
      readers.index,
      cursors.seq(query, places.operators, 'operators'),
      limitParam(query),
      cursors.mint(places.operators),
    );
  });

  router.get('/v2/agents/:handle', async (ctx) => {
    const query = params(ctx, ['limit']);
    const handle = ctx.params.handle!;
    if (!HANDLE.test(handle)) throw badRequest(`path: expected a handle, got ${JSON.stringify(handle)}`);
    const limit = limitParam(query, WORK_PAGE);
    const view = await agentRead(state, readers.index, handle, limit, logged, cursors.mint(places.agent(handle)));
    if (view === undefined) throw notFound(`no agent ${handle} on the record`);
    ctx.body = view;
  });

  router.get('/v2/agents/:handle/:list', async (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
    const handle = ctx.params.handle!;
    if (!HANDLE.test(handle)) throw badRequest(`path: expected a handle, got ${JSON.stringify(handle)}`);
    const list = listOf(ctx.params.list!, WORK_LISTS);
    const limit = limitParam(query, WORK_PAGE);
    const place = places.agent(handle);
    const before = cursors.seq(query, place, list);
    if (!state.agents.has(handle)) throw notFound(`no agent ${handle} on the record`);
    const page = await workPage(state, agentWork(readers.index, handle), list, before, limit, logged, cursors.mint(place));
    ctx.body = { agent: handle, list, ...page };
  });

  router.get('/v2/operators/:id', async (ctx) => {
    const query = params(ctx, ['limit']);
    const id = ctx.params.id!;
    if (!OPERATOR.test(id)) throw badRequest(`path: expected ${OPERATOR_FORM}, got ${JSON.stringify(id)}`);
    const view = await operatorRead(state, readers.index, id, limitParam(query, WORK_PAGE), logged, cursors.mint(places.operator(id)));
    if (view === undefined) throw notFound(`no operator ${id} on the record`);
    ctx.body = view;
  });

  router.get('/v2/operators/:id/:list', async (ctx) => {
    const query = params(ctx, ['limit', 'cursor']);
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
        : await workPage(state, operatorWork(readers.index, id), list, before, limit, logged, mint);
    ctx.body = { operator: id, list, ...page };
  });

  router.get('/v2/search', async (ctx) => {
    const query = params(ctx, ['q', ...FILTERS, 'kind', 'limit', 'cursor']);
    const asked = searchAsked(query, cursors);
    const { results, next } = await readers.search.search(asked.words, asked.f, asked.at, asked.limit);
    ctx.body = {
      q: asked.q,
      results: await Promise.all(results.map((r) => searchResult(state, r, asked.words, logged))),
      next: searchNext(cursors, asked, next),
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
