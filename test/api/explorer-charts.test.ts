// The explorer's charts (api/explorer/charts.ts): every sparkline on one scale from 0 to 1, its
// current value a dot and a number; a claim's chart has whole-entry ticks and a linked, titled dot per mark.
import t from 'tap';
import * as charts from '../../api/explorer/charts.js';
import { thin, ticks } from '../../api/explorer/charts.js';
import { History } from '../../lib/record/numbers/index.js';

// The charts as the page's text.
const sparkline = (...a: Parameters<typeof charts.sparkline>) => charts.sparkline(...a).toString();
const claimSparkline = (...a: Parameters<typeof charts.claimSparkline>) => charts.claimSparkline(...a).toString();
const claimChart = (...a: Parameters<typeof charts.claimChart>) => charts.claimChart(...a).toString();

/** The y coordinates a path visits (M x,y; V y). */
const ys = (svg: string): number[] => {
  const d = / d="([^"]+)"/.exec(svg)![1]!;
  return [...d.matchAll(/(?:M[0-9.]+,|V)([0-9.]+)/g)].map((m) => Number(m[1]));
};

/** The sparkline's box, and its dot: the current value. */
const box = (svg: string) => {
  const [w, hgt] = / viewBox="0 0 ([0-9.]+) ([0-9.]+)"/.exec(svg)!.slice(1).map(Number) as [number, number];
  const [cx, cy, r] = /<circle class="now" cx="([0-9.]+)" cy="([0-9.]+)" r="([0-9.]+)"/.exec(svg)!.slice(1).map(Number) as [
    number,
    number,
    number,
  ];
  return { w, h: hgt, cx, cy, r };
};

t.test('every sparkline is on one scale, 0 to 1, its current value a dot inside the box and a number', async (t) => {
  const a = sparkline([
    [3, 0.3632],
    [9, 0.3835],
  ]);
  const b = sparkline([[4, 0.36]]);
  const c = sparkline([[4, 0.38]]);
  const { w, h: height } = box(a);
  t.ok(Math.abs(box(b).cy - box(c).cy) < 1, `0.36 and 0.38 drawn at nearly the same height (${box(b).cy}, ${box(c).cy})`);
  const ya = ys(a);
  t.ok(Math.max(...ya) - Math.min(...ya) < 1, 'a move from 0.3632 to 0.3835 is under a pixel high, not the whole box');
  t.ok(Math.max(...ya) < height / 2 + 4 && Math.min(...ya) > height / 2, 'and drawn just below the middle, where 0.37 lies');
  const top = ys(sparkline([[1, 1]]))[0]!;
  const bottom = ys(sparkline([[1, 0]]))[0]!;
  t.ok(top >= 0 && bottom <= height && bottom - top > height / 2, `1 at the top (${top}), 0 at the bottom (${bottom})`);

  for (const svg of [a, b, c]) {
    const dot = box(svg);
    t.ok(dot.cx + dot.r <= w && dot.cx - dot.r >= 0 && dot.cy + dot.r <= height && dot.cy - dot.r >= 0, 'the dot inside the box');
    const d = / d="([^"]+)"/.exec(svg)![1]!;
    const lastX = [...d.matchAll(/(?:M|H)([0-9.]+)/g)].map((m) => Number(m[1]));
    t.equal(lastX.at(-1), dot.cx, 'the line ends at the dot');
    t.ok(dot.cx - lastX.at(-2)! >= 8, 'the current value holds for a stretch of the line, not a point at the edge');
  }
  t.equal(box(a).cy, ya.at(-1), 'the dot at the current value');
  t.match(a, '<small class="range">now <b class="now">0.3835</b>, moved 0.3632–0.3835</small>', 'the current value printed, and the range');
  t.match(a, '<title>credence 0.3632 at entry 3, 0.3835 at entry 9: 2 values, between 0.3632–0.3835</title>');
  t.match(b, '<small class="range">now <b class="now">0.3600</b></small>', 'one value: printed alone');
  t.equal(sparkline([]), '', 'no points, no chart');
});

