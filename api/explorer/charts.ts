// The explorer's charts of credence, as inline SVG that scales with its box (viewBox): a claim's
// chart with axes, labels and a mark per entry that moved it, and the claims list's sparklines,
// all on one scale from 0 to 1, their current value a dot and a number. `points` are [seq, credence], one per
// entry after which the claim's credence changed (lib/record/numbers/rescore.ts), in log order.
import { empty, html, join, type Html } from './html.js';
import type { History } from '../../lib/record/numbers/index.js';

export type Points = readonly (readonly [seq: number, credence: number])[];

const p4 = (p: number): string => p.toFixed(4);
const f1 = (n: number): string => n.toFixed(1);

/**
 * The points a line through `points` needs at one point per unit of x: of the points that fall
 * in one column, the first, the lowest, the highest and the last, in log order. A hot claim's
 * thousands of values draw as the same picture in at most four points a column.
 */
export function thin(points: Points, x: (seq: number) => number): Points {
  const out: (readonly [number, number])[] = [];
  let i = 0;
  while (i < points.length) {
    const column = Math.floor(x(points[i]![0]));
    let j = i;
    let lo = i;
    let hi = i;
    while (j + 1 < points.length && Math.floor(x(points[j + 1]![0])) === column) {
      j++;
      if (points[j]![1] < points[lo]![1]) lo = j;
      if (points[j]![1] > points[hi]![1]) hi = j;
    }
    for (const k of [...new Set([i, Math.min(lo, hi), Math.max(lo, hi), j])]) out.push(points[k]!);
    i = j + 1;
  }
  return out;
}

/** A step line: credence holds from the entry that set it until the next one that moved it. */
function stepPath(all: Points, x: (seq: number) => number, y: (p: number) => number, end: number): string {
  const points = thin(all, x);
  let d = `M${f1(x(points[0]![0]))},${f1(y(points[0]![1]))}`;
  for (let i = 1; i < points.length; i++) d += `H${f1(x(points[i]![0]))}V${f1(y(points[i]![1]))}`;
  return `${d}H${f1(end)}`;
}

/** The lowest and the highest credence of `points` (a loop: a hot claim has too many for Math.min(...)). */
function valueRange(points: Points): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const [, p] of points) [lo, hi] = [Math.min(lo, p), Math.max(hi, p)];
  return [lo, hi];
}

/** The x range of a chart: from the first entry to the last (one entry wide at least). */
function seqRange(points: Points): [number, number] {
  const first = points[0]![0];
  return [first, Math.max(points[points.length - 1]![0], first + 1)];
}

/** Up to `n` round, whole ticks within [lo, hi] (whole numbers), always the two ends. */
export function ticks(lo: number, hi: number, n: number): number[] {
  const span = hi - lo;
  const raw = span / Math.max(1, n - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  // Entries are whole: a whole step, never below 1.
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw && Number.isInteger(s)) ?? 1;
  const out = [lo];
  for (let v = Math.ceil(lo / step) * step; v < hi; v += step) if (v - lo >= step / 2 && hi - v >= step / 2) out.push(v);
  out.push(hi);
  return out;
}

/**
 * A sparkline for the claims list: every one on the same scale, credence 0 (bottom) to 1 (top),
 * with a faint line at 0.5, so that two claims compare at a glance and a small move looks small.
 * The current value holds for the last stretch, ends in a dot inside the box, and is printed
 * under it with the range the claim moved in; the title says from, to, the range and the entries.
 */
export function sparkline(points: Points): Html {
  if (points.length === 0) return empty;
  const W = 120;
  const H = 28;
  const R = 2.5;
  // The line runs from x 2 to the last value's point, which holds until the dot at the right.
  const end = W - R - 1;
  const [min, max] = valueRange(points);
  const [first, last] = seqRange(points);
  const x = (seq: number) => ((seq - first) / (last - first)) * (end - 12 - 2) + 2;
  const y = (p: number) => (1 - p) * (H - 2 * R - 2) + R + 1;
  const from = points[0]!;
  const to = points[points.length - 1]!;
  const range = min === max ? p4(from[1]) : `${p4(min)}–${p4(max)}`;
  const title = `credence ${p4(from[1])} at entry ${from[0]}, ${p4(to[1])} at entry ${to[0]}: ${points.length} \
value${points.length === 1 ? '' : 's'}, between ${range}`;
  const label = min === max ? html`now <b class="now">${p4(to[1])}</b>` : html`now <b class="now">${p4(to[1])}</b>, moved ${range}`;
  return html`<span class="spark">\
<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${title}" data-points="${points.length}">\
<title>${title}</title><rect width="${W}" height="${H}" fill="#f7f7f7"/>\
<line x1="0" x2="${W}" y1="${f1(y(0.5))}" y2="${f1(y(0.5))}" stroke="#ddd" stroke-dasharray="2 2"/>\
<path d="${stepPath(points, x, y, end)}" fill="none" stroke="#247" stroke-width="1.5"/>\
<circle class="now" cx="${f1(end)}" cy="${f1(y(to[1]))}" r="${R}" fill="#247"/></svg><small class="range">${label}</small></span>`;
}

