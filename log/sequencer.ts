// The sequencer: the one writer of the log. Appends go through one queue and are committed in
// batches (group commit): every append waiting when a batch starts goes into one atomic,
// durable store write with the interior hashes it completes and the new signed head, and each
// append is acknowledged only after that write. Reads (entries, proofs, the head) see only
// committed data.
import { checkpointText, signNote } from './checkpoint.js';
import { ENTRY_TYPE, ZERO_HASH, decodeEntryRecord, encodeEntryRecord, formEntry, type Entry } from './entry.js';
import { LogError } from './errors.js';
import { fromHex, toHex } from './hash.js';
import { headMessage, type LogSigner, type SignedTreeHead } from './head.js';
import { EMPTY_ROOT, applyPlan, consistencyPlan, inclusionPlan, rangeNodes } from './merkle.js';
import { foldRight, pushLeaf, readNodes, type FrontierNode } from './frontier.js';
import type { LogStore, StoredHead } from './store.js';

export interface SequencerOptions {
  store: LogStore;
  signer: LogSigner;
  /** The log's origin: the first line of its checkpoints and the name of its note key. */
  origin: string;
  /** Milliseconds since the epoch; injected so tests control time. */
  clock?: () => number;
  /** Most entries in one commit. */
  maxBatch?: number;
}

export interface Appended {
  seq: number;
  ts: string;
  entryHash: string;
  /** The tree size of the head that first includes the entry. */
  treeSize: number;
}

interface Pending {
  type: string;
  payload: string;
  resolve(a: Appended): void;
  reject(e: unknown): void;
}


export class Sequencer {
  private queue: Pending[] = [];
  private draining = false;
  private closed = false;
  /** Set when a commit fails: the log stops taking appends until it is reopened (fail-stop). */
  private failure: unknown = null;

  private constructor(
    private readonly store: LogStore,
    private readonly signer: LogSigner,
    readonly origin: string,
    private readonly clock: () => number,
    private readonly maxBatch: number,
    private head: StoredHead,
    private lastHash: string,
    private frontier: FrontierNode[],
  ) {}

