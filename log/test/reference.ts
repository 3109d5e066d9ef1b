// A naive reference for log/merkle.ts: the recursive definitions of RFC 6962 section 2.1
// (MTH, PATH, PROOF/SUBPROOF) and the subtree consistency proof of
// draft-ietf-plants-merkle-tree-certs, written over leaf ranges [start, end) of a tree D.
// Deliberately independent of log/bits.ts and of the plan code; it only shares SHA-256.
import { createHash } from 'node:crypto';

/** MTH(D[start:end]) of some fixed tree D. */
export type RangeHash = (start: number, end: number) => Uint8Array;

function sha(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** H(0x01 || l || r), restated here so that the reference does not trust merkle.ts. */
export function refNode(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha(Uint8Array.of(1), left, right);
}

/** H(0x00 || d). */
export function refLeaf(data: Uint8Array): Uint8Array {
  return sha(Uint8Array.of(0), data);
}

/** RFC 6962 2.1: k, the largest power of two smaller than n (n >= 2), by doubling. */
export function refSplit(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 6962 2.1 MTH over explicit leaf hashes, by the recursive definition, memoised per range. */
export function mthOf(leafHashes: Uint8Array[]): RangeHash {
  const memo = new Map<string, Uint8Array>();
  const mth: RangeHash = (start, end) => {
    if (end === start) return sha(); // MTH({}) = SHA-256()
    if (end - start === 1) return leafHashes[start]!; // MTH({d}) = leaf hash
    const key = `${start},${end}`;
    let h = memo.get(key);
    if (h === undefined) {
      const k = refSplit(end - start);
      h = refNode(mth(start, start + k), mth(start + k, end));
      memo.set(key, h);
    }
    return h;
  };
  return mth;
}

/**
 * MTH for a huge tree whose leaf hashes are all `common` except the `special` ones. A range with
 * no special leaf hashes to a value that depends only on its length, so every MTH needs at most
 * a few hundred hashes even for trees of 2^53 leaves.
 */
export function sparseMth(common: Uint8Array, special: Map<number, Uint8Array>): RangeHash {
  const byLength = new Map<number, Uint8Array>();
  const uniform = (n: number): Uint8Array => {
    if (n === 0) return sha();
    if (n === 1) return common;
    let h = byLength.get(n);
    if (h === undefined) {
      const k = refSplit(n);
      h = refNode(uniform(k), uniform(n - k));
      byLength.set(n, h);
    }
    return h;
  };
  const specials = [...special.keys()];
  const mth: RangeHash = (start, end) => {
    if (!specials.some((i) => i >= start && i < end)) return uniform(end - start);
    if (end - start === 1) return special.get(start)!;
    const k = refSplit(end - start);
    return refNode(mth(start, start + k), mth(start + k, end));
  };
  return mth;
}

/** RFC 6962 2.1.1 PATH(m, D[start:end]): the audit path of leaf start + m. */
export function refPath(mth: RangeHash, m: number, start: number, end: number): Uint8Array[] {
  const n = end - start;
  if (n <= 1) return [];
  const k = refSplit(n);
  if (m < k) return [...refPath(mth, m, start, start + k), mth(start + k, end)];
  return [...refPath(mth, m - k, start + k, end), mth(start, start + k)];
}

/** RFC 6962 2.1.2 SUBPROOF(m, D[start:end], b). */
function subproof(mth: RangeHash, m: number, start: number, end: number, b: boolean): Uint8Array[] {
  const n = end - start;
  if (m === n) return b ? [] : [mth(start, end)];
  const k = refSplit(n);
  if (m <= k) return [...subproof(mth, m, start, start + k, b), mth(start + k, end)];
  return [...subproof(mth, m - k, start + k, end, false), mth(start, start + k)];
}

/** RFC 6962 2.1.2 PROOF(m, D[0:n]) = SUBPROOF(m, D[0:n], true); empty for m = 0 (our policy). */
export function refProof(mth: RangeHash, m: number, n: number): Uint8Array[] {
  if (m === 0) return [];
  return subproof(mth, m, 0, n, true);
}

/**
 * draft-ietf-plants-merkle-tree-certs subtree consistency proof: that the valid subtree
 * [start, end) is part of the tree D[0:n]. It generalises SUBPROOF: descend into the half
 * holding the subtree, recording the other half's MTH; a subtree straddling the split
 * (start is then 0) continues in the right half with b = false.
 */
export function refSubtreeProof(mth: RangeHash, start: number, end: number, n: number): Uint8Array[] {
  if (start === end) return [];
  const walk = (s: number, lo: number, hi: number, b: boolean): Uint8Array[] => {
    if (s === lo && end === hi) return b ? [] : [mth(lo, hi)];
    const mid = lo + refSplit(hi - lo);
    if (end <= mid) return [...walk(s, lo, mid, b), mth(mid, hi)];
    if (s >= mid) return [...walk(s, mid, hi, b), mth(lo, mid)];
    return [...walk(mid, mid, hi, false), mth(lo, mid)];
  };
  return walk(start, 0, n, true);
}

/** The leaves [start, end) covered by node (level, index). */
export function coverage(level: number, index: number): [number, number] {
  return [index * 2 ** level, (index + 1) * 2 ** level];
}
