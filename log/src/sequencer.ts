// The sequencer: the one writer of the log. Appends are group-committed, each acknowledged once
// its batch and a head including it are durable; reads see committed data only (docs/engine.md#the-log).
import { checkpointText, signNote } from './checkpoint.js';
import { auditLog, type AuditReport } from './audit.js';
import { NO_LEAF, fullCodec, leafBytes, leafHash, type Codec, type Leaf, type LeafCodec } from './codec.js';
import { LogError } from './errors.js';
import { toHex } from './hash.js';
import { headMessage, type LogSigner, type LogVerifier, type SignedTreeHead } from './head.js';
import { EMPTY_ROOT, applyPlan, consistencyPlan, inclusionPlan, rangeNodes, rootFromSubtrees, type ProofPlan } from './merkle.js';
import { readRecords, type EntryReader, type StoredEntry } from './reader.js';
import type { CommitBatch, LogStore, StoredHead } from './store.js';
import { TileReader } from './tile-reader.js';
import { TILE_HEIGHT, TILE_WIDTH, decodeTile, type TileId } from './tiles.js';
import { TreeEdge } from './tree-edge.js';
import { encodeBundle, tileInTree, type TilePath } from './tlog-tiles.js';

export interface SequencerOptions {
  store: LogStore;
  signer: LogSigner;
  /** The log's origin: the first line of its checkpoints, and the name of its note key unless `keyName` says otherwise. */
  origin: string;
  /** The name of the note key that signs the checkpoints (default: the origin). */
  keyName?: string;
  /** What is stored and hashed for what is appended (codec.ts); default: the appended bytes, as they are. */
  codec?: LeafCodec;
  /** Milliseconds since the epoch; injected so tests control time. */
  clock?: () => number;
  /** Most entries in one commit. */
  maxBatch?: number;
}

export interface Appended {
  seq: number;
  /** The entry's time, milliseconds since the epoch. */
  time: number;
  /** Its leaf hash, lowercase hex. */
  leafHash: string;
  /** The tree size of the head that first includes the entry. */
  treeSize: number;
}

/** A committed entry with its hashes: its stored bytes, its leaf hash and the leaf hash before it. */
export interface LeafEntry extends StoredEntry {
  leafHash: Uint8Array;
  /** The leaf hash of the entry before (32 zero bytes for entry 0). */
  prev: Uint8Array;
}

interface Pending {
  seq: number;
  time: number;
  stored: Uint8Array;
  /** Committed in the same batch as the entry queued after it. */
  withNext: boolean;
  resolve(a: Appended): void;
  reject(e: unknown): void;
}

interface Formed {
  pending: Pending[];
  batch: CommitBatch;
  acks: Appended[];
}

export class Sequencer implements EntryReader {
  private queue: Pending[] = [];
  /** Callers of waitFor, until the committed tree reaches their size or the log stops. */
  private waiters: { size: number; resolve(): void; reject(e: unknown): void }[] = [];
  private draining = false;
  /** Settles when the drain in progress (if any) ends. */
  private drained: Promise<void> = Promise.resolve();
  private closed = false;
  /** Set when a commit fails: the log takes no appends until `recover` succeeds (fail-stop). */
  private failure: unknown = null;
  /** The tip of the formed (perhaps not yet committed) tree: its last leaf hash. */
  private tipHash: Uint8Array;
  /** Seq and time of the last entry queued (perhaps not yet formed). */
  private nextSeq: number;
  private tipTime: number;
  private reader: TileReader;
  /** Folded ephemeral runs: by tree size, then by the run's first leaf. */
  private readonly ephemeral = new Map<number, Map<number, Uint8Array>>();
  /** The refresh in progress: refreshes run one at a time. */
  private refreshing: Promise<unknown> = Promise.resolve();

  private constructor(
    private store: LogStore,
    private readonly signer: LogSigner,
    readonly origin: string,
    readonly keyName: string,
    private readonly codec: Codec,
    private readonly clock: () => number,
    private readonly maxBatch: number,
    private head: StoredHead,
    private edge: TreeEdge,
    lastHash: Uint8Array,
  ) {
    this.tipHash = lastHash;
    this.nextSeq = head.treeSize;
    this.tipTime = Date.parse(head.timestamp);
    this.reader = new TileReader(store, edge);
  }

