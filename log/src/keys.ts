// The log key, an Ed25519 key with node:crypto only: made, kept in a key file written atomically, and its public half spelled
// as a key or a vkey and parsed back. The rules: docs/engine.md#keys.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseVerifierKey, verifierKey } from './checkpoint.js';
import { LogError } from './errors.js';
import { bytesEqual } from './hash.js';
import type { LogSigner, LogVerifier } from './head.js';

/** DER SPKI header of an Ed25519 public key (RFC 8410): 12 bytes, then the 32-byte key. */
const SPKI_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);
/** 44 bytes as base64url without padding. */
const KEY = /^[A-Za-z0-9_-]{59}$/;

function checkPrivate(key: unknown): asserts key is KeyObject {
  const k = key as KeyObject | null;
  if (k?.type !== 'private' || k.asymmetricKeyType !== 'ed25519') throw new LogError('bad_argument', 'expected an Ed25519 private key');
}

function checkRaw(raw: unknown): asserts raw is Uint8Array {
  if (!(raw instanceof Uint8Array) || raw.length !== 32) throw new LogError('bad_argument', 'expected a 32-byte Ed25519 public key');
}

const spki = (raw: Uint8Array): Buffer => Buffer.concat([SPKI_PREFIX, raw]);

/** A new Ed25519 private key. */
export function generateLogKey(): KeyObject {
  return generateKeyPairSync('ed25519').privateKey;
}

/** The raw 32-byte public key of an Ed25519 key, private or public. */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const pub = key?.type === 'private' ? createPublicKey(key) : key;
  if (pub?.type !== 'public' || pub.asymmetricKeyType !== 'ed25519') throw new LogError('bad_argument', 'expected an Ed25519 key');
  return new Uint8Array(pub.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length));
}

/** The key as PKCS#8 PEM, unencrypted. */
export function privateKeyToPem(key: KeyObject): string {
  checkPrivate(key);
  return key.export({ format: 'pem', type: 'pkcs8' }) as string;
}

/** Reads a PKCS#8 PEM private key; anything but an unencrypted Ed25519 key is LogError('bad_argument'). */
export function privateKeyFromPem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new LogError('bad_argument', `not a readable PEM private key (${(err as Error).message})`, { cause: err });
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new LogError('bad_argument', `expected an Ed25519 key, got ${key.asymmetricKeyType}`);
  return key;
}

/** What signs for a log (openLog's `signer`): Ed25519 (RFC 8032, pure) by `privateKey`. */
export function logSigner(privateKey: KeyObject): LogSigner {
  checkPrivate(privateKey);
  return { publicKey: rawPublicKey(privateKey), sign: (m) => sign(null, m, privateKey) };
}

/**
 * Whether `signature` is an Ed25519 signature of `message` by the raw 32-byte `rawPublicKey`, as
 * node:crypto (OpenSSL, cofactorless) decides; false, never a throw, for any malformed input.
 * A signed note's NoteVerifier (checkpoint.ts).
 */
export function ed25519Verify(rawPublicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(rawPublicKey instanceof Uint8Array) || !(signature instanceof Uint8Array) || !(message instanceof Uint8Array)) return false;
  if (rawPublicKey.length !== 32 || signature.length !== 64) return false;
  try {
    return verify(null, message, createPublicKey({ key: spki(rawPublicKey), format: 'der', type: 'spki' }), signature);
  } catch {
    return false;
  }
}

/**
 * Checks raw signatures by the log key, given as its raw 32 bytes or either spelling (key or
 * vkey). The verifier never throws: a signature that is not 64 bytes is false, and so is every
 * signature when the key does not parse (a key read from an untrusted source verifies nothing).
 */
export function logVerifier(key: Uint8Array | string): LogVerifier {
  let pub: KeyObject;
  try {
    const raw = typeof key === 'string' ? parseLogKey(key).publicKey : key;
    checkRaw(raw);
    pub = createPublicKey({ key: spki(raw), format: 'der', type: 'spki' });
  } catch {
    return () => false;
  }
  return (message, signature) => {
    if (!(signature instanceof Uint8Array) || signature.length !== 64 || !(message instanceof Uint8Array)) return false;
    try {
      return verify(null, message, pub, signature);
    } catch {
      return false;
    }
  };
}

/** The public key's `key` spelling: base64url, without padding, of its 44-byte DER SPKI. */
export function logKeyString(rawPublicKey: Uint8Array): string {
  checkRaw(rawPublicKey);
  return spki(rawPublicKey).toString('base64url');
}

