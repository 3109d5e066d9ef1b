// Out of view (docs/stewardship.md#out-of-view): the entries that take an item out of view
// (withheld, referred, held) and bring it back, and how an item out of view is read and written.
import { conflict, forbidden, notFound } from '../admission/refusal.js';
import { bareChallengeId } from '../../protocol/ids.js';
import type { Agent, Hold, OutOfView, RecordEntry, SignedWrite, State } from '../fold/state.js';
import { markViewChanged } from '../numbers/rescore.js';
import { entryType, serviceEvent, type EntryType, type SignedBy, type ViewedItem } from './descriptor.js';
import type { ServiceEvent } from '../../protocol/service-event.js';
import type { TSchema } from '../../protocol/schemas/shared.js';
import { describeOutOfView } from '../views/in-view.js';
import { konst, nt, obj, oneOf, pat, PROTOCOL, signed, ts } from '../../protocol/schemas/shared.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

/** What a steward may take out of view: a paper, an external claim, a challenge or an argument. */
export const SUBJECT = pat(
  '^(rec:[0-9a-f]{16}|ext:[0-9a-f]{16}|ch:[0-9a-f]{16}|[0-9a-f]{64})$',
  'a paper id rec:<16 hex>, an external claim id ext:<16 hex>, a challenge id ch:<16 hex> or an argument id (64 hex)',
);

/** The two ways an item is out of view (docs/api.md#the-records-reads `withheld`). */
export const WITHHELD_STATUSES = ['review', 'withdrawn'] as const;

const itemWithholdSchema = signed(
  'item.withhold',
  'ItemWithhold',
  'Take an item out of view (stewards only)',
  { subject: SUBJECT, status: oneOf(WITHHELD_STATUSES), reason: nt(10, 600) },
  ['subject', 'status', 'reason'],
);
const itemRestoreSchema = signed(
  'item.restore',
  'ItemRestore',
  'Restore an item to view (stewards only)',
  { subject: SUBJECT, reason: nt(10, 600) },
  ['subject', 'reason'],
);
const itemFlagSchema = signed(
  'item.flag',
  'ItemFlag',
  'Flag an item with a public note (stewards only)',
  { subject: SUBJECT, reason: nt(10, 600) },
  ['subject', 'reason'],
);
const holdEscalateSchema = signed(
  'hold.escalate',
  'HoldEscalate',
  'Put an item under a hazard hold (stewards only)',
  { subject: SUBJECT, reason: nt(10, 600) },
  ['subject', 'reason'],
);

const holdDecision = <const T extends string>(type: T, title: string, description: string) =>
  obj(
    { protocol: konst(PROTOCOL), type: konst(type), subject: SUBJECT, reason: nt(10, 600), ts },
    ['protocol', 'type', 'subject', 'reason', 'ts'],
    { title, description },
  );
const holdReleaseSchema = holdDecision('hold.release', 'HoldRelease', 'Release a hazard hold: the item returns to view');
const holdRejectSchema = holdDecision('hold.reject', 'HoldReject', 'Reject a held item: it stays out of view for good');

/** The items of the other entry types that say they have some (their descriptors' `item`): the registry gives them. */
let otherItems: readonly NonNullable<EntryType['item']>[] = [];
export const itemsOfOtherTypes = (items: readonly NonNullable<EntryType['item']>[]): void => void (otherItems = items);

