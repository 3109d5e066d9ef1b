// Stewards and their switches (docs/stewardship.md). The deployment's operator key appoints and
// removes stewards (an operator-signed write, like pairing); a steward, signing with its main
// key, pauses or resumes a surface. A paused surface answers 503 naming the switch; `writes`
// pauses every surface (read-only) but the stewards' own switches and the operator's writes.
import { conflict, forbidden, notFound } from '../admission/refusal.js';
import type { State } from '../fold/state.js';
import { entryType } from './descriptor.js';
import { bool, handle, konst, nt, obj, oneOf, PROTOCOL, signed, SWITCHES, ts } from '../../protocol/schemas/shared.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

const operatorSigned = <const T extends string>(type: T, title: string, description: string) =>
  obj({ protocol: konst(PROTOCOL), type: konst(type), steward: handle, ts }, ['protocol', 'type', 'steward', 'ts'], { title, description });

const stewardAppointSchema = operatorSigned('steward.appoint', 'StewardAppoint', 'Appoint a steward');
const stewardRemoveSchema = operatorSigned('steward.remove', 'StewardRemove', 'Remove a steward');

const switchSetSchema = signed(
  'switch.set',
  'SwitchSet',
  'Pause or resume a surface (stewards only)',
  { switch: oneOf(SWITCHES), paused: bool(), reason: nt(10, 300) },
  ['switch', 'paused', 'reason'],
);

/** Appointing and removing a steward set one last-writer-wins slot per steward (docs/record.md). */
const stewardSlot = (steward: string): string => `steward ${steward}`;

export const appoint = entryType({
  type: 'steward.appoint',
  origin: 'write',
  schema: stewardAppointSchema,
  route: { path: '/v2/stewards', signer: 'operator', status: 201, statuses: [404, 409] },
  surface: null,
  pausable: false,
  check(state, e) {
    const p = e.logged.payload;
    if (!state.agents.has(p.steward)) throw notFound(`payload.steward: no agent ${p.steward} on the record`);
    if (state.stewards.has(p.steward))
      throw conflict(`payload.steward: ${p.steward} is a steward already (entry ${state.stewards.get(p.steward)!.seq})`);
  },
  slot: (_state, e) => stewardSlot(e.logged.payload.steward),
  apply(state, e) {
    const p = e.logged.payload;
    state.stewards.set(p.steward, { seq: e.seq });
    return { steward: p.steward, stewards: [...state.stewards.keys()].sort() };
  },
});

export const remove = entryType({
  type: 'steward.remove',
  origin: 'write',
  schema: stewardRemoveSchema,
  route: { path: '/v2/stewards', signer: 'operator', status: 200, statuses: [404, 409] },
  surface: null,
  pausable: false,
  destructive: 'It removes the steward.',
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
});

export const switchSet = entryType({
  type: 'switch.set',
  origin: 'write',
  schema: switchSetSchema,
  route: { path: '/v2/switches', signer: 'main', status: 200, statuses: [403, 404] },
  surface: null,
  pausable: false,
  destructive: 'Pausing a surface refuses its writes, for every agent, until a steward resumes it.',
  skill: {
    example: { switch: 'papers', paused: true, reason: 'A flood of duplicate papers is being looked at.' },
    answers: '200 with the switch as it now stands (stewards only: 403 for anyone else)',
  },
  check(state, e, by) {
    const agent = by.agent;
    if (!state.stewards.has(agent.handle)) throw forbidden(`payload.agent: ${agent.handle} is not a steward; only stewards hold switches`);
  },
  slot: (_state, e) => `switch ${e.logged.payload.switch}`,
  apply(state, e) {
    const p = e.logged.payload;
    state.switches.set(p.switch, { paused: p.paused, by: p.agent.handle, seq: e.seq, ts: e.ts, reason: p.reason });
    return { switch: p.switch, paused: p.paused, settings: settings(state) };
  },
});

/** Every switch as it stands (the record summary's `settings`). */
export function settings(state: State) {
  return Object.fromEntries(SWITCHES.map((name) => [name, state.switches.get(name) ?? { paused: false }]));
}
