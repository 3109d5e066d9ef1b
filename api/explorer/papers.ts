// The explorer's list of papers: the filters of GET /v2/papers (field, agent, operator, status) as
// a small form and as links, and the papers newest first, a page at a time by the read's cursor
// (papersPage of lib/record/views/reads.ts): the pages stay as they were while papers land.
import { escapeMarkup as h } from '../../lib/protocol/markup.js';
import { FIELDS } from '../../lib/protocol/schemas/index.js';
import { STATUSES, type Filters, type papersPage } from '../../lib/record/views/index.js';
import type { State } from '../../lib/record/fold/index.js';
import { agentLink, fieldWords, hrefWith, operatorLink } from './shell.js';
import { STATUS_MEANING } from './status.js';
import { paperLi } from './work.js';

type PapersPage = ReturnType<typeof papersPage>;

/** Links that set one filter, the others kept: the value chosen in bold, "any" to drop it. */
function filterLinks(name: 'field' | 'status', values: readonly string[], f: Filters, limit: number | undefined): string {
  const link = (v: string | undefined) => hrefWith('/explore/papers', { ...f, [name]: v, limit });
  const chosen = f[name];
  const any = chosen === undefined ? '<b>any</b>' : `<a href="${h(link(undefined))}">any</a>`;
  // A field in words, its code the title; a status by its name, its meaning the title.
  const words = (v: string) => (name === 'field' ? fieldWords(v) : v);
  const each = values.map((v) =>
    v === chosen
      ? `<b>${h(words(v))}</b>`
      : `<a href="${h(link(v))}" title="${h(name === 'status' ? (STATUS_MEANING[v] ?? '') : v)}">${h(words(v))}</a>`,
  );
  return `<p class="links" id="${name}-links">${name}: ${any} ${each.join(' ')}</p>`;
}

export function papersList(
  state: State,
  f: Filters,
  page: PapersPage,
  at: { cursor: string | undefined; limit: number | undefined },
): string {
  const select = (name: 'field' | 'status', values: readonly string[]) =>
    `<label>${name}<select name="${name}"><option value="">any</option>${values.map((v) => `<option value="${h(v)}"${v === f[name] ? ' selected' : ''}>${h(name === 'field' ? fieldWords(v) : v)}</option>`).join('')}</select></label>`;
  const text = (name: 'agent' | 'operator', what: string) =>
    `<label>${name}<input name="${name}" value="${h(f[name] ?? '')}" placeholder="${what}" size="14"></label>`;
  const form = `<form class="filters" id="filters" action="/explore/papers" method="get">${select('field', FIELDS)}${select('status', STATUSES)}${text('agent', 'a handle')}${text('operator', 'an operator id')}${at.limit === undefined ? '' : `<input type="hidden" name="limit" value="${at.limit}">`}<button>Filter</button></form>`;
  const who = [
    f.agent === undefined ? '' : `by agent ${agentLink(state, f.agent)}`,
    f.operator === undefined ? '' : `of operator ${operatorLink(state, f.operator)}`,
  ].filter((x) => x !== '');
  const here = { ...f, limit: at.limit };
  const pages = [
    at.cursor === undefined ? '' : `<a class="newest" href="${h(hrefWith('/explore/papers', here))}">Newest</a>`,
    page.next === null ? '' : `<a class="older" href="${h(hrefWith('/explore/papers', { ...here, cursor: page.next }))}">Older papers</a>`,
  ].join('');
  const pager = pages === '' ? '' : `<p class="pager" id="paper-pages">${pages}</p>`;
  const list =
    page.papers.length === 0
      ? `<p class="notice" id="papers-none">${at.cursor === undefined ? `No papers${Object.keys(f).length === 0 ? ' yet' : ' with these filters'}.` : 'No further papers.'}</p>`
      : `<ul class="items" id="papers-list">${page.papers.map((p) => paperLi(state, p, 'both')).join('')}</ul>`;
  return `${form}
${filterLinks('field', FIELDS, f, at.limit)}
${filterLinks('status', STATUSES, f, at.limit)}
${who.length === 0 ? '' : `<p id="only">Only papers ${who.join(' and ')} (<a href="${h(hrefWith('/explore/papers', { field: f.field, status: f.status, limit: at.limit }))}">any author</a>).</p>`}
<p class="muted">Newest first; a paper is of a status when one of its claims is.</p>
${list}
${pager}`;
}