/**
 * The raw 32-byte key of a `key` spelling, strictly: 59 base64url characters that re-encode to
 * themselves, the DER SPKI header of an Ed25519 key, and a key node:crypto takes. The point is
 * not checked further. Anything else is LogError('bad_argument').
 */
export function parseLogKeyString(s: string): Uint8Array {
  if (typeof s !== 'string' || !KEY.test(s)) {
    throw new LogError('bad_argument', 'expected the base64url (no padding) of the 44-byte DER SPKI of an Ed25519 key');
  }
  const der = Buffer.from(s, 'base64url');
  if (der.toString('base64url') !== s) throw new LogError('bad_argument', 'the key is not canonical base64url');
  if (!bytesEqual(der.subarray(0, SPKI_PREFIX.length), SPKI_PREFIX)) {
    throw new LogError('bad_argument', 'not an Ed25519 SPKI (DER prefix 302a300506032b6570032100)');
  }
  try {
    createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch (err) {
    throw new LogError('bad_argument', `not an Ed25519 public key (${(err as Error).message})`, { cause: err });
  }
  return new Uint8Array(der.subarray(SPKI_PREFIX.length));
}

/** The public key's two spellings under the note key name `name`: `{key, vkey}`. */
export function logKeySpellings(rawPublicKey: Uint8Array, name: string): { key: string; vkey: string } {
  return { key: logKeyString(rawPublicKey), vkey: verifierKey(name, rawPublicKey) };
}

/**
 * A public key given in either spelling: a vkey (it holds '+', which base64url never does),
 * whose type byte and key ID must be right, or a key. `name` is the vkey's, null for a key.
 * Anything else is LogError('bad_argument').
 */
export function parseLogKey(s: string): { publicKey: Uint8Array; name: string | null } {
  if (typeof s === 'string' && s.includes('+')) {
    const { name, rawPublicKey } = parseVerifierKey(s);
    return { publicKey: new Uint8Array(rawPublicKey), name };
  }
  return { publicKey: parseLogKeyString(s), name: null };
}

/** The temporary file beside `path` that a key is written to before it is renamed to `path`. */
const keyFileTemp = (path: string): string => `${path}.tmp`;

/**
 * Writes `key` to `path` as PKCS#8 PEM with mode 0600, atomically and durably (the file and its
 * directory synced), replacing any file there: a crash leaves the old file or the new, whole.
 */
export async function writeKeyFile(path: string, key: KeyObject): Promise<void> {
  const pem = privateKeyToPem(key);
  const tmp = keyFileTemp(path);
  // A temporary file left by a crash holds nothing anyone trusts.
  await rm(tmp, { force: true });
  const f = await open(tmp, 'wx', 0o600);
  try {
    await f.chmod(0o600); // open()'s mode is filtered by the umask
    await f.writeFile(pem);
    await f.sync();
  } finally {
    await f.close();
  }
  await rename(tmp, path);
  const d = await open(dirname(path), 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

/**
 * Reads the private key in `path`. A missing file, or one that holds no whole Ed25519 PEM key,
 * is LogError('corrupt') naming the file (a missing one with the ENOENT error as its cause);
 * other errors of the file system are thrown as they are.
 */
export async function readKeyFile(path: string): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new LogError('corrupt', `key ${path} is missing`, { cause: err });
    throw err;
  }
  try {
    return privateKeyFromPem(pem);
  } catch (err) {
    throw new LogError('corrupt', `cannot read key ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** Whether `err` is readKeyFile's answer for a missing file. */
export function isMissingKeyFile(err: unknown): boolean {
  return err instanceof LogError && (err.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

export interface KeyFileOptions {
  /**
   * Whether a key may be made: for a missing file, and in place of a file that holds no whole
   * key (one cut short by a crash of an older writer). Give it only while nothing trusts a key
   * yet (a new log); otherwise a missing or broken key file is refused, never replaced.
   */
  create: boolean;
  /** Told when a file that holds no whole key is replaced (`create` only), with why. */
  onReplace?: (why: string) => void;
}

/** The key in `path`; when `create`, a missing key is made, and so is one in place of a file that holds no whole key. */
export async function loadOrCreateKeyFile(path: string, opts: KeyFileOptions): Promise<KeyObject> {
  try {
    return await readKeyFile(path);
  } catch (err) {
    if (!opts.create || !(err instanceof LogError)) throw err;
    if (!isMissingKeyFile(err)) opts.onReplace?.(err.message);
  }
  const key = generateLogKey();
  await writeKeyFile(path, key);
  return key;
}
