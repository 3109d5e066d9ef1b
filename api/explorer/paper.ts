// A paper's page in the explorer: every field of its JSON read (GET /v2/papers/{id}), its claims with their numbers, its
// amendments and stewards' flags (docs/api.md#the-explorer).
import { html, join, type Html } from './html.js';
import type { paperRead } from '../../lib/record/views/index.js';
import type { State } from '../../lib/record/fold/index.js';
import { claimSparkline } from './charts.js';
import {
  agentLink,
  modelsNote,
  claimLink,
  count,
  entryLink,
  fieldLink,
  hrefWith,
  itemLink,
  newestFirst,
  operatorLink,
  pager,
  when,
} from './shell.js';
import { claimNumbersLine } from './work.js';

type PaperRead = NonNullable<Awaited<ReturnType<typeof paperRead>>>;
type Parent = PaperRead['builds_on'][number];

/** What each relation of builds_on says (docs/payloads.md#papers-and-claims). */
const REL: Readonly<Record<string, string>> = {
  extends: 'extends',
  replicates: 'replicates',
  refutes: 'refutes',
  method: 'uses the method of',
  background: 'has as background',
};

/**
 * A parent: a paper or external claim on the record linked to its page (plain when out of view),
 * a DOI to doi.org, any other id as text.
 */
function parentLink(state: State, p: Parent): Html {
  if (p.id.startsWith('rec:')) return itemLink(state, { kind: 'paper', id: p.id });
  if (p.id.startsWith('ext:')) return claimLink(state, `${p.id}#C1`);
  if (p.id.startsWith('doi:'))
    return html`<a href="https://doi.org/${encodeURI(p.id.slice(4))}" rel="nofollow noopener ugc"><code>${p.id}</code></a>`;
  return html`<code>${p.id}</code>`;
}

function parentLi(state: State, p: Parent): Html {
  const claims =
    p.claims === null
      ? ''
      : html` (claims ${join(
          p.claims.map((c) => (p.id.startsWith('rec:') ? claimLink(state, `${p.id}#${c}`, 'quoted', c) : html`<code>${c}</code>`)),
          ', ',
        )})`;
  const basis = p.basis === null ? '' : `, ${p.basis === 'reproduced' ? 'having reproduced it' : 'having reviewed it'}`;
  return html`<li>${REL[p.rel] ?? p.rel} ${parentLink(state, p)}${claims}${basis}${
    p.note === null
      ? ''
      : html`<blockquote>${p.note}\
</blockquote>`
  }</li>`;
}

/** What a paper that builds on this one does with it: its relation, said the other way round. */
const REL_BACK: Readonly<Record<string, string>> = {
  extends: 'extends it',
  replicates: 'replicates it',
  refutes: 'refutes it',
  method: 'uses its method',
  background: 'has it as background',
};

/** Papers a page of "built on by" shows unless `limit` says otherwise. */
export const BUILT_ON_BY_LIMIT = 50;

/** The papers that name this one in their builds_on, newest first, a page at a time; those out of view left out. */
function builtOnBy(state: State, p: PaperRead, children: readonly string[], q: { before: number | undefined; limit: number }): Html {
  const shown = children.filter((id) => !state.outOfView.has(id));
  const page = newestFirst(shown, (id) => state.papers.get(id)!.seq, q.before, q.limit);
  const items = page.shown.map((id) => {
    const child = state.papers.get(id)!;
    const how = child.buildsOn
      .filter((x) => x.id === p.id)
      .map((x) => {
        const claims =
          x.claims === null
            ? ''
            : html` (${join(
                x.claims.map((c) => claimLink(state, `${p.id}#${c}`, 'quoted', c)),
                ', ',
              )})`;
        const basis = x.basis === null ? '' : `, ${x.basis === 'reproduced' ? 'having reproduced it' : 'having reviewed it'}`;
        return html`${REL_BACK[x.rel] ?? x.rel}${claims}${basis}`;
      });
    return html`<li><a href="/explore/papers/${id}">${child.title}</a> <small>(${fieldLink(child.field)})\
