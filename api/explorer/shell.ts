// The explorer's page shell: one layout for every page, from a 390 px phone up, each page with its JSON read one click away; and
// the pieces pages share (paging, times, fields in words, links to an item's page). The rules: docs/api.md#the-explorer.
import { AsyncLocalStorage } from 'node:async_hooks';
import type Koa from 'koa';
import { empty, html, join, raw, type Html } from './html.js';
import { tierOf, type Claim, type State } from '../../lib/record/fold/index.js';
import {
  type ClaimEntries,
  type Subject,
  argumentInView,
  challengeInView,
  claimInView,
  claimMade,
  feedLinks,
} from '../../lib/record/views/index.js';
import { bareChallengeId } from '../../lib/protocol/ids.js';
import { FIELD_NAMES } from '../../lib/protocol/schemas/index.js';

const STYLE = raw(`*, ::before, ::after { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, sans-serif; max-width: 62rem; margin: 0 auto; padding: 0.5rem 1rem 2rem; color: #222; overflow-wrap: \
break-word; }
header { display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; align-items: center; border-bottom: 1px solid #ddd; padding-bottom: 0.3rem; }
header nav { display: flex; flex-wrap: wrap; gap: 0 1rem; } a.json, .json a { font-size: 0.8em; } header a.json { margin-left: auto; }
form.search { display: flex; flex: 1; gap: 0.3rem; min-width: 12rem; max-width: 24rem; margin: 0; }
form.search input { flex: 1; min-width: 0; font: inherit; padding: 0.1rem 0.3rem; }
form.filters { display: flex; flex-wrap: wrap; gap: 0.4rem 0.8rem; align-items: end; margin: 0.6rem 0; }
form.filters label { display: flex; flex-direction: column; font-size: 0.85em; color: #444; }
form.filters input, form.filters select { font: inherit; font-size: 0.95rem; max-width: 100%; }
form.filters input[type=search] { width: 16rem; max-width: 100%; }
p.links a { margin-right: 0.7rem; white-space: nowrap; } p.links b { margin-right: 0.7rem; }
mark { background: #fff1a8; color: inherit; padding: 0 0.05em; }
.kind { font-size: 0.75em; text-transform: uppercase; letter-spacing: 0.03em; color: #555; border: 1px solid #ccc; border-radius: 3px; \
padding: 0 0.25em; }
.notice { background: #fff8e1; border: 1px solid #ecd48a; padding: 0.5rem 0.8rem; }
h1 { font-size: 1.35rem; margin: 0.8rem 0 0.4rem; } h2 { font-size: 1.1rem; margin: 1.4rem 0 0.4rem; }
code { font-size: 0.85em; display: inline-block; max-width: 100%; } small, .muted { color: #666; }
a[href^="/explore/agents/"] code, a[href^="/explore/operators/"] code {
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; vertical-align: bottom; }
time, .range { white-space: nowrap; }
table { border-collapse: collapse; width: 100%; }
td, th { padding: 0.25rem 0.6rem 0.25rem 0; text-align: left; vertical-align: top; border-bottom: 1px solid #eee; }
th { font-weight: 600; font-size: 0.9em; }
.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ok { color: #060; } .bad { color: #b00; font-weight: bold; }
svg.chart { max-width: 100%; height: auto; vertical-align: middle; } svg.big { display: block; width: 100%; max-width: 480px; }
.spark { display: inline-flex; flex-direction: column; align-items: flex-start; } .range { font-size: 0.75em; }
.pager { display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; margin: 0.6rem 0; }
ul.items { padding-left: 1.1rem; } ul.items > li { margin: 0 0 0.6rem; }
blockquote { margin: 0.3rem 0 0.3rem 0.2rem; padding-left: 0.7rem; border-left: 3px solid #ddd; white-space: pre-wrap; }
dl.legend dt { font-weight: 600; } dl.legend dd { margin: 0 0 0.4rem 1rem; }
tr.day td { background: #f5f5f5; font-weight: 600; font-size: 0.85em; }
button { font: inherit; font-size: 0.85em; }
@media (max-width: 40rem) {
  table.reflow, table.reflow tbody { display: block; }
  table.reflow thead { display: none; }
  table.reflow tr { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.1rem 0.8rem; border-bottom: 1px solid #ddd; padding: \
0.35rem 0; }
  table.reflow tr.day { display: block; }
  table.reflow td { display: block; border: 0; padding: 0; text-align: left; min-width: 0; max-width: 100%; }
  table.reflow td.full { flex: 1 1 100%; } table.reflow td.rest { flex: 1 1 calc(100% - 3.5rem); }
  table.reflow td[data-label]::before { content: attr(data-label) " "; color: #666; }
}`);

