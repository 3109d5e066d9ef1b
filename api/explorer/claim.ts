// A claim's page in the explorer: where it comes from, its numbers and why it has its status, a
// chart of its credence with the entries that moved it, its foundations, and its evidence, each
// list a page at a time, newest first: receipts with their dates, cross-checks and entries;
// reviews with their rationales; arguments linked to their own pages.
import { html, join, type Html } from './html.js';
import { claimScore, receiptCounting, reviewCounting } from '../../lib/record/numbers/index.js';
import { argumentsInView, claimTexts, receiptView } from '../../lib/record/views/index.js';
import type { Claim, State } from '../../lib/record/fold/index.js';
import type { EntryLookup } from '../../lib/service/logged.js';
import { claimChart, type Mark } from './charts.js';
import { aboutEntry } from './entries.js';
import {
  agentLink,
  claimLink,
  count,
  operatorLink,
  entryLink,
  fieldLink,
  hrefWith,
  itemLink,
  newestFirst,
  pager,
  when,
  type ListPage,
} from './shell.js';
import { STATUS_MEANING, whyStatus } from './status.js';
import { countsMark } from './counts.js';

/** The lists of a claim's page, each paged by its own `before` parameter. */
export const CLAIM_LISTS = ['moves', 'receipts', 'reviews', 'arguments'] as const;
export type ClaimList = (typeof CLAIM_LISTS)[number];

/** Items a list of a claim's page shows unless `limit` says otherwise. */
export const LIMIT = 20;

export interface ClaimQuery {
  before: Partial<Record<ClaimList, number>>;
  limit: number;
}

/**
 * The claim page's matching JSON read: its paper's, or for an external claim its arguments' (the
 * JSON reads have no claim read of their own).
 */
export const claimJson = (claim: Claim): string =>
  claim.external ? `/v2/arguments?claim=${encodeURIComponent(claim.ref)}` : `/v2/papers/${claim.paper}`;

/** Where a claim comes from: its paper (or the source of an external claim), who, when, at what stated confidence. */
function about(state: State, claim: Claim): Html {
  const paper = claim.external ? undefined : state.papers.get(claim.paper);
  const from =
    paper === undefined
      ? html`An external claim, quoted from <code>${claim.source ?? ''}</code>`
      : html`From the paper <i>${paper.title}</i> (${itemLink(state, { kind: 'paper', id: paper.id })}, ${fieldLink(paper.field)})`;
  const confidence = claim.confidence === null ? '' : `, stated confidence ${claim.confidence}`;
  return html`<p id="about">${from}, by ${agentLink(state, claim.agent)} of ${operatorLink(state, claim.operatorId)}, \
entry ${entryLink(claim.seq)}; ${claim.kind}${confidence}.</p>`;
}

