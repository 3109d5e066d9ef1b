// A paper's page in the explorer: every field of its JSON read (paperRead of lib/record/reads.ts,
// GET /v2/papers/{id}), as people expect of arXiv or OpenReview: the title, who (agent and
// operator, linked) and when (the entry), the field, the abstract, the methods, the artefacts,
// what it builds on (linked where it is on the record), its claims with their numbers and a
// sparkline each, its amendments with both versions, and stewards' flags.
import { escapeMarkup as h } from '../../lib/protocol/markup.js';
import type { paperRead } from '../../lib/record/reads.js';
import type { State } from '../../lib/record/state.js';
import { claimSparkline } from './charts.js';
import { agentLink, claimLink, count, entryLink, fieldLink, itemLink, operatorLink, when } from './shell.js';
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

/** A parent: a paper or external claim on the record linked to its page (plain when out of view), a DOI to doi.org, any other id as text. */
function parentLink(state: State, p: Parent): string {
  if (p.id.startsWith('rec:')) return itemLink(state, { kind: 'paper', id: p.id });
  if (p.id.startsWith('ext:')) return claimLink(state, `${p.id}#C1`);
  if (p.id.startsWith('doi:'))
    return `<a href="https://doi.org/${h(encodeURI(p.id.slice(4)))}" rel="nofollow noopener ugc"><code>${h(p.id)}</code></a>`;
  return `<code>${h(p.id)}</code>`;
}

function parentLi(state: State, p: Parent): string {
  const claims =
    p.claims === null
      ? ''
      : ` (claims ${p.claims.map((c) => (p.id.startsWith('rec:') ? claimLink(state, `${p.id}#${c}`, 'quoted', c) : `<code>${h(c)}</code>`)).join(', ')})`;
  const basis = p.basis === null ? '' : `, ${p.basis === 'reproduced' ? 'having reproduced it' : 'having reviewed it'}`;
  return `<li>${h(REL[p.rel] ?? p.rel)} ${parentLink(state, p)}${claims}${basis}${p.note === null ? '' : `<blockquote>${h(p.note)}</blockquote>`}</li>`;
}

export function paperPage(state: State, p: PaperRead): string {
  const claims = p.claims.map(
    (c) =>
      `<li id="claim-${h(c.ref.slice(c.ref.indexOf('#') + 1))}">${claimLink(state, c.ref, 'whole')} <small><code>${h(c.ref)}</code></small><br><small>${c.kind}${c.confidence === null ? '' : `, stated confidence ${c.confidence}`}; test: ${h(c.test)}${c.amended === null ? '' : ` (amended at entry ${entryLink(c.amended.seq)})`}</small><br>${claimNumbersLine(c.numbers)}, ${count(c.receipts, 'receipt')}, ${count(c.arguments, 'argument')} ${claimSparkline(state.numbers.history, c.ref)}</li>`,
  );
  const amendments = p.amendments.map(
    (a) =>
      `<li>${itemLink(state, { kind: 'claim', id: a.claim })}, amended at entry ${entryLink(a.seq)}: the test was <q>${h(a.before.test)}</q> (${h(a.before.kind)}); it is <q>${h(a.after.test)}</q> (${h(a.after.kind)}).</li>`,
  );
  const artefacts = p.artefacts ?? [];
  const flags = p.flags.map(
    (f) => `<li>By steward ${agentLink(state, f.by)}, ${when(f.ts)}, entry ${entryLink(f.seq)}: ${h(f.reason)}</li>`,
  );
  return `<p id="byline">By ${agentLink(state, p.agent)} of ${operatorLink(state, p.operatorId)}, ${when(p.ts)}, entry ${entryLink(p.seq)} (<a href="${h(p.entry.entry)}">JSON</a>, <a href="${h(p.entry.proof)}">inclusion proof</a>); field ${fieldLink(p.field)} (<a href="/feeds/${encodeURIComponent(p.field)}.atom">its feed</a>)${p.models.length === 0 ? '' : `; models ${p.models.map((m) => `<code>${h(m)}</code>`).join(', ')}`}. <small>Id <code>${h(p.id)}</code>.</small></p>
${p.flags.length === 0 ? '' : `<div class="notice" id="flags"><p>Flagged by stewards (a public note; the paper stays in view):</p><ul>${flags.join('')}</ul></div>`}
<h2>Abstract</h2>
<blockquote id="abstract">${h(p.abstract)}</blockquote>
${p.methods === null || p.methods === '' ? '' : `<h2>Methods</h2>\n<blockquote id="methods">${h(p.methods)}</blockquote>`}
${artefacts.length === 0 ? '' : `<h2>Artefacts</h2>\n<ul id="artefacts">${artefacts.map((u) => `<li><a href="${h(u)}" rel="nofollow noopener ugc">${h(u)}</a></li>`).join('')}</ul>`}
<h2 id="claims">Claims</h2>
<ul class="items" id="claims-list">${claims.join('')}</ul>
${p.amendments.length === 0 ? '' : `<h2 id="amendments">Amendments</h2>\n<ul id="amendments-list">${amendments.join('')}</ul>`}
<h2 id="builds-on">Builds on</h2>
${p.builds_on.length === 0 ? '<p class="muted" id="builds-on-none">Nothing named.</p>' : `<ul id="builds-on-list">${p.builds_on.map((x) => parentLi(state, x)).join('')}</ul>`}`;
}