  /** Opens the log at its last committed head. */
  static async open(opts: SequencerOptions): Promise<Sequencer> {
    const { store, signer, origin } = opts;
    const keyName = opts.keyName ?? origin;
    const codec = fullCodec(opts.codec);
    const clock = opts.clock ?? Date.now;
    const maxBatch = opts.maxBatch ?? 1000;
    const stored = await store.readHead();
    if (stored === null) {
      const head = signHead(signer, origin, keyName, 0, EMPTY_ROOT, new Date(clock()).toISOString());
      return new Sequencer(store, signer, origin, keyName, codec, clock, maxBatch, head, new TreeEdge(0), NO_LEAF);
    }
    // A store another process commits to may have grown its tiles since the head was read.
    const { edge, lastHash } = await loadEdge(store, stored, store.shared !== true);
    return new Sequencer(store, signer, origin, keyName, codec, clock, maxBatch, stored, edge, lastHash);
  }

  /** The log key's raw 32-byte Ed25519 public key: what signs its heads and checkpoints. */
  get publicKey(): Uint8Array {
    return this.signer.publicKey;
  }

  /** The latest committed signed tree head. */
  sth(): SignedTreeHead {
    const { treeSize, rootHash, timestamp, signature } = this.head;
    return { treeSize, rootHash, timestamp, signature };
  }

  /** The latest committed head as a C2SP signed-note checkpoint. */
  checkpoint(): string {
    return this.head.checkpoint;
  }

  /** Size of the committed tree. */
  get size(): number {
    return this.head.treeSize;
  }

