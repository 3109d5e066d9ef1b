// Ed25519 keys and signatures: verifySignature, shared by the service and the offline verifier, its accept/reject set pinned by
// fixtures/crypto/; parsePublicKey, which also checks the point where a key is registered or delegated.
// The rules: docs/protocol.md#signatures and docs/protocol.md#keys.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as cryptoSign,
  verify as cryptoVerify,
  type KeyObject,
} from 'node:crypto';
import { Point } from '@noble/ed25519';
import sodium from 'libsodium-wrappers-sumo';
import { bytesEqual } from 'tlog-engine';
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { canonicalBytes } from './canonical-json.js';
import { ArchiveError } from './errors.js';

/** DER SPKI header of an Ed25519 public key (RFC 8410): 12 bytes, then the 32-byte point. */
export const SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);
/** DER PKCS#8 header of an Ed25519 private key (RFC 8410): 16 bytes, then the 32-byte seed. */
const PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
/** A key spelling is 59 characters; anything far outside is refused before decoding. */
const MIN_KEY_CHARS = 20;
const MAX_KEY_CHARS = 200;

/** A registered public key: its one spelling and the 32-byte encoded point. */
export interface PublicKey {
  readonly spelling: string;
  readonly raw: Uint8Array;
}

/** Strict decode of a key spelling to the 32 raw bytes; no point checks. */
function rawFromSpelling(s: string, what: string): Uint8Array {
  const der = decodeBase64url(s, what);
  if (der.length !== 44) {
    throw new ArchiveError('bad_request', `${what}: expected the 44-byte DER SPKI of an Ed25519 key, got ${der.length} bytes`);
  }
  if (!bytesEqual(der.subarray(0, 12), SPKI_PREFIX)) {
    throw new ArchiveError('bad_request', `${what}: not an Ed25519 SPKI (DER prefix 302a300506032b6570032100)`);
  }
  return der.slice(12);
}

// libsodium's WebAssembly, ready before any key is checked.
await sodium.ready;

/**
 * Why `raw` is refused as a registered key, or null when it is a sound point. libsodium's
 * crypto_core_ed25519_is_valid_point is true exactly when `raw` is a canonical encoding (y < p) of a point of the curve, not of
 * small order (so x != 0 and no "-0" is possible), whose [L]P = O: the accept set of the checks below. Keys are accepted by it
 * alone; noble decodes only a key it refuses, to say why (decoding took about as long as the subgroup check itself).
 */
function pointProblem(raw: Uint8Array): string | null {
  if (sodium.crypto_core_ed25519_is_valid_point(raw)) return null;
  let point: Point;
  try {
    point = Point.fromBytes(raw, false); // RFC 8032 5.1.3 decoding: y < p, no "-0"
  } catch {
    try {
      Point.fromBytes(raw, true); // decodes when y >= p or x = 0 carries a sign bit
      return 'non-canonical point encoding';
    } catch {
      return 'not a point on the curve';
    }
  }
  if (!bytesEqual(point.toBytes(), raw)) return 'non-canonical point encoding';
  if (point.isSmallOrder()) return 'small-order point';
  // A canonical point of the curve, not of small order, that libsodium refuses: [L]P != O.
  return 'point is not torsion-free (has a small-order component)';
}

// Keys whose point this process's own checks found sound on another thread (the verifier's workers, verify/entry-worker.ts), so
// that the replay need not check them again; each is taken once, and the set is bounded.
const soundPoints = new Set<string>();
const SOUND_POINTS_MAX = 1 << 16;

/** Notes that parsePublicKey accepted `spelling` on another thread of this process: its next parse skips the point's checks. */
export function knownSoundKey(spelling: string): void {
  if (soundPoints.size >= SOUND_POINTS_MAX) soundPoints.clear();
  soundPoints.add(spelling);
}

/**
 * Parses a public key being registered or delegated: exactly base64url (no padding) of the
 * DER SPKI, with a canonical, torsion-free point of large order. Anything else is 400.
 */
export function parsePublicKey(s: string, what = 'publicKey'): PublicKey {
  if (typeof s !== 'string') throw new ArchiveError('bad_request', `${what}: expected a string`);
  if (s.length < MIN_KEY_CHARS || s.length > MAX_KEY_CHARS) {
    throw new ArchiveError('bad_request', `${what}: expected ${MIN_KEY_CHARS}..${MAX_KEY_CHARS} characters, got ${s.length}`);
  }
  const raw = rawFromSpelling(s, what);
  const problem = soundPoints.delete(s) ? null : pointProblem(raw);
  if (problem) throw new ArchiveError('bad_request', `${what}: ${problem}`);
  return { spelling: s, raw };
}

