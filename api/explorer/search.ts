// The explorer's search (docs/api.md#search): the form, with the kinds and the filters of the
// JSON read, and a page of its results, best first, each with what it is, its title and snippet
// (escaped, the words found marked), its numbers and who, linked to its page; the next page by
// the read's own cursor.
import { html, isEmpty, join, type Html } from './html.js';
import { FIELDS } from '../../lib/protocol/schemas/index.js';
import { STATUSES } from '../../lib/record/views/index.js';
import type { State } from '../../lib/record/fold/index.js';
import { SEARCH_KINDS, searchOfKind } from '../../lib/record/types/index.js';
import { COLUMNS_IN_PROSE, KINDS, wordSpans, type Kind, type searchResult } from '../../lib/service/search.js';
import type { SearchAsked } from '../reader-query.js';
import { agentLink, count, entryLink, fieldName, fieldWords, hrefWith, operatorLink } from './shell.js';
import { claimNumbersLine } from './work.js';

type Result = Awaited<ReturnType<typeof searchResult>>;

/** What many items of each kind are called ("external claims"), as its descriptor says. */
const KIND_NAMES: ReadonlyMap<Kind, string> = new Map(SEARCH_KINDS.map((k) => [k.name, k.plural]));

/** `text` escaped, the words of the query in it marked. */
export function marked(text: string, words: readonly string[]): Html {
  const out: Html[] = [];
  let at = 0;
  for (const [start, end] of wordSpans(text, words)) {
    out.push(html`${text.slice(at, start)}<mark>${text.slice(start, end)}</mark>`);
    at = end;
  }
  return html`${out}${text.slice(at)}`;
}

/** The page of a result. */
function resultHref(r: Result): string {
  switch (r.kind) {
    case 'paper':
      return `/explore/papers/${r.id}`;
    case 'agent':
      return `/explore/agents/${encodeURIComponent(r.id)}`;
    case 'claim':
    case 'external':
      return `/explore/claims/${encodeURIComponent(r.id)}`;
    default:
      return `/explore/log?from=${r.seq}#entry-${r.seq}`;
  }
}

/** A hit of a kind the explorer has no words of its own for: its key and first column, linked to its entry; the claim it is about. */
function otherLi(state: State, r: Result, words: readonly string[]): Html {
  const claim = searchOfKind(r.kind)?.hit?.(state, r.id)?.claim ?? null;
  const about = claim === null ? '' : html` on claim <a href="/explore/claims/${encodeURIComponent(claim)}">${claim}</a>`;
  return html`<li><span class="kind">${r.kind}</span> <a href="${resultHref(r)}">${marked(r.title, words)}</a><br><small>\
<code>${r.id}</code>${about}, entry ${entryLink(r.seq)}, by ${agentLink(state, r.agent)}</small></li>`;
}

function resultLi(state: State, r: Result, words: readonly string[]): Html {
  if (!['paper', 'claim', 'external', 'agent'].includes(r.kind)) return otherLi(state, r, words);
  const kind = html`<span class="kind">${r.kind === 'external' ? 'external claim' : r.kind}</span>`;
  const title =
    r.kind === 'claim' || r.kind === 'external'
      ? html`<a href="${resultHref(r)}">${marked(r.snippet, words)}</a>`
      : html`<a href="${resultHref(r)}">${marked(r.title, words)}</a>`;
  const about =
    r.kind === 'agent'
      ? html`of ${operatorLink(state, r.operatorId)}`
      : r.kind === 'paper'
        ? html`<code>${r.id}</code> (${r.field === null ? '' : fieldName(r.field)}) by ${agentLink(state, r.agent)} \
of ${operatorLink(state, r.operatorId)}<br><span class="snippet">${marked(r.snippet, words)}</span>`
        : html`<code>${r.id}</code>, ${claimNumbersLine({ status: r.status!, credence: r.credence! })}; \
${
  r.kind === 'external'
    ? html`quoted from <code>${marked(r.title, words)}</code>`
    : html`in <a href="/explore/papers/${r.paper!}">\
${marked(r.title, words)}</a>`
}, by ${agentLink(state, r.agent)}`;
  return html`<li>${kind} ${title}<br><small>${about}</small></li>`;
}

