// C2SP tlog-checkpoint inside a C2SP signed-note (Ed25519, signature type 0x01), so existing
// witnesses and monitors can follow the log. Keys are injected as functions: log/ holds no key
// material and no crypto beyond SHA-256.
import { assertIndex } from './bits.js';
import { LogError } from './errors.js';
import { bytesEqual, sha256, toHex } from './hash.js';

/** Signs a message with the note key (Ed25519, 64-byte signature). */
export type NoteSigner = (msg: Uint8Array) => Uint8Array;
/** Checks an Ed25519 signature by a raw 32-byte public key. */
export type NoteVerifier = (rawPublicKey: Uint8Array, msg: Uint8Array, sig: Uint8Array) => boolean;

/** A parsed verifier key: the note signer's name and raw Ed25519 public key. */
export interface NoteKey {
  name: string;
  rawPublicKey: Uint8Array;
}

/** A parsed tlog-checkpoint body. */
export interface Checkpoint {
  origin: string;
  treeSize: number;
  rootHash: Uint8Array;
  extensions: string[];
}

const ED25519 = 0x01; // signed-note signature type of Ed25519 keys
const SIG_DASH = '\u2014 '; // signed-note: each signature line starts with an em dash and a space
const MAX_SIGNATURES = 100; // as golang.org/x/mod/sumdb/note, to bound work on hostile notes
const SIZE = /^(?:0|[1-9][0-9]*)$/; // tlog-checkpoint: decimal, no leading zeros
const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/; // standard, padded
const HEX8 = /^[0-9a-f]{8}$/;
const utf8 = new TextEncoder();

/** Strict standard base64 with padding; anything else throws LogError('bad_argument'). */
function fromBase64(s: string, what: string): Uint8Array {
  if (!B64.test(s)) throw new LogError('bad_argument', `${what} is not standard padded base64`);
  const bytes = Buffer.from(s, 'base64');
  if (bytes.toString('base64') !== s) throw new LogError('bad_argument', `${what} is not canonical base64`);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** signed-note key names: non-empty, no whitespace, no '+'. */
function checkName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !/^[^\s+]+$/u.test(name) || /[\p{Cc}\p{Cs}]/u.test(name)) {
    throw new LogError('bad_argument', 'note key name must be non-empty, without spaces or "+"');
  }
}

/** signed-note text: non-empty, newline-terminated, no control characters but newline. */
function checkText(text: unknown): asserts text is string {
  if (typeof text !== 'string' || text.length === 0 || !text.endsWith('\n')) {
    throw new LogError('bad_argument', 'note text must be non-empty and end with a newline');
  }
  // eslint-disable-next-line no-control-regex -- control characters are what a note may not hold
  if (/[\u0000-\u0009\u000b-\u001f\u007f]|\p{Cs}/u.test(text)) {
    throw new LogError('bad_argument', 'note text holds a control character or a lone surrogate');
  }
}

function checkPublicKey(key: unknown): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 32) {
    throw new LogError('bad_argument', `expected a 32-byte Ed25519 public key, got ${describe(key)}`);
  }
}

function describe(v: unknown): string {
  return v instanceof Uint8Array ? `${v.length} bytes` : typeof v;
}

/** tlog-checkpoint: "origin\nsize\nbase64(root)\n". */
export function checkpointText(origin: string, treeSize: number, rootHash: Uint8Array): string {
  if (typeof origin !== 'string' || origin.length === 0 || origin.includes('\n')) {
    throw new LogError('bad_argument', 'origin must be one non-empty line');
  }
  assertIndex(treeSize, 'treeSize');
  if (!(rootHash instanceof Uint8Array) || rootHash.length !== 32) {
    throw new LogError('bad_argument', `expected a 32-byte root hash, got ${describe(rootHash)}`);
  }
  const text = `${origin}\n${treeSize}\n${toBase64(rootHash)}\n`;
  checkText(text);
  return text;
}

/** Parses a tlog-checkpoint body strictly: canonical size, 32-byte root, non-empty extensions. */
export function parseCheckpoint(text: string): Checkpoint {
  checkText(text);
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new LogError('bad_argument', 'a checkpoint has at least three lines');
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin.length === 0) throw new LogError('bad_argument', 'checkpoint origin is empty');
  if (!SIZE.test(size)) throw new LogError('bad_argument', 'checkpoint size is not canonical decimal');
  const treeSize = Number(size);
  if (!Number.isSafeInteger(treeSize)) throw new LogError('bad_argument', 'checkpoint size is above 2^53 - 1');
  const rootHash = fromBase64(root, 'checkpoint root');
  if (rootHash.length !== 32) throw new LogError('bad_argument', `expected a 32-byte root, got ${rootHash.length}`);
  if (extensions.some((l) => l.length === 0)) throw new LogError('bad_argument', 'checkpoint has an empty line');
  return { origin, treeSize, rootHash, extensions };
}

