// A witness's own Ed25519 key: made once, kept in a file as PKCS#8 PEM (mode 0600), and named by
// the witness's name (a schema-less URL, c2sp.org/tlog-witness). The key itself is keys.ts's.
import { sign as cryptoSign, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cosignerVerifierKey } from '../cosignature.js';
import { LogError } from '../errors.js';
import { generateLogKey, privateKeyFromPem, privateKeyToPem, rawPublicKey } from '../keys.js';
import type { WitnessKey } from './cosigner.js';

/** The witness key `name` of the Ed25519 private key `privateKey`: its cosigner key, vkey and signer. */
export function witnessKey(name: string, privateKey: KeyObject): WitnessKey {
  if (privateKey?.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519')
    throw new LogError('bad_argument', 'a witness key is an Ed25519 private key');
  const raw = rawPublicKey(privateKey);
  return {
    key: { name, rawPublicKey: raw },
    vkey: cosignerVerifierKey(name, raw),
    sign: (m) => new Uint8Array(cryptoSign(null, m, privateKey)),
  };
}

/** Reads the witness key in `file` (unencrypted PKCS#8 PEM, Ed25519); anything else throws LogError('bad_argument'). */
export function readWitnessKey(file: string, name: string): WitnessKey {
  try {
    return witnessKey(name, privateKeyFromPem(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new LogError('bad_argument', `${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** Loads the witness key in `file`, making it (mode 0600, never over an existing file) when absent. */
export function loadOrCreateWitnessKey(file: string, name: string): { witness: WitnessKey; created: boolean } {
  if (existsSync(file)) return { witness: readWitnessKey(file, name), created: false };
  const privateKey = generateLogKey();
  writeFileSync(file, privateKeyToPem(privateKey), { mode: 0o600, flag: 'wx' });
  return { witness: witnessKey(name, privateKey), created: true };
}
