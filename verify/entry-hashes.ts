// One served entry's own hashes, recomputed: its leaf (entry) hash from the leaf fields, and its
// payload hash from the payload unless fields were withheld. Shared by the verifier's workers
// and the proof bundle's check.
import { canonicalize, knownCanonical } from '../lib/protocol/canonical-json.js';
import { leafHash, sha256TextHex, toHex } from 'tlog-engine';
import { leafInput } from '../lib/protocol/log-entry.js';
import { SERVED_LINE, type ServedEntry } from './source.js';

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
  const leaf = leafHash(leafInput({ payloadHash: e.payloadHash, prevHash: e.prevHash, seq, ts: e.ts, type: e.type }));
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

/**
 * The hashes of an entry given as its line, and its type and ts, without parsing it: when the line
 * is of the served shape and its payload's text is known canonical (knownCanonical), that text is
 * the payload's canonical JSON, and it is hashed as it is. These are what entryHashes gives for
 * the entry the line parses to (the payload is then a single value and the line's last member,
 * so the line has no other member and no second one of the same name). Null for any other line
 * (fields withheld, another order, a payload not known canonical): the caller parses it.
 */
export function lineHashes(line: string, seq: number): (EntryHashes & { type: string; ts: string }) | null {
  const m = SERVED_LINE.exec(line);
  if (m === null || line.charCodeAt(line.length - 1) !== 0x7d) return null;
  const text = line.slice(m[0].length, line.length - 1);
  if (!knownCanonical(text)) return null;
  const [, ts, type, payloadHash, prevHash, entryHash] = m as unknown as [string, string, string, string, string, string];
  const leaf = leafHash(leafInput({ payloadHash, prevHash, seq, ts, type }));
  const problems: string[] = [];
  if (entryHash !== toHex(leaf))
    problems.push(`entryHash does not recompute from the leaf fields (served ${entryHash}, recomputed ${toHex(leaf)})`);
  const payloadOk = sha256TextHex(text) === payloadHash;
  if (!payloadOk) problems.push(`payloadHash does not recompute from the payload served (${type})`);
  return { type, ts, leaf, text, payloadOk, problems };
}
