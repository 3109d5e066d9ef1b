// The explorer's pages of the readers' reads (papers, agents, operators, the search, challenges, governance proposals), each made
// from its JSON read's own view, with that read's filters and cursors (docs/api.md#the-explorer).
import { badRequest, isArchiveError, notFound } from '../../lib/protocol/errors.js';
import { bareChallengeId } from '../../lib/protocol/ids.js';
import { html } from '../explorer/html.js';
import {
  assertChallengeInView,
  assertItemInView,
  agentRead,
  agentsList,
  agentsPage,
  challengesPage,
  operatorRead,
  operatorsList,
  paperRead,
  papersPage,
  WORK_LISTS,
  WORK_PAGE,
  workPage,
  agentWork,
  operatorWork,
  PAGE,
  challengeView,
} from '../../lib/record/views/index.js';
import { governanceSummary, PROPOSALS_PAGE, proposalView } from '../../lib/record/governance/index.js';
import { COLUMNS_IN_PROSE, KINDS, searchResult, type SearchFilters } from '../../lib/service/search.js';
import { intParam, oneOfParam, type Query } from '../params.js';
import { limitParam, numbers, places, type Cursors } from '../paging.js';
import type { Handler, ReadEnv } from '../reads/read.js';
import { entryLookup } from '../../lib/service/logged.js';
import { FILTERS, filtersOf, HANDLE, OPERATOR, OPERATOR_FORM, SEARCH_PAGE, searchAsked, searchNext } from '../reader-query.js';
import { hrefWith, page, respond } from '../explorer/shell.js';
import { BUILT_ON_BY_LIMIT, paperPage } from '../explorer/paper.js';
import { papersList } from '../explorer/papers.js';
import { agentPage, operatorPage, type ListsPlace } from '../explorer/authors.js';
import { OPERATOR_LISTS, type OperatorList, type Served } from '../explorer/work.js';
import { searchForm, searchResults } from '../explorer/search.js';
import { challengePage, proposalPage } from '../explorer/governance.js';
import { agentsListPage, challengesList, governanceList, operatorsListPage, type ListAt } from '../explorer/lists.js';

const PAPER = /^rec:[0-9a-f]{16}$/;
const CHALLENGE = /^(ch:)?[0-9a-f]{16}$/;
const HASH = /^[0-9a-f]{64}$/;

/** A browser's form sends every field, the empty ones too: an empty filter is no filter. */
function dropEmpty(query: Query, names: readonly string[]): Query {
  for (const n of names) if (query.get(n) === '') query.delete(n);
  return query;
}

/** The query as a link's parameters (each given once: params() refused the rest), for the JSON read of the same list. */
const asLink = (query: Query, names: readonly string[]): Record<string, string | undefined> =>
  Object.fromEntries(names.map((n) => [n, query.get(n) as string | undefined]));

/** Where a list's page stands, as its links keep it: the cursor it came with, the limit unless the default. */
const listAt = (query: Query, limit: number, dflt: number): ListAt => ({
  cursor: query.get('cursor') as string | undefined,
  limit: limit === dflt ? undefined : limit,
});

/** Where each list of an agent's or operator's page starts: its cursor, in the parameter of the list's name (400 naming it). */
function listsPlace(
  query: Query,
  cursors: Cursors,
  place: string,
  lists: readonly OperatorList[],
): ListsPlace & { before: Partial<Record<OperatorList, number>> } {
  const given: ListsPlace['cursors'] = {};
  const before: Partial<Record<OperatorList, number>> = {};
  for (const list of lists) {
    const at = cursors.seq(query, place, list, list);
    if (at === null) continue;
    before[list] = at;
    given[list] = query.get(list) as string;
  }
  const limit = limitParam(query, WORK_PAGE);
  return { cursors: given, before, limit: limit === WORK_PAGE.default ? undefined : limit };
}

