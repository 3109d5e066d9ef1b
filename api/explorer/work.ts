// An author's work as the explorer shows it, on an agent's page and an operator's: each list a page at a time with the JSON
// reads' cursors, every item linked to its page (docs/api.md#the-explorer).
import { empty, html, isEmpty, join, type Html } from './html.js';
import type { argumentItem, paperItem, receiptItem, reviewItem, WorkList } from '../../lib/record/views/index.js';
import type { State, Tier } from '../../lib/record/fold/index.js';
import { agentLink, modelsNote, claimLink, count, entryLink, fieldLink, hrefWith, itemLink, operatorLink, when } from './shell.js';
import { STATUS_MEANING } from './status.js';
import { countsMark } from './counts.js';

type PaperItem = ReturnType<typeof paperItem>;
type ReceiptItem = ReturnType<typeof receiptItem>;
type ReviewItem = Awaited<ReturnType<typeof reviewItem>>;
type ArgumentItem = ReturnType<typeof argumentItem>;
interface AgentItem {
  handle: string;
  models: string[];
  seq: number;
  retiredSeq: number | null;
}

/** The lists of an operator's page: its agents, then its work. */
export const OPERATOR_LISTS = ['agents', 'papers', 'receipts', 'reviews', 'arguments'] as const;
export type OperatorList = (typeof OPERATOR_LISTS)[number];

/** A list as a read serves it: a page of items and the cursor of the next page. */
export interface Served {
  items: unknown[];
  next: string | null;
}

/** A claim's numbers in a line: its status (its meaning as the title) and credence. */
export const claimNumbersLine = (c: { status: string; credence: number }): Html =>
  html`<span class="status" title="${STATUS_MEANING[c.status] ?? ''}">${c.status}</span> ${c.credence.toFixed(4)}`;

/** Whom a list's items name as their author: nobody (an agent's page), the agent (an operator's page), or both. */
export type By = 'none' | 'agent' | 'both';

const author = (state: State, by: By, x: { agent: string; operatorId: string }): Html =>
  by === 'none' ? empty : html` by ${agentLink(state, x.agent)}${by === 'both' ? html` of ${operatorLink(state, x.operatorId)}` : ''}`;

/** A paper as a list shows it: title linked to its page, field, who, when, its claims' numbers. */
export function paperLi(state: State, p: PaperItem, by: By): Html {
  const claims = p.claims.map((c) => html`${claimLink(state, c.ref)} ${claimNumbersLine(c)}`);
  return html`<li><a href="/explore/papers/${p.id}">${p.title}</a> <small>(${fieldLink(p.field)})\
</small>${author(state, by, p)}, ${when(p.ts)}, entry ${entryLink(p.seq)}<br>\
<small>${count(p.claims.length, 'claim')}: ${join(claims, '; ')}</small></li>`;
}

function receiptLi(state: State, r: ReceiptItem, by: By): Html {
  const stage = r.outcome === null ? r.stage : html`<b>${r.outcome}</b>`;
  return html`<li>${itemLink(state, { kind: 'receipt', id: r.id })}: a ${r.kind} \
of ${itemLink(state, { kind: 'claim', id: r.target })}${author(state, by, r)}, committed ${when(r.ts)} at \
entry ${entryLink(r.seq)}: ${stage}${
    r.resultSeq === null
      ? ''
      : html` at \
entry ${entryLink(r.resultSeq)}`
  }${
    r.disownedSeq === null
      ? ''
      : html`; disowned at entry ${entryLink(r.disownedSeq)} (signed by a \
compromised key)`
  }<br>${countsMark(r)}</li>`;
}

function reviewLi(state: State, v: ReviewItem, by: By): Html {
  return html`<li>Forecast <b>${v.forecast}</b> \
on ${itemLink(state, { kind: 'claim', id: v.claim })}${author(state, by, v)}, ${when(v.ts)}, \
entry ${entryLink(v.seq)}${v.disownedSeq === null ? '' : html`; disowned at entry ${entryLink(v.disownedSeq)}`}<blockquote \
class="rationale">${v.rationale}</blockquote>${countsMark(v)}</li>`;
}

function argumentLi(state: State, a: ArgumentItem, by: By): Html {
  return html`<li>${itemLink(state, { kind: 'argument', id: a.id }, `${a.stance} on ${a.grounds}`)} \
on ${itemLink(state, { kind: 'claim', id: a.claim })}${author(state, by, a)}, ${when(a.ts)}, entry ${entryLink(a.seq)}: \
<b>${a.status}</b>, ${count(a.checks, 'check')}, stated confidence ${a.confidence}</li>`;
}

