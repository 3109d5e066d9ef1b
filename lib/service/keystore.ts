// The deployment's keys, <data>/keys/log.key and operator.key, made on first start and written atomically
// (docs/protocol.md#the-deployments-keys, docs/protocol.md#first-start).
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
