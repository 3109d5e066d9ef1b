// The record's state: everything the log says so far, folded entry by entry (apply.ts). It is
// data changed in place by apply, never by anything else: Maps and arrays keyed by ids, and for
// what the log holds once per entry (claims, reviews, the reports per key, the replay index, the numbers'
// per-review indexes) compact stores of columns (stores/columns.ts; docs/record.md, "How the state is kept").
import { emptyNumbers, type Numbers } from '../numbers/indexes.js';
import { Reviews } from '../stores/review-store.js';
import { appendOnlyEach, type Rows } from '../stores/columns.js';
export type { Review } from '../stores/review-store.js';
import { Claims } from '../stores/claim-store.js';
import { Papers } from '../stores/paper-store.js';
import { Agents, Operators } from '../stores/agent-store.js';
export type { Agent, CheckKey, Doorbell, Operator } from '../stores/agent-store.js';
export type { Paper, Parent } from '../stores/paper-store.js';
export type { Claim } from '../stores/claim-store.js';
import { Reports } from '../stores/reports.js';
import { SeenIndex } from '../stores/replay-index.js';
import { emptyGovernance, type Governance } from '../governance/proposals.js';
import type { Registration } from '../../protocol/schemas/index.js';
import type { bundleSchema, Static } from '../../protocol/schemas/shared.js';
import type { SignedEvent } from '../../protocol/service-event.js';

/** A signed write as logged: its payload, of the type its schema accepts, and the signature. */
export interface SignedWrite<P> {
  payload: P;
  signature: string;
}

/** A check's bundle, as check.commit's schema accepts it. */
export type Bundle = Static<typeof bundleSchema>;

/**
 * What every write's payload carries (docs/payloads.md): what the fold reads of any write before
 * its type's own hooks read the rest, typed by their schema (types/registry.ts, `PayloadOf`).
 */
export interface Payload {
  readonly protocol: string;
  readonly type: string;
  readonly ts: string;
  readonly agent?: { readonly handle: string; readonly publicKey: string };
}

/** Any logged object: a signed write, a registration body or a service event. */
export type Logged = SignedWrite<Payload> | Registration | SignedEvent;

/** The payload of `e` when it is a signed write; undefined for a registration or an event. */
export const payloadOf = (e: RecordEntry): Payload | undefined => ('payload' in e.logged ? e.logged.payload : undefined);

/** The handle of the agent who signed `e`, when an agent did. */
export const signerHandle = (e: RecordEntry): string | undefined => {
  return payloadOf(e)?.agent?.handle;
};

/** An entry as the record folds it: the log's seq, ts and type, and the logged object parsed. */
export interface RecordEntry<L = Logged> {
  seq: number;
  ts: string;
  type: string;
  /** The logged object: {payload, signature} for a signed write, the body for a registration, {event, signature} for a service event. */
  logged: L;
  /**
   * The item's id, given only when its entry was served with its text fields null (an item out
   * of view, replayed by a verifier): the id is a hash of that text, so the entry names it.
   */
  id?: string;
  /**
   * The logged object's canonical JSON, as the log holds it, when the entry came from the log
   * or the caller has it already: a signed write's signed bytes are a slice of it
   * (docs/log-format.md), so they are hashed from it, not serialised again.
   */
  text?: string;
  /** The SHA-256 of a signed write's signed bytes, worked out once for the entry (admission/replay-window.ts, signedHash). */
  signedHash?: string;
  /** The entry's ts in ms as stores/columns.ts `isoMs` reads it (NaN when not canonical), read once for the entry (entryIsoMs). */
  isoMs?: number;
}

/** What verified an operator by the record: its round and the evidence that earned it (numbers/verification.ts). */
export interface VerifiedBy {
  round: number;
  seq: number;
  receipts?: number;
  sources?: number;
  reports?: number;
  right?: number;
}

export type Tier = 'verified' | 'account' | 'unverified';

export interface Pairing {
  codeHash: string;
  operatorId: string;
  /** Milliseconds since the epoch: 24 hours after the pairing entry. */
  expires: number;
  usedBy: string | null;
  seq: number;
}

export interface ReceiptResult {
  seq: number;
  ts: string;
  outcome: 'confirmed' | 'failed' | 'inconclusive';
  outputs: Record<string, number | string>;
  crossCheck: { receipt: string; outputs: Record<string, number | string> } | null;
  /** Whether the cross-check matched the receipt it re-ran; null when none was assigned. */
  crossMatch: boolean | null;
  seedInsensitive: boolean | null;
  signerKey: string;
}

/**
 * A cross-check of this receipt by a later receipt's result (whether its operator is verified is read when
 * needed: it may be verified later).
 */
export interface CrossCheckBy {
  receipt: string;
  operatorId: string;
  match: boolean;
  seq: number;
}