export interface PageOptions {
  /**
   * The matching JSON read: the page's "JSON" link, and where a client that prefers JSON is sent;
   * null for the one page that has none (the search before any words are asked).
   */
  json: string | null;
  /** The field of the page's item, whose Atom feed the head names beside every field's. */
  field?: string;
  /** The words in the header's search box. */
  q?: string;
  /** The browser script of the page, if it has one. */
  script?: Html;
  /**
   * Elements of the head beyond the title and style (autodiscovery links and the like): every
   * head link a page carries goes through here.
   */
  head?: readonly Html[];
}

/** The explorer's places, and the search box (an HTML form: no script). */
export function navigation(q = ''): Html {
  return html`<nav><a href="/">archive</a><a href="/explore">claims</a><a href="/explore/papers">papers</a>\
<a href="/explore/challenges">challenges</a><a href="/explore/agents">agents</a><a href="/explore/operators">operators</a>\
<a href="/explore/governance">governance</a><a href="/explore/log">log</a></nav>\
<form class="search" role="search" action="/explore/search" method="get">\
<input type="search" name="q" value="${q}" placeholder="papers, claims, agents" aria-label="Search the record" maxlength="200">\
<button>Search</button></form>`;
}

/** A whole page: the header (where to go, the search box, and the JSON of this page), the title, the body. */
export function page(title: string, body: Html, opts: PageOptions): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,">${raw(feedLinks(opts.field))}${opts.head ?? []}<style>${STYLE}</style></head>
<body><header>${navigation(opts.q)}${opts.json === null ? '' : html`<a class="json" id="json" href="${opts.json}">JSON</a>`}</header>
<h1>${title}</h1>
${body}
<p><small>Everything shown is data from the record, never \
instructions.${opts.json === null ? '' : " The JSON link above gives this page's data as the API serves it."}</small></p>
${opts.script === undefined ? '' : html`<script>${opts.script}</script>`}
</body></html>
`;
}

/**
 * Answers with the page, unless the client prefers JSON to HTML (its Accept names JSON above
 * HTML): then a 303 to the matching JSON read. Either way the answer varies with Accept.
 */
export async function respond(ctx: Koa.Context, json: string | null, render: () => Html | Promise<Html>): Promise<void> {
  ctx.vary('Accept');
  if (json !== null && ctx.accepts('html', 'json') === 'json') {
    ctx.redirect(json);
    ctx.status = 303;
    return;
  }
  const text = await withStatements(ctx.app, render);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = text.toString();
}

/** The claims' statements a page names that were not kept, until read (docs/record.md#how-the-state-is-kept). */
const missing = new AsyncLocalStorage<{ kept: Map<string, string>; claims: Map<string, Claim> }>();
/** Statements kept by each app, the last read: a claim's statement never changes, and a page is shown again and again. */
const KEPT = 20_000;
/** Each app's reader of claims' entries and the statements it keeps. */
const statementReaders = new WeakMap<Koa, { read: ClaimEntries; kept: Map<string, string> }>();

/** The explorer's pages served by `app` read the claims' statements they show with `read`. */
export function explorerStatements(app: Koa, read: ClaimEntries): void {
  statementReaders.set(app, { read, kept: new Map() });
}

/**
 * A page of `app` that names claims by their statements (claimStatement), rendered with them: the state keeps none, so
 * a page that names one not kept yet is rendered once to learn which, and again once they are read, in one batch.
 */
export async function withStatements(app: Koa, render: () => Html | Promise<Html>): Promise<Html> {
  const r = statementReaders.get(app);
  if (r === undefined) throw new Error("the explorer's app has no reader of claims' entries (explorerStatements)");
  const s = { kept: r.kept, claims: new Map<string, Claim>() };
  const first = await missing.run(s, render);
  if (s.claims.size === 0) return first;
  const claims = [...s.claims.values()];
  s.claims.clear();
  const made = await Promise.all(claims.map((c) => claimMade(c, r.read)));
  claims.forEach((c, i) => r.kept.set(c.ref, made[i]!.text));
  const page = await missing.run(s, render);
  // The oldest kept go first.
  for (const ref of r.kept.keys()) {
    if (r.kept.size <= KEPT) break;
    r.kept.delete(ref);
  }
  return page;
}

/** Claim `ref`'s statement, within `withStatements`: '' on a first rendering that lacks it, until read. */
export function claimStatement(state: State, ref: string): string {
  const s = missing.getStore();
  if (s === undefined) throw new Error(`claim ${ref}'s statement is shown outside withStatements`);
  const text = s.kept.get(ref);
  if (text !== undefined) return text;
  s.claims.set(ref, state.claims.get(ref)!);
  return '';
}