/** One mark on a claim's chart: the entry that set the value, and what it was. */
export interface Mark {
  seq: number;
  credence: number;
  /** What the entry was, for its title ("a review by lab-b"); empty when unknown. */
  what: string;
  href: string;
}

/**
 * A claim's chart: credence (0 to 1, gridlines at each quarter) against the log's entries, a
 * step line through every point, and a mark, linked and titled, for each entry in `marks`.
 */
export function claimChart(points: Points, marks: readonly Mark[]): Html {
  if (points.length === 0) return empty;
  const W = 480;
  const H = 210;
  const [left, right, top, bottom] = [58, 12, 10, 38];
  const [first, last] = seqRange(points);
  const x = (seq: number) => left + ((seq - first) / (last - first)) * (W - left - right);
  const y = (p: number) => top + (1 - p) * (H - top - bottom);
  const grid = join(
    [0, 0.25, 0.5, 0.75, 1].map(
      (p) =>
        html`<line x1="${left}" x2="${W - right}" y1="${f1(y(p))}" y2="${f1(y(p))}" stroke="${p === 0 ? '#888' : '#e4e4e4'}"/>\
<text x="${left - 6}" y="${f1(y(p) + 4)}" text-anchor="end">${p.toFixed(2)}</text>`,
    ),
    '',
  );
  const xTicks = join(
    ticks(first, last, 5).map(
      (s) =>
        html`<line x1="${f1(x(s))}" x2="${f1(x(s))}" y1="${H - bottom}" y2="${H - bottom + 4}" stroke="#888"/>\
<text x="${f1(x(s))}" y="${H - bottom + 16}" text-anchor="middle">${s}</text>`,
    ),
    '',
  );
  const dots = join(
    marks.map(
      (m) =>
        html`<a href="${m.href}"><circle cx="${f1(x(m.seq))}" cy="${f1(y(m.credence))}" r="4" fill="#247">\
<title>${`entry ${m.seq}${m.what === '' ? '' : `, ${m.what}`}: credence ${p4(m.credence)}`}</title></circle></a>`,
    ),
    '',
  );
  const label = `credence from ${p4(points[0]![1])} at entry ${points[0]![0]} to ${p4(points[points.length - 1]![1])} at \
entry ${points[points.length - 1]![0]}, over ${points.length} value${points.length === 1 ? '' : 's'}`;
  return html`<svg class="chart big" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${label}" \
data-points="${points.length}" font-size="12" fill="#444">
<line x1="${left}" x2="${left}" y1="${top}" y2="${H - bottom}" stroke="#888"/>${grid}${xTicks}
<text x="${(left + W - right) / 2}" y="${H - 4}" text-anchor="middle">log entry (seq)</text>
<text transform="translate(13 ${(top + H - bottom) / 2}) rotate(-90)" text-anchor="middle">credence</text>
<path d="${stepPath(points, x, y, W - right)}" fill="none" stroke="#247" stroke-width="1.5"/>${dots}</svg>`;
}

/** Sparklines kept drawn, per history (a rebuilt state has a new one), the least recently drawn dropped first. */
const SPARKLINES_KEPT = 5000;
const drawn = new WeakMap<History, Map<string, { latest: number; svg: Html }>>();

/**
 * The sparkline of claim `ref` from `history`, drawn again only when a point was noted since it
 * was last drawn: a hot claim's thousands of points are read once per change, not once per view
 * of the claims list.
 */
export function claimSparkline(history: History, ref: string): Html {
  const latest = history.latest(ref);
  if (latest === undefined) return empty;
  let kept = drawn.get(history);
  if (kept === undefined) drawn.set(history, (kept = new Map()));
  const hit = kept.get(ref);
  kept.delete(ref);
  const svg = hit !== undefined && hit.latest === latest ? hit.svg : sparkline(history.get(ref)!);
  kept.set(ref, { latest, svg });
  if (kept.size > SPARKLINES_KEPT) kept.delete(kept.keys().next().value!);
  return svg;
}
