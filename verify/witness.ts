// A monitor as a witness (docs/log-format.md, "Witnesses"): it answers tlog-witness
// add-checkpoint requests for the log it follows, cosigning (cosignature/v1) a checkpoint only
// when it extends the last one it cosigned; and the witness policy (k of n witness keys) that
// `archive verify` and `archive monitor` hold a log's checkpoint to.
import { createHash, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  bytesEqual,
  cosignatureLine,
  cosignaturesOn,
  cosignerVerifierKey,
  openNote,
  parseAddCheckpoint,
  parseCheckpoint,
  parseCosignerKey,
  verifyConsistency,
  type Checkpoint,
  type Cosignature,
  type CosignerKey,
} from 'tlog-engine';
import {
  generateKeyPair,
  logVerifier,
  privateKeyFromPem,
  privateKeyToPem,
  rawPublicKey,
  signBytes,
  verifyRaw,
} from '../lib/protocol/ed25519.js';

/** The last checkpoint a witness cosigned for the log it follows (kept in the monitor's state file). */
export interface WitnessRecord {
  origin: string;
  treeSize: number;
  /** Root hash, base64 as in the checkpoint. */
  rootHash: string;
  /** The checkpoint as cosigned: the log's note with this witness's cosignature appended. */
  checkpoint: string;
}

/** The log a witness vouches for: its origin and its log key (as GET /v1/log/key spells it). */
export interface WitnessedLog {
  origin: string;
  logKey: string;
}

/** A witness's own key: the cosigner key, its vkey, and a signer. */
export interface WitnessKey {
  key: CosignerKey;
  vkey: string;
  sign: (msg: Uint8Array) => Uint8Array;
}

/** An answer to an add-checkpoint request; `record` is set when the checkpoint was cosigned. */
export interface WitnessAnswer {
  status: number;
  type: string;
  body: string;
  record?: WitnessRecord;
}

const EMPTY_ROOT = createHash('sha256').digest();

function witnessKeyOf(name: string, privateKey: KeyObject): WitnessKey {
  const key = { name, rawPublicKey: rawPublicKey(privateKey) };
  return { key, vkey: cosignerVerifierKey(name, key.rawPublicKey), sign: (m) => signBytes(privateKey, m) };
}

/** Loads the witness key in `file` (PKCS#8 PEM), making it (mode 0600) when absent. */
export function loadOrCreateWitnessKey(file: string, name: string): { witness: WitnessKey; created: boolean } {
  if (existsSync(file)) return { witness: witnessKeyOf(name, privateKeyFromPem(readFileSync(file, 'utf8'))), created: false };
  const { privateKey } = generateKeyPair();
  writeFileSync(file, privateKeyToPem(privateKey), { mode: 0o600, flag: 'wx' });
  return { witness: witnessKeyOf(name, privateKey), created: true };
}

const text = (status: number, body: string, type = 'text/plain; charset=utf-8'): WitnessAnswer => ({ status, type, body });

/**
 * Answers one add-checkpoint request body (c2sp.org/tlog-witness) for `log`, given the last
 * checkpoint this witness cosigned (`last`, null before the first). Pure but for the clock
 * `now`; the caller persists `record` before it sends the answer, with no await in between.
 */
