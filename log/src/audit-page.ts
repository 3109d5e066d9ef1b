// The per-entry half of the audit, on one page of stored entries: pure, so it runs on worker
// threads (audit-worker.ts) as well as inline.
import { leafHash, type Codec, type Leaf } from './codec.js';

export interface PageCheck {
  /** Leaf hashes of the good entries before the first problem, 32 bytes each. */
  hashes: Uint8Array;
  /** How many entries passed. */
  count: number;
  /** The first problem in the page, if any. */
  problem: { seq: number; detail: string } | null;
}

/**
 * Recomputes the leaf hashes of stored entries of seqs from, from + 1, ...: the codec must give
 * each a leaf input, and its rule must let each follow the one before. `prev` is the leaf hash
 * before `from` and `before` the stored entry before it (the caller checks they are the right ones).
 */
export function checkPage(
  codec: Pick<Codec, 'leaf' | 'follows'>,
  from: number,
  records: Uint8Array[],
  prev: Uint8Array,
  before: Uint8Array | null,
): PageCheck {
  const hashes = new Uint8Array(32 * records.length);
  let last = before;
  for (let i = 0; i < records.length; i++) {
    const seq = from + i;
    const fail = (detail: string): PageCheck => ({ hashes: hashes.subarray(0, 32 * i), count: i, problem: { seq, detail } });
    const stored = records[i]!;
    let leaf: Leaf;
    try {
      leaf = codec.leaf(stored, { seq, prev });
    } catch (err) {
      return fail(`stored entry is malformed: ${(err as Error).message}`);
    }
    const why = codec.follows(stored, last);
    if (why !== null) return fail(why);
    const hash = leafHash(leaf);
    hashes.set(hash, 32 * i);
    prev = hash;
    last = stored;
  }
  return { hashes, count: records.length, problem: null };
}
