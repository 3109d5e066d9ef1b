// The per-entry half of the audit, on one page of stored records: pure, so it runs on worker
// threads (audit-worker.ts) as well as inline.
import { hashLeafText, leafInput, parseLeafInput, splitEntryRecord } from './entry.js';
import { sha256TextHex, toHex } from './hash.js';

export interface PageCheck {
  /** Entry hashes of the good records before the first problem, 32 bytes each. */
  hashes: Uint8Array;
  /** How many records passed. */
  count: number;
  /** The first record's prevHash, for the caller to check against the page before. */
  firstPrev: string | null;
  /** The first problem in the page, if any. */
  problem: { seq: number; detail: string } | null;
}

/**
 * Checks records of seqs from, from + 1, ...: each is a canonical leaf input naming its seq,
 * its payloadHash matches its payload, and (after the first) its prevHash is the entry hash
 * before it.
 */
export function checkPage(from: number, records: string[]): PageCheck {
  const hashes = new Uint8Array(32 * records.length);
  let prev: string | null = null;
  let firstPrev: string | null = null;
  for (let i = 0; i < records.length; i++) {
    const seq = from + i;
    const { leaf, payload } = splitEntryRecord(records[i]!);
    const fields = parseLeafInput(leaf);
    const fail = (detail: string): PageCheck => ({ hashes: hashes.subarray(0, 32 * i), count: i, firstPrev, problem: { seq, detail } });
    if (fields === null || leafInput(fields) !== leaf) return fail('leaf input is not canonical');
    if (i === 0) firstPrev = fields.prevHash;
    if (fields.seq !== seq) return fail(`entry says seq ${fields.seq}`);
    if (prev !== null && fields.prevHash !== prev) return fail('prevHash is not the previous entry hash');
    if (fields.payloadHash !== sha256TextHex(payload)) return fail('payloadHash does not match the payload');
    const h = hashLeafText(leaf);
    hashes.set(h, 32 * i);
    prev = toHex(h);
  }
  return { hashes, count: records.length, firstPrev, problem: null };
}
