// What a monitor keeps between rounds (docs/engine.md, "Monitors"), in a JSON file written
// atomically: a crash leaves the old state or the new one, never half of either.
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../atomic-file.js';
import { LogError } from '../errors.js';
import type { SignedTreeHead } from '../head.js';
import type { WitnessRecord } from '../witness/cosigner.js';

/** The gossip format of the engine's monitors, unless a monitor names its own. */
export const MONITOR_FORMAT = 'tlog-monitor/1';

/** What a monitor keeps between rounds, and (without `witness`) what it gossips on GET /head. */
export interface MonitorState {
  /** The gossip format: monitors gossip only with monitors of the same. */
  format: string;
  /** Where the log this monitor follows is served (without the prefix of its reads). */
  url: string;
  origin: string;
  /** The log key the monitor trusts (base64url DER SPKI). */
  logKey: string;
  /** The latest head it verified. */
  sth: SignedTreeHead;
  checkedAt: string;
  /** As a witness too: the last checkpoint it cosigned. */
  witness?: WitnessRecord;
}

/** The state in `path`, or null when there is none; throws LogError('corrupt') when it is not a state of `format`. */
export function readMonitorState(path: string, format = MONITOR_FORMAT): MonitorState | null {
  if (!existsSync(path)) return null;
  let s;
  try {
    s = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new LogError('corrupt', `${path}: not JSON (${(err as Error).message})`);
  }
  if (s?.format !== format) throw new LogError('corrupt', `${path}: not a monitor state (${format})`);
  return s;
}

/**
 * Saves `s` to `path`: written to `<path>.tmp`, synced, renamed over it, and the directory
 * synced, so that it is durable once this returns (a witness answers only after that).
 */
export function writeMonitorState(path: string, s: MonitorState): void {
  writeFileAtomicSync(path, `${JSON.stringify(s, null, 2)}\n`);
}
