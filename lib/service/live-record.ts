// The record as the service runs it: the engine's Replica of the record's state machine, with what only the record knows (its
// refusals, service events, seals, what falls due, screened writes). How writes are admitted and what a failed commit does:
// docs/engine.md#running-a-state-machine, docs/record.md#a-full-or-failing-store; many nodes: docs/deploy.md.
import type { KeyObject } from 'node:crypto';
import { LogError, Replica, type SnapshotPlace, type SnapshotWritten, type StateMachine, type StoredEntry } from 'tlog-engine';
import { canonicalize } from '../protocol/canonical-json.js';
import type { Deployment } from './deployment.js';
import { signBytes } from '../protocol/ed25519.js';
import { ArchiveError, isArchiveError } from '../protocol/errors.js';
import { PROTOCOL, signEvent } from '../protocol/service-event.js';
import { entryData, parseStored, type RecordLog } from '../protocol/log-entry.js';
import {
  applyEntry,
  check,
  countsOf,
  recordEntry,
  dueEvents,
  type DueEvent,
  emptyState,
  type RecordEntry,
  type State,
} from '../record/fold/index.js';
import { entryTypeOf, SCREENING_EVENTS } from '../record/types/index.js';
import { recordSnapshots } from './snapshot.js';
import { refusal, type Verdict } from './screening.js';
import { isNoSpace } from './storage.js';

/** Whether `err` is a commit refused because another node took the sequencer lease. */
export const isFenced = (err: unknown): boolean => err instanceof LogError && err.code === 'fenced';

/** The refusal of every write while the store cannot write: 507 when it is full, else 503. */
export function storeRefusal(err: unknown): ArchiveError {
  if (isFenced(err)) {
    return new ArchiveError(
      'unavailable',
      'this node lost the sequencer lease before the write was committed: nothing of it was logged; send it again (it reaches the ' +
        'new leader)',
      { cause: err, retryAfter: 1 },
    );
  }
  if (err instanceof LogError && err.code === 'unknown') {
    return new ArchiveError(
      'paused',
      `the store stopped answering after this write was sent to it (${err.message}): it may be on the log; look for it before sending ` +
        `it again (a copy already logged answers 409); writes are off until the store answers`,
      { cause: err },
    );
  }
  if (isNoSpace(err)) {
    return new ArchiveError(
      'insufficient_storage',
      'the store is full: writes are off until space is freed (reads and proofs are still served); nothing of this write was logged',
      { cause: err },
    );
  }
  const why = err instanceof Error ? err.message : String(err);
  return new ArchiveError(
    'paused',
    `the archive is read-only: the store is failing (${why}); writes are off until it can write again, nothing of this write was logged`,
    { cause: err },
  );
}

/** What an entry's apply reports for the reply: an object of ids and statuses (a service event may report nothing). */
export type Outcome = { readonly id?: string } & Readonly<Record<string, unknown>>;

const isOutcome = (o: unknown): o is Outcome => typeof o === 'object' && o !== null && !Array.isArray(o);

/** The id an entry's apply reported; every write that is screened or sealed reports one. */
function idOf(a: Admitted): string {
  if (typeof a.outcome.id !== 'string') throw new ArchiveError('internal', `entry ${a.seq} reported no id`);
  return a.outcome.id;
}

export interface Admitted {
  seq: number;
  ts: string;
  /** What the entry's apply reported (ids, statuses) for the reply. */
  outcome: Outcome;
  /** Resolves when the entry is durable. */
  committed: Promise<unknown>;
}

export type Admission = Admitted | { already: Record<string, unknown> };

/**
 * Told of every entry folded into the state, in log order: admitted, replayed at start-up or in a
 * rebuild, or followed from the node that leads. Listeners must not throw, nor change the state.
 */
export interface AppliedListener {
  /** `e` was folded into `state` (the live state, or a state being rebuilt) and reported `outcome`. */
  applied(state: State, e: RecordEntry, outcome: unknown): void;
  /**
   * A rebuild starts from `state` (empty, or restored from a snapshot): what was told of entries
   * from `state.size` on is void (they may not all be on the log), and is told again.
   */
  reset?(state: State): void;
}

export interface OpenOptions {
  /** Start from the snapshot kept here when it holds (lib/service/snapshot.ts). */
  snapshot?: string | SnapshotPlace;
  say?: (line: string) => void;
  /** Listeners told of every entry from the first replay on. */
  listeners?: AppliedListener[];
  /** Open following another node (the engine's Cluster): no writes, no due events, until `lead`. */
  following?: boolean;
}

/** The refusal of a write that reaches a node which does not lead (when it could not be forwarded). */
export const notLeading = (why: string): ArchiveError =>
  new ArchiveError('unavailable', `this node does not take writes: ${why}; retry, or send it to the node that leads`, { retryAfter: 1 });

