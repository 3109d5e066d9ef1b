// The engine's Replica: an application's state folded from the log, and the one path by which a write reaches the log
// (admitted against the state, queued and applied in one synchronous step). What it does and guarantees:
// docs/engine.md#running-a-state-machine.
import { LogError } from './errors.js';
import { toHex } from './hash.js';
import type { Log } from './log.js';
import type { StoredEntry } from './reader.js';
import type { Appended } from './sequencer.js';
import {
  frameSnapshot,
  placeOf,
  readBound,
  readBoundState,
  type SnapshotBody,
  type SnapshotHeader,
  type SnapshotPlace,
} from './snapshot.js';

/** How an application's state is kept in a snapshot (snapshot.ts): its format, its code's identity, its bytes. */
export interface SnapshotCodec<S> {
  /** The snapshot format's name; a snapshot of another format is set aside. */
  format: string;
  /** The identity of the code that folds the state (say, a hash of its sources): a state folded by other code is set aside. */
  code: string;
  /**
   * The state's bytes, in chunks. Called in one synchronous step while the state is the
   * committed log's: what it returns must not change when the state moves on (a copy). It may
   * return a promise of them: then the call's synchronous part must read all it needs of the
   * state (a copy), and the promise make the bytes from that while the state moves on; only the
   * synchronous part holds the event loop (`heldMs`).
   */
  encode(state: S): Uint8Array[] | Promise<Uint8Array[]>;
  /** The state of a snapshot's body taken at `treeSize`, or why it cannot be read. */
  decode(body: Uint8Array, treeSize: number): { state: S } | { problem: string };
  /**
   * The same, reading the body a piece at a time (from a file, never whole, hashed meanwhile on a
   * thread of its own: snapshot.ts, readBoundState); used at start instead of `decode` when given.
   */
  decodeFrom?(body: SnapshotBody, treeSize: number): Promise<{ state: S } | { problem: string }>;
}

/** An application's state machine: what the replica folds the log with. */
export interface StateMachine<S, E> {
  /** A new, empty state. */
  init(): S;
  /** A stored entry read back from the log as the application's entry; throws when it is not one. */
  decode(stored: StoredEntry): E;
  /** Applies `entry`, the next in log order, to `state`; returns what the application reports of it (its outcome). Deterministic. */
  apply(state: S, entry: E): unknown;
  /**
   * After a rebuild: makes `into`, the state everyone holds, the rebuilt `from`. Without it the
   * replica's `state` becomes `from` (readers that kept the old object keep the old state).
   */
  replace?(into: S, from: S): void;
  /** How the state is kept in a snapshot; without it the replica takes none. */
  snapshot?: SnapshotCodec<S>;
}

/** What the application admits a write as: the bytes to append, and the entry they are, already decoded. */
export interface Admit<E> {
  data: Uint8Array;
  entry: E;
}

/**
 * An application's admission of one write against the state: `at` is where the entry would be
 * sequenced. It returns what to append, or `{already}` when the write is already so (nothing is
 * appended); it throws the application's refusal.
 */
export type Admission<S, E, A = unknown> = (state: S, at: { seq: number; time: number }) => Admit<E> | { already: A };

export interface Admitted<E> {
  seq: number;
  time: number;
  entry: E;
  /** What the entry's apply reported. */
  outcome: unknown;
  /** Resolves when the entry is durable; rejects with the replica's refusal when its commit failed. */
  committed: Promise<Appended>;
}

/** Told of every entry folded into a state, in log order. Listeners must not throw, nor change the state. */
export interface AppliedListener<S, E> {
  /** `e` was folded into `state` (the live one, or one being rebuilt) and reported `outcome`. */
  applied(state: S, e: E, outcome: unknown): void;
  /**
   * A rebuild starts from `state` (empty, or restored from a snapshot): what was told of entries
   * from there on is void (they may not all be on the log), and is told again.
   */
  reset?(state: S): void;
}

/** The errors writes get, in the application's terms (default: LogError). */
export interface ReplicaErrors {
  /** While writes are off (`cause`: the failed commit's error, or what `writesOff` was given). */
  stopped(cause: unknown): Error;
  /** On a process that does not lead (it follows another). */
  notLeading(why: string): Error;
  /** An entry the application admitted failed to apply: a bug; writes stay off. */
  broken(seq: number, cause: unknown): Error;
}

