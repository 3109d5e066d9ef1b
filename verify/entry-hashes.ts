// One served entry's own hashes, recomputed: its leaf (entry) hash from the leaf fields, and its
// payload hash from the payload unless fields were withheld. Shared by the verifier's workers
// and the proof bundle's check.
import { canonicalize } from '../lib/protocol/canonical-json.js';
import { sha256TextHex, toHex } from 'tlog-engine';
import { hashLeafText, leafInput } from '../lib/protocol/log-entry.js';
import type { ServedEntry } from './source.js';

/** Whether the entry was served with fields withheld (its payload hash cannot be recomputed). */
export const isWithheld = (e: ServedEntry): boolean => e.withheld !== undefined && e.withheld.length > 0;

export interface EntryHashes {
  /** The recomputed leaf hash, at position `seq`. */
  leaf: Uint8Array;
  /** The payload's canonical JSON (what was signed inside it); null when withheld. */
  text: string | null;
  /** Whether the payload hash recomputes; null when withheld. */
  payloadOk: boolean | null;
  /** What does not recompute, in words. */
  problems: string[];
}

export function entryHashes(e: ServedEntry, seq: number): EntryHashes {
  const leaf = hashLeafText(leafInput({ payloadHash: e.payloadHash, prevHash: e.prevHash, seq, ts: e.ts, type: e.type }));
  const problems: string[] = [];
  if (e.entryHash !== toHex(leaf))
    problems.push(`entryHash does not recompute from the leaf fields (served ${e.entryHash}, recomputed ${toHex(leaf)})`);
  if (isWithheld(e)) return { leaf, text: null, payloadOk: null, problems };
  let text: string;
  try {
    text = canonicalize(e.payload);
  } catch (err) {
    // A payload with no canonical JSON (a number out of range, a lone surrogate): it hashes to nothing.
    problems.push(`payloadHash does not recompute: the payload served has no canonical JSON (${(err as Error).message})`);
    return { leaf, text: null, payloadOk: false, problems };
  }
  const payloadOk = sha256TextHex(text) === e.payloadHash;
  if (!payloadOk) problems.push(`payloadHash does not recompute from the payload served (${e.type})`);
  return { leaf, text, payloadOk, problems };
}
