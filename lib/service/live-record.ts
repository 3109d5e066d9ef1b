// The record as the service runs it: the state replayed from the log, and the one path by which
// anything new gets onto the log. A write is checked against the state, queued on the log and
// applied, all in one synchronous step, so writes are admitted one at a time in log order and two
// racing writes can never both pass a uniqueness or quota check; the reply waits until the entry
// is durable. If a commit fails (a full or failing store), writes are off (507 or 503) and the
// state, which may be ahead of the log, is rebuilt from the log; whoever watches the store
// (lib/service/storage.ts) turns writes on again once the log has recovered (docs/record.md, "A full
// or failing store"). On a database that many nodes share, only the node holding the sequencer
// lease admits writes; the others follow the log (lib/service/cluster.ts, docs/deploy.md).
// Every entry folded into the state, however it came (admitted, replayed at start, replayed in a
// rebuild, followed), passes through one place, `fold`, which tells the AppliedListeners.
import type { KeyObject } from 'node:crypto';
import { canonicalize } from '../protocol/canonical-json.js';
import type { Deployment } from './deployment.js';
import { signBytes } from '../protocol/ed25519.js';
import { ArchiveError, isArchiveError } from '../protocol/errors.js';
import { seedFromSignature, seedMessage } from '../protocol/seed.js';
import { PROTOCOL, signEvent } from '../protocol/service-event.js';
import { LogError, type Log, type LoggedEntry } from '../../log/index.js';
import { applyEntry, check, countsOf } from '../record/apply.js';
import { drawCrossCheck } from '../record/types/checks.js';
import { recordEntry, replayStore } from '../record/replay.js';
import { dueEvents, type DueEvent } from '../record/scheduler.js';
import { emptyState, type RecordEntry, type State } from '../record/state.js';
import { loadSnapshot, writeSnapshot, type Written } from './snapshot.js';
import type { SnapshotPlace } from './snapshot-place.js';

/** Whether a failed write failed for want of space (ENOSPC, EDQUOT, or LevelDB's words for it). */
export function isNoSpace(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || /no space left|disk quota/i.test(e.message)) return true;
  }
  return false;
}

/** Whether `err` is a commit refused because another node took the sequencer lease. */
export const isFenced = (err: unknown): boolean => err instanceof LogError && err.code === 'fenced';