  /** Appends one entry; resolves once the entry and a head including it are durable. */
  append(data: Uint8Array): Promise<Appended> {
    try {
      return this.enqueue(data).committed;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Queues one entry and gives its seq and time at once (synchronously), with what the codec
   * stores for it, so a caller can fold it into its own state in log order before it is
   * durable; `committed` resolves when it is. Entries are logged in the order they are queued.
   * `time`, when given, is the entry's time in milliseconds, no earlier than the last entry's
   * (see next); by default the clock's, or the last entry's if later. Throws if the log is
   * closed or stopped, or the codec refuses the data (then nothing is queued). `withNext`: the
   * entry is committed in one atomic batch with the entry queued right after it (queue that one
   * in the same synchronous step), so a crash keeps both or neither.
   */
  enqueue(
    data: Uint8Array,
    opts: { time?: number; withNext?: boolean } = {},
  ): { seq: number; time: number; stored: Uint8Array; committed: Promise<Appended> } {
    if (this.closed) throw new LogError('closed', 'the log is closed');
    if (this.failure !== null) throw new LogError('failed', 'the log stopped after a failed commit; recover it');
    if (!(data instanceof Uint8Array)) throw new LogError('bad_argument', 'an entry is appended as bytes (a Uint8Array)');
    let time: number;
    if (opts.time !== undefined) {
      if (!Number.isSafeInteger(opts.time) || opts.time < this.tipTime)
        throw new LogError('bad_argument', `time ${opts.time} is not a whole number of milliseconds from ${this.tipTime} on`);
      time = opts.time;
    } else {
      // Entry times never go backwards, even if the clock does.
      time = Math.max(this.clock(), this.tipTime);
    }
    const seq = this.nextSeq;
    const stored = this.codec.stored(data, { seq, time });
    this.nextSeq++;
    this.tipTime = time;
    const committed = new Promise<Appended>((resolve, reject) => {
      this.queue.push({ seq, time, stored, withNext: opts.withNext === true, resolve, reject });
    });
    if (opts.withNext === true) {
      // The entry to go with it is queued next, in this same step; drain after it (or, should it
      // never come, at the next turn, so that nothing waits for ever).
      queueMicrotask(() => {
        if (!this.draining && this.queue.length > 0) this.drain();
      });
    } else if (!this.draining) this.drain();
    return { seq, time, stored, committed };
  }

  /** The seq and time the next entry queued now would get: the clock's time, or the last entry's if later. */
  next(): { seq: number; time: number } {
    return { seq: this.nextSeq, time: Math.max(this.clock(), this.tipTime) };
  }

  /** Whether the log stopped after a failed commit (fail-stop) or was closed. */
  get stopped(): boolean {
    return this.closed || this.failure !== null;
  }

  /**
   * Resolves once the committed tree holds at least `size` entries (at once if it does);
   * rejects if the log stops (a failed commit) or is closed before that.
   */
  waitFor(size: number): Promise<void> {
    if (this.size >= size) return Promise.resolve();
    if (this.closed) return Promise.reject(new LogError('closed', 'the log is closed'));
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ size, resolve, reject }));
  }

  /** Committed entries [from, from + count) as stored (no hashes), clipped to the tree. */
  records(from: number, count: number): Promise<StoredEntry[]> {
    return readRecords(this.store, from, Math.min(count, this.size - from));
  }

  /**
   * The audit (docs/engine.md, "The audit") of a snapshot of the store: every entry, stored
   * hash, the root and the signed head and checkpoint, checked with `verify`.
   */
  audit(verify: LogVerifier): Promise<AuditReport> {
    return auditLog({
      store: this.store,
      verify,
      origin: this.origin,
      keyName: this.keyName,
      publicKey: this.signer.publicKey,
      codec: this.codec,
    });
  }

  /**
   * Committed entries [from, from + count) with their leaf hashes, clipped to the tree. The leaf
   * hashes are the tree's stored ones, not recomputed.
   */
  async entries(from: number, count: number): Promise<LeafEntry[]> {
    const n = Math.min(count, this.size - from);
    if (n <= 0) return [];
    const first = Math.max(0, from - 1);
    const leaves = Array.from({ length: from + n - first }, (_, i) => ({ level: 0, index: first + i }));
    const [records, hashes] = await Promise.all([this.store.readEntries(from, n), this.reader.nodes(leaves)]);
    if (records.length !== n) throw new LogError('corrupt', `entry ${from + records.length} is missing from the store`);
    return records.map((bytes, i) => {
      const seq = from + i;
      const k = seq - first;
      return { seq, bytes, leafHash: hashes[k]!, prev: seq === 0 ? NO_LEAF : hashes[k - 1]! };
    });
  }

  /**
   * A published hash tile (C2SP tlog-tiles): the tree's level-8L nodes 256 N to 256 N + W - 1,
   * or null when the committed tree does not hold them all yet.
   */
  async hashTile(t: TilePath): Promise<Uint8Array | null> {
    if (t.level === null || !tileInTree(t, this.size)) return null;
    const level = t.level * TILE_HEIGHT;
    const ids = Array.from({ length: t.width }, (_, i) => ({ level, index: t.index * TILE_WIDTH + i }));
    const hashes = this.reader.nodesNow(ids) ?? (await this.reader.nodes(ids));
    return Buffer.concat(hashes);
  }

  /** A published entry bundle (C2SP tlog-tiles): the leaf inputs of its entries; null beyond the tree. */
  async entryBundle(t: TilePath): Promise<Uint8Array | null> {
    if (t.level !== null || !tileInTree(t, this.size)) return null;
    const entries = await this.entries(t.index * TILE_WIDTH, t.width);
    return encodeBundle(entries.map((e) => leafBytes(this.codec.leaf(e.bytes, e))));
  }

  /** RFC 9162 2.1.3 inclusion proof of entry `seq` in the tree of `size` (default: current). */
  async inclusionProof(seq: number, size = this.size): Promise<Uint8Array[]> {
    this.checkSize(size, 'size');
    const plan = inclusionPlan(seq, size);
    return this.proveNow(plan, size) ?? this.prove(plan, size);
  }

  /** The inclusion proof if every hash it needs is in memory (no read, no wait); else null. */
  inclusionProofNow(seq: number, size = this.size): Uint8Array[] | null {
    this.checkSize(size, 'size');
    return this.proveNow(inclusionPlan(seq, size), size);
  }

  /** RFC 9162 2.1.4 consistency proof from the tree of `first` to that of `second`. */
  async consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    this.checkSize(second, 'second');
    const plan = consistencyPlan(first, second);
    return this.proveNow(plan, second) ?? this.prove(plan, second);
  }

  /** The consistency proof if every hash it needs is in memory; else null. */
  consistencyProofNow(first: number, second: number): Uint8Array[] | null {
    this.checkSize(second, 'second');
    return this.proveNow(consistencyPlan(first, second), second);
  }

  /**
   * A plan's proof from hashes in memory: its ephemeral run folded, or remembered. A tree of a
   * given size has at most one ephemeral node per level (the hash of the subtrees right of a
   * fork), shared by every proof at that size, so folded runs are remembered by size and run.
   */
  private proveNow(plan: ProofPlan, size: number): Uint8Array[] | null {
    if (plan.begin === plan.end) return this.reader.nodesNow(plan.nodes);
    const folded = this.ephemeral.get(size)?.get(runStart(plan));
    if (folded === undefined) {
      const hashes = this.reader.nodesNow(plan.nodes);
      return hashes === null ? null : this.fold(plan, hashes, size);
    }
    const outside = this.reader.nodesNow([...plan.nodes.slice(0, plan.begin), ...plan.nodes.slice(plan.end)]);
    return outside === null ? null : [...outside.slice(0, plan.begin), folded, ...outside.slice(plan.begin)];
  }

  /** The same, reading tiles that are not in memory. */
  private async prove(plan: ProofPlan, size: number): Promise<Uint8Array[]> {
    const hashes = await this.reader.nodes(plan.nodes);
    return plan.begin === plan.end ? hashes : this.fold(plan, hashes, size);
  }

  /** Folds the plan's ephemeral run and remembers the result for its size. */
  private fold(plan: ProofPlan, hashes: Uint8Array[], size: number): Uint8Array[] {
    const proof = applyPlan(plan, hashes);
    let runs = this.ephemeral.get(size);
    if (runs === undefined) {
      if (this.ephemeral.size >= 64) this.ephemeral.clear();
      runs = new Map();
      this.ephemeral.set(size, runs);
    }
    runs.set(runStart(plan), proof[plan.begin]!);
    return proof;
  }

  /** Root of the committed tree of `size`, from O(log n) stored hashes. */
  async rootAt(size: number): Promise<Uint8Array> {
    this.checkSize(size, 'size');
    return rootFromSubtrees(await this.reader.nodes(rangeNodes(0, size)));
  }

  /** Waits for queued appends, then closes the store. */
  async close(): Promise<void> {
    this.closed = true;
    await this.drained;
    this.settleWaiters(new LogError('closed', 'the log is closed'));
    await this.store.close();
  }

  /** The error of the failed commit that stopped the log; null while it takes appends. */
  get failedWith(): unknown {
    return this.failure;
  }

  /**
   * After a failed commit: reopens the store (if it can be), and rewrites the last acknowledged
   * head with its growing tiles and last entry bundle. That write rolls back whatever a refused
   * commit left in the store (it may have landed all the same), so the log holds exactly what
   * was acknowledged, and it shows the store can write again. Then appends are taken again,
   * from that head. Throws, and stays stopped, if the store still cannot write.
   * See docs/log-format.md, "A failed write".
   */
  async recover(): Promise<void> {
    if (this.closed) throw new LogError('closed', 'the log is closed');
    if (this.failure === null) return;
    await this.drained;
    try {
      await this.store.restart?.();
      const stored = await this.store.readHead();
      const size = this.head.treeSize;
      if ((stored?.treeSize ?? 0) < size)
        throw new LogError('corrupt', `the store's head (${stored?.treeSize ?? 0}) is behind the last acknowledged head (${size})`);
      if (this.store.shared === true) {
        // Other processes may already serve a head this store committed: it is never taken
        // back. A commit whose answer was lost and that landed stays, and the log goes on
        // from it (docs/log-format.md, "On PostgreSQL").
        await this.resetEdge();
        await this.catchUp();
        return;
      }
      const { edge, lastHash } = await loadEdge(this.store, this.head, false);
      if (size > 0) await this.store.commit({ first: size, entries: [], tiles: edge.edgeTiles(), head: this.head });
      this.edge = edge;
      this.reader = new TileReader(this.store, edge);
      this.ephemeral.clear();
      this.tipHash = lastHash;
      this.nextSeq = size;
      this.failure = null;
    } catch (err) {
      this.failure = err;
      throw err;
    }
  }

  /**
   * For a log that another process appends to (docs/engine.md, "Sharing a store"): reads the
   * store's head and, if it is beyond this log's, the entries up to it, checks that they give
   * its root, and makes it the committed head. `onEntries` is given the new entries, page by
   * page, in order, each page before the head moves. A log stopped by a failed or fenced commit
   * goes back to its last acknowledged head first (never writing). Resolves whether the head
   * moved. Refused while appends are queued or in flight; refreshes run one at a time.
   */
  refresh(onEntries?: (entries: StoredEntry[]) => void): Promise<boolean> {
    const run = this.refreshing.then(async () => {
      if (this.closed) throw new LogError('closed', 'the log is closed');
      await this.drained;
      if (this.queue.length > 0 || this.draining) throw new LogError('bad_argument', 'refresh: this log has appends in flight');
      if (this.failure !== null || this.edge.size !== this.head.treeSize) await this.resetEdge();
      return this.catchUp(onEntries);
    });
    this.refreshing = run.catch(() => undefined);
    return run;
  }

  /** Takes the tree's edge back to the committed head (after a failed write), and clears the failure. */
  private async resetEdge(): Promise<void> {
    const { edge, lastHash } = await loadEdge(this.store, this.head, false);
    edge.takeChanged();
    this.edge = edge;
    this.reader = new TileReader(this.store, edge);
    this.tipHash = lastHash;
    this.nextSeq = this.head.treeSize;
    this.failure = null;
  }

  /** Grows the tree to the store's head from the entries it holds; see refresh. */
  private async catchUp(onEntries?: (entries: StoredEntry[]) => void): Promise<boolean> {
    const stored = await this.store.readHead();
    const size = this.head.treeSize;
    if (stored === null && size === 0) return false;
    if (stored === null || stored.treeSize < size)
      throw new LogError('corrupt', `the store's head (size ${stored?.treeSize ?? 0}) is behind this log's (size ${size})`);
    if (stored.treeSize === size) {
      if (stored.rootHash !== this.head.rootHash)
        throw new LogError('corrupt', `the store's head of size ${size} has root ${stored.rootHash}, this log's ${this.head.rootHash}`);
      return false;
    }
    const PAGE = 4096;
    for (let from = size; from < stored.treeSize; from += PAGE) {
      const n = Math.min(PAGE, stored.treeSize - from);
      const records = await this.store.readEntries(from, n);
      if (records.length !== n) throw new LogError('corrupt', `entry ${from + records.length} is missing from the store`);
      const page: StoredEntry[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const seq = from + i;
        const hash = leafHash(this.leafOf(records[i]!, seq, this.tipHash));
        this.edge.push(hash);
        this.tipHash = hash;
        page[i] = { seq, bytes: records[i]! };
      }
      onEntries?.(page);
    }
    if (toHex(this.edge.root()) !== stored.rootHash)
      throw new LogError('corrupt', `the store's entries up to ${stored.treeSize} do not give the root of its head`);
    this.edge.takeChanged();
    this.head = stored;
    this.nextSeq = stored.treeSize;
    // A head is signed no earlier than its last entry's time.
    this.tipTime = Math.max(this.tipTime, Date.parse(stored.timestamp));
    this.settleWaiters();
    return true;
  }

  /** The codec's leaf input of a stored entry; a refusal is the store's corruption. */
  private leafOf(stored: Uint8Array, seq: number, prev: Uint8Array): Leaf {
    try {
      return this.codec.leaf(stored, { seq, prev });
    } catch (err) {
      throw new LogError('corrupt', `entry ${seq} is malformed: ${(err as Error).message}`, { cause: err });
    }
  }

  private checkSize(size: number, name: string): void {
    if (size > this.size) throw new LogError('out_of_range', `${name} ${size} is beyond the tree size ${this.size}`);
  }

  /**
   * Starts writing the queue. `draining` is cleared synchronously where the drain ends (with
   * its last acknowledgements), so an append made in reaction to one starts a new drain and
   * two drains never run at once.
   */
  private drain(): void {
    this.draining = true;
    this.drained = this.drainBatches().catch((err) => {
      // Not expected: every known failure is handled inside. Stop all the same.
      this.fail(err, []);
    });
  }

  /**
   * Stops the log (fail-stop): rejects every append not yet acknowledged. `unsure` are those of
   * the write that failed, which may have landed (LogError 'unknown'); the others were never
   * written, and are refused as such.
   */
  private fail(err: unknown, unsure: Pending[], others: Pending[] = []): void {
    this.failure = err;
    this.draining = false;
    const definite =
      err instanceof LogError && err.code === 'unknown' ? new LogError('failed', `not written: ${err.message}`, { cause: err }) : err;
    for (const p of unsure) p.reject(err);
    for (const p of [...others, ...this.queue.splice(0)]) p.reject(definite);
    this.settleWaiters(err);
  }

  /** Resolves the waiters the committed tree has reached; with `err`, rejects the others. */
  private settleWaiters(err?: unknown): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.size >= w.size) w.resolve();
      else if (err !== undefined) w.reject(err);
      else still.push(w);
    }
    this.waiters = still;
  }

  private async drainBatches(): Promise<void> {
    // One store write at a time: the store's writes may complete out of the order they were
    // issued (LevelDB runs them on a thread pool), and a head must never be overwritten by an
    // older one. When appends keep arriving, the next batch is formed while the current one
    // is written.
    let inflight: { formed: Formed; write: Promise<void> } | null = null;
    for (;;) {
      let next: Formed | null = null;
      if (this.queue.length > 0) {
        // A batch never ends on an entry queued to go with the next one (its group may exceed maxBatch by that much).
        let n = Math.min(this.maxBatch, this.queue.length);
        while (n < this.queue.length && this.queue[n - 1]!.withNext) n++;
        const batch = this.queue.splice(0, n);
        try {
          next = this.form(batch);
        } catch (err) {
          // The tree and the chain tip may have moved for part of the batch: stop, as after a
          // failed write, and let a reopen start from the store's head.
          this.fail(err, [], [...(inflight?.formed.pending ?? []), ...batch]);
          return;
        }
      }
      if (inflight !== null) {
        try {
          await inflight.write;
        } catch (err) {
          // Nothing of this batch or later is acknowledged. The write may or may not have
          // reached the store, so the log stops (fail-stop): the next open starts from
          // whatever head the store holds, never from a guess.
          this.fail(err, inflight.formed.pending, next?.pending ?? []);
          return;
        }
        this.head = inflight.formed.batch.head;
        const done = inflight.formed;
        done.pending.forEach((p, i) => p.resolve(done.acks[i]!));
        this.settleWaiters();
      }
      if (next === null) {
        if (this.queue.length === 0) {
          // Now, with the last acknowledgements: an append made in reaction to one (a
          // microtask later) must start a new drain, not wait for this one to unwind.
          this.draining = false;
          return;
        }
        inflight = null;
        continue;
      }
      inflight = { formed: next, write: this.store.commit(next.batch) };
    }
  }

  /** Hashes and signs a batch on top of the formed tip; moves the tip, not the committed head. */
  private form(pending: Pending[]): Formed {
    const first = this.edge.size;
    const entries: Uint8Array[] = [];
    const acks: Appended[] = [];
    const treeSize = first + pending.length;
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      const seq = first + i;
      if (p.seq !== seq) throw new LogError('corrupt', `entry queued as ${p.seq} would be logged as ${seq}`);
      const hash = leafHash(this.codec.leaf(p.stored, { seq, prev: this.tipHash }));
      entries.push(p.stored);
      this.edge.push(hash);
      acks.push({ seq, time: p.time, leafHash: toHex(hash), treeSize });
      this.tipHash = hash;
    }
    // The head is signed no earlier than its last entry.
    const ts = new Date(Math.max(this.clock(), pending[pending.length - 1]!.time)).toISOString();
    const head = signHead(this.signer, this.origin, this.keyName, treeSize, this.edge.root(), ts);
    return { pending, acks, batch: { first, entries, tiles: this.edge.takeChanged(), head } };
  }
}

