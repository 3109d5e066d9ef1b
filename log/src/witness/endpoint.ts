// A witness as a server runs it (docs/engine.md, "Witnesses"): its key, the logs it follows,
// and the last checkpoint it cosigned for each, kept durably before any answer that cosigns.
// The HTTP side is servers.ts.
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../atomic-file.js';
import { LogError } from '../errors.js';
import { sha256TextHex } from '../hash.js';
import { addCheckpoint, type WitnessAnswer, type WitnessKey, type WitnessRecord } from './cosigner.js';
import type { WitnessedLog } from './policy.js';

/** What a witness serves: add-checkpoint, and the last checkpoint it cosigned for a log. */
export interface WitnessEndpoint {
  /** Answers an add-checkpoint body; a cosigned checkpoint is kept durably before this returns. */
  add(body: string): WitnessAnswer;
  /** The last checkpoint cosigned for the log whose origin's SHA-256 is `originHash` (lowercase hex), or null. */
  cosigned(originHash: string): WitnessRecord | null;
}

/** The format of a witness's state file. */
export const WITNESS_STATE_FORMAT = 'tlog-witness-state/1';

/**
 * A witness of `logs` with the key `key`, its records kept in the JSON file `stateFile` (read
 * when it exists; written atomically, and synced, each time it cosigns). Checking a checkpoint
 * and keeping what it cosigned are one synchronous step: no other request runs in between.
 */
export function fileWitness(key: WitnessKey, logs: WitnessedLog[], stateFile: string, now: () => number = Date.now): WitnessEndpoint {
  const byOrigin = new Map(logs.map((l) => [l.origin, l]));
  const records = new Map<string, WitnessRecord>();
  if (existsSync(stateFile)) {
    let s;
    try {
      s = JSON.parse(readFileSync(stateFile, 'utf8'));
    } catch (err) {
      throw new LogError('corrupt', `${stateFile}: not JSON (${(err as Error).message})`);
    }
    if (s?.format !== WITNESS_STATE_FORMAT || !Array.isArray(s.logs))
      throw new LogError('corrupt', `${stateFile}: not a witness state (${WITNESS_STATE_FORMAT})`);
    for (const r of s.logs as WitnessRecord[]) records.set(r.origin, r);
  }
  return {
    add(body) {
      const answer = addCheckpoint(
        body,
        (origin) => {
          const log = byOrigin.get(origin);
          return log === undefined ? null : { log, last: records.get(origin) ?? null };
        },
        key,
        now(),
      );
      if (answer.record !== undefined) {
        const next = new Map(records).set(answer.record.origin, answer.record);
        writeFileAtomicSync(stateFile, `${JSON.stringify({ format: WITNESS_STATE_FORMAT, logs: [...next.values()] }, null, 2)}\n`);
        records.set(answer.record.origin, answer.record);
      }
      return answer;
    },
    cosigned(originHash) {
      for (const r of records.values()) if (sha256TextHex(r.origin) === originHash) return r;
      return null;
    },
  };
}
