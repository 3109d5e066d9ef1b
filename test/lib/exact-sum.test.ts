// The exact sums of docs/credence.md#arithmetic: ExactSum gives the exact sum of its terms
// rounded once to the nearest double (ties to even), checked against an exact BigInt sum of the
// same doubles, in any order, with terms removed again, over tiny and huge magnitudes and
// cancellation.
import t from 'tap';
import fc from 'fast-check';
import { ExactSum, exactSum } from '../../lib/record/numbers/index.js';

/** A finite double as an exact integer multiple of 2^-1074. */
function scaled(x: number): bigint {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  const bits = v.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const e = (bits >> 52n) & 0x7ffn;
  const frac = bits & ((1n << 52n) - 1n);
  return sign * (e === 0n ? frac : (frac | (1n << 52n)) << (e - 1n));
}

function neighbour(x: number, up: boolean): number {
  const v = new DataView(new ArrayBuffer(8));
  if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  v.setFloat64(0, x);
  const bits = v.getBigUint64(0);
  v.setBigUint64(0, x > 0 === up ? bits + 1n : bits - 1n);
  return v.getFloat64(0);
}

const abs = (b: bigint) => (b < 0n ? -b : b);

/** Whether `r` is the double nearest to the exact sum of `xs`, ties to even. */
function nearest(xs: number[], r: number): boolean {
  const exact = xs.reduce((a, x) => a + scaled(x), 0n);
  const d = abs(exact - scaled(r));
  for (const n of [neighbour(r, true), neighbour(r, false)]) {
    const dn = abs(exact - scaled(n));
    if (dn < d) return false;
    if (dn === d && !evenLast(r)) return false;
  }
  return true;
}

/** Whether the last bit of r's significand is 0. */
function evenLast(r: number): boolean {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, r);
  return (v.getBigUint64(0) & 1n) === 0n;
}

const double = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
  fc.double({ noNaN: true, min: -1e-300, max: 1e-300 }),
  fc.double({ noNaN: true, min: -10, max: 10 }),
  fc.integer({ min: -60, max: 60 }).map((k) => 2 ** k),
  fc.constantFrom(1, -1, 0.1, 0.2, 0.3, 1e16, -1e16, 1 + 2 ** -52, 2 ** -53, Number.MIN_VALUE),
);

t.test('ExactSum is the exact sum rounded once, in any order', async () => {
  fc.assert(
    fc.property(fc.array(double, { maxLength: 40 }), (xs) => {
      const r = exactSum(xs);
      if (!nearest(xs, r)) return false;
      return exactSum([...xs].reverse()) === r;
    }),
    { numRuns: 3000, seed: 20261123 },
  );
});

t.test('cancellation: terms and their negations, and terms removed again', async (t) => {
  fc.assert(
    fc.property(fc.array(double, { maxLength: 30 }), fc.array(double, { maxLength: 30 }), (keep, gone) => {
      const s = new ExactSum();
      for (const x of [...gone, ...keep]) s.add(x);
      for (const x of gone) s.remove(x);
      const withNegations = exactSum([...keep, ...keep.map((x) => -x), ...keep]);
      return s.value() === exactSum(keep) && nearest(keep, s.value()) && withNegations === exactSum(keep);
    }),
    { numRuns: 3000, seed: 20261124 },
  );
  t.equal(exactSum([1e16, 1, -1e16]), 1, 'what a naive sum loses');
  t.equal(exactSum([0.1, 0.2, 0.3]), 0.6, 'rounded once (a naive sum gives 0.6000000000000001)');
  t.equal(exactSum([1, 2 ** -53]), 1, 'a tie rounds to even (down)');
  t.equal(exactSum([1 + 2 ** -52, 2 ** -53]), 1 + 2 ** -51, 'a tie rounds to even (up)');
  t.equal(exactSum([1, 2 ** -53, 2 ** -100]), 1 + 2 ** -52, 'just above a tie rounds up');
  t.equal(exactSum([]), 0);
});