/** The refusal of every write while the store cannot write: 507 when it is full, else 503. */
export function storeRefusal(err: unknown): ArchiveError {
  if (isFenced(err)) {
    return new ArchiveError(
      'unavailable',
      'this node lost the sequencer lease before the write was committed: nothing of it was logged; send it again (it reaches the new leader)',
      { cause: err, retryAfter: 1 },
    );
  }
  if (err instanceof LogError && err.code === 'unknown') {
    return new ArchiveError(
      'paused',
      `the store stopped answering after this write was sent to it (${err.message}): it may be on the log; look for it before sending it again (a copy already logged answers 409); writes are off until the store answers`,
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
  /** Open following another node (lib/service/cluster.ts): no writes, no due events, until `lead`. */
  following?: boolean;
}

/** The refusal of a write that reaches a node which does not lead (when it could not be forwarded). */
export const notLeading = (why: string): ArchiveError =>
  new ArchiveError('unavailable', `this node does not take writes: ${why}; retry, or send it to the node that leads`, { retryAfter: 1 });

export class LiveRecord {
  /** Why writes are off (the store cannot write, or a broken apply); null while they are on. */
  private off: ArchiveError | null = null;
  /** Set when a checked entry failed to apply (a bug): writes stay off for good. */
  private broken = false;
  /** The rebuild of the state from the log started when writes went off. */
  private rebuilt: Promise<boolean> = Promise.resolve(true);
  private failed: ((err: ArchiveError) => void)[] = [];
  private resumed: (() => void)[] = [];
  /** The size of the snapshot the state started from (0: replayed from the first entry). */
  startedFrom = 0;
  /** Called when a write is refused because writes are off (the store watcher probes sooner). */
  onRefused: () => void = () => undefined;
  /** Null while this node admits writes; else why it does not (it follows another). */
  private following: ArchiveError | null = null;
  private readonly listeners: AppliedListener[] = [];
  private fencedBy: ((err: unknown) => void)[] = [];

  /** Where the snapshot is kept, which a rebuild starts from when it holds. */
  private place: string | SnapshotPlace | undefined;
  private say: (line: string) => void = console.log;

  private constructor(
    readonly state: State,
    private readonly log: Log,
    private readonly logKey: KeyObject,
    private readonly clock: () => number,
  ) {}

  /** Adds a listener told of every entry folded from now on (give them to `open` to be told of the start-up replay too). */
  onApplied(listener: AppliedListener): void {
    this.listeners.push(listener);
  }

  /** Adds a listener and tells it of the state as it is now (`reset`), then of every entry folded from now on. */
  listen(listener: AppliedListener): void {
    this.listeners.push(listener);
    listener.reset?.(this.state);
  }

  /**
   * The one place where entries are folded into a state (`state` is the live one, or one being
   * rebuilt): every listener is told.
   */
  private fold(state: State, e: RecordEntry<object>): unknown {
    const outcome = applyEntry(state, e);
    // What the fold takes is what it applied: an admitted entry, of the shape its type names.
    // The entry is on its way to the log whatever a listener does: one that throws is a bug on
    // the read side, reported, never the write's refusal.
    for (const l of this.listeners) {
      try {
        l.applied(state, e as RecordEntry, outcome);
      } catch (err) {
        console.error(`archive: a listener failed on entry ${e.seq} (${e.type}):`, err);
      }
    }
    return outcome;
  }

  /** Replays the log from `state` (empty or a snapshot's) to its committed size, through `fold`. */
  private replayFrom(state: State): Promise<State> {
    return replayStore(this.log, this.log.size, state, (st, e) => this.fold(st, e));
  }

  /**
   * Replays the deployment's log into a new state (from `opts.snapshot` when that snapshot
   * holds, lib/service/snapshot.ts), then logs whatever fell due meanwhile; with `writesOff` (a
   * store that cannot write at start), writes start off instead.
   */
  static async open(d: Deployment, clock: () => number = Date.now, writesOff?: unknown, opts: OpenOptions = {}): Promise<LiveRecord> {
    const start = await LiveRecord.fromSnapshot(d.log, opts.snapshot, opts.say);
    const record = new LiveRecord(start, d.log, d.logKey, clock);
    record.place = opts.snapshot;
    if (opts.say !== undefined) record.say = opts.say;
    for (const l of opts.listeners ?? []) record.onApplied(l);
    record.startedFrom = start.size;
    for (const l of record.listeners) l.reset?.(start);
    await record.replayFrom(start);
    if (opts.following === true) record.following = notLeading('it follows the node that holds the sequencer lease');
    else if (writesOff !== undefined) record.writesOff(writesOff, false);
    else
      await record.tick().catch((err) => {
        if (!record.writesAreOff) throw err;
      });
    return record;
  }

  /**
   * The state of the snapshot in `file` when it holds against the log and this code, else a
   * new state (one line says why the snapshot was not used); the caller replays the tail.
   */
  private static async fromSnapshot(
    log: Log,
    place: string | SnapshotPlace | undefined,
    say: (line: string) => void = console.log,
  ): Promise<State> {
    if (place === undefined) return emptyState();
    const loaded = await loadSnapshot(place, log);
    if (loaded === null) return emptyState();
    if ('problem' in loaded) {
      say(
        `archive: the snapshot ${typeof place === 'string' ? place : place.where} is not used, ${loaded.problem}; replaying the log from its first entry`,
      );
      return emptyState();
    }
    say(`archive: starting from the snapshot at entry ${loaded.treeSize} of ${log.size}`);
    return loaded.state;
  }

  /**
   * Writes a snapshot of the state to `place` once the state is the committed log's (entries
   * admitted but not yet durable are waited for; `attempts` times while writes keep coming).
   * Null when the state never settled.
   */
  async snapshot(place: string | SnapshotPlace, attempts = 20): Promise<Written | null> {
    for (let i = 0; i < attempts; i++) {
      await this.log.waitFor(this.state.size);
      if (this.state.size === this.log.size && !this.writesAreOff) {
        const written = await writeSnapshot(place, this.state, this.log);
        if (written !== null) return written;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return null;
  }

  /** Whether this node admits writes (it is alone, or holds the sequencer lease). */
  get leading(): boolean {
    return this.following === null;
  }

  /** Calls `f` when a commit is refused because another node took the sequencer lease (lib/service/cluster.ts). */
  onFenced(f: (err: unknown) => void): void {
    this.fencedBy.push(f);
  }

  /** A commit was fenced: the state may hold entries that are not on the log; writes stop, the state is rebuilt. */
  private fenced(err: unknown): void {
    if (this.following === null) this.following = notLeading('it lost the sequencer lease');
    if (this.off === null) {
      this.off = storeRefusal(err);
      this.rebuilt = this.rebuild().then(
        () => true,
        () => false,
      );
    }
    for (const f of this.fencedBy) f(err);
  }

  /**
   * Stops admitting writes (this node no longer holds the sequencer lease), waits for the
   * entries already admitted to be committed or refused, and brings the state back to the
   * committed log if some were refused. The log must then be refreshed (`follow`).
   */
  async stopLeading(why: string): Promise<void> {
    this.following ??= notLeading(why);
    await this.settle();
  }

  /**
   * On a node that does not lead: waits for what it admitted to be committed or refused, then
   * makes the state the committed log's (rebuilt when it holds entries the log refused, or when
   * an earlier rebuild failed), so that the log's next entries can be followed.
   */
  async settle(): Promise<void> {
    await this.log.waitFor(this.state.size).catch(() => undefined);
    if (!(await this.rebuilt) || this.state.size !== this.log.size) {
      this.rebuilt = this.rebuild().then(
        () => true,
        () => false,
      );
      if (!(await this.rebuilt)) throw new Error('the state could not be rebuilt from the log; trying again');
    }
  }

  /**
   * Folds entries that the node holding the lease committed (given by Log.refresh, in order,
   * from the state's size on), through `fold`. Only a node that follows does.
   */
  follow(entries: LoggedEntry[]): void {
    if (this.following === null) throw new ArchiveError('internal', 'a node that leads follows no other');
    for (const r of entries) {
      if (r.seq !== this.state.size) throw new ArchiveError('internal', `entry ${r.seq} followed, but the state holds ${this.state.size}`);
      this.fold(this.state, recordEntry(r));
    }
  }

  /**
   * Starts admitting writes: this node took the sequencer lease and its log is refreshed to the
   * head at that moment, which nobody else can move. Then logs what fell due.
   */
  async lead(): Promise<void> {
    if (this.state.size !== this.log.size)
      throw new ArchiveError('internal', `the state holds ${this.state.size} entries, the log ${this.log.size}: it cannot lead`);
    this.following = null;
    this.off = null;
    this.rebuilt = Promise.resolve(true);
    await this.tick().catch(() => undefined);
  }

  /** The refusal writes get while they are off; null while they are on. */
  get refusal(): ArchiveError | null {
    return this.off;
  }

  /** Whether writes are off. */
  get writesAreOff(): boolean {
    return this.off !== null;
  }

  /** Whether writes are off for good (a bug: a checked entry failed to apply). */
  get isBroken(): boolean {
    return this.broken;
  }

  /**
   * Turns writes off, once: every write is refused with `err`'s refusal until `resume`.
   * `rebuild`: the state may hold entries the log refused (not so at start).
   */
  writesOff(err: unknown, rebuild = true): void {
    if (this.off !== null) return;
    this.off = isArchiveError(err) ? err : storeRefusal(err);
    // The state may hold entries that were refused: rebuild it from the log (reads go on
    // meanwhile from the state as it is).
    if (rebuild) {
      this.rebuilt = this.rebuild().then(
        () => true,
        () => false,
      );
    }
    for (const f of this.failed) f(this.off);
  }

  /**
   * Replays the log (as far as it was acknowledged) into the state, in place: every reader holds
   * this object. From the snapshot when one holds against the log.
   */
  private async rebuild(): Promise<void> {
    const start = await LiveRecord.fromSnapshot(this.log, this.place, this.say);
    for (const l of this.listeners) l.reset?.(start);
    const fresh = await this.replayFrom(start);
    for (const k of Object.keys(this.state)) delete (this.state as unknown as Record<string, unknown>)[k];
    Object.assign(this.state, fresh);
  }

  /**
   * Turns writes on again once the log takes appends (after `Sequencer.recover`): the state is
   * the log's, rebuilt if need be. Throws, leaving writes off, if it cannot be.
   */
  async resume(): Promise<void> {
    if (this.off === null) return;
    if (this.broken) throw this.off;
    if (this.log.stopped) throw new Error('the log does not take appends yet');
    if (!(await this.rebuilt) || this.state.size !== this.log.size) await this.rebuild();
    this.off = null;
    for (const f of this.resumed) f();
  }

  /** Calls `f` each time writes go off (with the refusal writes get). */
  onFailure(f: (err: ArchiveError) => void): void {
    this.failed.push(f);
  }

  /** Calls `f` each time writes come back on. */
  onResume(f: () => void): void {
    this.resumed.push(f);
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
    this.assertLogging();
    const entry: RecordEntry<object> = {
      seq: this.log.nextSeqNumber,
      ts: this.log.nextTs(),
      type,
      logged,
      ...(text === undefined ? {} : { text }),
    };
    const verdict = check(this.state, entry);
    if (verdict !== undefined) return verdict;
    const queued = this.log.enqueue(type, text ?? canonicalize(logged), entry.ts, { withNext });
    let outcome: Outcome;
    try {
      const applied = this.fold(this.state, entry);
      // What the write counts, read by the record from the state after the fold (docs/credence.md#what-a-write-counts).
      const counting = countsOf(this.state, entry, applied);
      outcome = isOutcome(applied) ? (counting === undefined ? applied : { ...applied, ...counting }) : {};
    } catch (err) {
      // Checked but not applied: the state no longer follows the log. Stop taking writes.
      this.broken = true;
      this.writesOff(new ArchiveError('paused', 'the archive is read-only: an entry failed to apply; it must restart', { cause: err }));
      throw new ArchiveError('internal', `entry ${entry.seq} (${type}) passed its check but failed to apply`, { cause: err });
    }
    const committed = queued.committed.catch((err) => {
      if (isFenced(err)) this.fenced(err);
      else this.writesOff(err);
      throw storeRefusal(err);
    });
    return { seq: queued.seq, ts: queued.ts, outcome, committed };
  }

  /** Admits a write, waits until it is durable, and returns its reply. */
  /** `text`, when given, is the canonical JSON of `logged` (the caller made it already). */
  async write(type: string, logged: object, text?: string): Promise<{ status: 200 | 201; body: Record<string, unknown> }> {
    const a = await this.afterDue(() => this.admit(type, logged, text));
    if ('already' in a) return { status: 200, body: a.already };
    await a.committed;
    return { status: 201, body: { ...a.outcome, seq: a.seq } };
  }

  /** 503 on a node that follows; 507 or 503 while writes are off: the store cannot write, and the state may be ahead of the log. */
  private assertLogging(): void {
    if (this.following !== null) throw this.following;
    if (this.off === null && this.log.stopped) this.writesOff(this.log.failedWith ?? new Error('the log is closed'));
    if (this.off !== null) {
      this.onRefused();
      throw this.off;
    }
  }

  /** Throws the typed error that would refuse this write now; admits nothing. */
  assertAdmissible(type: string, logged: object): void {
    this.assertLogging();
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
    const event = screened.action === 'hold' ? 'hold.place' : 'screening.refer';
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
   * A check.commit and its seal, admitted in one synchronous step and committed in one atomic
   * batch: the seal entry follows the commitment on the log, no other write or due event can
   * seal it first, and the reply (with the seed) waits until both are durable, so nobody learns
   * a seed before its commitment is logged (docs/record.md, "Answers and the log").
   */
  async commitAndSeal(logged: object, text?: string): Promise<{ status: 201; body: Record<string, unknown> }> {
    const [a, s] = await this.afterDue(() => this.admitWithEvent('check.commit', logged, text, (a) => this.seal(idOf(a))));
    await Promise.all([a.committed, s.committed]);
    // The seal's outcome answers, with what the commitment counts (nothing until its result).
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

  /** Seals a commitment (docs/record.md#receipts-seeds-and-cross-checks): the seed and the cross-check drawn with it. */
  seal(commit: string): Admitted {
    const signature = Buffer.from(signBytes(this.logKey, seedMessage(commit))).toString('base64url');
    const seed = seedFromSignature(signature);
    const crossCheck = drawCrossCheck(this.state, this.state.receipts.get(commit)!, seed);
    return this.event('check.seal', { commit, seal: signature, seed, crossCheck });
  }

  /** Logs every service event due now; resolves when they are durable. Only the node that leads does. */
  tick(): Promise<void> {
    if (this.off !== null || this.following !== null) return Promise.resolve();
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
    if (ev.type === 'check.seal') return this.seal(ev.commit);
    const { type, ...members } = ev;
    return this.event(type, members);
  }
}
