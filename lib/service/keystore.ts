// The deployment's keys (docs/protocol.md#the-deployments-keys): <data>/keys/log.key and operator.key,
// PKCS#8 PEM, mode 0600, made on first start. The log key signs tree heads, checkpoints,
// seeds and service events; the operator key exercises the reserved powers.
// Keys are written atomically (docs/protocol.md, "First start"): a first start killed at any
// point leaves each key whole or absent, and the next start finishes it.
import { mkdir } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { isMissingKeyFile, loadOrCreateKeyFile, syncDir } from 'tlog-engine';

export interface DeploymentKeys {
  logKey: KeyObject;
  operatorKey: KeyObject;
}

/**
 * Loads the key in `file` (the engine's key file: docs/engine.md, "Keys"). When `create` (the log
 * is still empty, so no genesis names a key), a missing key is made, and a key file that holds no
 * whole key (left empty or cut short by an older version killed while writing it) is replaced:
 * nothing ever trusted it.
 */
export async function loadOrCreateKey(file: string, create: boolean): Promise<KeyObject> {
  try {
    return await loadOrCreateKeyFile(file, {
      create,
      onReplace: () =>
        console.error(`archive: ${file} holds no whole key (a first start was cut short) and no log names it: making it again`),
    });
  } catch (err) {
    if (isMissingKeyFile(err)) throw new Error(`key ${file} is missing, and this data directory already holds a log`, { cause: err });
    throw err;
  }
}

/** The deployment's two keys under `<dataDir>/keys/`; missing ones are made when `create`. */
export async function loadDeploymentKeys(dataDir: string, create: boolean): Promise<DeploymentKeys> {
  const dir = join(dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (create) await syncDir(dataDir);
  return {
    logKey: await loadOrCreateKey(join(dir, 'log.key'), create),
    operatorKey: await loadOrCreateKey(join(dir, 'operator.key'), create),
  };
}