t.test("the claims list's sparkline is drawn again when its claim moved, and only then", async (t) => {
  const history = new History();
  t.equal(claimSparkline(history, 'rec:0000000000000001#C1'), '', 'a claim never scored: no chart');
  history.note('rec:0000000000000001#C1', 3, 0.5);
  history.note('rec:0000000000000001#C1', 7, 0.4);
  history.note('rec:0000000000000002#C1', 8, 0.7);
  const first = claimSparkline(history, 'rec:0000000000000001#C1');
  t.equal(first, sparkline(history.get('rec:0000000000000001#C1')!), "the claim's own points");
  t.equal(claimSparkline(history, 'rec:0000000000000001#C1'), first, 'drawn again the same');
  history.note('rec:0000000000000002#C1', 9, 0.8);
  t.equal(claimSparkline(history, 'rec:0000000000000001#C1'), first, "another claim's move leaves it as it was");
  history.note('rec:0000000000000001#C1', 12, 0.6);
  const moved = claimSparkline(history, 'rec:0000000000000001#C1');
  t.equal(moved, sparkline(history.get('rec:0000000000000001#C1')!), 'a point noted: drawn from every point');
  t.match(moved, '3 values, between 0.4000–0.6000');
  t.equal(claimSparkline(new History(), 'rec:0000000000000001#C1'), '', "another state's history draws its own");
});

t.test('ticks are whole entries, both ends included', async (t) => {
  t.same(ticks(6, 15, 5), [6, 10, 15]);
  t.same(ticks(1, 4, 5), [1, 2, 3, 4]);
  t.same(ticks(20, 21, 5), [20, 21]);
  t.same(ticks(0, 1000, 5), [0, 250, 500, 750, 1000]);
  for (const v of ticks(3, 1_000_003, 5)) t.ok(Number.isInteger(v));
});

t.test("a claim's chart: axes, labels and a dot per entry that moved it, linked and titled", async (t) => {
  const points: [number, number][] = [
    [6, 0.685],
    [10, 0.8969],
    [13, 0.8475],
  ];
  const svg = claimChart(
    points,
    points.map(([seq, p]) => ({ seq, credence: p, what: `entry kind ${seq}`, href: `/explore/log?from=${seq}#entry-${seq}` })),
  );
  t.match(svg, 'viewBox="0 0 480 210"', 'scales with its box');
  for (const label of ['0.00', '0.25', '0.50', '0.75', '1.00', '6', '13', 'log entry (seq)', 'credence']) t.match(svg, `>${label}</text>`);
  const dots = [...svg.matchAll(/<a href="([^"]+)"><circle cx="([0-9.]+)" cy="([0-9.]+)" r="4" fill="#247"><title>([^<]+)<\/title>/g)];
  t.same(
    dots.map((d) => [d[1], d[4]]),
    points.map(([seq, p]) => [`/explore/log?from=${seq}#entry-${seq}`, `entry ${seq}, entry kind ${seq}: credence ${p.toFixed(4)}`]),
  );
  const cx = dots.map((d) => Number(d[2]));
  t.ok(cx[0]! < cx[1]! && cx[1]! < cx[2]!, 'in log order, left to right');
  t.ok(Number(dots[1]![3]) < Number(dots[0]![3]), 'higher credence, higher up');
});

t.test("a hot claim's line is thinned to what its pixels show", async (t) => {
  // 200,000 values over 200,000 entries, swinging between 0.2 and 0.8.
  const points: [number, number][] = Array.from({ length: 200_000 }, (_, i) => [i, 0.5 + 0.3 * Math.sin(i / 7)]);
  const x = (seq: number) => (seq / 200_000) * 120;
  const kept = thin(points, x);
  t.ok(kept.length <= 4 * 120, `at most four points a column (${kept.length})`);
  for (let c = 0; c < 120; c++) {
    const column = points.filter(([seq]) => Math.floor(x(seq)) === c).map(([, p]) => p);
    const shown = kept.filter(([seq]) => Math.floor(x(seq)) === c).map(([, p]) => p);
    if (Math.min(...column) !== Math.min(...shown) || Math.max(...column) !== Math.max(...shown)) t.fail(`column ${c}: the same range`);
    if (column.at(-1) !== shown.at(-1)) t.fail(`column ${c}: the same last value`);
  }
  t.ok(
    kept.every((p, i) => i === 0 || kept[i - 1]![0] < p[0]),
    'in log order',
  );
  const svg = sparkline(points);
  t.ok(svg.length < 20_000, `a sparkline of them is small (${svg.length} bytes)`);
  t.match(svg, 'moved 0.2000–0.8000</small>');
  t.ok(claimChart(points, []).length < 40_000, "and so is the claim's chart");
});