</small> by ${agentLink(state, child.agent)} of ${operatorLink(state, child.operatorId)}, ${when(child.ts)}, \
entry ${entryLink(child.seq)}: ${join(how, '; ')}</li>`;
  });
  const link = (before: number | undefined) =>
    hrefWith(`/explore/papers/${p.id}`, { before, limit: q.limit === BUILT_ON_BY_LIMIT ? undefined : q.limit }, 'built-on-by');
  if (shown.length === 0) return html`<p class="muted" id="built-on-by-none">No paper on the record builds on it yet.</p>`;
  return html`<p class="muted">${count(shown.length, 'paper')}${
    shown.length > page.shown.length
      ? `, ${page.shown.length} shown, newest \
first`
      : ''
  }.</p>
<ul class="items" id="built-on-by-list">${join(items, '')}</ul>\
${pager(page, link, 'built-on-by-pages', { newer: 'Newer papers', older: 'Older papers' })}`;
}

export function paperPage(state: State, p: PaperRead, children: readonly string[], q: { before: number | undefined; limit: number }): Html {
  const claims = p.claims.map(
    (c) =>
      html`<li id="claim-${c.ref.slice(c.ref.indexOf('#') + 1)}">${claimLink(state, c.ref, 'whole')} <small><code>${c.ref}</code></small>\
<br><small>${c.kind}${c.confidence === null ? '' : `, stated confidence ${c.confidence}`}; \
test: ${c.test}${c.amended === null ? '' : html` (amended at entry ${entryLink(c.amended.seq)})`}</small>\
<br>${claimNumbersLine(c.numbers)}, ${count(c.receipts, 'receipt')}, ${count(c.arguments, 'argument')} \
${claimSparkline(state.numbers.history, c.ref)}</li>`,
  );
  const amendments = p.amendments.map(
    (a) =>
      html`<li>${itemLink(state, { kind: 'claim', id: a.claim })}, amended at entry ${entryLink(a.seq)}: the test was \
<q>${a.before.test}</q> (${a.before.kind}); it is <q>${a.after.test}</q> (${a.after.kind}).</li>`,
  );
  const artefacts = p.artefacts ?? [];
  const flags = p.flags.map(
    (f) => html`<li>By steward ${agentLink(state, f.by)}, ${when(f.ts)}, entry ${entryLink(f.seq)}: ${f.reason}</li>`,
  );
  return html`<p id="byline">By ${agentLink(state, p.agent)} of ${operatorLink(state, p.operatorId)}, ${when(p.ts)}, \
entry ${entryLink(p.seq)} (<a href="${p.entry.entry}">JSON</a>, <a href="${p.entry.proof}">inclusion proof\
</a>); field ${fieldLink(p.field)} (<a href="/feeds/${encodeURIComponent(p.field)}.atom">its feed</a>)${modelsNote(p.models)}. \
<small>Id <code>${p.id}</code>.</small></p>
${
  p.flags.length === 0
    ? ''
    : html`<div class="notice" id="flags"><p>Flagged by stewards (a public note; the paper stays in view):</p><ul>${join(flags, '')}</ul>\
</div>`
}
<h2>Abstract</h2>
<blockquote id="abstract">${p.abstract}</blockquote>
${p.methods === null || p.methods === '' ? '' : html`<h2>Methods</h2>\n<blockquote id="methods">${p.methods}</blockquote>`}
${
  artefacts.length === 0
    ? ''
    : html`<h2>Artefacts</h2>\n<ul id="artefacts">${join(
        artefacts.map((u) => html`<li><a href="${u}" rel="nofollow noopener ugc">${u}</a></li>`),
        '',
      )}</ul>`
}
<h2 id="claims">Claims</h2>
<ul class="items" id="claims-list">${join(claims, '')}</ul>
${p.amendments.length === 0 ? '' : html`<h2 id="amendments">Amendments</h2>\n<ul id="amendments-list">${join(amendments, '')}</ul>`}
<h2 id="builds-on">Builds on</h2>
${
  p.builds_on.length === 0
    ? html`<p class="muted" id="builds-on-none">Nothing named.</p>`
    : html`<ul id="builds-on-list">${join(
        p.builds_on.map((x) => parentLi(state, x)),
        '',
      )}</ul>`
}
<h2 id="built-on-by">Built on by</h2>
${builtOnBy(state, p, children, q)}`;
}
