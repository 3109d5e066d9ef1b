// A receipt's page and an argument's page in the explorer: everything their JSON reads serve
// (receiptView, argumentView of lib/record/views/items.ts), dated and linked to the claim, to the
// receipts that cross-checked them and to their entries in the log.
import { html, join, type Html } from './html.js';
import { receiptView, type argumentView } from '../../lib/record/views/index.js';
import type { Receipt, State } from '../../lib/record/fold/index.js';
import { agentLink, modelsNote, claimLink, count, operatorLink, entryLink, hrefWith, itemLink, newestFirst, pager, when } from './shell.js';
import { argumentStatusMeaning } from './status.js';
import { countsMark } from './counts.js';
import { receiptCounting } from '../../lib/record/numbers/index.js';
import type { EntryLookup } from '../../lib/service/logged.js';

/** What each stage of a receipt means (docs/record.md#receipts-seeds-and-cross-checks). */
const STAGE_MEANING: Readonly<Record<string, string>> = {
  committed: 'committed: waiting for the service to seal it with a seed',
  sealed: 'sealed: the seed is issued, the result is due before the deadline',
  resulted: 'resulted',
  lapsed: 'lapsed: no result came before the deadline',
};

/** Re-runs a receipt's page shows unless `limit` says otherwise. */
export const RERUNS_LIMIT = 20;

export function receiptPage(state: State, r: Receipt, q: { before: number | undefined; limit: number }): Html {
  const v = receiptView(state, r);
  const counts = receiptCounting(state, r);
  const outputs =
    v.outputs !== null
      ? html`<code>${JSON.stringify(v.outputs)}</code>${
          v.revealedSeq === null
            ? ''
            : html` (shown from \
entry ${entryLink(v.revealedSeq)})`
        }`
      : v.outcome === null
        ? 'none yet'
        : 'sealed until another receipt cross-checks it, or 30 days after its result';
  const crossCheck =
    v.crossCheck === null
      ? 'none assigned'
      : html`its seal assigned it to re-run ${itemLink(state, { kind: 'receipt', id: v.crossCheck.receipt })}: \
<b id="cross-match">${v.crossCheck.match === null ? 'no result yet' : v.crossCheck.match ? 'matched' : 'did not match'}</b>\
${v.crossCheck.outputs === null ? '' : html`, with outputs <code>${JSON.stringify(v.crossCheck.outputs)}</code>`}`;
  // Who re-ran it in their cross-check, in one list paged newest first, each said to verify it,
  // dispute it, or (an operator not verified) to be shown apart.
  const rerunBy = [
    ...v.verifiedBy.map((x) => ({ ...x, verdict: 'matched: verifies it' })),
    ...v.disputedBy.map((x) => ({ ...x, verdict: 'did not match: disputes it' })),
    ...v.unverifiedReruns.map((x) => ({
      ...x,
      verdict: `${x.match ? 'matched' : 'did not match'}, an operator not verified: shown apart`,
    })),
  ].sort((a, b) => a.seq - b.seq);
  const reruns = newestFirst(rerunBy, (x) => x.seq, q.before, q.limit);
  const link = (before: number | undefined) =>
    hrefWith(`/explore/receipts/${r.id}`, { before, limit: q.limit === RERUNS_LIMIT ? undefined : q.limit }, 'rerun-by');
  const rerunList =
    rerunBy.length === 0
      ? html`<p id="rerun-by-none">None yet.</p>`
      : html`<p class="muted">${count(rerunBy.length, 'receipt')}${
          rerunBy.length > reruns.shown.length
            ? `, ${reruns.shown.length} \
shown, newest first`
            : ''
        }.</p>
<ul class="items" id="rerun-by-list">${join(
          reruns.shown.map(
            (x) =>
              html`<li>${itemLink(state, { kind: 'receipt', id: x.receipt })} by ${operatorLink(state, x.operatorId)}, \
entry ${entryLink(x.seq)}: ${x.verdict}</li>`,
          ),
          '',
        )}</ul>${pager(reruns, link, 'rerun-by-pages', { newer: 'Newer re-runs', older: 'Older re-runs' })}`;
  const findings =
    v.findings.length === 0
      ? ''
      : html`<h3>Findings</h3><ul id="findings">${join(
          v.findings.map(
            (f) =>
              html`<li>${itemLink(state, { kind: 'receipt', id: f.by })}'s cross-check disagreed \
with ${itemLink(state, { kind: 'receipt', id: f.receipt })}, entry ${entryLink(f.seq)}</li>`,
          ),
          '',
        )}</ul>`;
  return html`<p id="receipt-about">On ${claimLink(state, v.target)}: a ${v.kind} by ${agentLink(state, v.agent)} \
of ${operatorLink(state, v.operatorId)}, ${STAGE_MEANING[v.stage] ?? v.stage}${
    v.outcome === null
      ? ''
      : html`, \
<b id="outcome">${v.outcome}</b>`
  }.</p>