/** The handlers of the rows of these pages (api/reads/explorer.ts). */
export function explorerReaderReads({ d, record, readers, cursors }: ReadEnv) {
  const state = record.state;
  const { logged } = entryLookup(d.log);

  const papers: Handler = async (ctx, query) => {
    dropEmpty(query, FILTERS);
    const f = filtersOf(query);
    const place = places.papers(f);
    const before = cursors.seq(query, place, 'papers');
    const limit = limitParam(query);
    const json = hrefWith('/v2/papers', asLink(query, [...FILTERS, 'limit', 'cursor']));
    await respond(ctx, json, () =>
      page(
        'Papers',
        papersList(state, f, papersPage(state, readers.index, f, before, limit, cursors.mint(place)), {
          cursor: query.get('cursor') as string | undefined,
          limit: limit === PAGE.default ? undefined : limit,
        }),
        { json },
      ),
    );
  };

  const paper: Handler = async (ctx, query) => {
    const id = ctx.params.id!;
    if (!PAPER.test(id)) throw badRequest(`path: expected a paper id rec:<16 hex>, got ${JSON.stringify(id)}`);
    if (!state.papers.has(id)) throw notFound(`no paper ${id} on the record`);
    assertItemInView(state, id, 'path');
    // The papers that build on it, a page at a time by `before` (the seq below which the page starts).
    const before = query.has('before') ? intParam(query, 'before', { min: 0 }) : undefined;
    const limit = intParam(query, 'limit', { min: 1, max: 200, default: BUILT_ON_BY_LIMIT });
    const json = `/v2/papers/${id}`;
    await respond(ctx, json, async () => {
      const p = (await paperRead(state, id, logged))!;
      const children = (readers.index.builtOnBy.get(id) ?? []).map((row) => state.papers.keyAt(row));
      return page(p.title, paperPage(state, p, children, { before, limit }), { json, field: p.field });
    });
  };

  const agent: Handler = async (ctx, query) => {
    const handle = ctx.params.handle!;
    if (!HANDLE.test(handle)) throw badRequest(`path: expected a handle, got ${JSON.stringify(handle)}`);
    const mint = cursors.mint(places.agent(handle));
    const place = listsPlace(query, cursors, places.agent(handle), WORK_LISTS);
    if (!state.agents.has(handle)) throw notFound(`no agent ${handle} on the record`);
    const json = hrefWith(`/v2/agents/${handle}`, { limit: place.limit });
    await respond(ctx, json, async () => {
      const limit = place.limit ?? WORK_PAGE.default;
      const work = agentWork(state, readers.index, handle);
      // A list paged on goes on from its cursor; the others are the read's first pages.
      const [a, ...later] = await Promise.all([
        agentRead(state, readers.index, handle, limit, logged, mint),
        ...WORK_LISTS.map((l) => (place.before[l] === undefined ? null : workPage(state, work, l, place.before[l], limit, logged, mint))),
      ]);
      const view = a!;
      const lists = Object.fromEntries(WORK_LISTS.map((l, i) => [l, later[i] ?? view[l]])) as Record<(typeof WORK_LISTS)[number], Served>;
      return page(`Agent ${handle}`, agentPage(state, view, place, lists), { json });
    });
  };

  const operator: Handler = async (ctx, query) => {
    const id = ctx.params.id!;
    if (!OPERATOR.test(id)) throw badRequest(`path: expected ${OPERATOR_FORM}, got ${JSON.stringify(id)}`);
    const mint = cursors.mint(places.operator(id));
    const place = listsPlace(query, cursors, places.operator(id), OPERATOR_LISTS);
    if (!state.operators.has(id)) throw notFound(`no operator ${id} on the record`);
    const json = hrefWith(`/v2/operators/${encodeURIComponent(id)}`, { limit: place.limit });
    await respond(ctx, json, async () => {
      const limit = place.limit ?? WORK_PAGE.default;
      const work = operatorWork(state, readers.index, id);
      const [o, ...later] = await Promise.all([
        operatorRead(state, readers.index, id, limit, logged, mint),
        ...OPERATOR_LISTS.map((l) => {
          const before = place.before[l];
          if (before === undefined) return null;
          return l === 'agents' ? agentsPage(state, id, before, limit, mint) : workPage(state, work, l, before, limit, logged, mint);
        }),
      ]);
      const view = o!;
      const lists = Object.fromEntries(OPERATOR_LISTS.map((l, i) => [l, later[i] ?? view[l]])) as Record<OperatorList, Served>;
      return page(`Operator ${id}`, operatorPage(state, view, place, lists), { json });
    });
  };

  const search: Handler = async (ctx, query) => {
    dropEmpty(query, [...FILTERS, 'kind']);
    const names = ['q', ...FILTERS, 'kind', 'limit', 'cursor'];
    const q = query.get('q');
    // No words asked yet: the form alone (the JSON read needs words, so this page has no JSON).
    if (q === undefined || (typeof q === 'string' && q.trim() === '')) {
      // The filters are checked all the same, and kept in the form.
      const f: SearchFilters = filtersOf(query);
      const kind = oneOfParam(query, 'kind', KINDS);
      if (kind !== undefined) f.kind = kind;
      limitParam(query, SEARCH_PAGE);
      await respond(ctx, null, () =>
        page(
          'Search',
          html`${searchForm('', f)}<p id="search-help">Search ${COLUMNS_IN_PROSE}: whole words in any of their forms \
(<q>rate</q> finds <q>rates</q>), case and accents aside; every word must be there.</p>`,
          { json: null },
        ),
      );
      return;
    }
    const asked = searchAsked(query, cursors);
    const json = hrefWith('/v2/search', asLink(query, names));
    const title = `Search: ${asked.q}`;
    // At start the index is brought up to date in the background: a search waits a little for it (lib/service/search.ts),
    // then the page says so, with how far the build got, rather than hang.
    let building = false;
    await respond(ctx, json, async () => {
      let found;
      try {
        found = await readers.search.search(asked.words, asked.f, asked.at, asked.limit);
      } catch (err) {
        if (!(isArchiveError(err) && err.code === 'unavailable')) throw err;
        building = true;
        const { done, total, unit } = readers.search.progress;
        return page(
          title,
          html`${searchForm(asked.q, asked.f)}<div class="notice" id="building">\
<p>The search index is being built: the service started (or rebuilt its state) a moment ago, and has \
indexed ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${unit} so far. \
Nothing is searched until it holds them all.</p>\
<p><a href="${ctx.originalUrl}">Try again</a> in a few seconds. Meanwhile the <a href="/explore/papers">papers</a>, \
<a href="/explore">claims</a> and <a href="/explore/log">log</a> are there as ever.</p></div>`,
          { json, q: asked.q },
        );
      }
      const shown = await Promise.all(found.results.map((r) => searchResult(state, r, asked.words, logged)));
      const limit = asked.limit === SEARCH_PAGE.default ? undefined : asked.limit;
      return page(
        title,
        html`${searchForm(asked.q, asked.f)}${searchResults(state, asked, shown, searchNext(cursors, asked, found.next), limit)}`,
        {
          json,
          q: asked.q,
        },
      );
    });
    if (building) {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
    }
  };

  const challenges: Handler = async (ctx, query) => {
    const limit = limitParam(query);
    const all = query.get('all');
    if (all !== undefined && all !== '1') throw badRequest(`all: expected the string 1, got ${JSON.stringify(all)}`);
    const place = places.challenges(all === '1');
    const after = cursors.read(query, place, 'challenges', numbers(2)) as [number, number] | null;
    const at = listAt(query, limit, PAGE.default);
    const json = hrefWith('/v2/challenges', { limit: at.limit, all, cursor: at.cursor });
    const list = await challengesPage(state, all === '1', after, limit, logged, cursors.mint(place));
    await respond(ctx, json, () => page('Challenges', challengesList(state, list, all === '1', at), { json }));
  };

  const agents: Handler = async (ctx, query) => {
    const [before, limit] = [cursors.seq(query, places.agents, 'agents'), limitParam(query)];
    const at = listAt(query, limit, PAGE.default);
    const json = hrefWith('/v2/agents', { limit: at.limit, cursor: at.cursor });
    const list = agentsList(state, readers.index, before, limit, cursors.mint(places.agents));
    await respond(ctx, json, () => page('Agents', agentsListPage(state, list, at), { json }));
  };

  const operators: Handler = async (ctx, query) => {
    const [before, limit] = [cursors.seq(query, places.operators, 'operators'), limitParam(query)];
    const at = listAt(query, limit, PAGE.default);
    const json = hrefWith('/v2/operators', { limit: at.limit, cursor: at.cursor });
    const list = operatorsList(state, readers.index, before, limit, cursors.mint(places.operators));
    await respond(ctx, json, () => page('Operators', operatorsListPage(state, list, at), { json }));
  };

  const governance: Handler = async (ctx, query) => {
    const [before, limit] = [cursors.seq(query, places.governance, 'proposals'), limitParam(query, PROPOSALS_PAGE)];
    const at = listAt(query, limit, PROPOSALS_PAGE.default);
    const json = hrefWith('/v2/governance', { limit: at.limit, cursor: at.cursor });
    const summary = governanceSummary(state, cursors.mint(places.governance), before, limit);
    await respond(ctx, json, () => page('Governance', governanceList(state, summary, at), { json }));
  };

  const challenge: Handler = async (ctx) => {
    const raw = ctx.params.id!;
    if (!CHALLENGE.test(raw))
      throw badRequest(`path: expected a challenge id (16 lowercase hex, ch: optional), got ${JSON.stringify(raw)}`);
    const id = bareChallengeId(raw);
    const c = state.challenges.get(id);
    if (c === undefined) throw notFound(`no challenge ch:${id} on the record`);
    assertChallengeInView(state, id, 'path');
    const json = `/v2/challenges/ch:${id}`;
    await respond(ctx, json, async () => page(`Challenge ch:${id}`, challengePage(state, await challengeView(state, c, logged)), { json }));
  };

  const proposal: Handler = async (ctx) => {
    const id = ctx.params.id!;
    if (!HASH.test(id)) throw badRequest(`path: expected a proposal id (64 lowercase hex), got ${JSON.stringify(id)}`);
    const p = state.governance.proposals.get(id);
    if (p === undefined) throw notFound(`no proposal ${id} on the record`);
    const json = `/v2/governance/proposals/${id}`;
    await respond(ctx, json, () => page(`Proposal: ${p.title}`, proposalPage(state, proposalView(state, p)), { json }));
  };

  return { papers, paper, agent, operator, search, challenges, agents, operators, governance, challenge, proposal };
}