// Imported public keys by spelling; cleared wholesale when it grows past the bound.
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_MAX = 4096;

function keyObjectOf(spelling: string): KeyObject | null {
  const hit = keyCache.get(spelling);
  if (hit) return hit;
  const raw = rawFromSpelling(spelling, 'publicKey');
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') return null;
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  keyCache.set(spelling, key);
  return key;
}

/**
 * THE verify function: true iff `signature` (strict base64url, 64 bytes) is a valid Ed25519
 * signature of `message` under `publicKey`, as node:crypto (OpenSSL, cofactorless) decides.
 * Never throws: garbage of any kind is false.
 */
export function verifySignature(publicKey: string | PublicKey, message: Uint8Array, signature: string): boolean {
  try {
    const spelling = typeof publicKey === 'string' ? publicKey : publicKey?.spelling;
    if (typeof spelling !== 'string' || typeof signature !== 'string' || !(message instanceof Uint8Array)) return false;
    if (signature.length !== 86) return false; // 64 bytes are 86 characters unpadded
    const sig = decodeBase64url(signature, 'signature', 64);
    const key = keyObjectOf(spelling);
    return key !== null && cryptoVerify(null, message, key, sig);
  } catch {
    return false;
  }
}

function assertPrivate(k: KeyObject): void {
  if (k?.type !== 'private' || k.asymmetricKeyType !== 'ed25519') {
    throw new ArchiveError('internal', 'expected an Ed25519 private KeyObject');
  }
}

/** Raw 64-byte Ed25519 signature of `message` (RFC 8032, pure). */
export function signBytes(privateKey: KeyObject, message: Uint8Array): Uint8Array {
  assertPrivate(privateKey);
  return new Uint8Array(cryptoSign(null, message, privateKey));
}

/** base64url Ed25519 signature of `message`. */
export function sign(privateKey: KeyObject, message: Uint8Array): string {
  return encodeBase64url(signBytes(privateKey, message));
}

/** Signature over the UTF-8 canonical JSON of `payload` (docs/protocol.md). */
export function signPayload(privateKey: KeyObject, payload: unknown): string {
  return sign(privateKey, canonicalBytes(payload, 'payload'));
}

/** verifySignature over the canonical JSON of `payload`; false (never throws) if it is not JSON. */
export function verifyPayload(publicKey: string | PublicKey, payload: unknown, signature: string): boolean {
  let bytes: Uint8Array;
  try {
    bytes = canonicalBytes(payload, 'payload');
  } catch {
    return false;
  }
  return verifySignature(publicKey, bytes, signature);
}

/** A fresh key pair: the private KeyObject and the public key's spelling. */
export function generateKeyPair(): { privateKey: KeyObject; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey: publicKeyOf(privateKey) };
}

/** The public key's spelling: base64url of its DER SPKI. */
export function publicKeyOf(privateKey: KeyObject): string {
  assertPrivate(privateKey);
  return encodeBase64url(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }));
}

/** The 32-byte encoded public point. */
export function rawPublicKey(privateKey: KeyObject): Uint8Array {
  assertPrivate(privateKey);
  return new Uint8Array(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12));
}

/** The private key from its 32-byte RFC 8032 seed. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) {
    throw new ArchiveError('bad_request', `privateKey: expected a 32-byte seed, got ${seed?.length} bytes`);
  }
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** PKCS#8 PEM of a private key. */
export function privateKeyToPem(k: KeyObject): string {
  assertPrivate(k);
  return k.export({ format: 'pem', type: 'pkcs8' }) as string;
}

/** Reads a PKCS#8 PEM private key, refusing (400) anything but an unencrypted Ed25519 key. */
export function privateKeyFromPem(pem: string): KeyObject {
  let k: KeyObject;
  try {
    k = createPrivateKey({ key: pem, format: 'pem' });
  } catch (e) {
    throw new ArchiveError('bad_request', `privateKey: not a readable PEM private key (${(e as Error).message})`);
  }
  if (k.asymmetricKeyType !== 'ed25519') {
    throw new ArchiveError('bad_request', `privateKey: expected an Ed25519 key, got ${k.asymmetricKeyType}`);
  }
  return k;
}

// The log key's signer and verifier, and verification by a raw key (signed notes, cosignatures),
// are the engine's (docs/engine.md, "Keys").
export { logSigner, logVerifier, ed25519Verify as verifyRaw } from 'tlog-engine';