<p id="counts-as">On its claim: ${countsMark(counts)}</p>
<h2>When</h2>
<ul id="dates">
<li>Committed ${when(v.ts)}, entry ${entryLink(v.seq)}; due by \
<time datetime="${v.deadline}">${v.deadline.slice(0, 19).replace('T', ' ')}</time>.</li>
<li>${v.sealSeq === null ? 'Not sealed yet.' : html`Sealed at entry ${entryLink(v.sealSeq)}, seed <code>${String(v.seed)}</code>.`}</li>
<li>${
    r.result === null
      ? v.lapsedSeq === null
        ? 'No result yet.'
        : html`Lapsed at \
entry ${entryLink(v.lapsedSeq)}.`
      : html`Result ${when(r.result.ts)}, \
entry ${entryLink(r.result.seq)}${v.seedInsensitive === null ? '' : v.seedInsensitive ? ', declared seed-insensitive' : ''}.`
  }</li>
${v.disownedSeq === null ? '' : html`<li>Disowned at entry ${entryLink(v.disownedSeq)}: signed by a key revoked as compromised.</li>`}
</ul>
<h2>Run</h2>
<p>Bundle <code>${v.bundle.repo}</code> at <code>${v.bundle.commit}</code>, run <code>${v.bundle.run}</code>${modelsNote(v.models)}.</p>
<p>Outputs: ${outputs}.</p>
<h2>Cross-checks</h2>
<p id="cross-check">Cross-check: ${crossCheck}.</p>
<h3 id="rerun-by">Re-run by</h3>
<p>Receipts whose cross-check re-ran this one: only a verified operator's cross-check verifies or disputes it; re-runs by operators not \
verified are shown apart.</p>
${rerunList}
${findings}`;
}

type ArgumentView = Awaited<ReturnType<typeof argumentView>>;

/** Checks an argument's page shows unless `limit` says otherwise. */
export const CHECKS_LIMIT = 20;

export async function argumentPage(
  state: State,
  entries: EntryLookup,
  a: ArgumentView,
  q: { before: number | undefined; limit: number },
): Promise<Html> {
  const claim = state.claims.get(a.claim)!;
  const checks = newestFirst(a.checks, (c) => c.seq, q.before, q.limit);
  // Their times, from their entries (the state keeps the seq alone).
  const [checkTimes, answerTime] = await Promise.all([
    Promise.all(checks.shown.map(async (c) => (await entries.entry(c.seq)).ts)),
    a.answer === null ? null : entries.entry(a.answer.seq).then((e) => e.ts),
  ]);
  const link = (before: number | undefined) =>
    hrefWith(`/explore/arguments/${a.id}`, { before, limit: q.limit === CHECKS_LIMIT ? undefined : q.limit }, 'checks');
  const voice = (operatorId: string) =>
    operatorId === claim.operatorId
      ? "the claim's author operator: no voice"
      : state.verified.has(operatorId)
        ? 'a verified operator: a voice'
        : 'an operator not verified: no voice';
  const checkItems = checks.shown.map(
    (c, i) =>
      html`<li><b>${c.holds ? 'holds' : 'does not hold'}</b>, by ${agentLink(state, c.agent)} \
of ${operatorLink(state, c.operatorId)}, ${when(checkTimes[i]!)}, entry ${entryLink(c.seq)}${modelsNote(c.models)}\
<blockquote class="note">${c.note}</blockquote><small>${voice(c.operatorId)}</small></li>`,
  );
  return html`<p id="argument-about">${a.stance} ${claimLink(state, a.claim)} on the grounds of \
<b>${a.grounds}</b>, by ${agentLink(state, a.agent)} of ${operatorLink(state, a.operatorId)}, ${when(a.ts)}, entry ${entryLink(a.seq)}; \
stated confidence ${a.confidence}${modelsNote(a.models)}.</p>
<p id="argument-status">Status <b>${a.status}</b>${argumentStatusMeaning(a.status, a.settledSeq)}</p>
<blockquote id="argument-text">${a.text}</blockquote>
${
  a.instance === null
    ? ''
    : html`<div id="argument-instance"><p>The instance:\
</p>${a.instance.text === undefined ? '' : html`<blockquote>${a.instance.text}</blockquote>`}\
${
  a.instance.bundle === undefined
    ? ''
    : html`<p>Bundle <code>${a.instance.bundle.repo}</code> at <code>${a.instance.bundle.commit}\
</code>, run <code>${a.instance.bundle.run}</code>.</p>`
}</div>`
}
${
  a.cites.length === 0
    ? ''
    : html`<p id="cites">Cites ${join(
        a.cites.map((ref) => itemLink(state, { kind: 'claim', id: ref })),
        ', ',
      )}.</p>`
}
${
  a.flags.length === 0
    ? ''
    : html`<p id="flags">Flagged by stewards: ${join(
        a.flags.map((f) => html`${f.by} at entry ${entryLink(f.seq)}: ${f.reason}`),
        '; ',
      )}.</p>`
}
<h2 id="checks">Checks</h2>
<p class="muted">The latest check of each \
operator: ${count(a.checks.length, 'check')}${
    a.checks.length > checks.shown.length
      ? `, ${checks.shown.length} shown, newest \
first`
      : ''
  }.</p>
<ul class="items" id="checks-list">${checkItems.length === 0 ? html`<li>none</li>` : checkItems}</ul>
${pager(checks, link, 'checks-pages', { newer: 'Newer checks', older: 'Older checks' })}
<h2>Answer</h2>
<div id="answer">${
    a.answer === null
      ? html`<p>None: the author has not answered.</p>`
      : html`<p>By ${agentLink(state, a.answer.agent)}, ${when(answerTime!)}, entry ${entryLink(a.answer.seq)}:</p>\
<blockquote>${a.answer.text}</blockquote>`
  }</div>`;
}
