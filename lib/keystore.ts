// The deployment's keys (choices.md section 10): <data>/keys/log.key and operator.key,
// PKCS#8 PEM, mode 0600, made on first start. The log key signs tree heads, checkpoints,
// seeds and service events; the operator key exercises the reserved powers.
import { mkdir, open, readFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { dirname, join } from 'node:path';
import { generateKeyPair, privateKeyFromPem, privateKeyToPem } from './ed25519.js';

export interface DeploymentKeys {
  logKey: KeyObject;
  operatorKey: KeyObject;
}

/** Loads the key in `file`; if there is none, makes and saves a new one when `create`. */
export async function loadOrCreateKey(file: string, create: boolean): Promise<KeyObject> {
  try {
    return privateKeyFromPem(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read key ${file}: ${(err as Error).message}`);
    if (!create) throw new Error(`key ${file} is missing, and this data directory already holds a log`);
  }
  const { privateKey } = generateKeyPair();
  // 'wx': never overwrite a key another process wrote in the meantime. The file and its
  // directory are synced before the genesis that names the key is committed.
  const f = await open(file, 'wx', 0o600);
  try {
    await f.writeFile(privateKeyToPem(privateKey));
    await f.sync();
  } finally {
    await f.close();
  }
  await syncDir(dirname(file));
  return privateKey;
}

/** The deployment's two keys under `<dataDir>/keys/`; missing ones are made when `create`. */
export async function loadDeploymentKeys(dataDir: string, create: boolean): Promise<DeploymentKeys> {
  const dir = join(dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return {
    logKey: await loadOrCreateKey(join(dir, 'log.key'), create),
    operatorKey: await loadOrCreateKey(join(dir, 'operator.key'), create),
  };
}

/** fsync of a directory, so a file created in it survives a power loss. */
async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