export type Stage = 'committed' | 'sealed' | 'resulted' | 'lapsed';

export interface Receipt {
  id: string;
  seq: number;
  ts: string;
  /** Milliseconds since the epoch: 7 days after the commitment. */
  deadline: number;
  target: string;
  kind: 'rerun' | 'replication';
  bundle: Bundle;
  models: string[];
  agent: string;
  operatorId: string;
  signerKey: string;
  holds: string[];
  stage: Stage;
  seed: number | null;
  seal: { seq: number; signature: string } | null;
  /** The earlier receipt the seal assigned to cross-check; null when none. */
  crossCheck: string | null;
  result: ReceiptResult | null;
  lapsedSeq: number | null;
  /** Seq from which its outputs are shown (a cross-check or 30 days); null while withheld. */
  revealedSeq: number | null;
  crossCheckedBy: CrossCheckBy[];
  /** Seq of the key.revoke that disowned it (signed by a compromised key). */
  disownedSeq: number | null;
}

export interface Finding {
  id: number;
  /** The receipt re-run, and the receipt whose cross-check disagreed with it. */
  receipt: string;
  by: string;
  seq: number;
}

export interface ArgumentCheck {
  agent: string;
  operatorId: string;
  holds: boolean;
  models: string[];
  seq: number;
}

export type ArgumentStatus = 'open' | 'upheld' | 'dismissed';

export interface Argument {
  id: string;
  seq: number;
  ts: string;
  claim: string;
  agent: string;
  operatorId: string;
  stance: 'refutes' | 'qualifies' | 'supports';
  grounds: string;
  confidence: number;
  cites: string[];
  models: string[];
  /** The latest check of each operator, ordered by that latest check (oldest first). */
  checks: Map<string, ArgumentCheck>;
  answer: { seq: number; agent: string } | null;
  status: ArgumentStatus;
  settledSeq: number | null;
}

export interface Challenge {
  id: string;
  seq: number;
  ts: string;
  claim: string;
  agent: string;
  operatorId: string;
  wants: 'receipt' | 'argument';
  status: 'open' | 'withdrawn' | 'completed';
  closedSeq: number | null;
  completedBy: { type: string; id: string } | null;
  reason: string | null;
}

export interface ShutOut {
  claim: string;
  operatorId: string;
  seq: number;
  /** Milliseconds since the epoch: 30 days after the third dismissed attack. */
  until: number;
  endedSeq: number | null;
}

/** A queue of due times in the order they fall due, read from `head` on (scheduler.ts). */
export interface DueQueue {
  items: Due[];
  head: number;
}

/** Something that falls due at `at` (ms): a scheduler logs an event for it (docs/record.md#service-events-and-time). */
export interface Due {
  at: number;
  subject: string;
}

/** An item out of view (docs/stewardship.md): withheld by a steward, referred by screening, or held. */
export interface OutOfView {
  /** rec:<16 hex>, ext:<16 hex>, ch:<16 hex> or an argument id. */
  subject: string;
  status: 'review' | 'withdrawn';
  /** The ts of the entry that took it out of view. */
  since: string;
  /** The seq of the item's own entry (served with its text fields null while out of view). */
  entry: number;
  /** The seq of the entry that took it out of view. */
  seq: number;
  /** A steward's handle, `screening` (a rule referred it) or `hold` (an R1 hold). */
  by: string;
  reason: string;
}

/** A hazard hold (R1) and the operator's decision on it. */
export interface Hold {
  subject: string;
  entry: number;
  seq: number;
  ts: string;
  /** `screening` (a hazard rule, named in `rule`) or the handle of the steward who escalated it. */
  by: string;
  rule: string | null;
  reason: string;
  decision: { decision: 'released' | 'rejected'; seq: number; ts: string; reason: string } | null;
}

