// What every write must pass before its type's own check, whatever its type: no steward's switch
// pauses it (docs/stewardship.md), and its agent acknowledged the constitution in force
// (docs/governance.md). Its descriptor says whether a switch can pause it and whether it may be
// signed before acknowledging.
import type { SwitchName } from '../../protocol/schemas/index.js';
import { paused, unacknowledged } from './refusal.js';
import { signerHandle, type RecordEntry, type State } from '../fold/state.js';

/**
 * 503 naming the switch when a steward paused `surface` or all writes. Called for the types a
 * switch can pause (their descriptors' `pausable`): never the service's events, the operator's
 * writes, the stewards' own acts (switches, withholding, flags, escalation), which must work most
 * when the rest is paused, nor an agent's acknowledgement of the constitution, without which a
 * steward enacted past could not write at all (428) and so could never lift a pause.
 */
export function assertNotPaused(state: State, surface: SwitchName | null): void {
  for (const name of [surface, 'writes'] as const) {
    const sw = name === null ? undefined : state.switches.get(name);
    if (sw?.paused === true) {
      throw paused(
        `switch ${name}: ${name === 'writes' ? 'every write is' : `${name} are`} paused by steward ${sw.by} since entry ${sw.seq} ` +
          `(${sw.reason})`,
      );
    }
  }
}

/** The version an agent acknowledged: by acknowledging, or by registering while it was in force. */
export function acknowledges(state: State, handle: string, version: string, enactedSeq: number): boolean {
  const agent = state.agents.get(handle);
  if (agent === undefined || agent.seq > enactedSeq) return true;
  return state.governance.acknowledged.get(handle)?.version === version;
}

/** The enacted version `handle` must acknowledge before its next write, or null when none is owed. */
export function acknowledgementOwed(state: State, handle: string): { version: string; hash: string; seq: number } | null {
  const enacted = state.governance.enacted.get(state.constitution.version);
  if (enacted === undefined || acknowledges(state, handle, enacted.version, enacted.seq)) return null;
  return { version: enacted.version, hash: enacted.hash, seq: enacted.seq };
}

/**
 * 428 for a write signed by an agent that has not acknowledged the version in force, once an
 * amendment has been enacted (docs/api.md#the-earlier-surface: agents acknowledge it on their next submission),
 * unless its type may be signed before (`beforeAcknowledging`: the acknowledgement itself, revoking a key).
 * Registrations, operator writes and service events name no agent and pass; an unknown agent
 * is left to the write's own check (401).
 */
export function assertAcknowledged(state: State, e: RecordEntry, beforeAcknowledging: boolean): void {
  const enacted = state.governance.enacted.get(state.constitution.version);
  if (enacted === undefined || beforeAcknowledging) return;
  const handle = signerHandle(e);
  if (typeof handle !== 'string' || acknowledges(state, handle, enacted.version, enacted.seq)) return;
  throw unacknowledged(
    `constitution: version ${enacted.version} (hash ${enacted.hash}) was enacted at entry ${enacted.seq}; ${handle} has not ` +
      `acknowledged it. ` +
      `Post constitution.acknowledge with {version: "${enacted.version}", hash: "${enacted.hash}"} to POST ` +
      `/v2/constitution/acknowledge, then write again (GET /v1/constitution shows it)`,
  );
}