const DEFAULT_ERRORS: ReplicaErrors = {
  stopped: (cause) =>
    cause instanceof LogError && cause.code === 'fenced'
      ? cause
      : new LogError('failed', `writes are off: the log cannot write (${(cause as Error)?.message ?? String(cause)})`, { cause }),
  notLeading: (why) => new LogError('fenced', `this process does not take writes: ${why}`),
  broken: (seq, cause) => new LogError('corrupt', `entry ${seq} was admitted but failed to apply`, { cause }),
};

export interface ReplicaOptions<S, E> {
  log: Log;
  machine: StateMachine<S, E>;
  /** Where the state's snapshot is kept: the replica starts (and rebuilds) from it when it holds. */
  snapshots?: string | SnapshotPlace;
  /** Told of every entry from the first replay on. */
  listeners?: AppliedListener<S, E>[];
  /** Open following another process (a shared store): no writes until `lead`. */
  following?: boolean;
  /** Open with writes off (a store that cannot write at start): `cause` is why. */
  writesOff?: { cause: unknown };
  errors?: Partial<ReplicaErrors>;
  /** One-line reports, such as why a snapshot is not used (default: console.log). */
  say?: (line: string) => void;
}

/** What writing a snapshot took: its size, its bytes, the time the state was read in one step, and the whole write. */
export interface SnapshotWritten {
  treeSize: number;
  bytes: number;
  /** How long the state was read in one synchronous step (nothing else ran meanwhile). */
  heldMs: number;
  /** From the start to the snapshot durable in its place. */
  ms: number;
  /** False when the place already held a snapshot of a larger size (another process's), which it keeps. */
  kept: boolean;
}

/** Entries read from the log at a time, replaying. */
const PAGE = 4096;

export class Replica<S, E> {
  private current: S;
  /** Entries folded into the state. */
  private folded: number;
  /** Why writes are off (the log cannot write, or a broken apply); null while they are on. */
  private off: Error | null = null;
  private broken = false;
  /** The rebuild of the state from the log started when writes went off. */
  private rebuilt: Promise<boolean> = Promise.resolve(true);
  private readonly failed: ((err: Error) => void)[] = [];
  private readonly resumed: (() => void)[] = [];
  private readonly fencedBy: ((err: unknown) => void)[] = [];
  private readonly listeners: AppliedListener<S, E>[] = [];
  /** Null while this process admits writes; else why it does not (it follows another). */
  private following: Error | null = null;
  /** The size of the snapshot the state started from (0: replayed from the first entry). */
  startedFrom = 0;
  /** Called when a write is refused because writes are off (a watcher may probe the store sooner). */
  onRefused: () => void = () => undefined;

  private constructor(
    readonly log: Log,
    private readonly machine: StateMachine<S, E>,
    start: { state: S; size: number },
    private readonly snapshots: SnapshotPlace | undefined,
    private readonly errors: ReplicaErrors,
    private readonly say: (line: string) => void,
  ) {
    this.current = start.state;
    this.folded = start.size;
    this.startedFrom = start.size;
  }

  /** Opens a replica of `opts.log`: from its snapshot when one holds, then every entry after it. */
  static async open<S, E>(opts: ReplicaOptions<S, E>): Promise<Replica<S, E>> {
    const say = opts.say ?? ((line: string) => console.log(line));
    const place = opts.snapshots === undefined ? undefined : placeOf(opts.snapshots);
    const start = await startState(opts.log, opts.machine, place, say);
    const r = new Replica(opts.log, opts.machine, start, place, { ...DEFAULT_ERRORS, ...opts.errors }, say);
    for (const l of opts.listeners ?? []) r.listeners.push(l);
    for (const l of r.listeners) l.reset?.(start.state);
    await r.replayFrom(start);
    if (opts.following === true) r.following = r.errors.notLeading('it follows the process that holds the sequencer lease');
    else if (opts.writesOff !== undefined) r.writesOff(opts.writesOff.cause, false);
    return r;
  }

  /** The state: every entry of the log folded, and those admitted but not yet durable. */
  get state(): S {
    return this.current;
  }

  /** How many entries the state holds. */
  get size(): number {
    return this.folded;
  }

  /** Adds a listener told of every entry folded from now on. */
  onApplied(listener: AppliedListener<S, E>): void {
    this.listeners.push(listener);
  }

  /** Adds a listener and tells it of the state as it is now (`reset`), then of every entry folded from now on. */
  listen(listener: AppliedListener<S, E>): void {
    this.listeners.push(listener);
    listener.reset?.(this.current);
  }

