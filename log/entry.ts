// Log entries (choices.md section 2): how an entry's hashes are formed from its fields.
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

/** Entry `type` values: lower-case words joined by dots, so they need no JSON escaping. */
export const ENTRY_TYPE = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;

/** ISO-8601 UTC with milliseconds, as the log writes `ts`. */
export const ENTRY_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface LeafFields {
  payloadHash: string;
  prevHash: string;
  seq: number;
  ts: string;
  type: string;
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
 * integer, an ENTRY_TS or an ENTRY_TYPE, so no value needs escaping.
 */
export function leafInput(f: LeafFields): string {
  return `{"payloadHash":"${f.payloadHash}","prevHash":"${f.prevHash}","seq":${f.seq},"ts":"${f.ts}","type":"${f.type}"}`;
}

/** Entry `seq` formed from its payload text, chained to `prevHash`: its record and leaf hash. */
export function formEntry(seq: number, ts: string, type: string, payload: string, prevHash: string): { record: string; leafHash: Uint8Array; entryHash: string } {
  const leaf = leafInput({ payloadHash: sha256TextHex(payload), prevHash, seq, ts, type });
  const leafHash = hashLeafText(leaf);
  return { record: `${leaf}\n${payload}`, leafHash, entryHash: toHex(leafHash) };
}

const LEAF = /^\{"payloadHash":"([0-9a-f]{64})","prevHash":"([0-9a-f]{64})","seq":(0|[1-9][0-9]{0,15}),"ts":"([^"]+)","type":"([^"]+)"\}$/;

/** Parses a stored leaf input; null unless it is exactly the canonical spelling. */
export function parseLeafInput(text: string): LeafFields | null {
  const m = LEAF.exec(text);
  if (!m) return null;
  const seq = Number(m[3]);
  const ts = m[4]!;
  const type = m[5]!;
  if (!Number.isSafeInteger(seq) || !ENTRY_TS.test(ts) || !ENTRY_TYPE.test(type)) return null;
  return { payloadHash: m[1]!, prevHash: m[2]!, seq, ts, type };
}

// Stored form of an entry: the leaf input, a newline, then the payload text. Canonical JSON
// never contains a raw newline, so the first newline splits the two.

/** The stored record's two parts, unchecked (the audit checks them). */
export function splitEntryRecord(record: string): { leaf: string; payload: string } {
  const nl = record.indexOf('\n');
  if (nl < 0) return { leaf: record, payload: '' };
  return { leaf: record.slice(0, nl), payload: record.slice(nl + 1) };
}

/** Decodes a stored record into an entry, recomputing entryHash; throws on a malformed record. */
export function decodeEntryRecord(record: string): Entry {
  const { leaf, payload } = splitEntryRecord(record);
  const fields = parseLeafInput(leaf);
  if (!fields) throw new Error('malformed entry record');
  return { ...fields, entryHash: toHex(hashLeafText(leaf)), payload };
}