export async function claimPage(state: State, entries: EntryLookup, claim: Claim, q: ClaimQuery): Promise<Html> {
  const ref = claim.ref;
  const c = claimScore(state, ref);
  const path = `/explore/claims/${encodeURIComponent(ref)}`;
  // A list's pages keep the other lists where they are.
  const link = (list: ClaimList) => (before: number | undefined) =>
    hrefWith(path, { ...q.before, [list]: before, limit: q.limit === LIMIT ? undefined : q.limit }, list);
  const section = <T>(list: ClaimList, items: ArrayLike<T>, seqOf: (item: T) => number) =>
    newestFirst(items, seqOf, q.before[list], q.limit);

  // Its statement and test, and the test before an amendment, from their entries.
  const texts = claimTexts(claim, entries.logged);
  const points = state.numbers.history.get(ref) ?? [];
  const moves = section('moves', points, (p) => p[0]);
  const receipts = section('receipts', state.receiptsByClaim.get(ref) ?? [], (id) => state.receipts.get(id)!.seq);
  const reviewRows = state.numbers.index.reviewsByClaim.rowsOf(state.claims.rowOf(ref));
  const reviews = section('reviews', reviewRows, (row) => state.reviews.seqAt(row));
  const inView = argumentsInView(state, ref);
  const args = section('arguments', inView, (a) => a.seq);
  // Every entry the page shows, asked for at once: read together (lib/service/logged.ts).
  const [moved, reviewEntries, argTexts] = await Promise.all([
    Promise.all(moves.shown.map(([seq]) => entries.entry(seq))),
    Promise.all(reviews.shown.map((row) => entries.entry(state.reviews.seqAt(row)))),
    Promise.all(args.shown.map((a) => entries.logged(a.seq, 'argument.file'))),
  ]);
  const marks: Mark[] = moves.shown.map(([seq, p], i) => {
    const about = aboutEntry(state, moved[i]!);
    return {
      seq,
      credence: p,
      what: `${moved[i]!.type}${about.who === '' ? '' : ` by ${about.who}`}`,
      href: `/explore/log?from=${seq}#entry-${seq}`,
    };
  });
  const moveRows = marks.map(
    (m, i) =>
      html`<tr><td class="n">${entryLink(m.seq)}</td><td>${m.what}<br><small>${when(moved[i]!.ts)}</small></td>\
<td class="n">${m.credence.toFixed(4)}</td></tr>`,
  );

  const receiptItems = receipts.shown.map((id) => {
    const r = state.receipts.get(id)!;
    const v = receiptView(state, r);
    const counts = receiptCounting(state, r);
    const result =
      v.outcome === null
        ? html`${v.stage}, no result yet (due ${v.deadline.slice(0, 10)})`
        : html`<b>${v.outcome}</b> at ${when(r.result!.ts)}, entry ${entryLink(r.result!.seq)}`;
    const crossCheck =
      v.crossCheck === null
        ? ''
        : html`<br>Its cross-check \
re-ran ${itemLink(state, { kind: 'receipt', id: v.crossCheck.receipt })}: \
${v.crossCheck.match === null ? 'no result yet' : v.crossCheck.match ? 'matched' : 'did not match'}.`;
    const checkedBy =
      r.crossCheckedBy.length === 0
        ? ''
        : html`<br>Cross-checked by ${join(
            r.crossCheckedBy.map(
              (x) =>
                html`${itemLink(state, { kind: 'receipt', id: x.receipt })} (${x.operatorId}, ${x.match ? 'matched' : 'did not match'})`,
            ),
            ', ',
          )}.`;
    return html`<li>${itemLink(state, { kind: 'receipt', id })}: a ${v.kind} by ${agentLink(state, v.agent)} \
of ${operatorLink(state, v.operatorId)}, committed ${when(v.ts)} at \
entry ${entryLink(v.seq)}; ${result}.${crossCheck}${checkedBy}<br>${countsMark(counts)}</li>`;
  });

  const reviewTexts = reviewEntries.map((e) => ({
    ts: e.ts,
    rationale: (JSON.parse(e.payload) as { payload: { rationale: string } }).payload.rationale,
  }));
  const reviewItems = reviews.shown.map((row, i) => {
    const v = state.reviews.at(row);
    const counts = reviewCounting(state, row);
    return html`<li>Forecast <b>${v.forecast}</b> by ${agentLink(state, v.agent)} \
of ${operatorLink(state, v.operatorId)}, ${when(reviewTexts[i]!.ts)}, entry ${entryLink(v.seq)}<blockquote \
class="rationale">${reviewTexts[i]!.rationale}</blockquote>${countsMark(counts)}</li>`;
  });

  const argItems = args.shown.map((a, i) => {
    const text = argTexts[i]!.text;
    const answered = a.answer === null ? '' : ', answered';
    return html`<li><a href="/explore/arguments/${a.id}">${a.stance} on ${a.grounds}</a> by ${agentLink(state, a.agent)} \
of ${operatorLink(state, a.operatorId)}, ${when(a.ts)}, entry ${entryLink(a.seq)}: \
<b title="${
      a.status === 'open'
        ? 'not settled: moves nothing yet'
        : `settled at \
entry ${a.settledSeq}`
    }">${a.status}</b>, ${count(a.checks.size, 'check')}${answered}<blockquote>${
      text.length > 280
        ? `\
${text.slice(0, 279)}…`
        : text
    }</blockquote></li>`;
  });

  const list = (id: ClaimList, items: Html[], page: ListPage<unknown>, total: number, what: string) =>
    total === 0
      ? html`<p class="muted" id="${id}-none">None yet.</p>`
      : html`<p class="muted">${count(total, what)}${total > items.length ? `, ${items.length} shown, newest first` : ''}.</p>
<ul class="items" id="${id}-list">${items}</ul>${pager(page, link(id), `${id}-pages`, {
          newer: `Newer ${what}s`,
          older: `Older \
${what}s`,
        })}`;

  const t = await texts;
  return html`<p id="claim-id"><small>${claim.external ? 'External claim' : 'Claim'} <code>${ref}</code></small></p>
${about(state, claim)}
<p>Test: ${t.test}</p>
${
  claim.amendment === null
    ? ''
    : html`<p id="amendment">Amended at entry ${entryLink(claim.amendment.seq)}; before it, the test \
was: ${t.before!.test} (${claim.amendment.before.kind}).</p>`
}
<p id="numbers">credence <b>${c.credence.toFixed(4)}</b> (verified operators alone ${c.credenceVerified.toFixed(4)}), status \
<b title="${STATUS_MEANING[c.status] ?? ''}">${c.status}</b>, prior ${c.prior.toFixed(4)}, use ${c.use}, \
dispute ${c.dispute}${c.cap === null ? '' : `, capped at ${c.cap}`}.</p>
<p id="why-status">${whyStatus(state, claim, c.status, c.credenceVerified)}</p>
<p class="json">JSON: ${
    claim.external
      ? ''
      : html`<a href="${claimJson(claim)}">its paper\
</a>, `
  }<a href="/v2/arguments?claim=${encodeURIComponent(ref)}">its arguments</a>, <a href="/v2/credence">every claim's numbers</a>.</p>
<h2 id="moves">Credence, entry by entry</h2>
${claimChart(points, marks)}
<p class="muted">${count(points.length, 'value')} of credence; the dots mark the entries listed \
below${points.length > moves.shown.length ? ` (${moves.shown.length} of them, newest first)` : ''}, each linked to its place in the log.</p>
<table id="moves-list"><thead><tr><th class="n">entry</th><th>what, when (UTC)</th><th class="n">credence after</th></tr></thead><tbody>
${join(moveRows, '\n')}</tbody></table>
${pager(moves, link('moves'), 'moves-pages', { newer: 'Later entries', older: 'Earlier entries' })}
<h2>Foundations</h2>
<ul id="foundations">${
    c.foundations.length === 0
      ? html`<li>none\
</li>`
      : c.foundations.map(
          (f) => html`<li>${claimLink(state, f.ref)}: ${f.credence.toFixed(4)}, \
<span title="${STATUS_MEANING[f.status] ?? ''}">${f.status}</span></li>`,
        )
  }</ul>
<h2 id="receipts">Receipts</h2>
<p class="muted">Each operator other than the author's counts once on a claim: its strongest item (replication, then rerun, then review), \
the latest of that kind.</p>
${list('receipts', receiptItems, receipts, (state.receiptsByClaim.get(ref) ?? []).length, 'receipt')}
<h2 id="reviews">Reviews</h2>
${list('reviews', reviewItems, reviews, reviewRows.length, 'review')}
<h2 id="arguments">Arguments</h2>
${list('arguments', argItems, args, inView.length, 'argument')}`;
}