/** One entry of the log, read back, as the entry the record folds. */
const decodeEntry = (stored: StoredEntry): RecordEntry => {
  const r = parseStored(stored.bytes);
  return recordEntry({ seq: stored.seq, ts: r.ts, type: r.type, payload: r.payload });
};

/** The record's state machine, as the engine's Replica runs it. */
export const recordMachine: StateMachine<State, RecordEntry<object>> = {
  init: emptyState,
  decode: decodeEntry,
  apply: (state, e) => applyEntry(state, e),
  // Every reader holds the one state object: a rebuild refills it in place.
  replace: (into, from) => {
    for (const k of Object.keys(into)) delete (into as unknown as Record<string, unknown>)[k];
    Object.assign(into, from);
  },
  snapshot: recordSnapshots,
};

const iso = (ms: number) => new Date(ms).toISOString();

export class LiveRecord {
  private constructor(
    private readonly replica: Replica<State, RecordEntry<object>>,
    private readonly log: RecordLog,
    private readonly logKey: KeyObject,
    private readonly clock: () => number,
  ) {}

  /** The state: every entry of the log folded, and those admitted but not yet durable. */
  get state(): State {
    return this.replica.state;
  }

  /** The size of the snapshot the state started from (0: replayed from the first entry). */
  get startedFrom(): number {
    return this.replica.startedFrom;
  }

  /** Called when a write is refused because writes are off (the store watcher probes sooner). */
  set onRefused(f: () => void) {
    this.replica.onRefused = f;
  }

  /** The engine's replica this record runs on (the engine's Cluster follows and leads with it). */
  get engineReplica(): Replica<unknown, unknown> {
    return this.replica as unknown as Replica<unknown, unknown>;
  }

  /** Adds a listener told of every entry folded from now on (give them to `open` to be told of the start-up replay too). */
  onApplied(listener: AppliedListener): void {
    this.replica.onApplied(listener as never);
  }

  /** Adds a listener and tells it of the state as it is now (`reset`), then of every entry folded from now on. */
  listen(listener: AppliedListener): void {
    this.replica.listen(listener as never);
  }

  /**
   * Replays the deployment's log into a new state (from `opts.snapshot` when that snapshot
   * holds), then logs whatever fell due meanwhile; with `writesOff` (a store that cannot write
   * at start), writes start off instead.
   */
  static async open(d: Deployment, clock: () => number = Date.now, writesOff?: unknown, opts: OpenOptions = {}): Promise<LiveRecord> {
    const say = opts.say ?? ((line: string) => console.log(line));
    const replica = await Replica.open<State, RecordEntry<object>>({
      log: d.log.engine,
      machine: recordMachine,
      snapshots: opts.snapshot,
      listeners: (opts.listeners ?? []) as never,
      following: opts.following,
      writesOff: writesOff === undefined ? undefined : { cause: writesOff },
      errors: {
        stopped: (cause) => (isArchiveError(cause) ? cause : storeRefusal(cause)),
        notLeading,
        broken: (seq, cause) => new ArchiveError('internal', `entry ${seq} passed its check but failed to apply`, { cause }),
      },
      say: (line) => say(`archive: ${line}`),
    });
    const record = new LiveRecord(replica, d.log, d.logKey, clock);
    if (opts.following !== true && writesOff === undefined)
      await record.tick().catch((err) => {
        if (!record.writesAreOff) throw err;
      });
    return record;
  }

  /**
   * Writes a snapshot of the state to `place` once the state is the committed log's (entries
   * admitted but not yet durable are waited for; `attempts` times while writes keep coming).
   * Null when the state never settled.
   */
  snapshot(place: string | SnapshotPlace, attempts = 20): Promise<SnapshotWritten | null> {
    return this.replica.snapshot(place, attempts);
  }

  /** Whether this node admits writes (it is alone, or holds the sequencer lease). */
  get leading(): boolean {
    return this.replica.leading;
  }

  /** Calls `f` when a commit is refused because another node took the sequencer lease. */
  onFenced(f: (err: unknown) => void): void {
    this.replica.onFenced(f);
  }

  /** Stops admitting writes (this node no longer holds the sequencer lease); see the engine's Replica. */
  stopLeading(why: string): Promise<void> {
    return this.replica.stopLeading(why);
  }

  /** Waits for what this node admitted to be committed or refused, then makes the state the committed log's. */
  settle(): Promise<void> {
    return this.replica.settle();
  }

  /** Starts admitting writes (this node took the sequencer lease), then logs what fell due. */
  async lead(): Promise<void> {
    this.replica.lead();
    await this.tick().catch(() => undefined);
  }

