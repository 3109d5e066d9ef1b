// The record as the service runs it: the state replayed from the log, and the one path by which
// anything new gets onto the log. A write is checked against the state, queued on the log and
// applied, all in one synchronous step, so writes are admitted one at a time in log order and two
// racing writes can never both pass a uniqueness or quota check; the reply waits until the entry
// is durable. If a commit fails (a full or failing store), writes are off (507 or 503) and the
// state, which may be ahead of the log, is rebuilt from the log; whoever watches the store
// (lib/service/storage.ts) turns writes on again once the log has recovered (docs/record.md, "A full
// or failing store").
import type { KeyObject } from 'node:crypto';
import { canonicalize } from '../protocol/canonical-json.js';
import type { Deployment } from './deployment.js';
import { signBytes } from '../protocol/ed25519.js';
import { ArchiveError, isArchiveError } from '../protocol/errors.js';
import { seedFromSignature, seedMessage } from '../protocol/seed.js';
import { PROTOCOL, signEvent } from '../protocol/service-event.js';
import type { Log } from '../../log/index.js';
import { applyEntry, check } from '../record/apply.js';
import { drawCrossCheck } from '../record/types/checks.js';
import { replayStore } from '../record/replay.js';
import { dueEvents, type DueEvent } from '../record/scheduler.js';
import { emptyState, type RecordEntry, type State } from '../record/state.js';
import { loadSnapshot, writeSnapshot, type Written } from './snapshot.js';

/** Whether a failed write failed for want of space (ENOSPC, EDQUOT, or LevelDB's words for it). */
export function isNoSpace(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || /no space left|disk quota/i.test(e.message)) return true;
  }
  return false;
}

/** The refusal of every write while the store cannot write: 507 when it is full, else 503. */
export function storeRefusal(err: unknown): ArchiveError {
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

  private constructor(
    readonly state: State,
    private readonly log: Log,
    private readonly logKey: KeyObject,
    private readonly clock: () => number,
  ) {}

  /**
   * Replays the deployment's log into a new state (from `opts.snapshot` when that snapshot
   * holds, lib/service/snapshot.ts), then logs whatever fell due meanwhile; with `writesOff` (a
   * store that cannot write at start), writes start off instead.
   */
  static async open(
    d: Deployment,
    clock: () => number = Date.now,
    writesOff?: unknown,
    opts: { snapshot?: string; say?: (line: string) => void } = {},
  ): Promise<LiveRecord> {
    const start = await LiveRecord.fromSnapshot(d.log, opts.snapshot, opts.say);
    const from = start.size;
    const state = await replayStore(d.log, d.log.size, start);
    const record = new LiveRecord(state, d.log, d.logKey, clock);
    record.startedFrom = from;
    if (writesOff !== undefined) record.writesOff(writesOff, false);
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
  private static async fromSnapshot(log: Log, file: string | undefined, say: (line: string) => void = console.log): Promise<State> {
    if (file === undefined) return emptyState();
    const loaded = await loadSnapshot(file, log);
    if (loaded === null) return emptyState();
    if ('problem' in loaded) {
      say(`archive: the snapshot ${file} is not used, ${loaded.problem}; replaying the log from its first entry`);
      return emptyState();
    }
    say(`archive: starting from the snapshot at entry ${loaded.treeSize} of ${log.size}`);
    return loaded.state;
  }

  /**
   * Writes a snapshot of the state to `file` once the state is the committed log's (entries
   * admitted but not yet durable are waited for; `attempts` times while writes keep coming).
   * Null when the state never settled.
   */
  async snapshot(file: string, attempts = 20): Promise<Written | null> {
    for (let i = 0; i < attempts; i++) {
      await this.log.waitFor(this.state.size);
      if (this.state.size === this.log.size && !this.writesAreOff) {
        const written = await writeSnapshot(file, this.state, this.log);
        if (written !== null) return written;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return null;
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

  /** Replays the log (as far as it was acknowledged) into the state, in place: every reader holds this object. */
  private async rebuild(): Promise<void> {
    const fresh = await replayStore(this.log, this.log.size);
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
      const applied = applyEntry(this.state, entry);
      outcome = isOutcome(applied) ? applied : {};
    } catch (err) {
      // Checked but not applied: the state no longer follows the log. Stop taking writes.
      this.broken = true;
      this.writesOff(new ArchiveError('paused', 'the archive is read-only: an entry failed to apply; it must restart', { cause: err }));
      throw new ArchiveError('internal', `entry ${entry.seq} (${type}) passed its check but failed to apply`, { cause: err });
    }
    const committed = queued.committed.catch((err) => {
      this.writesOff(err);
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

  /** 507 or 503 while writes are off: the store cannot write, and the state may be ahead of the log. */
  private assertLogging(): void {
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
    return { status: 201, body: { ...s.outcome, seq: a.seq, sealSeq: s.seq } };
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

  /** Logs every service event due now; resolves when they are durable. */
  tick(): Promise<void> {
    if (this.off !== null) return Promise.resolve();
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
