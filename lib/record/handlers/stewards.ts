// Stewards and their switches (docs/stewardship.md). The deployment's operator key appoints and
// removes stewards (an operator-signed write, like pairing); a steward, signing with its main
// key, pauses or resumes a surface. A paused surface answers 503 naming the switch; `writes`
// pauses every surface (read-only) but the stewards' own switches and the operator's writes.
import { ArchiveError, conflict, forbidden, notFound } from '../../protocol/errors.js';
import { SWITCHES, type SwitchName } from '../../protocol/schemas/payloads.js';
import { authorizeMain } from '../signer.js';
import type { State } from '../state.js';
import type { Handler } from './handler.js';

/** The surface each write belongs to; writes not listed belong to `writes` alone. */
const SURFACE: Readonly<Record<string, SwitchName>> = {
  paper: 'papers',
  'claim.external': 'papers',
  'claim.amend': 'papers',
  'check.commit': 'checks',
  'check.result': 'checks',
  review: 'reviews',
  'argument.file': 'arguments',
  'argument.check': 'arguments',
  'argument.answer': 'arguments',
  'challenge.propose': 'challenges',
  'challenge.withdraw': 'challenges',
  'agent.register': 'registrations',
};

/**
 * Entries no switch pauses: the service's own events, the operator's writes, the stewards' own
 * acts (switches, withholding, flags, escalation), which must work most when the rest is paused,
 * and an agent's acknowledgement of the constitution, without which a steward enacted past could
 * not write at all (428) and so could never lift a pause.
 */
const NEVER_PAUSED: ReadonlySet<string> = new Set([
  'log.genesis', 'check.seal', 'check.lapse', 'check.reveal', 'shutout.end', 'screening.refer', 'hold.place', 'governance.close',
  'operator.pairing', 'steward.appoint', 'steward.remove', 'hold.release', 'hold.reject', 'governance.cosign',
  'switch.set', 'item.withhold', 'item.restore', 'hold.escalate', 'item.flag', 'constitution.acknowledge',
]);

/** 503 naming the switch when a steward paused the surface of `type` (or all writes). */
export function assertNotPaused(state: State, type: string): void {
  if (NEVER_PAUSED.has(type)) return;
  for (const name of [SURFACE[type], 'writes'] as const) {
    const sw = name === undefined ? undefined : state.switches.get(name);
    if (sw?.paused === true) {
      throw new ArchiveError('paused', `switch ${name}: ${name === 'writes' ? 'every write is' : `${name} are`} paused by steward ${sw.by} since entry ${sw.seq} (${sw.reason})`);
    }
  }
}

/** Appointing and removing a steward set one last-writer-wins slot per steward (docs/record.md). */
const stewardSlot = (steward: string): string => `steward ${steward}`;

export const appoint: Handler = {
  check(state, e) {
    const p = e.logged.payload;
    if (!state.agents.has(p.steward)) throw notFound(`payload.steward: no agent ${p.steward} on the record`);
    if (state.stewards.has(p.steward)) throw conflict(`payload.steward: ${p.steward} is a steward already (entry ${state.stewards.get(p.steward)!.seq})`);
  },
  slot: (_state, e) => stewardSlot(e.logged.payload.steward),
  apply(state, e) {
    const p = e.logged.payload;
    state.stewards.set(p.steward, { seq: e.seq });
    return { steward: p.steward, stewards: [...state.stewards.keys()].sort() };
  },
};

export const remove: Handler = {
  check(state, e) {
    const p = e.logged.payload;
    if (!state.stewards.has(p.steward)) throw notFound(`payload.steward: ${p.steward} is not a steward`);
  },
  slot: (_state, e) => stewardSlot(e.logged.payload.steward),
  apply(state, e) {
    const p = e.logged.payload;
    state.stewards.delete(p.steward);
    return { steward: p.steward, stewards: [...state.stewards.keys()].sort() };
  },
};

export const switchSet: Handler = {
  check(state, e) {
    const p = e.logged.payload;
    const agent = authorizeMain(state, e.type, p.agent);
    if (!state.stewards.has(agent.handle)) throw forbidden(`payload.agent: ${agent.handle} is not a steward; only stewards hold switches`);
  },
  slot: (_state, e) => `switch ${e.logged.payload.switch}`,
  apply(state, e) {
    const p = e.logged.payload;
    state.switches.set(p.switch, { paused: p.paused, by: p.agent.handle, seq: e.seq, ts: e.ts, reason: p.reason });
    return { switch: p.switch, paused: p.paused, settings: settings(state) };
  },
};

/** Every switch as it stands (the record summary's `settings`). */
export function settings(state: State) {
  return Object.fromEntries(SWITCHES.map((name) => [name, state.switches.get(name) ?? { paused: false }]));
}
