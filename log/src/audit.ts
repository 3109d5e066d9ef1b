// The audit (docs/api.md#log-reads GET /v1/log/audit): re-walks the stored log, recomputes every payload
// hash and entry hash (so every prevHash link), every stored interior hash and the root, and
// checks the signed head and its checkpoint. It reports the first problem found, naming its
// seq (null for the head).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkPage, type PageCheck } from './audit-page.js';
import { checkpointText, openNote } from './checkpoint.js';
import { NO_LEAF, fullCodec, type Codec, type LeafCodec } from './codec.js';
import { bytesEqual, toHex } from './hash.js';
import { verifyHeadSignature, type LogVerifier } from './head.js';
import type { LogReader, LogStore } from './store.js';
import { TILE_HEIGHT, TILE_WIDTH, decodeTile, tileHash, type TileId } from './tiles.js';
import { TreeEdge, type WrittenTile } from './tree-edge.js';

export interface AuditProblem {
  /** The first bad entry's seq; null when the problem is in the head. */
  seq: number | null;
  detail: string;
}

export interface AuditReport {
  intact: boolean;
  problem: AuditProblem | null;
  /** Entries walked. */
  treeSize: number;
}

export interface AuditOptions {
  store: LogStore;
  /** Checks a raw signature by the log key. */
  verify: LogVerifier;
  origin: string;
  /** The name of the checkpoint's note key (default: the origin). */
  keyName?: string;
  /** The log key's raw 32 bytes: the checkpoint's note key. */
  publicKey: Uint8Array;
  /** The log's codec (codec.ts): how a stored entry's leaf is formed. */
  codec?: LeafCodec;
  /** Entries read per store call. */
  page?: number;
}

export async function auditLog(opts: AuditOptions): Promise<AuditReport> {
  // Everything is read from one snapshot: appends committed during the audit are not seen.
  const view = await opts.store.snapshot();
  try {
    return await auditView(view, opts);
  } finally {
    await view.close();
  }
}

async function auditView(store: LogReader, opts: AuditOptions): Promise<AuditReport> {
  const { verify, origin, publicKey } = opts;
  const keyName = opts.keyName ?? origin;
  const codec = fullCodec(opts.codec);
  const page = opts.page ?? 8192;
  const head = await store.readHead();
  const bad = (seq: number | null, detail: string, size = head?.treeSize ?? 0): AuditReport => ({
    intact: false,
    problem: { seq, detail },
    treeSize: size,
  });
  if (head === null) {
    if ((await store.readEntries(0, 1)).length > 0) return bad(0, 'entry stored without a signed head');
    return { intact: true, problem: null, treeSize: 0 };
  }
  if (!verifyHeadSignature(head, verify)) return bad(null, 'head signature does not verify with the log key');

  const edge = new TreeEdge(0);
  const pool = head.treeSize >= 4 * page && availableParallelism() > 1 && codec.module !== undefined ? new CheckWorker(codec.module) : null;
  const pages: Promise<PageCheck>[] = [];
  try {
    // Pages are read in order and checked ahead (on worker threads for a large log), each
    // chained to the entry hash stored before it; the results are folded into the tree in
    // order, and the stored tiles compared, so a wrong stored hash is found at its own seq
    // before any page that was chained to it is trusted.
    let nextRead = 0;
    let lastRead: Promise<Uint8Array[]> = Promise.resolve([]);
    const readAhead = () => {
      while (pages.length < 4 && nextRead < head.treeSize) {
        const from = nextRead;
        const n = Math.min(page, head.treeSize - from);
        nextRead += n;
        const before = lastRead;
        const records = before.then(() => store.readEntries(from, n));
        lastRead = records;
        // With a pool, every other page is checked here: this thread would otherwise wait.
        const inline = pool === null || (from / page) % 2 === 1;
        pages.push(
          Promise.all([before, records, storedLeafHash(store, from - 1)]).then(([prevRecords, r, prev]) => {
            const last = prevRecords.length > 0 ? prevRecords[prevRecords.length - 1]! : null;
            if (r.length < n) return missing(codec, from, r, n, prev, last);
            return inline ? checkPage(codec, from, r, prev, last) : pool.check(from, r, prev, last);
          }),
        );
      }
    };
    for (let from = 0; from < head.treeSize; from += page) {
      readAhead();
      const result = await pages.shift()!;
      for (let i = 0; i < result.count; i++) edge.push(result.hashes.subarray(32 * i, 32 * i + 32));
      // Stored tiles must hold exactly the hashes recomputed so far; a tile problem at an
      // earlier seq than an entry problem in the same page is the first problem.
      const mismatch = await firstTileMismatch(store, edge.takeChanged(), edge.size === head.treeSize);
      const problem = result.problem;
      if (mismatch !== null && (problem === null || mismatch.seq < problem.seq)) return bad(mismatch.seq, mismatch.detail);
      if (problem !== null) return bad(problem.seq, problem.detail);
    }
  } finally {
    // Let reads and checks already started finish before the caller may close the store.
    await Promise.allSettled(pages);
    await pool?.close();
  }
  if ((await store.readEntries(head.treeSize, 1)).length > 0) return bad(head.treeSize, 'entry stored beyond the signed head');
  // The growing tile of each level must hold exactly what the head's tree has: a hash stored
  // beyond it would be served by a reopened log as if it were part of the tree.
  const mismatch = await firstTileMismatch(store, edge.edgeTiles(), true);
  if (mismatch !== null) return bad(mismatch.seq, mismatch.detail);
  const root = edge.root();
  if (toHex(root) !== head.rootHash) return bad(null, 'head rootHash does not match the entries');
  if (!checkpointHolds(head.checkpoint, checkpointText(origin, head.treeSize, root), keyName, publicKey, verify)) {
    return bad(null, 'checkpoint does not match the head or its signature does not verify');
  }
  return { intact: true, problem: null, treeSize: head.treeSize };
}

