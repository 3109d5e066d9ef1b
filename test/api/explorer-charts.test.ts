// The explorer's charts (api/explorer/charts.ts): a sparkline spans the range its claim moved in
// and says it; a claim's chart has whole-entry ticks and a linked, titled dot per mark.
import t from 'tap';
import { claimChart, claimSparkline, sparkline, thin, ticks } from '../../api/explorer/charts.js';
import { History } from '../../lib/record/numbers/history.js';

/** The y coordinates a path visits (M x,y; V y). */
const ys = (svg: string): number[] => {
  const d = / d="([^"]+)"/.exec(svg)![1]!;
  return [...d.matchAll(/(?:M[0-9.]+,|V)([0-9.]+)/g)].map((m) => Number(m[1]));
};

t.test('a sparkline is scaled to the range it moves in, and labelled with it', async (t) => {
  const moving = sparkline([
    [3, 0.5],
    [7, 0.4],
    [9, 0.6],
    [12, 0.55],
  ]);
  const y = ys(moving);
  t.equal(Math.min(...y), 2, 'the highest value at the top');
  t.equal(Math.max(...y), 26, 'the lowest at the bottom: a move of 0.2 spans the whole height');
  t.match(moving, '<small class="range">0.4000–0.6000</small>');
  t.match(moving, '<title>credence 0.5000 at entry 3, 0.5500 at entry 12: 4 values, between 0.4000–0.6000</title>');

  const flat = sparkline([[5, 0.685]]);
  t.same(ys(flat), [14], 'one value: a flat line through the middle');
  t.match(flat, '<small class="range">0.6850</small>');
  t.equal(sparkline([]), '', 'no points, no chart');

  // A small move still shows, at least 0.02 of range high.
  const small = ys(
    sparkline([
      [1, 0.5],
      [2, 0.501],
    ]),
  );
  t.ok(Math.abs(small[0]! - small[1]!) > 1, 'a move of 0.001 is over a pixel');
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
  t.match(svg, '<small class="range">0.2000–0.8000</small>');
  t.ok(claimChart(points, []).length < 40_000, "and so is the claim's chart");
});