/** signed-note key ID: SHA-256(name || 0x0A || 0x01 || public key)[:4]. */
export function noteKeyId(name: string, rawPublicKey: Uint8Array): Uint8Array {
  checkName(name);
  checkPublicKey(rawPublicKey);
  return sha256(utf8.encode(name), Uint8Array.of(0x0a, ED25519), rawPublicKey).subarray(0, 4);
}

/** signed-note verifier key: "name+hex(key ID)+base64(0x01 || public key)". */
export function verifierKey(name: string, rawPublicKey: Uint8Array): string {
  const id = noteKeyId(name, rawPublicKey);
  const body = new Uint8Array(33);
  body[0] = ED25519;
  body.set(rawPublicKey, 1);
  return `${name}+${toHex(id)}+${toBase64(body)}`;
}

/** Parses a verifier key string, checking its type byte and that its key ID matches. */
export function parseVerifierKey(key: string): NoteKey {
  // The name holds no '+' and the ID is hex, so the first two '+' split the fields; the
  // base64 key may itself contain '+'.
  const i = typeof key === 'string' ? key.indexOf('+') : -1;
  const j = i < 0 ? -1 : key.indexOf('+', i + 1);
  if (j < 0) throw new LogError('bad_argument', 'verifier key must be name+keyid+key');
  const [name, id, b64] = [key.slice(0, i), key.slice(i + 1, j), key.slice(j + 1)];
  checkName(name);
  if (!HEX8.test(id)) throw new LogError('bad_argument', 'verifier key ID must be 8 lowercase hex digits');
  const body = fromBase64(b64, 'verifier key');
  if (body.length !== 33 || body[0] !== ED25519) {
    throw new LogError('bad_argument', 'verifier key must be type 0x01 (Ed25519) and 32 bytes');
  }
  const rawPublicKey = body.subarray(1);
  if (toHex(noteKeyId(name, rawPublicKey)) !== id) throw new LogError('bad_argument', 'verifier key ID does not match');
  return { name, rawPublicKey };
}

/** Signs `text` as a signed-note: text, a blank line, then "— name base64(keyID || sig)". */
export function signNote(text: string, name: string, rawPublicKey: Uint8Array, sign: NoteSigner): string {
  checkText(text);
  const id = noteKeyId(name, rawPublicKey);
  const sig = sign(utf8.encode(text));
  if (!(sig instanceof Uint8Array) || sig.length !== 64) {
    throw new LogError('bad_argument', `expected a 64-byte Ed25519 signature, got ${describe(sig)}`);
  }
  const blob = new Uint8Array(68);
  blob.set(id, 0);
  blob.set(sig, 4);
  return `${text}\n${SIG_DASH}${name} ${toBase64(blob)}\n`;
}

/**
 * Splits a signed-note into its text and signature lines and checks the signature of `key`.
 * `verified` is true iff the note has at least one signature line for the key (same name and
 * key ID) and every such line verifies over the text. Other keys' lines are ignored.
 * A malformed note throws LogError('bad_argument').
 */
export function openNote(note: string, key: string | NoteKey, verify: NoteVerifier): { text: string; verified: boolean } {
  const { name, rawPublicKey } = typeof key === 'string' ? parseVerifierKey(key) : key;
  const id = noteKeyId(name, rawPublicKey);
  if (typeof note !== 'string') throw new LogError('bad_argument', 'note must be a string');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new LogError('bad_argument', 'note has no blank line before its signatures');
  const text = note.slice(0, split + 1);
  checkText(text);
  const sigs = note.slice(split + 2);
  if (sigs.length === 0 || !sigs.endsWith('\n')) throw new LogError('bad_argument', 'note has no signature lines');
  const lines = sigs.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new LogError('bad_argument', 'note has too many signatures');
  const msg = utf8.encode(text);
  let found = false;
  let ok = true;
  for (const line of lines) {
    if (!line.startsWith(SIG_DASH)) throw new LogError('bad_argument', 'signature line must start with "— "');
    const fields = line.slice(SIG_DASH.length).split(' ');
    if (fields.length !== 2) throw new LogError('bad_argument', 'signature line must be "— name signature"');
    const [lineName, b64] = fields as [string, string];
    checkName(lineName);
    const blob = fromBase64(b64, 'note signature');
    if (blob.length < 5) throw new LogError('bad_argument', 'note signature is shorter than a key ID');
    if (lineName !== name || !bytesEqual(blob.subarray(0, 4), id)) continue;
    found = true;
    const sig = blob.subarray(4);
    if (sig.length !== 64 || !verify(rawPublicKey, msg, sig)) ok = false;
  }
  return { text, verified: found && ok };
}
