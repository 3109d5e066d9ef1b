// The log's one rule: a write is a signed statement, and the entry logged, and the leaf, is the canonical JSON of the whole write.
// The same rule admits a write and checks an entry in the verifier (README.md#the-rule).
import { canonicalize } from './canonical.js';
import { ed25519Verify } from 'tlog-engine';

/** A refusal, answered as its status and {error, detail}. */
export class StatementError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

const badRequest = (detail: string) => new StatementError(400, 'bad_request', detail);

/** The bytes of a base64url string (no padding) of exactly `length` bytes, or null when it is not one, or not spelled canonically. */
function fromBase64url(s: string, length: number): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const bytes = Buffer.from(s, 'base64url');
  return bytes.length === length && bytes.toString('base64url') === s ? new Uint8Array(bytes) : null;
}
const MEMBERS = ['publicKey', 'signature', 'statement'];
const utf8 = new TextEncoder();

/**
 * Checks a write and gives the entry to log: the UTF-8 bytes of its canonical JSON. A malformed
 * body is 400 naming the member; a signature that does not verify is 401.
 */
export function admitStatement(body: unknown): Uint8Array {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('body: expected a JSON object {statement, publicKey, signature}');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!MEMBERS.includes(k)) throw badRequest(`${k}: unexpected member`);
  if (b.statement === undefined || b.statement === null) throw badRequest('statement: required, any JSON value but null');
  if (typeof b.publicKey !== 'string') throw badRequest('publicKey: required, a string');
  const key = fromBase64url(b.publicKey, 32);
  if (key === null) throw badRequest('publicKey: expected a 32-byte Ed25519 key in base64url, no padding');
  if (typeof b.signature !== 'string') throw badRequest('signature: required, a string');
  const signature = fromBase64url(b.signature, 64);
  if (signature === null) throw badRequest('signature: expected a 64-byte Ed25519 signature in base64url, no padding');
  let statement: string;
  try {
    statement = canonicalize(b.statement);
  } catch (err) {
    throw badRequest(`statement: ${(err as Error).message}`);
  }
  if (!ed25519Verify(key, utf8.encode(statement), signature))
    throw new StatementError(401, 'unauthorized', 'signature: does not verify over the canonical JSON of statement with publicKey');
  return utf8.encode(canonicalize({ publicKey: b.publicKey, signature: b.signature, statement: b.statement }));
}

const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** What is wrong with a logged entry under the rule, or null: the verifier's check of each leaf. */
export function entryProblem(leaf: Uint8Array): string | null {
  let body: unknown;
  try {
    body = JSON.parse(fromUtf8.decode(leaf));
  } catch {
    return 'the entry is not JSON text';
  }
  let admitted: Uint8Array;
  try {
    admitted = admitStatement(body);
  } catch (err) {
    return (err as Error).message;
  }
  return Buffer.from(admitted).equals(leaf) ? null : 'the entry is not the canonical JSON of its statement';
}