export interface State {
  /** From the genesis entry. */
  logKey: string;
  operatorKey: string;
  operator: string;
  origin: string;
  /** The constitution in force: every registration acknowledges it. */
  constitution: { version: string; hash: string };
  size: number;
  lastTs: string | null;
  /**
   * Every agent, by handle (a Map's reads), by row in registration order; the spelling of a handle taken regardless of case,
   * the owner of every key ever registered or delegated, each operator's agents (stores/agent-store.ts).
   */
  agents: Agents;
  /** Every operator, by id, by row in log order (stores/agent-store.ts): `agents` holds the same. */
  operators: Operators;
  /** Operators verified by the record, with the round and what earned it (docs/credence.md#operators-verified-by-the-record). */
  verified: Map<string, VerifiedBy>;
  /** Operators that lost verification: a receipt of theirs disputed by two verified operators. */
  voided: Map<string, { seq: number; receipt: string }>;
  pairings: Map<string, Pairing>;
  /** Every paper, by id (a Map's reads), by row in log order (stores/paper-store.ts). */
  papers: Papers;
  /** Every claim, by ref (a Map's reads), by row, which is its ordinal in the numbers (`at`, stores/claim-store.ts). */
  claims: Claims;
  receipts: Map<string, Receipt>;
  /** Receipts in commit order, per claim. */
  receiptsByClaim: Map<string, string[]>;
  /**
   * Each agent's reviews in log order, their rows in `reviews`: an agent's page lists them. Each list append-only
   * (`appendOnlyEach`); an operator's are `numbers.index.reviewsByOperator`.
   */
  reviewsByAgent: Map<string, Rows>;
  findings: Finding[];
  /** Every review, by id (a Map's reads: `get`, `has`, `size`, iteration) and by row (`at`, stores/review-store.ts). */
  reviews: Reviews;
  argumentsById: Map<string, Argument>;
  argumentsByClaim: Map<string, string[]>;
  challenges: Map<string, Challenge>;
  challengesByClaim: Map<string, string[]>;
  /** Challenge proposals per operator, their entry times in ms, oldest first (daily quota). */
  proposalsByOperator: Map<string, number[]>;
  /** Dismissed attacks per `${claim} ${operatorId}` since the last shut-out. */
  dismissedAttacks: Map<string, number>;
  shutOuts: Map<string, ShutOut>;
  /** Reports (check.commit, check.result, review) per signing key, for disowning (stores/reports.ts). */
  reportsByKey: Reports;
  /** What falls due, in the order it falls due (entry times never go backwards). */
  due: { unsealed: DueQueue; lapse: DueQueue; reveal: DueQueue; shutOutEnd: DueQueue; close: DueQueue };
  /** Stewards appointed by the operator key, and the switches they set (types/stewards.ts). */
  stewards: Map<string, { seq: number }>;
  switches: Map<string, { paused: boolean; by: string; seq: number; ts: string; reason: string }>;
  /** governance/0.1: proposals, votes, enacted versions, acknowledgements (types/governance.ts). */
  governance: Governance;
  /** Items out of view, by subject (types/out-of-view.ts). */
  outOfView: Map<string, OutOfView>;
  /** The entry of each item out of view, to its subject: served with text fields null. */
  redacted: Map<number, string>;
  /** Hazard holds (R1), in the order placed, with the operator's decisions. */
  holds: Hold[];
  /** Stewards' flags on items (in view or not), in the order raised. */
  flags: { subject: string; by: string; seq: number; ts: string; reason: string }[];
  /** credence/0.3: every claim's numbers, kept as entries land (numbers/rescore.ts). */
  numbers: Numbers;
  /**
   * Signed writes logged in the last 2 windows of log time, by SHA-256 of their signed bytes,
   * in log order: a copy is refused (admission/replay-window.ts, docs/record.md "Replays and last-writer-wins").
   */
  seen: SeenIndex;
  /**
   * The entry that set each last-writer-wins slot last, with its time: the earlier of its payload ts and its ts
   * (admission/replay-window.ts).
   */
  slots: Map<string, { seq: number; ts: string }>;
}

const queue = (): DueQueue => ({ items: [], head: 0 });

export function emptyState(): State {
  const claims = Claims.empty();
  const operators = new Operators();
  return {
    logKey: '',
    operatorKey: '',
    operator: '',
    origin: '',
    constitution: { version: '', hash: '' },
    size: 0,
    lastTs: null,
    agents: new Agents(operators),
    operators,
    verified: new Map(),
    voided: new Map(),
    pairings: new Map(),
    papers: Papers.empty(),
    claims,
    receipts: new Map(),
    receiptsByClaim: new Map(),
    reviewsByAgent: appendOnlyEach(new Map()),
    findings: [],
    reviews: new Reviews(claims),
    argumentsById: new Map(),
    argumentsByClaim: new Map(),
    challenges: new Map(),
    challengesByClaim: new Map(),
    proposalsByOperator: new Map(),
    dismissedAttacks: new Map(),
    shutOuts: new Map(),
    reportsByKey: new Reports(),
    due: { unsealed: queue(), lapse: queue(), reveal: queue(), shutOutEnd: queue(), close: queue() },
    stewards: new Map(),
    switches: new Map(),
    governance: emptyGovernance(),
    outOfView: new Map(),
    redacted: new Map(),
    holds: [],
    flags: [],
    numbers: emptyNumbers(claims),
    seen: new SeenIndex(),
    slots: new Map(),
  };
}

/** An operator's tier (docs/credence.md, docs/credence.md#tiers-quotas-and-rate-limits). */
export function tierOf(state: State, operatorId: string): Tier {
  if (state.verified.has(operatorId)) return 'verified';
  return operatorId.startsWith('op_') ? 'account' : 'unverified';
}

/** Appends `value` to the list at `key` of a Map of lists. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

export const DAY = 24 * 60 * 60 * 1000;
