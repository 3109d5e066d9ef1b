// C2SP tlog-cosignature (cosignature/v1, Ed25519) and the tlog-witness add-checkpoint request
// body, as docs/log-format.md ("Witnesses") writes them. Like checkpoint.ts, keys are injected
// as functions: log/ holds no key material and no crypto beyond SHA-256.
import { LogError } from './errors.js';
import { bytesEqual, sha256, toHex } from './hash.js';
import type { NoteSigner, NoteVerifier } from './checkpoint.js';

/** A parsed witness (cosigner) verifier key: its name and raw Ed25519 public key. */
export interface CosignerKey {
  name: string;
  rawPublicKey: Uint8Array;
}

/** A cosignature found valid on a note: the cosigner's name and its POSIX timestamp. */
export interface Cosignature {
  name: string;
  timestamp: number;
}

/** A parsed add-checkpoint request body. */
export interface AddCheckpoint {
  oldSize: number;
  proof: Uint8Array[];
  /** The checkpoint note, signatures included. */
  note: string;
}

const COSIGNATURE_V1 = 0x04; // tlog-cosignature: key ID algorithm byte of Ed25519 cosignatures
const SIG_DASH = '\u2014 ';
const SIZE = /^(?:0|[1-9][0-9]*)$/;
const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX8 = /^[0-9a-f]{8}$/;
const MAX_PROOF_LINES = 63; // tlog-witness
const MAX_SIGNATURES = 100;
const utf8 = new TextEncoder();

function fromBase64(s: string, what: string): Uint8Array {
  if (!B64.test(s)) throw new LogError('bad_argument', `${what} is not standard padded base64`);
  const bytes = Buffer.from(s, 'base64');
  if (bytes.toString('base64') !== s) throw new LogError('bad_argument', `${what} is not canonical base64`);
  return new Uint8Array(bytes);
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function checkName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !/^[^\s+]+$/u.test(name) || /[\p{Cc}\p{Cs}]/u.test(name)) {
    throw new LogError('bad_argument', 'cosigner name must be non-empty, without spaces or "+"');
  }
}

function checkPublicKey(key: unknown): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new LogError('bad_argument', 'expected a 32-byte Ed25519 public key');
}

function checkTimestamp(t: number): void {
  if (!Number.isSafeInteger(t) || t <= 0) throw new LogError('bad_argument', 'cosignature timestamp must be a positive integer');
}

/** tlog-cosignature key ID: SHA-256(name || "\n" || 0x04 || public key)[:4]. */
export function cosignerKeyId(name: string, rawPublicKey: Uint8Array): Uint8Array {
  checkName(name);
  checkPublicKey(rawPublicKey);
  return sha256(utf8.encode(name), Uint8Array.of(0x0a, COSIGNATURE_V1), rawPublicKey).subarray(0, 4);
}

/** The cosigner's vkey: "name+hex(key ID)+base64(0x04 || public key)". */
export function cosignerVerifierKey(name: string, rawPublicKey: Uint8Array): string {
  const id = cosignerKeyId(name, rawPublicKey);
  const body = new Uint8Array(33);
  body[0] = COSIGNATURE_V1;
  body.set(rawPublicKey, 1);
  return `${name}+${toHex(id)}+${toBase64(body)}`;
}

/** Parses a cosigner vkey, checking its type byte (0x04) and its key ID. */
export function parseCosignerKey(key: string): CosignerKey {
  const i = typeof key === 'string' ? key.indexOf('+') : -1;
  const j = i < 0 ? -1 : key.indexOf('+', i + 1);
  if (j < 0) throw new LogError('bad_argument', 'witness key must be name+keyid+key');
  const [name, id, b64] = [key.slice(0, i), key.slice(i + 1, j), key.slice(j + 1)];
  checkName(name);
  if (!HEX8.test(id)) throw new LogError('bad_argument', 'witness key ID must be 8 lowercase hex digits');
  const body = fromBase64(b64, 'witness key');
  if (body.length !== 33 || body[0] !== COSIGNATURE_V1) {
    throw new LogError('bad_argument', 'witness key must be type 0x04 (cosignature/v1, Ed25519) and 32 bytes');
  }
  const rawPublicKey = body.subarray(1);
  if (toHex(cosignerKeyId(name, rawPublicKey)) !== id) throw new LogError('bad_argument', 'witness key ID does not match');
  return { name, rawPublicKey };
}

/** The signed message: "cosignature/v1\ntime <timestamp>\n" then the checkpoint's note text. */
export function cosignedMessage(text: string, timestamp: number): Uint8Array {
  checkTimestamp(timestamp);
  if (typeof text !== 'string' || !text.endsWith('\n')) throw new LogError('bad_argument', 'checkpoint text must end with a newline');
  return utf8.encode(`cosignature/v1\ntime ${timestamp}\n${text}`);
}