/**
 * The right edge of the stored tree at `head` and its last entry hash, from the growing tile
 * of each tile level. `exact`: the tiles must be exactly the head's (a store opened at its own
 * head); otherwise a stored tile may be wider (a later commit that was never acknowledged
 * reached the store) and is cut back to the head's width (a stored tile is a correct prefix of
 * every later one, tiles.ts).
 */
async function loadEdge(store: LogStore, head: StoredHead, exact: boolean): Promise<{ edge: TreeEdge; lastHash: Uint8Array }> {
  const size = head.treeSize;
  if (size === 0) return { edge: new TreeEdge(0), lastHash: NO_LEAF };
  // The growing tile of each tile level: the one holding the last complete level-8k node.
  // It holds exactly the level-8k nodes the head's tree has, no more: its width.
  const ids: TileId[] = [];
  const widths: number[] = [];
  for (let k = 0; 2 ** (TILE_HEIGHT * k) <= size; k++) {
    const bottom = Math.floor(size / 2 ** (TILE_HEIGHT * k));
    const index = Math.floor((bottom - 1) / TILE_WIDTH);
    ids.push({ level: k, index });
    widths.push(bottom - index * TILE_WIDTH);
  }
  const tiles = await store.getTiles(ids);
  const edgeTiles = ids.map((id, i) => {
    const rows = tiles[i] === undefined ? undefined : decodeTile(tiles[i]!);
    const w = widths[i]!;
    if (rows === undefined || rows[0]!.length < w || (exact && rows[0]!.length !== w)) {
      throw new LogError('corrupt', `tile ${id.level}/${id.index} of the head is missing or does not match the head's size`);
    }
    return { id, rows: rows.map((row, r) => row.slice(0, Math.floor(w / 2 ** r))) };
  });
  // Read the frontier and the last leaf through a reader over the edge tiles just loaded.
  const loading = TreeEdge.resume(size, [], edgeTiles);
  const reader = new TileReader(store, loading);
  const frontierIds = rangeNodes(0, size);
  const [last, ...hashes] = await reader.nodes([{ level: 0, index: size - 1 }, ...frontierIds]);
  const frontier = frontierIds.map((id, i) => ({ level: id.level, hash: hashes[i]! }));
  const edge = TreeEdge.resume(size, frontier, edgeTiles);
  if (toHex(edge.root()) !== head.rootHash) throw new LogError('corrupt', 'stored tiles do not give the root of the stored head');
  return { edge, lastHash: last! };
}

/** The first leaf of a plan's ephemeral run: its leftmost (largest) subtree, last in the run. */
function runStart(plan: ProofPlan): number {
  const largest = plan.nodes[plan.end - 1]!;
  return largest.index * 2 ** largest.level;
}

/** Signs the head of the tree `size` with root `root` at `timestamp`, and its checkpoint with the note key `keyName`. */
function signHead(signer: LogSigner, origin: string, keyName: string, size: number, root: Uint8Array, timestamp: string): StoredHead {
  const rootHash = toHex(root);
  const signature = Buffer.from(signer.sign(headMessage({ rootHash, timestamp, treeSize: size }))).toString('base64url');
  const checkpoint = signNote(checkpointText(origin, size, root), keyName, signer.publicKey, (m) => signer.sign(m));
  return { treeSize: size, rootHash, timestamp, signature, checkpoint };
}
