// What the directory logs: a signed statement binding a name to a key, the bytes its signature covers, and the entry the log
// stores, whose bytes are the leaf and have one spelling (README.md#statements-and-entries).
import { ed25519Verify } from 'tlog-engine';

/** A refusal, answered as its status and {error, detail} (and `extra`, and `headers`). */
export class KeyDirError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

const badRequest = (detail: string) => new KeyDirError(400, 'bad_request', detail);

/** The bytes of a base64url string (no padding) of exactly `length` bytes, or null when it is not one, or not spelled canonically. */
export function fromBase64url(s: string, length: number): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const bytes = Buffer.from(s, 'base64url');
  return bytes.length === length && bytes.toString('base64url') === s ? new Uint8Array(bytes) : null;
}

/** A name: an email-like handle in lower case, `local@domain`. */
export const NAME = /^[a-z0-9][a-z0-9._-]{0,63}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,7}$/;

/** A signed statement binding `name` to `publicKey`; `prev` is the seq of the entry it replaces (null: a first binding). */
export interface Statement {
  name: string;
  publicKey: string;
  prev: number | null;
  signature: string;
}

/** An entry of the log: a statement the directory admitted, and when. */
export interface Entry extends Statement {
  time: string;
}

/** Checks a name; throws 400 naming `field`. */
export function checkName(name: unknown, field = 'name'): asserts name is string {
  if (typeof name !== 'string') throw badRequest(`${field}: required, a string`);
  if (!NAME.test(name)) throw badRequest(`${field}: ${JSON.stringify(name)} is not a lower-case handle local@domain`);
}

/** The bytes a statement's signature covers. */
export function signedMessage(s: { name: string; publicKey: string; prev: number | null }): Uint8Array {
  return new TextEncoder().encode(`keydir/v1 bind\n${s.name}\n${s.publicKey}\n${s.prev ?? 'first'}\n`);
}

/** Whether the statement's signature is by `signer` (a public key spelled as `publicKey` is). */
export function signedBy(s: Statement, signer: string): boolean {
  const key = fromBase64url(signer, 32);
  const sig = fromBase64url(s.signature, 64);
  return key !== null && sig !== null && ed25519Verify(key, signedMessage(s), sig);
}

const MEMBERS = ['name', 'publicKey', 'prev', 'signature'];

/** A POST body read as a statement, strictly; throws 400 naming the member at fault. The signature is checked later, against the state. */
export function parseStatement(body: unknown): Statement {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('body: expected a JSON object {name, publicKey, prev?, signature}');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!MEMBERS.includes(k)) throw badRequest(`${k}: unexpected member`);
  checkName(b.name);
  if (typeof b.publicKey !== 'string') throw badRequest('publicKey: required, a string');
  if (fromBase64url(b.publicKey, 32) === null) throw badRequest('publicKey: expected a 32-byte Ed25519 key in base64url, no padding');
  const prev = b.prev ?? null;
  if ('prev' in b && !(typeof prev === 'number' && Number.isSafeInteger(prev) && prev >= 0))
    throw badRequest('prev: the seq of the entry this rotation replaces, an integer at least 0 (omitted for a first binding)');
  if (typeof b.signature !== 'string') throw badRequest('signature: required, a string');
  if (fromBase64url(b.signature, 64) === null) throw badRequest('signature: expected a 64-byte Ed25519 signature in base64url, no padding');
  return { name: b.name, publicKey: b.publicKey, prev: prev as number | null, signature: b.signature };
}

/** The stored bytes (the leaf) of an entry. */
export function entryText(e: Entry): string {
  return JSON.stringify({ name: e.name, publicKey: e.publicKey, prev: e.prev, signature: e.signature, time: e.time });
}

const TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;

/** An entry's text parsed strictly: its one spelling, or an Error saying what is wrong. */
export function parseEntry(text: string): Entry {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error('the entry is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('the entry is not a JSON object');
  const { prev, time, ...rest } = v as Record<string, unknown>;
  const s = parseStatement(prev === null ? rest : { ...rest, prev });
  if (typeof time !== 'string' || !TIME.test(time) || new Date(time).toISOString() !== time)
    throw new Error('time: expected an ISO 8601 time in UTC with milliseconds');
  const entry = { ...s, time };
  if (entryText(entry) !== text) throw new Error('the entry is not spelled as entryText spells it');
  return entry;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** An entry's stored bytes parsed (parseEntry). */
export function parseEntryBytes(bytes: Uint8Array): Entry {
  return parseEntry(utf8.decode(bytes));
}
