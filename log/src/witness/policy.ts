// A witness policy (docs/log-format.md, "Witnesses"): the witness keys a client trusts and how
// many of them must have cosigned a log's checkpoint before the client takes it.
import { openNote, parseCheckpoint, type Checkpoint } from '../checkpoint.js';
import { cosignaturesOn, parseCosignerKey, type Cosignature, type CosignerKey } from '../cosignature.js';
import { LogError } from '../errors.js';
import { logNoteKey, verifyEd25519 } from '../client/ed25519.js';

/** The trusted witness keys and how many of them must cosign. */
export interface WitnessPolicy {
  keys: CosignerKey[];
  quorum: number;
}

/** The log a witness or a policy vouches for: its origin and its log key (base64url DER SPKI, as `<prefix>/key` spells it). */
export interface WitnessedLog {
  origin: string;
  logKey: string;
}

/**
 * A policy of the witness keys `vkeys` (cosigner vkeys, type 0x04), `quorum` of them (default:
 * all). Throws LogError('bad_argument') naming the key or the quorum that is not one.
 */
export function witnessPolicy(vkeys: string[], quorum = vkeys.length): WitnessPolicy {
  const keys = vkeys.map((v) => {
    try {
      return parseCosignerKey(v);
    } catch (err) {
      throw new LogError('bad_argument', `witness key ${v}: ${(err as Error).message}`);
    }
  });
  if (keys.length === 0) throw new LogError('bad_argument', 'a witness policy needs at least one witness key');
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > keys.length)
    throw new LogError('bad_argument', `quorum: expected a whole number from 1 to ${keys.length}, got ${quorum}`);
  return { keys, quorum };
}

/**
 * Holds a checkpoint to a policy: it must be signed by the log key and carry valid cosignatures
 * from at least `quorum` of the policy's keys. Gives the checkpoint and the cosignatures found,
 * or why it is refused.
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
    opened = openNote(note, logNoteKey(log.origin, log.logKey), verifyEd25519);
    cosignatures = cosignaturesOn(note, policy.keys, verifyEd25519);
    checkpoint = parseCheckpoint(opened.text);
  } catch (err) {
    return { ok: false, problem: `the checkpoint is not a signed checkpoint note (${(err as Error).message})` };
  }
  if (!opened.verified) return { ok: false, problem: 'the checkpoint is not signed by the log key' };
  if (cosignatures.length < policy.quorum)
    return {
      ok: false,
      problem:
        `the checkpoint of size ${checkpoint.treeSize} carries ${cosignatures.length} valid cosignature(s) of the ` +
        `${policy.keys.length} trusted witnesses, fewer than the quorum of ${policy.quorum}`,
    };
  return { ok: true, checkpoint, cosignatures };
}