/** A cosignature line on `text`: "— name base64(key ID || u64 timestamp || signature)\n". */
export function cosignatureLine(text: string, key: CosignerKey, timestamp: number, sign: NoteSigner): string {
  const id = cosignerKeyId(key.name, key.rawPublicKey);
  const sig = sign(cosignedMessage(text, timestamp));
  if (!(sig instanceof Uint8Array) || sig.length !== 64) throw new LogError('bad_argument', 'expected a 64-byte Ed25519 signature');
  const blob = new Uint8Array(76);
  blob.set(id, 0);
  new DataView(blob.buffer).setBigUint64(4, BigInt(timestamp));
  blob.set(sig, 12);
  return `${SIG_DASH}${key.name} ${toBase64(blob)}\n`;
}

/**
 * The valid cosignatures on a signed note by the given cosigner keys: a line counts when its
 * name and key ID are a key's and its signature verifies over the note's text with its
 * timestamp. Lines of other keys are ignored; a malformed note throws LogError('bad_argument').
 * One cosignature a key at most.
 */
export function cosignaturesOn(note: string, keys: CosignerKey[], verify: NoteVerifier): Cosignature[] {
  if (typeof note !== 'string') throw new LogError('bad_argument', 'note must be a string');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new LogError('bad_argument', 'note has no blank line before its signatures');
  const text = note.slice(0, split + 1);
  const sigs = note.slice(split + 2);
  if (sigs.length === 0 || !sigs.endsWith('\n')) throw new LogError('bad_argument', 'note has no signature lines');
  const lines = sigs.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new LogError('bad_argument', 'note has too many signatures');
  const ids = keys.map((k) => cosignerKeyId(k.name, k.rawPublicKey));
  const found = new Map<number, Cosignature>();
  for (const line of lines) {
    if (!line.startsWith(SIG_DASH)) throw new LogError('bad_argument', 'signature line must start with "— "');
    const fields = line.slice(SIG_DASH.length).split(' ');
    if (fields.length !== 2) throw new LogError('bad_argument', 'signature line must be "— name signature"');
    const [name, b64] = fields as [string, string];
    const blob = fromBase64(b64, 'note signature');
    if (blob.length < 5) throw new LogError('bad_argument', 'note signature is shorter than a key ID');
    const k = keys.findIndex((key, n) => key.name === name && bytesEqual(blob.subarray(0, 4), ids[n]!));
    if (k < 0 || found.has(k) || blob.length !== 76) continue;
    const ts = new DataView(blob.buffer, blob.byteOffset).getBigUint64(4);
    if (ts === 0n || ts > BigInt(Number.MAX_SAFE_INTEGER)) continue;
    const timestamp = Number(ts);
    if (verify(keys[k]!.rawPublicKey, cosignedMessage(text, timestamp), blob.subarray(12))) found.set(k, { name, timestamp });
  }
  return [...found.values()];
}

/** The add-checkpoint request body: "old <size>\n", proof lines (base64), "\n", then the note. */
export function addCheckpointBody(oldSize: number, proof: Uint8Array[], note: string): string {
  return `old ${oldSize}\n${proof.map((h) => `${toBase64(h)}\n`).join('')}\n${note}`;
}

/** Parses an add-checkpoint request body strictly; anything malformed throws LogError('bad_argument'). */
export function parseAddCheckpoint(body: string): AddCheckpoint {
  if (typeof body !== 'string') throw new LogError('bad_argument', 'body must be text');
  const end = body.indexOf('\n\n');
  if (end < 0) throw new LogError('bad_argument', 'no blank line between the proof and the checkpoint');
  const [first, ...proofLines] = body.slice(0, end).split('\n') as [string, ...string[]];
  const m = /^old (\S+)$/.exec(first);
  if (m === null || !SIZE.test(m[1]!)) throw new LogError('bad_argument', 'the first line must be "old <size>", in decimal');
  const oldSize = Number(m[1]);
  if (!Number.isSafeInteger(oldSize)) throw new LogError('bad_argument', 'old size is above 2^53 - 1');
  if (proofLines.length > MAX_PROOF_LINES) throw new LogError('bad_argument', `more than ${MAX_PROOF_LINES} proof lines`);
  const proof = proofLines.map((l, i) => {
    const h = fromBase64(l, `proof line ${i + 1}`);
    if (h.length !== 32) throw new LogError('bad_argument', `proof line ${i + 1} is not a 32-byte hash`);
    return h;
  });
  return { oldSize, proof, note: body.slice(end + 2) };
}
