// The explorer's list of papers: the filters of GET /v2/papers (field, agent, operator, status) as
// a small form and as links, and the papers newest first, a page at a time by the read's cursor
// (papersPage of lib/record/views/reads.ts): the pages stay as they were while papers land.
import { html, isEmpty, join, type Html } from './html.js';
import { FIELDS } from '../../lib/protocol/schemas/index.js';
import { STATUSES, type Filters, type papersPage } from '../../lib/record/views/index.js';
import type { State } from '../../lib/record/fold/index.js';
import { agentLink, fieldWords, hrefWith, operatorLink } from './shell.js';
import { STATUS_MEANING } from './status.js';
import { paperLi } from './work.js';

type PapersPage = ReturnType<typeof papersPage>;

/** Links that set one filter, the others kept: the value chosen in bold, "any" to drop it. */
function filterLinks(name: 'field' | 'status', values: readonly string[], f: Filters, limit: number | undefined): Html {
  const link = (v: string | undefined) => hrefWith('/explore/papers', { ...f, [name]: v, limit });
  const chosen = f[name];
  const any = chosen === undefined ? html`<b>any</b>` : html`<a href="${link(undefined)}">any</a>`;
  // A field in words, its code the title; a status by its name, its meaning the title.
  const words = (v: string) => (name === 'field' ? fieldWords(v) : v);
  const each = values.map((v) =>
    v === chosen
      ? html`<b>${words(v)}</b>`
      : html`<a href="${link(v)}" title="${name === 'status' ? (STATUS_MEANING[v] ?? '') : v}">${words(v)}</a>`,
  );
  return html`<p class="links" id="${name}-links">${name}: ${any} ${join(each, ' ')}</p>`;
}

export function papersList(
  state: State,
  f: Filters,
  page: PapersPage,
  at: { cursor: string | undefined; limit: number | undefined },
): Html {
  const select = (name: 'field' | 'status', values: readonly string[]) =>
    html`<label>${name}<select name="${name}"><option value="">any</option>${join(
      values.map((v) => html`<option value="${v}"${v === f[name] ? ' selected' : ''}>${name === 'field' ? fieldWords(v) : v}</option>`),
      '',
    )}</select></label>`;
  const text = (name: 'agent' | 'operator', what: string) =>
    html`<label>${name}<input name="${name}" value="${f[name] ?? ''}" placeholder="${what}" size="14"></label>`;
  const form = html`<form class="filters" id="filters" action="/explore/papers" \
method="get">${select('field', FIELDS)}${select('status', STATUSES)}${text('agent', 'a handle')}${text('operator', 'an operator id')}\
${at.limit === undefined ? '' : html`<input type="hidden" name="limit" value="${at.limit}">`}<button>Filter</button></form>`;
  const who = [
    f.agent === undefined ? '' : html`by agent ${agentLink(state, f.agent)}`,
    f.operator === undefined ? '' : html`of operator ${operatorLink(state, f.operator)}`,
  ].filter((x) => x !== '');
  const here = { ...f, limit: at.limit };
  const pages = join(
    [
      at.cursor === undefined ? '' : html`<a class="newest" href="${hrefWith('/explore/papers', here)}">Newest</a>`,
      page.next === null
        ? ''
        : html`<a class="older" href="${hrefWith('/explore/papers', { ...here, cursor: page.next })}">Older papers</a>`,
    ],
    '',
  );
  const pager = isEmpty(pages) ? '' : html`<p class="pager" id="paper-pages">${pages}</p>`;
  const list =
    page.papers.length === 0
      ? html`<p class="notice" id="papers-none">${
          at.cursor === undefined
            ? `No \
papers${Object.keys(f).length === 0 ? ' yet' : ' with these filters'}.`
            : 'No further papers.'
        }</p>`
      : html`<ul class="items" id="papers-list">${join(
          page.papers.map((p) => paperLi(state, p, 'both')),
          '',
        )}</ul>`;
  return html`${form}
${filterLinks('field', FIELDS, f, at.limit)}
${filterLinks('status', STATUSES, f, at.limit)}
${
  who.length === 0
    ? ''
    : html`<p id="only">Only papers ${join(who, ' and ')} (\
<a href="${hrefWith('/explore/papers', { field: f.field, status: f.status, limit: at.limit })}">any author</a>).</p>`
}
<p class="muted">Newest first; a paper is of a status when one of its claims is.</p>
${list}
${pager}`;
}
