// Ed25519 with node:crypto alone. Statements are signed by keys spelled as base64url (no
// padding) of the raw 32-byte key, their signatures as base64url of 64 bytes; the log key
// (key.ts) signs the checkpoints.
import { createPublicKey, verify } from 'node:crypto';

/** DER SPKI header of an Ed25519 public key (RFC 8410), then the 32-byte key. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The bytes of a base64url string (no padding) of exactly `length` bytes, or null when it is not one, or not spelled canonically. */
export function fromBase64url(s: string, length: number): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const bytes = Buffer.from(s, 'base64url');
  return bytes.length === length && bytes.toString('base64url') === s ? new Uint8Array(bytes) : null;
}

/** The raw 32-byte key of a DER SPKI Ed25519 public key (what node:crypto exports). */
export function rawOfSpki(spki: Uint8Array): Uint8Array {
  return spki.subarray(spki.length - 32);
}

/** Whether `signature` is the Ed25519 signature of `message` by the raw key `publicKey`; false, never a throw, on malformed input. */
export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return verify(null, message, key, signature);
  } catch {
    return false; // not a point on the curve
  }
}