  /** The refusal writes get while they are off; null while they are on. */
  get refusal(): ArchiveError | null {
    return this.replica.refusal as ArchiveError | null;
  }

  /** Whether writes are off. */
  get writesAreOff(): boolean {
    return this.replica.writesAreOff;
  }

  /** Whether writes are off for good (a bug: a checked entry failed to apply). */
  get isBroken(): boolean {
    return this.replica.isBroken;
  }

  /**
   * Turns writes off, once: every write is refused with `err`'s refusal until `resume`.
   * `rebuild`: the state may hold entries the log refused (not so at start).
   */
  writesOff(err: unknown, rebuild = true): void {
    this.replica.writesOff(err, rebuild);
  }

  /** Turns writes on again once the log takes appends (after the engine's recover); throws, leaving writes off, if it cannot. */
  resume(): Promise<void> {
    return this.replica.resume();
  }

  /** Calls `f` each time writes go off (with the refusal writes get). */
  onFailure(f: (err: ArchiveError) => void): void {
    this.replica.onFailure(f as (err: Error) => void);
  }

  /** Calls `f` each time writes come back on. */
  onResume(f: () => void): void {
    this.replica.onResume(f);
  }

  /** The time the state machine never reads: the service's clock, in ms. */
  now(): number {
    return this.clock();
  }

  /**
   * Admits one entry: checks it, queues it and applies it (synchronously), or says it is
   * already so. Throws the typed error that refuses it; nothing refused is written. With
   * `withNext`, the entry is committed in one atomic batch with the next one admitted in the
   * same synchronous step.
   */
  admit(type: string, logged: object, text?: string, withNext = false): Admission {
    const a = this.replica.admit(
      (state, at) => {
        const entry: RecordEntry<object> = { seq: at.seq, ts: iso(at.time), type, logged, ...(text === undefined ? {} : { text }) };
        const verdict = check(state, entry);
        if (verdict !== undefined) return verdict;
        return { data: entryData(type, text ?? canonicalize(logged)), entry };
      },
      { withNext },
    );
    if ('already' in a) return a as { already: Record<string, unknown> };
    // What the write counts, read by the record from the state right after the fold, in the same
    // synchronous step (docs/credence.md#what-a-write-counts).
    const counting = countsOf(this.state, a.entry, a.outcome);
    const outcome = isOutcome(a.outcome) ? (counting === undefined ? a.outcome : { ...a.outcome, ...counting }) : {};
    return { seq: a.seq, ts: a.entry.ts, outcome, committed: a.committed };
  }

  /**
   * Admits a write, waits until it is durable, and returns its answer: its status is its
   * descriptor's (201 taken, 200 done; 200 when already so, 202 when screening referred or held
   * it), and a write sealed by a service event is admitted with it (`writeSealed`). `text`, when
   * given, is the canonical JSON of `logged`; `verdict`, screening's, for a type screening reads.
   */
  async write(type: string, logged: object, text?: string, verdict?: Verdict): Promise<{ status: number; body: Record<string, unknown> }> {
    const d = entryTypeOf(type);
    if (verdict !== undefined && verdict.action !== 'pass') {
      if (verdict.action === 'refuse') {
        // What the record would refuse anyway is refused for that; then screening's 451, nothing kept.
        this.assertAdmissible(type, logged);
        throw refusal(verdict);
      }
      return this.writeScreened(type, logged, text, { ...verdict, action: verdict.action });
    }
    const status = d?.route?.status ?? 201;
    if (d?.sealedBy !== undefined) return { ...(await this.writeSealed(type, logged, text)), status };
    const a = await this.afterDue(() => this.admit(type, logged, text));
    if ('already' in a) return { status: 200, body: a.already };
    await a.committed;
    return { status, body: { ...a.outcome, seq: a.seq } };
  }

  /** Throws the typed error that would refuse this write now; admits nothing. */
  private assertAdmissible(type: string, logged: object): void {
    this.replica.assertWritable();
    check(this.state, { seq: this.log.nextSeqNumber, ts: this.log.nextTs(), type, logged });
  }