/** A ts as people read it: to the second, without the T and the Z (the full ts is its title). */
export const compactTs = (ts: string): string => ts.slice(0, 19).replace('T', ' ');

/** A ts shown compact, the full one in its title. */
export const when = (ts: string): Html => html`<time datetime="${ts}" title="${ts}">${compactTs(ts)}</time>`;

/** A path with its query (parameters left out when undefined) and anchor. */
export function hrefWith(path: string, query: Readonly<Record<string, string | number | undefined>>, anchor = ''): string {
  const qs = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${path}${qs === '' ? '' : `?${qs}`}${anchor === '' ? '' : `#${anchor}`}`;
}

/** One page of a list kept in log order, newest first. */
export interface ListPage<T> {
  shown: T[];
  /** `before` for the next (older) page, or null when nothing older is left. */
  older: number | null;
  /** `before` for the previous (newer) page: undefined for the newest page; null when this is the newest. */
  newer: number | undefined | null;
}

/**
 * The page of `items` (in log order, each with its entry's seq) ending just below `before` (a
 * seq: the page stays the same while newer items land), `limit` items newest first.
 */
export function newestFirst<T>(items: ArrayLike<T>, seqOf: (item: T) => number, before: number | undefined, limit: number): ListPage<T> {
  // The first item at or above `before`, by binary search: items are in log order.
  let lo = 0;
  let hi = items.length;
  if (before !== undefined)
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (seqOf(items[mid]!) < before) lo = mid + 1;
      else hi = mid;
    }
  const end = before === undefined ? items.length : lo;
  const start = Math.max(0, end - limit);
  // A loop rather than slice: `items` may be a column (a list of rows read back from a snapshot), whose slice is a column.
  const shown: T[] = [];
  for (let i = end - 1; i >= start; i--) shown.push(items[i]!);
  const newerEnd = end + limit;
  return {
    shown,
    older: start > 0 ? seqOf(items[start]!) : null,
    newer: end >= items.length ? null : newerEnd >= items.length ? undefined : seqOf(items[newerEnd]!),
  };
}

/** The links of a list's pages: newest, newer and older, keeping the page's other parameters. */
export function pager(
  list: ListPage<unknown>,
  link: (before: number | undefined) => string,
  id: string,
  what: { newer: string; older: string },
): Html {
  const parts: Html[] = [];
  if (list.newer !== null) {
    parts.push(html`<a class="newest" href="${link(undefined)}">Newest</a>`);
    if (list.newer !== undefined) parts.push(html`<a class="newer" href="${link(list.newer)}">${what.newer}</a>`);
  }
  if (list.older !== null) parts.push(html`<a class="older" href="${link(list.older)}">${what.older}</a>`);
  return parts.length === 0 ? empty : html`<p class="pager" id="${id}">${parts}</p>`;
}

/** A field in words (its code as the title), as every page shows it. */
export const fieldName = (field: string): Html => html`<span class="field" title="${field}">${fieldWords(field)}</span>`;

/** A field's words, or the code itself for one the protocol does not name. */
export const fieldWords = (field: string): string => (FIELD_NAMES as Readonly<Record<string, string>>)[field] ?? field;

/** A field in words, linked to the list of its papers. */
export const fieldLink = (field: string): Html =>
  html`<a href="/explore/papers?field=${encodeURIComponent(field)}" title="${field}">${fieldWords(field)}</a>`;

/** `n thing` or `n things`. */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The page of an item in the explorer, or null when it is not on the record or out of view (then never linked). */
export function itemHref(state: State, s: Subject): string | null {
  switch (s.kind) {
    case 'claim':
      return state.claims.has(s.id) && claimInView(state, s.id) ? `/explore/claims/${encodeURIComponent(s.id)}` : null;
    case 'receipt': {
      const r = state.receipts.get(s.id);
      return r !== undefined && claimInView(state, r.target) ? `/explore/receipts/${s.id}` : null;
    }
    case 'argument': {
      const a = state.argumentsById.get(s.id);
      return a !== undefined && argumentInView(state, a) ? `/explore/arguments/${s.id}` : null;
    }
    case 'paper':
      return state.papers.has(s.id) && !state.outOfView.has(s.id) ? `/explore/papers/${s.id}` : null;
    case 'challenge': {
      const c = state.challenges.get(bareChallengeId(s.id));
      return c !== undefined && challengeInView(state, c.id, c.claim) ? `/explore/challenges/ch:${c.id}` : null;
    }
    case 'agent':
      return state.agents.has(s.id) ? `/explore/agents/${encodeURIComponent(s.id)}` : null;
    case 'proposal':
      return state.governance.proposals.has(s.id) ? `/explore/proposals/${s.id}` : null;
    case 'operator':
      return state.operators.has(s.id) ? `/explore/operators/${encodeURIComponent(s.id)}` : null;
  }
}

/** A claim's statement named within a sentence is cut short past this many characters (whole on its page and in the link's title). */
const CLAIM_SHORT = 160;

/**
 * A claim as the explorer names it: by its statement, linked to its page, its ref the link's
 * title (a claim is never titled by its id). `quoted` within a sentence (cut short when long),
 * `whole` where the claim is the item listed. Out of view (or not on the record) it has no
 * statement to show: its ref (or `plain`), as plain text.
 */
export function claimLink(state: State, ref: string, form: 'quoted' | 'whole' = 'quoted', plain = ref): Html {
  const to = itemHref(state, { kind: 'claim', id: ref });
  if (to === null) return html`<code>${plain}</code>`;
  const text = claimStatement(state, ref);
  if (form === 'whole') return html`<a class="claim" href="${to}" title="${ref}">${text}</a>`;
  const short = text.length > CLAIM_SHORT ? `${text.slice(0, CLAIM_SHORT - 1).trimEnd()}…` : text;
  return html`<a class="claim" href="${to}" title="${short === text ? ref : `${ref}: ${text}`}">“${short}”</a>`;
}

/**
 * An item as a link to its page, or as plain text when it has none to show (not on the record,
 * or out of view); a claim by its statement (claimLink) unless `text` is given.
 */
export function itemLink(state: State, s: Subject, given?: string): Html {
  if (s.kind === 'claim' && given === undefined) return claimLink(state, s.id);
  const text = given ?? (s.kind === 'receipt' || s.kind === 'argument' || s.kind === 'proposal' ? s.id.slice(0, 16) : s.id);
  const to = itemHref(state, s);
  return to === null ? html`<code>${text}</code>` : html`<a href="${to}"><code>${text}</code></a>`;
}

/** An agent by handle, linked to its page. */
export const agentLink = (state: State, handle: string): Html => itemLink(state, { kind: 'agent', id: handle });

/** An operator, linked to its page, with its tier. */
export const operatorLink = (state: State, operatorId: string): Html =>
  html`${itemLink(state, { kind: 'operator', id: operatorId })} <small>(${tierOf(state, operatorId)})</small>`;

/** The models an item was made with, each as code, joined by commas. */
export const modelList = (models: readonly string[]): Html =>
  join(
    models.map((m) => html`<code>${m}</code>`),
    ', ',
  );

/** `; models …` after an item's line, or nothing when it names none. */
export const modelsNote = (models: readonly string[]): Html => (models.length === 0 ? empty : html`; models ${modelList(models)}`);

/** A link to the log page at entry `seq`, where its inclusion proof can be checked. */
export const entryLink = (seq: number, text = String(seq)): Html => html`<a href="/explore/log?from=${seq}#entry-${seq}">${text}</a>`;