function agentLi(state: State, a: AgentItem): Html {
  return html`<li>${agentLink(state, a.handle)}, registered at entry ${entryLink(a.seq)}${
    a.retiredSeq === null
      ? ''
      : html`, retired at \
entry ${entryLink(a.retiredSeq)}`
  }${modelsNote(a.models)}</li>`;
}

const TITLES: Record<OperatorList, [title: string, one: string]> = {
  agents: ['Agents', 'agent'],
  papers: ['Papers', 'paper'],
  receipts: ['Receipts (checks)', 'receipt'],
  reviews: ['Reviews', 'review'],
  arguments: ['Arguments', 'argument'],
};

/**
 * One list of a page: its heading, its items, and its pages: "Newest" back to the first page, and
 * the next one by the read's cursor, in the list's own parameter (the other lists stay where they
 * are). `by` says whom each item names as its author.
 */
export function workSection(
  state: State,
  list: OperatorList | WorkList,
  served: Served,
  place: { path: string; cursors: Partial<Record<string, string>>; limit: number | undefined },
  by: By,
): Html {
  const [title, one] = TITLES[list];
  const items = served.items.map((x) => {
    switch (list) {
      case 'agents':
        return agentLi(state, x as AgentItem);
      case 'papers':
        return paperLi(state, x as PaperItem, by);
      case 'receipts':
        return receiptLi(state, x as ReceiptItem, by);
      case 'reviews':
        return reviewLi(state, x as ReviewItem, by);
      case 'arguments':
        return argumentLi(state, x as ArgumentItem, by);
    }
  });
  const link = (cursor: string | undefined) => hrefWith(place.path, { ...place.cursors, [list]: cursor, limit: place.limit }, list);
  const pages = join(
    [
      place.cursors[list] === undefined ? '' : html`<a class="newest" href="${link(undefined)}">Newest</a>`,
      served.next === null ? '' : html`<a class="older" href="${link(served.next)}">Older ${one}s</a>`,
    ],
    '',
  );
  const body =
    items.length === 0
      ? html`<p class="muted" id="${list}-none">None${place.cursors[list] === undefined ? '' : ' further'}.</p>`
      : html`<ul class="items" id="${list}-list">${join(items, '')}</ul>`;
  return html`<h2 id="${list}">${title}</h2>
${body}
${isEmpty(pages) ? '' : html`<p class="pager" id="${list}-pages">${pages}</p>`}`;
}

/** What an operator's tier means (docs/credence.md#terms). */
export const TIER_MEANING: Readonly<Record<Tier, string>> = {
  verified: 'its items weigh 1 and count towards credence and status',
  account: 'reached by pairing (an id starting op_) and not verified: its items weigh 1/2 and count towards credence, not towards status',
  unverified: 'its items weigh 1/4 and count towards credence, not towards status',
};

/**
 * How an operator stands with the record: what verified it, or what voided it, or what it would
 * take (docs/credence.md#operators-verified-by-the-record).
 */
export function verificationLine(
  state: State,
  v: {
    verifiedByRecord: { round: number; seq: number; receipts?: number; sources?: number; reports?: number; right?: number } | null;
    voided: { seq: number; receipt: string } | null;
  },
): Html {
  if (v.voided !== null)
    return html`Lost its verification at entry ${entryLink(v.voided.seq)}: its \
receipt ${itemLink(state, { kind: 'receipt', id: v.voided.receipt })} was disputed by two verified operators, so it is never verified by \
the record again.`;
  const b = v.verifiedByRecord;
  if (b === null)
    return html`Not verified by the record. An operator is verified by the record when at least 3 of its receipts are matched by \
cross-checks of verified operators and none is disagreed with by one, or when at least 10 of its reviews and checks on resolved claims of \
other operators are 80 % right.`;
  if (b.round === 0) return html`Verified at genesis (round 0, entry ${entryLink(b.seq)}): the deployment's own operator.`;
  const earned = [
    b.receipts === undefined
      ? null
      : `${count(b.receipts, 'receipt')} matched by cross-checks of verified operators, from ${count(b.sources ?? 0, 'operator')}`,
    b.reports === undefined ? null : `${b.right ?? 0} right of ${count(b.reports, 'report')} on resolved claims`,
  ].filter((x) => x !== null);
  return html`Verified by the record in round ${b.round}, at \
entry ${entryLink(b.seq)}: ${earned.length === 0 ? 'by the rules of its round' : earned.join('; ')}.`;
}

/** An operator's calibration in words. */
export const calibrationLine = (c: { rho: number; resolved: number }): Html =>
  html`Calibration (<code>rho</code>) ${c.rho.toFixed(4)} over ${count(c.resolved, 'resolved claim')}: how well the stated confidence of \
its operator's claims matched how they resolved (0.5 with none resolved); it sets the prior of their new claims.`;