  /** Opens the log at its last committed head. */
  static async open(opts: SequencerOptions): Promise<Sequencer> {
    const { store, signer, origin } = opts;
    const clock = opts.clock ?? Date.now;
    const maxBatch = opts.maxBatch ?? 1000;
    const stored = await store.readHead();
    if (stored === null) {
      const head = signHead(signer, origin, 0, EMPTY_ROOT, new Date(clock()).toISOString());
      return new Sequencer(store, signer, origin, clock, maxBatch, head, ZERO_HASH, []);
    }
    // The frontier of the committed tree: its complete subtrees from left to right.
    const ids = rangeNodes(0, stored.treeSize);
    const hashes = await readNodes(store, ids);
    const frontier = ids.map((id, i) => ({ level: id.level, hash: hashes[i]! }));
    const last = await store.readEntries(stored.treeSize - 1, 1);
    if (last.length !== 1) throw new LogError('corrupt', `entry ${stored.treeSize - 1} of the head is missing`);
    const lastHash = decodeEntryRecord(last[0]!).entryHash;
    return new Sequencer(store, signer, origin, clock, maxBatch, stored, lastHash, frontier);
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

  get size(): number {
    return this.head.treeSize;
  }

  /**
   * Appends one entry: `payload` is the canonical JSON text of the logged object. Resolves once
   * the entry and a head including it are durable.
   */
  append(type: string, payload: string): Promise<Appended> {
    if (this.closed) return Promise.reject(new LogError('closed', 'the log is closed'));
    if (this.failure !== null) return Promise.reject(new LogError('failed', 'the log stopped after a failed commit; reopen it'));
    if (!ENTRY_TYPE.test(type)) return Promise.reject(new LogError('bad_argument', `entry type ${JSON.stringify(type)} is not a dotted lower-case name`));
    if (payload.includes('\n')) return Promise.reject(new LogError('bad_argument', 'payload must be canonical JSON (no raw newline)'));
    return new Promise((resolve, reject) => {
      this.queue.push({ type, payload, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /** Committed entries [from, from + count), clipped to the tree. */
  async entries(from: number, count: number): Promise<Entry[]> {
    const n = Math.min(count, this.size - from);
    if (n <= 0) return [];
    const records = await this.store.readEntries(from, n);
    return records.map(decodeEntryRecord);
  }

  /** RFC 9162 2.1.3 inclusion proof of entry `seq` in the tree of `size` (default: current). */
  async inclusionProof(seq: number, size = this.size): Promise<Uint8Array[]> {
    this.checkSize(size, 'size');
    const plan = inclusionPlan(seq, size);
    return applyPlan(plan, await readNodes(this.store, plan.nodes));
  }

  /** RFC 9162 2.1.4 consistency proof from the tree of `first` to that of `second`. */
  async consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    this.checkSize(second, 'second');
    const plan = consistencyPlan(first, second);
    return applyPlan(plan, await readNodes(this.store, plan.nodes));
  }

  /** Root of the committed tree of `size` (for checks and tests; reads O(log n) hashes). */
  async rootAt(size: number): Promise<Uint8Array> {
    this.checkSize(size, 'size');
    const ids = rangeNodes(0, size);
    const hashes = await readNodes(this.store, ids);
    return foldRight(hashes);
  }

  /** Waits for queued appends, then closes the store. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.draining) await new Promise((r) => setImmediate(r));
    await this.store.close();
  }

  private checkSize(size: number, name: string): void {
    if (size > this.size) throw new LogError('out_of_range', `${name} ${size} is beyond the tree size ${this.size}`);
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const done = await this.commit(batch);
          batch.forEach((p, i) => p.resolve(done[i]!));
        } catch (err) {
          // Nothing of the batch is acknowledged and the in-memory state has not moved. The
          // write may or may not have reached the store, so the log stops (fail-stop): the
          // next open starts from whatever head the store holds, never from a guess.
          this.failure = err;
          const waiting = this.queue.splice(0);
          for (const p of [...batch, ...waiting]) p.reject(err);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async commit(batch: Pending[]): Promise<Appended[]> {
    const first = this.head.treeSize;
    // Entry times never go backwards, even if the clock does.
    const ts = new Date(Math.max(this.clock(), Date.parse(this.head.timestamp))).toISOString();
    const frontier = this.frontier.slice();
    const entries: Uint8Array[] = [];
    const groups: Uint8Array[] = [];
    const done: Appended[] = [];
    let prev = this.lastHash;
    for (let i = 0; i < batch.length; i++) {
      const seq = first + i;
      const e = formEntry(seq, ts, batch[i]!.type, batch[i]!.payload, prev);
      entries.push(encodeEntryRecord(e));
      groups.push(pushLeaf(frontier, fromHex(e.entryHash), seq));
      done.push({ seq, ts, entryHash: e.entryHash, treeSize: first + batch.length });
      prev = e.entryHash;
    }
    const size = first + batch.length;
    const root = foldRight(frontier.map((f) => f.hash));
    const head = signHead(this.signer, this.origin, size, root, ts);
    await this.store.commit({ first, entries, groups, head });
    this.head = head;
    this.frontier = frontier;
    this.lastHash = prev;
    return done;
  }
}

/** Signs the head of the tree `size` with root `root` at `timestamp`, and its checkpoint. */
function signHead(signer: LogSigner, origin: string, size: number, root: Uint8Array, timestamp: string): StoredHead {
  const rootHash = toHex(root);
  const signature = Buffer.from(signer.sign(headMessage({ rootHash, timestamp, treeSize: size }))).toString('base64url');
  const checkpoint = signNote(checkpointText(origin, size, root), origin, signer.publicKey, (m) => signer.sign(m));
  return { treeSize: size, rootHash, timestamp, signature, checkpoint };
}

