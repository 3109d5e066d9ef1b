// Ed25519 verification for clients (node:crypto), by the raw 32-byte keys of signed notes and
// cosignatures, and by the log key as its reads spell it (`key` of `<prefix>/key`: base64url of
// the 44-byte DER SPKI, docs/log-format.md "Keys").
import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { LogError } from '../errors.js';
import { bytesEqual } from '../hash.js';
import type { LogVerifier } from '../head.js';
import type { NoteKey } from '../checkpoint.js';

/** DER SPKI header of an Ed25519 public key (RFC 8410): 12 bytes, then the 32-byte point. */
export const ED25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

const B64URL_44 = /^[A-Za-z0-9_-]{59}$/;

/** True iff `signature` is a valid Ed25519 signature of `message` by `rawPublicKey`; false (never throws) on malformed input. */
export function verifyEd25519(rawPublicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(rawPublicKey instanceof Uint8Array) || rawPublicKey.length !== 32) return false;
  if (!(signature instanceof Uint8Array) || signature.length !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, rawPublicKey]), format: 'der', type: 'spki' });
    return cryptoVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** The raw public key of a log key spelled as base64url DER SPKI; anything else throws LogError('bad_argument'). */
export function logKeyRaw(key: string): Uint8Array {
  if (typeof key !== 'string' || !B64URL_44.test(key)) throw new LogError('bad_argument', 'log key: expected 59 characters of base64url');
  const der = Buffer.from(key, 'base64url');
  if (der.length !== 44 || der.toString('base64url') !== key || !bytesEqual(der.subarray(0, 12), ED25519_SPKI_PREFIX)) {
    throw new LogError('bad_argument', 'log key: not the DER SPKI of an Ed25519 key');
  }
  return new Uint8Array(der.subarray(12));
}

/** The log key spelled as base64url DER SPKI, from its raw 32 bytes. */
export function logKeySpelling(rawPublicKey: Uint8Array): string {
  if (!(rawPublicKey instanceof Uint8Array) || rawPublicKey.length !== 32)
    throw new LogError('bad_argument', 'expected a 32-byte Ed25519 public key');
  return Buffer.concat([ED25519_SPKI_PREFIX, rawPublicKey]).toString('base64url');
}

/** Checks signed tree heads by the log key `key` (base64url DER SPKI); throws LogError('bad_argument') on a malformed key. */
export function logKeyVerifier(key: string): LogVerifier {
  const raw = logKeyRaw(key);
  return (message, signature) => verifyEd25519(raw, message, signature);
}

/** The note key of the log's checkpoints: named by the origin, the log key's raw bytes. */
export function logNoteKey(origin: string, key: string): NoteKey {
  return { name: origin, rawPublicKey: logKeyRaw(key) };
}
