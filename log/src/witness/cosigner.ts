// The witness side of c2sp.org/tlog-witness (docs/log-format.md, "Witnesses"): a witness
// cosigns (cosignature/v1) a log's checkpoint only when it is signed by the log key and extends,
// by a consistency proof, the last checkpoint it cosigned for that log. Pure but for the clock:
// the caller keeps the record and serves the answer (servers.ts does both over HTTP).
import { openNote, parseCheckpoint, type Checkpoint } from '../checkpoint.js';
import { cosignatureLine, parseAddCheckpoint, type AddCheckpoint, type CosignerKey } from '../cosignature.js';
import { bytesEqual, sha256TextHex } from '../hash.js';
import { EMPTY_ROOT, verifyConsistency } from '../merkle.js';
import { logNoteKey, verifyEd25519 } from '../client/ed25519.js';
import type { WitnessedLog } from './policy.js';

/** The last checkpoint a witness cosigned for one log: what it must keep, durably, between requests. */
export interface WitnessRecord {
  origin: string;
  treeSize: number;
  /** Root hash, base64 as in the checkpoint. */
  rootHash: string;
  /** The checkpoint as cosigned: the log's note with this witness's cosignature appended. */
  checkpoint: string;
}

/** A witness's own key: the cosigner key, its vkey, and a signer (witness-key.ts makes one). */
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

/** The logs a witness follows: for an origin, the log's key and the last checkpoint cosigned for it; null for an unknown origin. */
export type WitnessedLogs = (origin: string) => { log: WitnessedLog; last: WitnessRecord | null } | null;

/** tlog-witness: the content type of a 409's body, the size the witness holds. */
export const TLOG_SIZE_TYPE = 'text/x.tlog.size';

const text = (status: number, body: string, type = 'text/plain; charset=utf-8'): WitnessAnswer => ({ status, type, body });

/**
 * Answers one add-checkpoint request body (c2sp.org/tlog-witness) as the witness `witness` of
 * the logs `logs`: 200 with the cosignature line and the `record` to keep when the checkpoint
 * extends the last one cosigned; 400 malformed (or an old size above the checkpoint's), 403 not
 * signed by the log key, 404 an unknown origin, 409 with the size held (`text/x.tlog.size`) when
 * the old size is not it, 422 when the proof does not hold. Pure but for the clock `now`; the
 * caller keeps `record` durably before it sends the answer, with no await in between.
 */
export function addCheckpoint(body: string, logs: WitnessedLogs, witness: WitnessKey, now = Date.now()): WitnessAnswer {
  let req: AddCheckpoint;
  let cp: Checkpoint;
  try {
    req = parseAddCheckpoint(body);
    const split = req.note.lastIndexOf('\n\n');
    cp = parseCheckpoint(split < 0 ? req.note : req.note.slice(0, split + 1));
  } catch (err) {
    return text(400, `${(err as Error).message}\n`);
  }
  const known = logs(cp.origin);
  if (known === null || known.log.origin !== cp.origin) return text(404, `unknown log origin ${JSON.stringify(cp.origin)}\n`);
  const { log, last } = known;
  let opened;
  try {
    opened = openNote(req.note, logNoteKey(log.origin, log.logKey), verifyEd25519);
  } catch (err) {
    return text(400, `${(err as Error).message}\n`);
  }
  if (!opened.verified) return text(403, 'the checkpoint is not signed by the log key\n');
  if (req.oldSize > cp.treeSize) return text(400, `old size ${req.oldSize} is above the checkpoint size ${cp.treeSize}\n`);
  const held = last?.treeSize ?? 0;
  if (req.oldSize !== held) return text(409, `${held}\n`, TLOG_SIZE_TYPE);
  if (cp.treeSize === 0 && !bytesEqual(cp.rootHash, EMPTY_ROOT)) return text(422, 'a checkpoint of size 0 must have the empty root\n');
  if (req.oldSize === 0) {
    if (req.proof.length > 0) return text(422, 'a proof from size 0 must be empty\n');
  } else {
    const oldRoot = Buffer.from(last!.rootHash, 'base64');
    const holds =
      req.oldSize === cp.treeSize
        ? bytesEqual(oldRoot, cp.rootHash)
        : verifyConsistency(req.oldSize, cp.treeSize, req.proof, oldRoot, cp.rootHash);
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

/** The path of GET <monitoring prefix>/<hex SHA-256 of the origin>/checkpoint, where a witness serves what it cosigned (tlog-witness). */
export function checkpointPath(origin: string): string {
  return `/${sha256TextHex(origin)}/checkpoint`;
}
