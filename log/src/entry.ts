// Log entries (docs/log-format.md): how an entry's hashes are formed from its fields.
//
//   payloadHash = SHA-256(canonical JSON of the logged object)
//   leaf input  = UTF-8 canonical JSON of {payloadHash, prevHash, seq, ts, type}
//   entryHash   = SHA-256(0x00 || leaf input), the RFC 6962 leaf hash
//
// The log is given the logged object already in canonical JSON (the record above it
// canonicalizes), so the log works on bytes and never re-serializes a payload.
import { sha256Text, sha256TextHex, toHex } from './hash.js';

/** prevHash of entry 0. */
export const ZERO_HASH = '0'.repeat(64);

/** Entry `type` values: lower-case words joined by '.', '_' or '-', so they need no JSON escaping. */
const TYPE = '[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*';
export const ENTRY_TYPE = new RegExp(`^${TYPE}$`);

/** ISO-8601 UTC with milliseconds, as the log writes `ts`. */
const TS = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';

export interface LeafFields {
  payloadHash: string;
  prevHash: string;
  seq: number;
  ts: string;
  type: string;
}

/** One entry as read back from the log: its position, fields and the payload text, parsed out of the stored record. */
export interface LoggedEntry {
  seq: number;
  ts: string;
  type: string;
  /** The canonical JSON text of the logged object, as it was appended. */
  payload: string;
}

/** One entry as the log serves it; `payload` is the canonical JSON text of the logged object. */
export interface Entry extends LeafFields {
  entryHash: string;
  payload: string;
}

/** RFC 6962 leaf hash of a leaf input given as text: SHA-256(0x00 || UTF-8 bytes). */
export function hashLeafText(leaf: string): Uint8Array {
  return sha256Text(`\u0000${leaf}`);
}

/**
 * The leaf input: the canonical JSON of the five leaf fields. Members are written in
 * RFC 8785 order (payloadHash < prevHash < seq < ts < type); every value is hex, a safe
 * integer, a ts as the log writes it or an ENTRY_TYPE, so no value needs escaping.
 */
export function leafInput(f: LeafFields): string {
  return `{"payloadHash":"${f.payloadHash}","prevHash":"${f.prevHash}","seq":${f.seq},"ts":"${f.ts}","type":"${f.type}"}`;
}

/** The hashes of entry `seq`, chained to `prevHash`: its payloadHash and leaf (entry) hash. */
export function entryHashes(
  seq: number,
  ts: string,
  type: string,
  payload: string,
  prevHash: string,
): { payloadHash: string; leafHash: Uint8Array } {
  const payloadHash = sha256TextHex(payload);
  return { payloadHash, leafHash: hashLeafText(leafInput({ payloadHash, prevHash, seq, ts, type })) };
}

/** Entry `seq` formed from its payload text, chained to `prevHash`: its stored record and hashes. */
export function formEntry(
  seq: number,
  ts: string,
  type: string,
  payload: string,
  prevHash: string,
): { record: string; leafHash: Uint8Array; entryHash: string } {
  const { leafHash } = entryHashes(seq, ts, type, payload, prevHash);
  return { record: `${ts} ${type}\n${payload}`, leafHash, entryHash: toHex(leafHash) };
}

// The stored record of an entry is what cannot be derived: "<ts> <type>", a newline, then the
// payload text (canonical JSON never contains a raw newline). seq is its position, payloadHash
// is recomputed, and the entry hashes (hence prevHash) are the level-0 hashes of the tree.

const HEAD_LINE = new RegExp(`^(${TS}) (${TYPE})$`);

/** A stored record's ts, type and payload; null unless it is well formed. */
export function parseEntryRecord(record: string): { ts: string; type: string; payload: string } | null {
  const nl = record.indexOf('\n');
  const m = nl < 0 ? null : HEAD_LINE.exec(record.slice(0, nl));
  if (m === null) return null;
  return { ts: m[1]!, type: m[2]!, payload: record.slice(nl + 1) };
}