  /** The one place where entries are folded into a state (the live one, or one being rebuilt): every listener is told. */
  private fold(state: S, e: E): unknown {
    const outcome = this.machine.apply(state, e);
    // The entry is on its way to the log whatever a listener does: one that throws is a bug on
    // the read side, reported, never the write's refusal.
    for (const l of this.listeners) {
      try {
        l.applied(state, e, outcome);
      } catch (err) {
        console.error('tlog-engine: a listener failed on an entry:', err);
      }
    }
    return outcome;
  }

  /** Replays the committed log from `from` into its state, through `fold`. */
  private async replayFrom(from: { state: S; size: number }): Promise<{ state: S; size: number }> {
    let size = from.size;
    for (; size < this.log.size;) {
      const want = Math.min(PAGE, this.log.size - size);
      const page = await this.log.records(size, want);
      // A short page would skip entries: refuse it.
      if (page.length !== want) throw new LogError('corrupt', `entry ${size + page.length} is missing from the store`);
      for (const stored of page) {
        let e: E;
        try {
          e = this.machine.decode(stored);
          this.fold(from.state, e);
        } catch (err) {
          throw new LogError('corrupt', `entry ${stored.seq} cannot be folded: ${(err as Error).message}`, { cause: err });
        }
        size++;
        if (from.state === this.current) this.folded = size;
      }
    }
    return { state: from.state, size };
  }

