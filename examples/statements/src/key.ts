// The log key: an Ed25519 key (node:crypto) kept in one file as PKCS#8 PEM, mode 0600. It signs
// the log's checkpoints; clients are given its vkey (the C2SP signed-note verifier key).
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import type { LogSigner } from 'tlog-engine';
import { rawOfSpki } from './ed25519.js';

/** The signer of the key in `file`. The file is read if it exists, else made (never overwritten) when `make`. */
export async function loadOrMakeLogKey(file: string, make: boolean): Promise<LogSigner> {
  let key: KeyObject;
  try {
    key = createPrivateKey(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file}: not a PEM private key (${(err as Error).message})`);
    if (!make) throw new Error(`${file} is missing, and the log it signs exists: its key cannot be made again`);
    key = generateKeyPairSync('ed25519').privateKey;
    const f = await open(file, 'wx', 0o600);
    try {
      await f.writeFile(key.export({ format: 'pem', type: 'pkcs8' }));
      await f.sync();
    } finally {
      await f.close();
    }
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file}: expected an Ed25519 key, got ${key.asymmetricKeyType}`);
  const publicKey = rawOfSpki(new Uint8Array(createPublicKey(key).export({ format: 'der', type: 'spki' })));
  return { publicKey, sign: (message) => new Uint8Array(sign(null, message, key)) };
}