export function addCheckpoint(
  body: string,
  log: WitnessedLog | null,
  last: WitnessRecord | null,
  witness: WitnessKey,
  now = Date.now(),
): WitnessAnswer {
  let req;
  let cp: Checkpoint;
  try {
    req = parseAddCheckpoint(body);
    const split = req.note.lastIndexOf('\n\n');
    cp = parseCheckpoint(split < 0 ? req.note : req.note.slice(0, split + 1));
  } catch (err) {
    return text(400, `${(err as Error).message}\n`);
  }
  if (log === null || cp.origin !== log.origin) return text(404, `unknown log origin ${JSON.stringify(cp.origin)}\n`);
  let opened;
  try {
    const verify = logVerifier(log.logKey);
    const raw = Buffer.from(log.logKey, 'base64url').subarray(12);
    opened = openNote(req.note, { name: log.origin, rawPublicKey: raw }, (_k, m, s) => verify(m, s));
  } catch (err) {
    return text(400, `${(err as Error).message}\n`);
  }
  if (!opened.verified) return text(403, 'the checkpoint is not signed by the log key\n');
  if (req.oldSize > cp.treeSize) return text(400, `old size ${req.oldSize} is above the checkpoint size ${cp.treeSize}\n`);
  const known = last?.treeSize ?? 0;
  if (req.oldSize !== known) return text(409, `${known}\n`, 'text/x.tlog.size');
  if (cp.treeSize === 0 && !bytesEqual(cp.rootHash, EMPTY_ROOT)) return text(422, 'a checkpoint of size 0 must have the empty root\n');
  if (req.oldSize === 0) {
    if (req.proof.length > 0) return text(422, 'a proof from size 0 must be empty\n');
  } else {
    const oldRoot = Buffer.from(last!.rootHash, 'base64');
    let holds = false;
    try {
      holds =
        req.oldSize === cp.treeSize
          ? bytesEqual(oldRoot, cp.rootHash)
          : verifyConsistency(req.oldSize, cp.treeSize, req.proof, oldRoot, cp.rootHash);
    } catch {
      holds = false;
    }
    if (!holds) return text(422, `the checkpoint of size ${cp.treeSize} does not extend the one of size ${req.oldSize}\n`);
  }
  const line = cosignatureLine(opened.text, witness.key, Math.max(1, Math.floor(now / 1000)), witness.sign);
  const record: WitnessRecord = {
    origin: cp.origin,
    treeSize: cp.treeSize,
    rootHash: Buffer.from(cp.rootHash).toString('base64'),
    checkpoint: `${req.note}${line}`,
  };
  return { ...text(200, line), record };
}

/** The path of GET <monitoring prefix>/<origin hash>/checkpoint (tlog-witness). */
export function checkpointPath(origin: string): string {
  return `/${createHash('sha256').update(origin).digest('hex')}/checkpoint`;
}

/** A witness policy: the trusted witness keys and how many of them must cosign. */
export interface WitnessPolicy {
  keys: CosignerKey[];
  quorum: number;
}

/** Parses `--witness VKEY` (repeatable) and `--witness-quorum K` (default: all of them). */
export function witnessPolicy(vkeys: string[], quorum: number | undefined): WitnessPolicy | null {
  if (vkeys.length === 0) {
    if (quorum !== undefined) throw new Error('--witness-quorum needs --witness keys');
    return null;
  }
  const keys = vkeys.map((v) => {
    try {
      return parseCosignerKey(v);
    } catch (err) {
      throw new Error(`--witness ${v}: ${(err as Error).message}`);
    }
  });
  const k = quorum ?? keys.length;
  if (!Number.isInteger(k) || k < 1 || k > keys.length)
    throw new Error(`--witness-quorum: expected a whole number from 1 to ${keys.length}, got ${quorum}`);
  return { keys, quorum: k };
}

/**
 * Holds a served checkpoint to a policy: it must be signed by the log key and carry valid
 * cosignatures from at least `quorum` of the policy's keys. Gives the checkpoint and the
 * cosignatures, or why it is refused.
 */
export function witnessed(
  note: string,
  log: WitnessedLog,
  policy: WitnessPolicy,
): { ok: true; checkpoint: Checkpoint; cosignatures: Cosignature[] } | { ok: false; problem: string } {
  let opened;
  let cosignatures;
  let checkpoint: Checkpoint;
  try {
    const verify = logVerifier(log.logKey);
    const raw = Buffer.from(log.logKey, 'base64url').subarray(12);
    opened = openNote(note, { name: log.origin, rawPublicKey: raw }, (_k, m, s) => verify(m, s));
    cosignatures = cosignaturesOn(note, policy.keys, verifyRaw);
    checkpoint = parseCheckpoint(opened.text);
  } catch (err) {
    return { ok: false, problem: `the checkpoint is not a signed checkpoint note (${(err as Error).message})` };
  }
  if (!opened.verified) return { ok: false, problem: 'the checkpoint is not signed by the log key' };
  if (cosignatures.length < policy.quorum)
    return {
      ok: false,
      problem: `the checkpoint of size ${checkpoint.treeSize} carries ${cosignatures.length} valid cosignature(s) of the ${policy.keys.length} trusted witnesses, fewer than the quorum of ${policy.quorum}`,
    };
  return { ok: true, checkpoint, cosignatures };
}
