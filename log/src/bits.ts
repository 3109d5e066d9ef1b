// Integer helpers for tree indexes and sizes. JavaScript's bit operators truncate to 32 bits,
// so every helper here uses division and Math.clz32 on 32-bit halves instead; all are exact
// for non-negative safe integers (below 2^53).
import { LogError } from './errors.js';

const TWO_32 = 2 ** 32;

/** Throws LogError('bad_argument') unless `n` is a non-negative safe integer. */
export function assertIndex(n: unknown, name = 'value'): asserts n is number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new LogError('bad_argument', `${name} must be a non-negative safe integer, got ${String(n)}`);
  }
}

/** True when `n` is a non-negative safe integer (a valid index or size). */
export function isIndex(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** 2^k, exact for k <= 53. */
export function pow2(k: number): number {
  return 2 ** k;
}

/** n >> k without 32-bit truncation: floor(n / 2^k). */
export function shiftRight(n: number, k: number): number {
  return Math.floor(n / 2 ** k);
}

/** Number of bits in n's binary form (Go's bits.Len64): 0 -> 0, 1 -> 1, 2^32 -> 33. */
export function bitLength(n: number): number {
  if (n < TWO_32) return 32 - Math.clz32(n); // clz32 reads a value that fits in 32 bits
  return 64 - Math.clz32(Math.floor(n / TWO_32)); // 32 low bits + length of the high half
}

/** Number of zero bits below n's lowest set bit (n >= 1): 12 -> 2, 2^40 -> 40. */
export function trailingZeros(n: number): number {
  if (!(n >= 1)) throw new LogError('bad_argument', `trailingZeros needs n >= 1, got ${n}`);
  const lo = n % TWO_32; // the low 32 bits, exactly
  if (lo !== 0) return 31 - Math.clz32(lo & -lo); // lo & -lo isolates the lowest set bit
  const hi = Math.floor(n / TWO_32);
  return 63 - Math.clz32(hi & -hi);
}

/** True when n is 2^k for some k >= 0. */
export function isPowerOfTwo(n: number): boolean {
  return n >= 1 && n === 2 ** (bitLength(n) - 1);
}

/** RFC 9162 2.1.1's k: the largest power of two strictly smaller than n (n >= 2). */
export function largestPowerOfTwoBelow(n: number): number {
  if (!(n >= 2)) throw new LogError('bad_argument', `largestPowerOfTwoBelow needs n >= 2, got ${n}`);
  return 2 ** (bitLength(n - 1) - 1);
}

/** The smallest power of two >= n (C++'s bit_ceil); 1 for n <= 1. */
export function bitCeil(n: number): number {
  return n <= 1 ? 1 : 2 ** bitLength(n - 1);
}

/** bitLength(a XOR b): how many levels up a and b's paths meet (0 when a === b). */
export function commonAncestorLevel(a: number, b: number): number {
  // XOR each 32-bit half on its own; >>> 0 reads the result as unsigned.
  const hi = (Math.floor(a / TWO_32) ^ Math.floor(b / TWO_32)) >>> 0;
  if (hi !== 0) return 64 - Math.clz32(hi);
  return 32 - Math.clz32(((a % TWO_32) ^ (b % TWO_32)) >>> 0);
}

/** The index of the sibling of node `index` at the same level (index XOR 1). */
export function siblingIndex(index: number): number {
  return index % 2 === 0 ? index + 1 : index - 1;
}
