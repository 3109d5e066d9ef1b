// An agent's key files: one Ed25519 private key per file, PKCS#8 PEM, mode 0600 (like the
// deployment's keys, lib/service/keystore.ts). The private half never leaves the file but as signatures.
import type { KeyObject } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateKeyPair, privateKeyFromPem, privateKeyToPem } from '../protocol/ed25519.js';
import { isArchiveError } from '../protocol/errors.js';

/**
 * Makes a new Ed25519 key and writes it to `path` (PKCS#8 PEM, mode 0600, synced with its
 * directory). Refuses to overwrite a file that exists. Returns the key and its public spelling.
 */
export async function writeKeyFile(path: string): Promise<{ privateKey: KeyObject; publicKey: string }> {
  const key = generateKeyPair();
  let f;
  try {
    f = await open(path, 'wx', 0o600); // 'wx': fails with EEXIST rather than replace a key
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EEXIST') throw new Error(`key file ${path} exists already; refusing to overwrite it`);
    throw new Error(`cannot create key file ${path}: ${e.message}`);
  }
  try {
    await f.chmod(0o600); // the mode given to open() is only used when the file is created
    await f.writeFile(privateKeyToPem(key.privateKey));
    await f.sync();
  } finally {
    await f.close();
  }
  await syncDir(dirname(path));
  return key;
}

/** Reads the Ed25519 private key in `path`; errors name the file. */
export async function readKeyFile(path: string): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read key file ${path}: ${(err as Error).message}`);
  }
  try {
    return privateKeyFromPem(pem);
  } catch (err) {
    throw new Error(`key file ${path}: ${isArchiveError(err) ? err.detail : (err as Error).message}`);
  }
}

async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the file itself is synced.
  } finally {
    await d.close();
  }
}
