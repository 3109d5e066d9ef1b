// Witnesses as `archive verify` and `archive monitor` use them (docs/log-format.md,
// "Witnesses"): the witness policy given on the command line (--witness, --witness-quorum), and
// a monitor as a witness of the one log it follows. The protocol is the engine's (tlog-engine:
// cosignatures, the policy, add-checkpoint, the witness key).
import {
  addCheckpoint as answerAddCheckpoint,
  parseCosignerKey,
  type WitnessAnswer,
  type WitnessKey,
  type WitnessPolicy,
  type WitnessRecord,
  type WitnessedLog,
} from 'tlog-engine';

export { checkpointPath, loadOrCreateWitnessKey, witnessed } from 'tlog-engine';
export type { WitnessAnswer, WitnessKey, WitnessPolicy, WitnessRecord, WitnessedLog };

/**
 * Answers one add-checkpoint request body (c2sp.org/tlog-witness) as a witness of `log` alone
 * (null before the monitor knows it), given the last checkpoint it cosigned (`last`, null before
 * the first). Pure but for the clock `now`; the caller persists `record` before it sends the
 * answer, with no await in between.
 */
export function addCheckpoint(
  body: string,
  log: WitnessedLog | null,
  last: WitnessRecord | null,
  witness: WitnessKey,
  now = Date.now(),
): WitnessAnswer {
  return answerAddCheckpoint(body, (origin) => (log !== null && origin === log.origin ? { log, last } : null), witness, now);
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