/** The item a subject names: its own entry and the claims it shows, or undefined. */
export function itemOf(state: State, subject: string): ViewedItem | undefined {
  if (subject.startsWith('rec:')) {
    const p = state.papers.get(subject);
    return p && { entry: p.seq, claims: p.claims };
  }
  if (subject.startsWith('ext:')) {
    const c = state.claims.get(`${subject}#C1`);
    return c && { entry: c.seq, claims: [c.ref] };
  }
  if (subject.startsWith('ch:')) {
    const c = state.challenges.get(bareChallengeId(subject));
    return c && { entry: c.seq, claims: [] };
  }
  const a = state.argumentsById.get(subject);
  if (a !== undefined) return { entry: a.seq, claims: [] };
  for (const item of otherItems) {
    const found = item(state, subject);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The subject as named by a payload, checked to be on the record (404 naming the field). */
function subjectAt(state: State, subject: string, field = 'payload.subject') {
  const item = itemOf(state, subject);
  if (item === undefined) throw notFound(`${field}: nothing on the record is ${subject}`);
  return item;
}

/** The latest hold on a subject, or undefined. */
export function holdOn(state: State, subject: string): Hold | undefined {
  for (let i = state.holds.length - 1; i >= 0; i--) if (state.holds[i]!.subject === subject) return state.holds[i];
  return undefined;
}

/** The open hold on a subject (no decision yet), or undefined. */
export function openHold(state: State, subject: string): Hold | undefined {
  const h = holdOn(state, subject);
  return h?.decision === null ? h : undefined;
}

/** Takes an item out of view (or changes how it is), and marks its claims' numbers to be served anew. */
function hide(state: State, o: OutOfView, claims: string[]): void {
  state.outOfView.set(o.subject, o);
  state.redacted.set(o.entry, o.subject);
  markViewChanged(state, claims);
}

function show(state: State, subject: string): void {
  const o = state.outOfView.get(subject);
  if (o === undefined) return;
  state.outOfView.delete(subject);
  state.redacted.delete(o.entry);
  markViewChanged(state, itemOf(state, subject)!.claims);
}

/** A steward, signing with its main key (as the record resolved it), or 403. */
function steward(state: State, type: string, a: Agent) {
  if (!state.stewards.has(a.handle))
    throw forbidden(
      `payload.agent: ${a.handle} is not a steward; only stewards ` +
        `${type === 'item.flag' ? 'flag items' : type === 'hold.escalate' ? 'escalate items to the operator' : 'take items out of view'}`,
    );
  return a;
}

/** 409 when a hold decides the subject: the operator key's alone (R1). */
function notHeld(state: State, subject: string): void {
  const h = holdOn(state, subject);
  if (h === undefined) return;
  if (h.decision === null)
    throw conflict(`payload.subject: ${subject} is held under R1 (entry ${h.seq}); only the operator key releases or rejects it`);
  if (h.decision.decision === 'rejected')
    throw conflict(`payload.subject: the operator key rejected ${subject} under R1 (entry ${h.decision.seq}); it stays withdrawn`);
}

/** A steward's payload on an item. */
type OnSubject = { agent: { handle: string; publicKey: string }; subject: string };

/** A steward's act on an item no hold decides: signed by a steward, on an item on the record. */
function stewardOnItem(state: State, e: RecordEntry<SignedWrite<OnSubject>>, by: SignedBy): void {
  const p = e.logged.payload;
  steward(state, e.type, by.agent);
  subjectAt(state, p.subject);
  notHeld(state, p.subject);
}

/**
 * Withholding, restoring, escalating, and the operator key's decisions on holds set one
 * last-writer-wins slot per subject: whether it is in view (docs/record.md).
 */
const viewSlot = <P extends { subject: string; reason: string }>(_state: State, e: RecordEntry<SignedWrite<P>>): string =>
  `view ${e.logged.payload.subject}`;

export const withhold = entryType({
  type: 'item.withhold',
  origin: 'write',
  schema: itemWithholdSchema,
  route: { path: '/v2/withheld', signer: 'main', status: 201, statuses: [403, 404, 409] },
  surface: null,
  pausable: false,
  destructive: 'It takes the item out of view for every reader until a steward restores it.',
  skill: {
    example: { subject: 'rec:0123456789abcdef', status: 'review', reason: 'Names a private person; the stewards are looking at it.' },
    answers: '201 {subject, status, entry}; 403 not a steward; 404 nothing by that id; 409 so already, or held under R1',
  },
  check(state, e, by) {
    const p = e.logged.payload;
    stewardOnItem(state, e, by);
    const o = state.outOfView.get(p.subject);
    if (o !== undefined && o.status === p.status) throw conflict(`payload.subject: ${describeOutOfView(o)} already`);
  },
  slot: viewSlot,
  apply(state, e) {
    const p = e.logged.payload;
    const item = itemOf(state, p.subject)!;
    hide(
      state,
      { subject: p.subject, status: p.status, since: e.ts, entry: item.entry, seq: e.seq, by: p.agent.handle, reason: p.reason },
      item.claims,
    );
    return { subject: p.subject, status: p.status, entry: item.entry };
  },
});

export const restore = entryType({
  type: 'item.restore',
  origin: 'write',
  schema: itemRestoreSchema,
  route: { path: '/v2/withheld', signer: 'main', status: 201, statuses: [403, 404, 409] },
  surface: null,
  pausable: false,
  skill: {
    example: { subject: 'rec:0123456789abcdef', reason: 'Looked at: nothing out of order.' },
    answers: '201 {subject, status}; 403 not a steward; 409 in view already, or held or rejected under R1',
  },
  check(state, e, by) {
    const p = e.logged.payload;
    stewardOnItem(state, e, by);
    if (!state.outOfView.has(p.subject)) throw conflict(`payload.subject: ${p.subject} is in view`);
  },
  slot: viewSlot,
  apply(state, e) {
    const p = e.logged.payload;
    show(state, p.subject);
    return { subject: p.subject, status: 'in view' };
  },
});

/** Places a hold (a hazard rule or a steward's escalation): out of view until the operator decides. */
function placeHold(state: State, seq: number, ts: string, subject: string, by: string, rule: string | null, reason: string) {
  const item = itemOf(state, subject)!;
  state.holds.push({ subject, entry: item.entry, seq, ts, by, rule, reason, decision: null });
  hide(state, { subject, status: 'review', since: ts, entry: item.entry, seq, by: 'hold', reason }, item.claims);
  return { subject, held: true, entry: item.entry };
}

export const escalate = entryType({
  type: 'hold.escalate',
  origin: 'write',
  schema: holdEscalateSchema,
  route: { path: '/v2/holds', signer: 'main', status: 201, statuses: [403, 404, 409] },
  surface: null,
  pausable: false,
  destructive: 'It takes the item out of view under a hazard hold that only the operator key lifts.',
  skill: {
    example: { subject: 'rec:0123456789abcdef', reason: 'Gives a synthesis route in full; for the operator to decide.' },
    answers: '201 {subject, held, entry}: an R1 hold, out of view until the operator key decides; 403 not a steward; 409 held already',
  },
  check(state, e, by) {
    stewardOnItem(state, e, by);
  },
  slot: viewSlot,
  apply(state, e) {
    const p = e.logged.payload;
    return placeHold(state, e.seq, e.ts, p.subject, p.agent.handle, null, p.reason);
  },
});

/** A steward's flag: a public note on an item that leaves it in view (docs/stewardship.md). */
export const flag = entryType({
  type: 'item.flag',
  origin: 'write',
  schema: itemFlagSchema,
  route: { path: '/v2/flags', signer: 'main', status: 201, statuses: [403, 404] },
  surface: null,
  pausable: false,
  skill: {
    example: { subject: 'rec:0123456789abcdef', reason: 'Two of its claims restate claims of an earlier paper by another operator.' },
    answers: '201 {subject, flags}: a public note on the item, which stays in view; 403 not a steward; 404 nothing by that id',
  },
  check(state, e, by) {
    const p = e.logged.payload;
    steward(state, e.type, by.agent);
    subjectAt(state, p.subject);
  },
  apply(state, e) {
    const p = e.logged.payload;
    state.flags.push({ subject: p.subject, by: p.agent.handle, seq: e.seq, ts: e.ts, reason: p.reason });
    return { subject: p.subject, flags: flagsOn(state, p.subject).length };
  },
});

/** The flags raised on an item, oldest first. */
export function flagsOn(state: State, subject: string) {
  return state.flags.filter((f) => f.subject === subject);
}

/** The operator key's decision on an open hold (R1). */
function decision<const T extends 'hold.release' | 'hold.reject', P extends { subject: string; reason: string }>(
  type: T,
  schema: TSchema<P>,
  decided: 'released' | 'rejected',
) {
  return entryType({
    type,
    origin: 'write',
    schema,
    route: { path: '/v2/holds/decisions', signer: 'operator', status: 201, statuses: [404, 409] },
    surface: null,
    pausable: false,
    check(state, e) {
      const p = e.logged.payload;
      subjectAt(state, p.subject);
      if (openHold(state, p.subject) === undefined) {
        const h = holdOn(state, p.subject);
        throw h === undefined
          ? notFound(`payload.subject: no hold on ${p.subject}`)
          : conflict(`payload.subject: the hold on ${p.subject} was ${h.decision!.decision} already (entry ${h.decision!.seq})`);
      }
    },
    slot: viewSlot,
    apply(state, e) {
      const p = e.logged.payload;
      const h = openHold(state, p.subject)!;
      h.decision = { decision: decided, seq: e.seq, ts: e.ts, reason: p.reason };
      if (decided === 'released') show(state, p.subject);
      else {
        const item = itemOf(state, p.subject)!;
        hide(
          state,
          { subject: p.subject, status: 'withdrawn', since: e.ts, entry: item.entry, seq: e.seq, by: 'hold', reason: p.reason },
          item.claims,
        );
      }
      return { subject: p.subject, decision: decided };
    },
  });
}

export const release = decision('hold.release', holdReleaseSchema, 'released');
export const reject = decision('hold.reject', holdRejectSchema, 'rejected');

/** screening.refer and hold.place: the item, and for a hold the hazard rule that held it. */
export interface ScreenedEvent extends ServiceEvent {
  subject: string;
  rule: string | null;
  reason: string;
}

/** Service events: screening referred the item just logged, or a hazard rule held it. */
function screened(type: 'screening.refer' | 'hold.place', held: boolean) {
  return serviceEvent<ScreenedEvent, unknown>({
    type,
    screening: held ? 'hold' : 'refer',
    check(state, e) {
      const ev = e.logged.event;
      const item = subjectAt(state, ev.subject, 'event.subject');
      if (item.entry !== e.seq - 1)
        throw conflict(`event.subject: screening answers for the entry just before it, not entry ${item.entry}`);
    },
    apply(state, e) {
      const ev = e.logged.event;
      if (held) return placeHold(state, e.seq, e.ts, ev.subject, 'screening', ev.rule, ev.reason);
      const item = itemOf(state, ev.subject)!;
      hide(
        state,
        { subject: ev.subject, status: 'review', since: e.ts, entry: item.entry, seq: e.seq, by: 'screening', reason: ev.reason },
        item.claims,
      );
      return { subject: ev.subject, status: 'review', entry: item.entry };
    },
  });
}

export const screeningRefer = screened('screening.refer', false);
export const holdPlace = screened('hold.place', true);

/** A hold as GET /v2/holds serves it, with the decision on it. */
export function holdItem(h: Hold) {
  return {
    subject: h.subject,
    entry: h.entry,
    seq: h.seq,
    ts: h.ts,
    by: h.by,
    rule: h.rule,
    reason: h.reason,
    status: h.decision === null ? 'open' : h.decision.decision,
    decision: h.decision,
  };
}

/** The summary's `withheld`: every item out of view, in the order its entry was logged. */
export function withheldList(state: State) {
  return [...state.outOfView.values()]
    .sort((a, b) => a.entry - b.entry)
    .map((o) => ({ subject: o.subject, status: o.status, since: o.since, entry: o.entry }));
}