  /**
   * Writes a snapshot of the state to its place (or `place`) once the state is the committed
   * log's (entries admitted but not yet durable are waited for; `attempts` times while writes
   * keep coming). Null when the state never settled. Reading the state holds the event loop;
   * hashing and writing the copy do not.
   */
  async snapshot(place: string | SnapshotPlace | undefined = this.snapshots, attempts = 20): Promise<SnapshotWritten | null> {
    const codec = this.machine.snapshot;
    if (codec === undefined) throw new LogError('bad_argument', 'this state machine has no snapshot codec');
    if (place === undefined) throw new LogError('bad_argument', 'no place to keep the snapshot');
    for (let i = 0; i < attempts; i++) {
      await this.log.waitFor(this.folded);
      const size = this.folded;
      if (size === this.log.size && !this.writesAreOff) {
        const t0 = performance.now();
        // The root first (the tree of this size never changes), then the state in one synchronous step.
        const rootHash = toHex(await this.log.rootAt(size));
        if (this.folded === size) {
          const h0 = performance.now();
          const encoded = codec.encode(this.current);
          const heldMs = performance.now() - h0;
          const chunks = await encoded;
          const framed = await frameSnapshot({ format: codec.format, code: codec.code, treeSize: size, rootHash }, chunks);
          // A place shared with other processes keeps the larger snapshot when two are written at once.
          const kept = await placeOf(place).write(framed, size);
          const bytes = framed.reduce((n, c) => n + c.length, 0);
          return { treeSize: size, bytes, heldMs, ms: performance.now() - t0, kept };
        }
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return null;
  }

  /**
   * Keeps the snapshot up to date: every `every` entries (looked at every `intervalMs`), one at a
   * time, and once more by `flush` (at a clean shutdown, say). `mayBlock` says whether this
   * process may take one now (the leader of many may not: reading the state holds it, and the
   * others would take its lease over); `after` runs after each (an application's own snapshots).
   */
  keepSnapshots(opts: {
    every: number;
    intervalMs?: number;
    mayBlock?: () => Promise<boolean>;
    after?: (why: string) => Promise<void>;
    written?: (w: SnapshotWritten, why: string) => void;
    failed?: (err: unknown) => void;
  }): { flush(why: string): Promise<void>; stop(): void } {
    let at = this.startedFrom;
    let chain: Promise<unknown> = Promise.resolve();
    let taking = false;
    const take = (why: string): Promise<void> => {
      const run = chain.then(async () => {
        try {
          const w = await this.snapshot();
          if (w !== null) {
            at = w.treeSize;
            opts.written?.(w, why);
          }
        } catch (err) {
          opts.failed?.(err);
        }
        await opts.after?.(why);
      });
      chain = run;
      return run;
    };
    const timer =
      opts.every > 0
        ? setInterval(() => {
            // One at a time: a snapshot still being written is not queued behind another.
            if (taking || this.folded - at < opts.every) return;
            taking = true;
            void (opts.mayBlock?.() ?? Promise.resolve(true))
              .then((may) => (may ? take(`${opts.every} entries since the last`) : undefined))
              .catch((err) => opts.failed?.(err))
              .finally(() => (taking = false));
          }, opts.intervalMs ?? 5000)
        : undefined;
    timer?.unref();
    return {
      flush: (why) => (this.folded !== at ? take(why) : (chain = chain.then(() => opts.after?.(why))).then(() => undefined)),
      stop: () => clearInterval(timer),
    };
  }

  /**
   * Resolves whether this replica holds entry `size - 1` (the log has it and the state folded
   * it) within `ms`: what a read that must see a write (read-your-writes) waits for.
   */
  async reaches(size: number, ms: number): Promise<boolean> {
    const has = () => this.log.size >= size && this.folded >= size;
    if (has()) return true;
    const until = Date.now() + ms;
    while (Date.now() < until) {
      let timer: NodeJS.Timeout | undefined;
      const left = until - Date.now();
      // The log's own waiters; should the log be stopped (its waiters refused), look again shortly.
      await Promise.race([
        this.log.waitFor(size).catch(() => new Promise((r) => setTimeout(r, Math.min(left, 25)))),
        new Promise((r) => (timer = setTimeout(r, left))),
      ]);
      clearTimeout(timer);
      if (has()) return true;
    }
    return has();
  }

  /** Whether this process admits writes (it is alone, or holds the sequencer lease). */
  get leading(): boolean {
    return this.following === null;
  }

  /** Calls `f` when a commit is refused because another process took the sequencer lease (cluster.ts). */
  onFenced(f: (err: unknown) => void): void {
    this.fencedBy.push(f);
  }

  /** A commit was fenced: the state may hold entries that are not on the log; writes stop, the state is rebuilt. */
  private fenced(err: unknown): void {
    if (this.following === null) this.following = this.errors.notLeading('it lost the sequencer lease');
    if (this.off === null) {
      this.off = this.errors.stopped(err);
      this.startRebuild();
    }
    for (const f of this.fencedBy) f(err);
  }

  private startRebuild(): void {
    this.rebuilt = this.rebuild().then(
      () => true,
      () => false,
    );
  }

  /**
   * Stops admitting writes (this process no longer holds the sequencer lease), waits for the
   * entries already admitted to be committed or refused, and brings the state back to the
   * committed log if some were refused. The log must then be refreshed (`follow`).
   */
  async stopLeading(why: string): Promise<void> {
    this.following ??= this.errors.notLeading(why);
    await this.settle();
  }

  /**
   * Waits for what this process admitted to be committed or refused, then makes the state the
   * committed log's (rebuilt when it holds entries the log refused, or when an earlier rebuild
   * failed), so that the log's next entries can be followed.
   */
  async settle(): Promise<void> {
    await this.log.waitFor(this.folded).catch(() => undefined);
    if (!(await this.rebuilt) || this.folded !== this.log.size) {
      this.startRebuild();
      if (!(await this.rebuilt)) throw new Error('the state could not be rebuilt from the log; trying again');
    }
  }

  /**
   * Folds entries another process committed (given by Log.refresh, in order, from the state's
   * size on), through `fold`. Only a process that follows does.
   */
  follow(entries: StoredEntry[]): void {
    if (this.following === null) throw new LogError('bad_argument', 'a process that leads follows no other');
    for (const stored of entries) {
      if (stored.seq !== this.folded) throw new LogError('corrupt', `entry ${stored.seq} followed, but the state holds ${this.folded}`);
      this.fold(this.current, this.machine.decode(stored));
      this.folded++;
    }
  }

  /** Starts admitting writes: this process took the sequencer lease and its log is refreshed to the head at that moment. */
  lead(): void {
    if (this.folded !== this.log.size)
      throw new LogError('bad_argument', `the state holds ${this.folded} entries, the log ${this.log.size}: it cannot lead`);
    this.following = null;
    this.off = null;
    this.rebuilt = Promise.resolve(true);
  }

  /** The error writes get while they are off; null while they are on. */
  get refusal(): Error | null {
    return this.off;
  }

  get writesAreOff(): boolean {
    return this.off !== null;
  }

  /** Whether writes are off for good (an admitted entry failed to apply: a bug). */
  get isBroken(): boolean {
    return this.broken;
  }

  /**
   * Turns writes off, once: every write is refused with `err` (or the error the log's failure
   * gets) until `resume`. `rebuild`: the state may hold entries the log refused (not so at start).
   */
  writesOff(err: unknown, rebuild = true): void {
    if (this.off !== null) return;
    this.off = this.errors.stopped(err);
    // The state may hold entries that were refused: rebuild it from the log (reads go on meanwhile).
    if (rebuild) this.startRebuild();
    for (const f of this.failed) f(this.off);
  }

  /** Replays the log (as far as it was acknowledged) into a new state, from the snapshot when one holds, and makes it the state. */
  private async rebuild(): Promise<void> {
    const start = await startState(this.log, this.machine, this.snapshots, this.say);
    for (const l of this.listeners) l.reset?.(start.state);
    const fresh = await this.replayFrom(start);
    if (this.machine.replace !== undefined) this.machine.replace(this.current, fresh.state);
    else this.current = fresh.state;
    this.folded = fresh.size;
  }

  /**
   * Turns writes on again once the log takes appends (after Log.recover): the state is the
   * log's, rebuilt if need be. Throws, leaving writes off, if it cannot be.
   */
  async resume(): Promise<void> {
    if (this.off === null) return;
    if (this.broken) throw this.off;
    if (this.log.stopped) throw new Error('the log does not take appends yet');
    if (!(await this.rebuilt) || this.folded !== this.log.size) await this.rebuild();
    this.off = null;
    for (const f of this.resumed) f();
  }

  /** Calls `f` each time writes go off (with the error writes get). */
  onFailure(f: (err: Error) => void): void {
    this.failed.push(f);
  }

  /** Calls `f` each time writes come back on. */
  onResume(f: () => void): void {
    this.resumed.push(f);
  }

  /** Throws the error a write gets now (this process follows, or writes are off); returns when writes are on. */
  assertWritable(): void {
    if (this.following !== null) throw this.following;
    if (this.off === null && this.log.stopped) this.writesOff(this.log.failedWith ?? new LogError('closed', 'the log is closed'));
    if (this.off !== null) {
      this.onRefused();
      throw this.off;
    }
  }

  /**
   * Admits one write: `admission` checks it against the state and gives what to append; it is
   * queued and applied in the same synchronous step, or refused (nothing is written), or said to
   * be already so. `withNext`: committed in one atomic batch with the next write admitted in the
   * same synchronous step.
   */
  admit<A>(admission: Admission<S, E, A>, opts: { withNext?: boolean } = {}): Admitted<E> | { already: A } {
    this.assertWritable();
    const at = this.log.next();
    const made = admission(this.current, at);
    if ('already' in made) return made;
    const queued = this.log.enqueue(made.data, { time: at.time, withNext: opts.withNext });
    if (queued.seq !== at.seq) throw new LogError('corrupt', `entry admitted as ${at.seq} was queued as ${queued.seq}`);
    let outcome: unknown;
    try {
      outcome = this.fold(this.current, made.entry);
      this.folded++;
    } catch (err) {
      // Admitted but not applied: the state no longer follows the log. Writes stay off.
      this.folded++;
      this.broken = true;
      const e = this.errors.broken(at.seq, err);
      this.writesOff(e);
      throw e;
    }
    const committed = queued.committed.catch((err) => {
      if (err instanceof LogError && err.code === 'fenced') this.fenced(err);
      else this.writesOff(err);
      throw this.errors.stopped(err);
    });
    return { seq: queued.seq, time: queued.time, entry: made.entry, outcome, committed };
  }
}

/** The state of the snapshot in `place` when it holds against the log and the code, else an empty one (one line says why). */
async function startState<S, E>(
  log: Log,
  machine: StateMachine<S, E>,
  place: SnapshotPlace | undefined,
  say: (line: string) => void,
): Promise<{ state: S; size: number }> {
  const empty = () => ({ state: machine.init(), size: 0 });
  const codec = machine.snapshot;
  if (place === undefined || codec === undefined) return empty();
  const rootAt = (n: number) => log.rootAt(n);
  const max = { size: log.size, of: "the log's" };
  let read: { state: S; header: { treeSize: number } } | { problem: string } | null;
  if (codec.decodeFrom !== undefined) read = await readBoundState(place, rootAt, codec.format, codec.code, max, codec.decodeFrom);
  else {
    const bound = await readBound(place, rootAt, codec.format, codec.code, max);
    const decoded = bound === null || 'problem' in bound ? bound : codec.decode(bound.body, bound.header.treeSize);
    read =
      decoded === null || 'problem' in decoded ? decoded : { state: decoded.state, header: (bound as { header: SnapshotHeader }).header };
  }
  if (read === null) return empty();
  if ('problem' in read) {
    say(`the snapshot ${place.where} is not used, ${read.problem}; replaying the log from its first entry`);
    return empty();
  }
  const size = read.header.treeSize;
  say(`starting from the snapshot at entry ${size} of ${log.size}`);
  return { state: read.state, size };
}