/** The leaf hash stored for `seq` (zeros before seq 0, and where none is stored). */
async function storedLeafHash(store: LogReader, seq: number): Promise<Uint8Array> {
  if (seq < 0) return NO_LEAF;
  const [tile] = await store.getTiles([{ level: 0, index: Math.floor(seq / TILE_WIDTH) }]);
  return (tile === undefined ? undefined : tileHash(tile, 0, seq % TILE_WIDTH)) ?? NO_LEAF;
}

/** A page the store returned short: the entries it has, and the first missing seq. */
function missing(codec: Codec, from: number, records: Uint8Array[], n: number, prev: Uint8Array, last: Uint8Array | null): PageCheck {
  const r = checkPage(codec, from, records, prev, last);
  return r.problem !== null ? r : { ...r, problem: { seq: from + records.length, detail: `entry missing (of ${n} read)` } };
}

/**
 * A worker thread that checks pages (audit-worker.ts). One is enough: every other page is
 * checked inline and at most four are read ahead. If the worker fails, every check fails.
 */
class CheckWorker {
  private readonly w: Worker;
  private readonly waiting = new Map<number, { resolve(r: PageCheck): void; reject(e: unknown): void }>();
  private failure: unknown = null;
  private closing = false;
  private nextId = 0;

  constructor(codec: { url: string; name: string }) {
    this.w = new Worker(new URL('./audit-worker.js', import.meta.url), { workerData: codec });
    this.w.on('message', (m: PageCheck & { id: number }) => {
      const p = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      p?.resolve(m);
    });
    const fail = (err: unknown) => {
      if (this.closing) return;
      this.failure ??= err;
      for (const p of this.waiting.values()) p.reject(this.failure);
      this.waiting.clear();
    };
    this.w.on('error', fail);
    this.w.on('exit', (code) => fail(new Error(`the audit's worker thread exited (code ${code})`)));
  }

  check(from: number, records: Uint8Array[], prev: Uint8Array, before: Uint8Array | null): Promise<PageCheck> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.w.postMessage({ id, from, records, prev, before });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.w.terminate();
  }
}

/**
 * Compares recomputed tiles with the stored ones: every recomputed hash must be stored in its
 * place, and at the end of the log a stored tile may hold nothing more. Returns the first
 * mismatching node, named by the seq at which it was completed (its last leaf), or null.
 */
async function firstTileMismatch(store: LogReader, tiles: WrittenTile[], atEnd: boolean): Promise<(AuditProblem & { seq: number }) | null> {
  const stored = await store.getTiles(tiles.map((t) => t.id));
  let first: (AuditProblem & { seq: number }) | null = null;
  tiles.forEach((t, i) => {
    const want = decodeTile(t.bytes)!;
    const have = stored[i] === undefined ? undefined : decodeTile(stored[i]!);
    for (let r = 0; r < TILE_HEIGHT; r++) {
      const n = atEnd ? Math.max(want[r]!.length, have?.[r]?.length ?? 0) : want[r]!.length;
      for (let p = 0; p < n; p++) {
        const a = want[r]![p];
        const b = have?.[r]?.[p];
        if (a === undefined || b === undefined || !bytesEqual(a, b)) {
          const seq = completedAt(t.id, r, a === undefined ? want[r]!.length : p);
          // Row 0 of a level-0 tile holds the entry hashes themselves.
          const detail =
            a === undefined
              ? 'a stored tile holds hashes beyond the signed head'
              : t.id.level === 0 && r === 0
                ? 'entry does not match its stored entry hash'
                : 'stored interior hashes do not match the entries';
          if (first === null || seq < first.seq) first = { seq, detail };
          break;
        }
      }
    }
  });
  return first;
}

/** The seq of the last leaf under node (row, pos) of tile `id`. */
function completedAt(id: TileId, row: number, pos: number): number {
  const level = TILE_HEIGHT * id.level + row;
  const index = id.index * (TILE_WIDTH / 2 ** row) + pos;
  return (index + 1) * 2 ** level - 1;
}

/** The stored checkpoint is exactly `text`, signed by the log key (C2SP signed-note). */
function checkpointHolds(note: string, text: string, origin: string, publicKey: Uint8Array, verify: LogVerifier): boolean {
  try {
    const opened = openNote(note, { name: origin, rawPublicKey: publicKey }, (_k, m, sig) => verify(m, sig));
    return opened.verified && opened.text === text;
  } catch {
    return false;
  }
}