  /**
   * A paper or challenge that screening referred to the stewards or held (R1), admitted with the
   * service event that takes it out of view, which follows it on the log: nobody can read it in
   * between, and the two are committed in one atomic batch, so a crash cannot leave the item
   * logged without the event that keeps it out of view. Answers 202 once both are durable.
   */
  async writeScreened(
    type: string,
    logged: object,
    text: string | undefined,
    screened: { action: 'refer' | 'hold'; rule: string; reason: string },
  ): Promise<{ status: 202; body: Record<string, unknown> }> {
    const event = SCREENING_EVENTS[screened.action];
    const [a, ev] = await this.afterDue(() =>
      this.admitWithEvent(type, logged, text, (a) => this.event(event, { subject: idOf(a), rule: screened.rule, reason: screened.reason })),
    );
    await Promise.all([a.committed, ev.committed]);
    const status = screened.action === 'hold' ? 'held' : 'review';
    const note =
      screened.action === 'hold'
        ? 'On the record but out of view: a hazard hold (R1) until the operator key releases or rejects it (GET /v2/holds).'
        : 'On the record but out of view: referred to the stewards, until one looks (GET /v2/record lists it under withheld).';
    return {
      status: 202,
      body: { ...a.outcome, seq: a.seq, status, screening: { rule: screened.rule, reason: screened.reason, seq: ev.seq }, note },
    };
  }

  /**
   * A write and the service event that seals it (its descriptor's `sealedBy`: a check.commit and
   * its seal), admitted in one synchronous step and committed in one atomic batch: the seal entry
   * follows the write on the log, no other write or due event can seal it first, and the reply
   * (with the seed) waits until both are durable, so nobody learns a seed before its commitment is
   * logged (docs/record.md, "Answers and the log").
   */
  async writeSealed(type: string, logged: object, text?: string): Promise<{ status: 201; body: Record<string, unknown> }> {
    const sealedBy = entryTypeOf(type)!.sealedBy!;
    const [a, s] = await this.afterDue(() => this.admitWithEvent(type, logged, text, (a) => this.seal(sealedBy, idOf(a))));
    await Promise.all([a.committed, s.committed]);
    // The seal's outcome answers, with what the write counts (a commitment: nothing until its result).
    const { counts, note } = a.outcome;
    return { status: 201, body: { ...s.outcome, counts, note, seq: a.seq, sealSeq: s.seq } };
  }

  /**
   * Admits a write and the service event its reply depends on, in one synchronous step (no
   * await between them), committed in one atomic batch. Once the write is queued it will be on
   * the log, so a refusal of the event is not the write's refusal: it is a bug, answered 500.
   */
  private admitWithEvent(type: string, logged: object, text: string | undefined, event: (a: Admitted) => Admitted): [Admitted, Admitted] {
    const a = this.admit(type, logged, text, true);
    if ('already' in a) throw new ArchiveError('internal', `${type} was answered as already so`);
    try {
      return [a, event(a)];
    } catch (err) {
      throw new ArchiveError('internal', `entry ${a.seq} (${type}) was admitted but the service event that goes with it was refused`, {
        cause: err,
      });
    }
  }

  /**
   * Logs what fell due, then admits: a result after its deadline finds the lapse on the log.
   * A refusal is answered only once those events are durable, so what the reply says is on
   * the log is.
   */
  private async afterDue<T>(admit: () => T): Promise<T> {
    const due = this.tick();
    try {
      return admit();
    } catch (err) {
      await due.catch(() => undefined);
      throw err;
    } finally {
      due.catch(() => undefined);
    }
  }

  /** Logs a service event signed by the log key. */
  event(type: string, members: Record<string, unknown>): Admitted {
    const signed = signEvent(this.logKey, { protocol: PROTOCOL, type, ts: this.log.nextTs(), ...members });
    const a = this.admit(type, signed);
    if ('already' in a) throw new ArchiveError('internal', `service event ${type} was refused as already so`);
    return a;
  }

  /** Logs service event `type` sealing `subject` (docs/record.md#receipts-seeds-and-cross-checks): its members signed by the log key. */
  seal(type: string, subject: string): Admitted {
    const sign = (message: Uint8Array) => Buffer.from(signBytes(this.logKey, message)).toString('base64url');
    return this.event(type, entryTypeOf(type)!.sealing!.members(this.state, subject, sign));
  }

  /** Logs every service event due now; resolves when they are durable. Only the node that leads does. */
  tick(): Promise<void> {
    if (this.replica.writesAreOff || !this.replica.leading) return Promise.resolve();
    const pending: Promise<unknown>[] = [];
    for (const ev of dueEvents(this.state, this.clock())) {
      try {
        pending.push(this.logDue(ev).committed);
      } catch (err) {
        // A due event the record refuses is a bug in the scheduler: report it, log the rest.
        pending.push(Promise.reject(new ArchiveError('internal', `due event ${ev.type} was refused`, { cause: err })));
      }
    }
    return Promise.all(pending).then(() => undefined);
  }

  private logDue(ev: DueEvent): Admitted {
    const { type, ...members } = ev;
    const sealing = entryTypeOf(type)?.sealing;
    if (sealing !== undefined) return this.seal(type, (members as Record<string, string>)[sealing.subject]!);
    return this.event(type, members);
  }
}
