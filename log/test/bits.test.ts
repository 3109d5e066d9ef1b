// log/bits.ts against BigInt, whose bit operators are exact at any width, for values on both
// sides of 2^31, 2^32 and up to 2^53 - 1.
import t from 'tap';
import {
  assertIndex,
  bitCeil,
  bitLength,
  commonAncestorLevel,
  isIndex,
  isPowerOfTwo,
  largestPowerOfTwoBelow,
  pow2,
  shiftRight,
  siblingIndex,
  trailingZeros,
} from '../src/bits.js';
import { LogError } from '../src/errors.js';

const MAX = Number.MAX_SAFE_INTEGER; // 2^53 - 1

/** Values around every power of two up to 2^53, plus a deterministic pseudo-random spread. */
function samples(): number[] {
  const out = new Set<number>([1, 2, 3, MAX, MAX - 1]);
  for (let k = 1; k <= 53; k++) {
    for (const d of [-2, -1, 0, 1, 2]) {
      const v = 2 ** k + d;
      if (v >= 1 && v <= MAX) out.add(v);
    }
  }
  let x = 0x2545f4914f6cdd1dn;
  for (let i = 0; i < 2000; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n; // LCG, fixed seed
    out.add(Number(x % 2n ** BigInt(1 + (i % 53)))); // spread over every bit width
  }
  out.delete(0);
  return [...out];
}

const big = (n: number): bigint => BigInt(n);
const bigBitLength = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);

t.test('known values above 2^31 and 2^32', async (t) => {
  t.equal(bitLength(0), 0);
  t.equal(bitLength(1), 1);
  t.equal(bitLength(2 ** 31), 32);
  t.equal(bitLength(2 ** 32 - 1), 32);
  t.equal(bitLength(2 ** 32), 33);
  t.equal(bitLength(2 ** 33 + 5), 34);
  t.equal(bitLength(MAX), 53);
  t.equal(trailingZeros(2 ** 31), 31);
  t.equal(trailingZeros(2 ** 32), 32);
  t.equal(trailingZeros(3 * 2 ** 40), 40);
  t.equal(trailingZeros(2 ** 52), 52);
  t.equal(trailingZeros(MAX), 0);
  t.ok(isPowerOfTwo(2 ** 32));
  t.ok(isPowerOfTwo(2 ** 52));
  t.notOk(isPowerOfTwo(2 ** 32 + 2 ** 31));
  t.notOk(isPowerOfTwo(0));
  t.equal(largestPowerOfTwoBelow(2 ** 32), 2 ** 31);
  t.equal(largestPowerOfTwoBelow(2 ** 32 + 1), 2 ** 32);
  t.equal(largestPowerOfTwoBelow(2 ** 33 + 5), 2 ** 33);
  t.equal(largestPowerOfTwoBelow(MAX), 2 ** 52);
  t.equal(largestPowerOfTwoBelow(2), 1);
  t.equal(bitCeil(2 ** 32 + 1), 2 ** 33);
  t.equal(bitCeil(2 ** 32), 2 ** 32);
  t.equal(bitCeil(1), 1);
  t.equal(shiftRight(2 ** 33 + 5, 1), 2 ** 32 + 2);
  t.equal(shiftRight(MAX, 52), 1);
  t.equal(pow2(53), 2 ** 53);
  t.equal(siblingIndex(2 ** 32), 2 ** 32 + 1);
  t.equal(siblingIndex(2 ** 32 + 1), 2 ** 32);
  t.equal(commonAncestorLevel(2 ** 32, 2 ** 32 + 1), 1);
  t.equal(commonAncestorLevel(2 ** 32 - 1, 2 ** 32), 33);
  t.equal(commonAncestorLevel(7, 7), 0);
  // The 32-bit operators get these wrong, which is the point of the module.
  t.not((2 ** 32) >> 1, shiftRight(2 ** 32, 1));
});

t.test('agrees with BigInt on every sample', async (t) => {
  const bad: string[] = [];
  const xs = samples();
  for (const n of xs) {
    const b = big(n);
    if (bitLength(n) !== bigBitLength(b)) bad.push(`bitLength ${n}`);
    let tz = 0;
    while (((b >> BigInt(tz)) & 1n) === 0n) tz++;
    if (trailingZeros(n) !== tz) bad.push(`trailingZeros ${n}`);
    if (isPowerOfTwo(n) !== ((b & (b - 1n)) === 0n)) bad.push(`isPowerOfTwo ${n}`);
    if (n >= 2) {
      const k = 1n << BigInt(bigBitLength(b - 1n) - 1);
      if (largestPowerOfTwoBelow(n) !== Number(k)) bad.push(`largestPowerOfTwoBelow ${n}`);
    }
    const ceil = n <= 1 ? 1n : 1n << BigInt(bigBitLength(b - 1n));
    if (bitCeil(n) !== Number(ceil)) bad.push(`bitCeil ${n}`);
    if (siblingIndex(n) !== Number(b ^ 1n)) bad.push(`siblingIndex ${n}`);
    for (const k of [0, 1, 31, 32, 33, 52]) {
      if (shiftRight(n, k) !== Number(b >> BigInt(k))) bad.push(`shiftRight ${n} ${k}`);
    }
    const m = xs[(xs.indexOf(n) * 7 + 3) % xs.length]!;
    if (commonAncestorLevel(n, m) !== bigBitLength(b ^ big(m))) bad.push(`commonAncestorLevel ${n} ${m}`);
  }
  t.ok(xs.length > 2000, `${xs.length} samples`);
  t.ok(xs.some((x) => x > 2 ** 32) && xs.some((x) => x > 2 ** 31 && x < 2 ** 32));
  t.same(bad, []);
});

t.test('argument checks', async (t) => {
  t.ok(isIndex(0) && isIndex(MAX));
  t.notOk(isIndex(-1) || isIndex(MAX + 1) || isIndex(1.5) || isIndex('1') || isIndex(NaN));
  t.throws(() => assertIndex(2 ** 53, 'size'), { code: 'bad_argument' });
  t.throws(() => assertIndex(-1), LogError);
  t.doesNotThrow(() => assertIndex(MAX));
  t.throws(() => trailingZeros(0), { code: 'bad_argument' });
  t.throws(() => largestPowerOfTwoBelow(1), { code: 'bad_argument' });
});
