// The per-entry half of the audit, on one page of stored records: pure, so it runs on worker
// threads (audit-worker.ts) as well as inline.
import { entryHashes, parseEntryRecord } from './entry.js';
import { toHex } from './hash.js';

export interface PageCheck {
  /** Entry hashes of the good records before the first problem, 32 bytes each. */
  hashes: Uint8Array;
  /** How many records passed. */
  count: number;
  /** The first problem in the page, if any. */
  problem: { seq: number; detail: string } | null;
}

/**
 * Recomputes the entry hashes of records of seqs from, from + 1, ...: each record must be well
 * formed, with a ts no earlier than the one before it. `prevHash` is the entry hash before
 * `from` (the caller checks that it is the right one).
 */
export function checkPage(from: number, records: string[], prevHash: string, prevTs: string | null): PageCheck {
  const hashes = new Uint8Array(32 * records.length);
  let prev = prevHash;
  let lastTs = prevTs;
  for (let i = 0; i < records.length; i++) {
    const seq = from + i;
    const fail = (detail: string): PageCheck => ({ hashes: hashes.subarray(0, 32 * i), count: i, problem: { seq, detail } });
    const r = parseEntryRecord(records[i]!);
    if (r === null) return fail('stored entry is malformed');
    if (lastTs !== null && r.ts < lastTs) return fail('ts is earlier than the entry before it');
    const { leafHash } = entryHashes(seq, r.ts, r.type, r.payload, prev);
    hashes.set(leafHash, 32 * i);
    prev = toHex(leafHash);
    lastTs = r.ts;
  }
  return { hashes, count: records.length, problem: null };
}
