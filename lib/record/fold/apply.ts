// The record's state machine: apply(state, entry) -> state, a pure fold over the log, with no clock, network or randomness
// (docs/record.md#the-state-machine). Each entry type's meaning is its descriptor in the registry; the fold runs in fixed
// phases (docs/entry-types.md#the-fold).
import { invalid } from '../admission/refusal.js';
import type { AlreadySo, EntryType, SignedBy } from '../types/descriptor.js';
import type { Counted } from '../numbers/counting.js';
import { payloadOf, type Logged, type RecordEntry, type State } from './state.js';
import { untouched, updateNumbers } from '../numbers/rescore.js';
import { authorizeSigner } from '../admission/signer.js';
import { entryTypeOf, SERVICE_EVENTS } from '../types/registry.js';
import { assertAcknowledged, assertNotPaused } from '../admission/standing.js';
import { assertFreshAndNew, assertLater, isSignedWrite, noteSigned, noteSlot, pruneSeen } from '../admission/replay-window.js';

/** The descriptor of `type`; a type the record does not know is refused. */
function descriptor(type: string): EntryType {
  const d = entryTypeOf(type);
  if (d === undefined) throw invalid(`entry type ${type} is not one the record knows`);
  return d;
}

/**
 * An entry as the fold reads it. The log holds only what was admitted: a signed write whose
 * payload its type's schema accepted, a registration body its schema accepted, or a service
 * event (docs/log-format.md); the type names which, and each descriptor reads its own.
 */
const admitted = (e: RecordEntry<object>): RecordEntry<Logged> => e as RecordEntry<Logged>;

const agentOf = (e: RecordEntry) => {
  const p = payloadOf(e);
  return p !== undefined && 'agent' in p ? p.agent : undefined;
};

/**
 * Throws the typed error refusing `e` in `state`, or says it is already so; changes nothing. What admits a write: a replay
 * trusts the log's order and only applies, and the verifier checks each entry first.
 * In order (docs/record.md, "Replays and last-writer-wins"): a signed write's ts within the
 * window of the entry's and its signed bytes not on the log already; a paused switch; the
 * acknowledgement of the constitution; the type's own check; a last-writer-wins write signed
 * later than the write that set its slot last.
 */
export function check(state: State, logged: RecordEntry<object>): void | AlreadySo {
  const e = admitted(logged);
  if (e.seq !== state.size) throw invalid(`entry ${e.seq} is out of order: the record holds ${state.size}`);
  const d = descriptor(e.type);
  // Who signed is checked against the state the write is admitted to, not only the one its
  // envelope was checked against: a key revoked meanwhile refuses it (docs/record.md).
  // Resolved here once and handed to the type's check.
  const signer = d.route?.signer;
  let by: SignedBy | null = null;
  if (signer === 'main' || signer === 'main-or-check') {
    // The schema of every write an agent signs requires its agent.
    const who = agentOf(e);
    if (who === undefined) throw invalid('payload.agent: required');
    by = authorizeSigner(state, e.type, who, signer === 'main-or-check');
  }
  if (isSignedWrite(e, SERVICE_EVENTS)) assertFreshAndNew(state, e);
  if (d.pausable) assertNotPaused(state, d.surface);
  assertAcknowledged(state, e, d.beforeAcknowledging === true);
  const verdict = d.check(state, e, by);
  if (d.slot !== undefined) assertLater(state, d.slot(state, e), e);
  return verdict;
}

/**
 * Folds an admitted entry into `state` (in place) and returns what its reply reports, in fixed
 * phases: the type applies the entry and says what it touched for the numbers; the fold notes
 * its slot and signed bytes; then the consequences run (settlement, rounds of verification, the
 * claims rescored), reading only what was touched.
 */
export function applyEntry(state: State, logged: RecordEntry<object>): unknown {
  const e = admitted(logged);
  const d = descriptor(e.type);
  const slot = d.slot?.(state, e);
  // What a type keeps of its own is made when it first needs it (its descriptor's `stores`).
  const members = state as unknown as Record<string, unknown>;
  for (const [member, empty] of Object.entries(d.stores ?? {})) if (!(member in members)) members[member] = empty();
  const outcome = d.apply(state, e);
  const touched = d.numbers?.(state, e, outcome) ?? untouched();
  if (slot !== undefined) noteSlot(state, slot, e);
  pruneSeen(state, e);
  if (isSignedWrite(e, SERVICE_EVENTS)) noteSigned(state, e);
  updateNumbers(state, e, touched);
  state.size = e.seq + 1;
  state.lastTs = e.ts;
  return outcome;
}

/**
 * What write `e`, just folded into `state` with `outcome`, counts: `{counts, note?}` for a write
 * whose item the numbers read, `{foundations}` for a paper (docs/credence.md#what-a-write-counts),
 * else nothing. Read from
 * the state after the whole fold, so the answer says what the numbers do; it changes nothing and
 * is kept nowhere, so replay, which answers no one, does not ask.
 */
export function countsOf(state: State, e: RecordEntry<object>, outcome: unknown): Counted | undefined {
  return descriptor(e.type).counts?.(state, admitted(e), outcome);
}

/** apply(state, entry) -> state. */
export function apply(state: State, e: RecordEntry<object>): State {
  applyEntry(state, e);
  return state;
}
