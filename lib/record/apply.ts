// The record's state machine: apply(state, entry) -> state, a pure fold over the log. No clock,
// no network, no randomness: time is each entry's ts, and what falls due is an entry of its own
// (docs/record.md#service-events-and-time). `check` is what admits a write; replay trusts the log's order and
// applies, and the verifier checks each entry first.
import { badRequest } from '../protocol/errors.js';
import type { AlreadySo, Handler } from './handlers/handler.js';
import * as agents from './handlers/agents.js';
import * as papers from './handlers/papers.js';
import * as checks from './handlers/checks.js';
import * as reviews from './handlers/reviews.js';
import * as args from './handlers/arguments.js';
import * as challenges from './handlers/challenges.js';
import * as stewards from './handlers/stewards.js';
import * as governance from './handlers/governance.js';
import * as outOfView from './handlers/out-of-view.js';
import type { RecordEntry, State } from './state.js';
import { updateNumbers } from './numbers/numbers.js';
import { authorizeSigner } from './signer.js';
import { AGENT_WRITE_TYPES } from '../protocol/write-routes.js';
import { assertFreshAndNew, assertLater, isSignedWrite, noteSigned, noteSlot, pruneSeen } from './replays.js';

const AGENT_SIGNED: ReadonlySet<string> = new Set(AGENT_WRITE_TYPES);

/** Entry types of the log (docs/record.md#entry-types leaves them open): writes, then service events. */
export const HANDLERS: Readonly<Record<string, Handler>> = {
  'log.genesis': agents.genesis,
  'operator.pairing': agents.pairing,
  'agent.register': agents.register,
  'key.delegate': agents.delegate,
  'key.revoke': agents.revoke,
  'doorbell.set': agents.doorbellSet,
  'doorbell.stop': agents.doorbellStop,
  paper: papers.paper,
  'claim.external': papers.external,
  'claim.amend': papers.amend,
  'check.commit': checks.commit,
  'check.seal': checks.seal,
  'check.result': checks.result,
  'check.lapse': checks.lapse,
  'check.reveal': checks.reveal,
  review: reviews.review,
  'argument.file': args.file,
  'argument.check': args.check,
  'argument.answer': args.answer,
  'shutout.end': args.shutOutEnd,
  'challenge.propose': challenges.propose,
  'challenge.withdraw': challenges.withdraw,
  'steward.appoint': stewards.appoint,
  'steward.remove': stewards.remove,
  'switch.set': stewards.switchSet,
  'governance.propose': governance.propose,
  'governance.vote': governance.vote,
  'governance.cosign': governance.cosign,
  'governance.close': governance.close,
  'constitution.acknowledge': governance.acknowledge,
  'item.withhold': outOfView.withhold,
  'item.restore': outOfView.restore,
  'hold.escalate': outOfView.escalate,
  'item.flag': outOfView.flag,
  'hold.release': outOfView.release,
  'hold.reject': outOfView.reject,
  'screening.refer': outOfView.screeningRefer,
  'hold.place': outOfView.holdPlace,
};

/** Entry types the service itself logs, as {event, signature} signed by the log key. */
export const SERVICE_EVENTS: ReadonlySet<string> = new Set(['log.genesis', 'check.seal', 'check.lapse', 'check.reveal', 'shutout.end', 'governance.close', 'screening.refer', 'hold.place']);

function handler(type: string): Handler {
  const h = HANDLERS[type];
  if (h === undefined) throw badRequest(`entry type ${type} is not one the record knows`);
  return h;
}

/**
 * Throws the typed error refusing `e` in `state`, or says it is already so; changes nothing.
 * In order (docs/record.md, "Replays and last-writer-wins"): a signed write's ts within the
 * window of the entry's and its signed bytes not on the log already; a paused switch; the
 * acknowledgement of the constitution; the type's own check; a last-writer-wins write signed
 * later than the write that set its slot last.
 */
export function check(state: State, e: RecordEntry): void | AlreadySo {
  if (e.seq !== state.size) throw badRequest(`entry ${e.seq} is out of order: the record holds ${state.size}`);
  const h = handler(e.type);
  // Who signed is checked against the state the write is admitted to, not only the one its
  // envelope was checked against: a key revoked meanwhile refuses it (docs/record.md).
  if (AGENT_SIGNED.has(e.type)) authorizeSigner(state, e.type, e.logged?.payload?.agent ?? {});
  if (isSignedWrite(e, SERVICE_EVENTS)) assertFreshAndNew(state, e);
  stewards.assertNotPaused(state, e.type);
  governance.assertAcknowledged(state, e);
  const verdict = h.check(state, e);
  if (h.slot !== undefined) assertLater(state, h.slot(state, e), e);
  return verdict;
}

/** Folds an admitted entry into `state` (in place) and returns what its reply reports. */
export function applyEntry(state: State, e: RecordEntry): unknown {
  const h = handler(e.type);
  const slot = h.slot?.(state, e);
  const outcome = h.apply(state, e);
  if (slot !== undefined) noteSlot(state, slot, e);
  pruneSeen(state, e.ts);
  if (isSignedWrite(e, SERVICE_EVENTS)) noteSigned(state, e);
  updateNumbers(state, e, outcome);
  state.size = e.seq + 1;
  state.lastTs = e.ts;
  return outcome;
}

/** apply(state, entry) -> state. */
export function apply(state: State, e: RecordEntry): State {
  applyEntry(state, e);
  return state;
}