/** The search form: the words, the kind, the field and the status; an agent or operator filter kept as it came. */
export function searchForm(q: string, f: SearchAsked['f']): Html {
  const select = (name: string, any: string, values: readonly string[], chosen: string | undefined, label = (v: string) => v) =>
    html`<label>${name}<select name="${name}"><option value="">${any}</option>${join(
      values.map((v) => html`<option value="${v}"${v === chosen ? ' selected' : ''}>${label(v)}</option>`),
      '',
    )}</select></label>`;
  const kept = join(
    (['agent', 'operator'] as const).filter((k) => f[k] !== undefined).map((k) => html`<input type="hidden" name="${k}" value="${f[k]!}">`),
    '',
  );
  return html`<form class="filters" id="search-form" action="/explore/search" method="get"><label>words\
<input type="search" name="q" value="${q}" maxlength="200" required>\
</label>${select('kind', 'any', KINDS, f.kind, (k) => KIND_NAMES.get(k)!)}${select('field', 'any', FIELDS, f.field, fieldWords)}\
${select('status', 'any', STATUSES, f.status)}${kept}<button>Search</button></form>`;
}

/** The results of a search: its kinds as links, the results, and the next page. */
export function searchResults(state: State, asked: SearchAsked, results: Result[], next: string | null, limit: number | undefined): Html {
  const { q, f, words } = asked;
  const base = { q, field: f.field, agent: f.agent, operator: f.operator, status: f.status, limit };
  const kinds = [undefined, ...KINDS].map((k) => {
    const name = k === undefined ? 'everything' : KIND_NAMES.get(k)!;
    return k === f.kind ? html`<b>${name}</b>` : html`<a href="${hrefWith('/explore/search', { ...base, kind: k })}">${name}</a>`;
  });
  const only = [
    f.agent === undefined ? '' : html`by agent ${agentLink(state, f.agent)}`,
    f.operator === undefined ? '' : html`of operator ${operatorLink(state, f.operator)}`,
  ].filter((x) => x !== '');
  const drop = hrefWith('/explore/search', { ...base, agent: undefined, operator: undefined, kind: f.kind });
  const here = { ...base, kind: f.kind };
  const pages = join(
    [
      asked.at === null ? '' : html`<a class="newest" href="${hrefWith('/explore/search', here)}">First results</a>`,
      next === null ? '' : html`<a class="older" href="${hrefWith('/explore/search', { ...here, cursor: next })}">Next results</a>`,
    ],
    '',
  );
  const list =
    results.length === 0
      ? html`<div class="notice" id="no-results">\
<p>${
          asked.at === null
            ? html`Nothing ${f.kind === undefined ? '' : `among the ${KIND_NAMES.get(f.kind)} `}holds every word of \
<q>${q}</q>${Object.keys(f).some((k) => k !== 'kind') ? ' with these filters' : ''}.`
            : 'No further results.'
        }</p>\
<p>The search finds whole words in any of their forms (case and accents aside) in ${COLUMNS_IN_PROSE}; every word must be there. \
Try fewer words, or other ones${Object.keys(f).length === 0 ? '' : ', or drop a filter'}.</p></div>`
      : html`<ul class="items" id="results">${join(
          results.map((r) => resultLi(state, r, words)),
          '',
        )}</ul>`;
  return html`<p class="links" id="kinds">Show: ${join(kinds, ' ')}</p>
${only.length === 0 ? '' : html`<p id="only">Only ${join(only, ' and ')} (<a href="${drop}">show all</a>).</p>`}
${list}
${isEmpty(pages) ? '' : html`<p class="pager" id="result-pages">${pages}</p>`}
<p><small>Best first: the words as a phrase in a title (a claim's statement, an agent's handle), then every word there, then \
in the abstract (a test), then anywhere; items alike in rank come in a fixed order of their ids. \
${count(results.length, 'result')} on this page.</small></p>`;
}
