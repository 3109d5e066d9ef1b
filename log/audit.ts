// The audit (spec 4.2 GET /v1/log/audit): re-walks the stored chain and recomputes every
// payload hash, entry hash, stored interior hash and the root, and checks the signed head and
// its checkpoint. It reports the first problem found, naming its seq (null for the head).
import { checkpointText, openNote } from './checkpoint.js';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkPage, type PageCheck } from './audit-page.js';
import { ZERO_HASH } from './entry.js';
import { bytesEqual, toHex } from './hash.js';
import { verifyHeadSignature, type LogVerifier } from './head.js';
import type { LogStore } from './store.js';
import { TILE_HEIGHT, TILE_WIDTH, decodeTile, type TileId } from './tiles.js';
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
  /** The log key's raw 32 bytes: the checkpoint's note key. */
  publicKey: Uint8Array;
  /** Entries read per store call. */
  page?: number;
}

export async function auditLog(opts: AuditOptions): Promise<AuditReport> {
  const { store, verify, origin, publicKey } = opts;
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
  let prev = ZERO_HASH;
  const pool = head.treeSize >= 4 * page ? new CheckPool(Math.max(1, availableParallelism() - 1)) : null;
  try {
    // Pages are read in order and checked ahead (on worker threads for a large log); their
    // results are folded into the chain and the tree in order.
    const pages: Promise<PageCheck>[] = [];
    let nextRead = 0;
    const readAhead = async () => {
      while (pages.length < 4 && nextRead < head.treeSize) {
        const from = nextRead;
        const n = Math.min(page, head.treeSize - from);
        nextRead += n;
        const records = store.readEntries(from, n);
        // With a pool, every other page is checked here: this thread would otherwise wait.
        const inline = pool === null || (from / page) % 2 === 1;
        pages.push(records.then((r) => (r.length < n ? missing(from, r, n) : inline ? checkPage(from, r) : pool.check(from, r))));
      }
    };
    for (let from = 0; from < head.treeSize; from += page) {
      await readAhead();
      const result = await pages.shift()!;
      let problem = result.problem;
      if (result.count > 0 && result.firstPrev !== prev) problem = { seq: from, detail: 'prevHash is not the previous entry hash' };
      else {
        for (let i = 0; i < result.count; i++) edge.push(result.hashes.subarray(32 * i, 32 * i + 32));
        if (result.count > 0) prev = toHex(result.hashes.subarray(32 * (result.count - 1), 32 * result.count));
      }
      // Stored tiles must hold exactly the hashes recomputed so far; a tile problem at an
      // earlier seq than an entry problem in the same page is the first problem.
      const tileSeq = await firstTileMismatch(store, edge.takeChanged(), edge.size === head.treeSize);
      if (tileSeq !== null && (problem === null || tileSeq < problem.seq)) {
        return bad(tileSeq, 'stored interior hashes do not match the entries');
      }
      if (problem !== null) return bad(problem.seq, problem.detail);
    }
  } finally {
    await pool?.close();
  }
  if ((await store.readEntries(head.treeSize, 1)).length > 0) return bad(head.treeSize, 'entry stored beyond the signed head');
  const root = edge.root();
  if (toHex(root) !== head.rootHash) return bad(null, 'head rootHash does not match the entries');
  if (!checkpointHolds(head.checkpoint, checkpointText(origin, head.treeSize, root), origin, publicKey, verify)) {
    return bad(null, 'checkpoint does not match the head or its signature does not verify');
  }
  return { intact: true, problem: null, treeSize: head.treeSize };
}

/** A page the store returned short: the records it has, and the first missing seq. */
function missing(from: number, records: string[], n: number): PageCheck {
  const r = checkPage(from, records);
  return r.problem !== null ? r : { ...r, problem: { seq: from + records.length, detail: `entry missing (of ${n} read)` } };
}

/** Worker threads that check pages; each page goes to the least busy worker. */
class CheckPool {
  private readonly workers: { w: Worker; busy: number }[];
  private readonly waiting = new Map<number, { resolve(r: PageCheck): void; reject(e: unknown): void }>();
  private nextId = 0;

  constructor(size: number) {
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(new URL('./audit-worker.js', import.meta.url));
      w.on('message', (m: PageCheck & { id: number }) => {
        const slot = this.workers.find((x) => x.w === w)!;
        slot.busy--;
        this.waiting.get(m.id)!.resolve(m);
        this.waiting.delete(m.id);
      });
      w.on('error', (err) => {
        for (const p of this.waiting.values()) p.reject(err);
        this.waiting.clear();
      });
      return { w, busy: 0 };
    });
  }

  check(from: number, records: string[]): Promise<PageCheck> {
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    slot.busy++;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      slot.w.postMessage({ id, from, records });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((x) => x.w.terminate()));
  }
}

/**
 * Compares recomputed tiles with the stored ones: every recomputed hash must be stored in its
 * place, and at the end of the log a stored tile may hold nothing more. Returns the seq at which
 * the first mismatching node was completed (its last leaf), or null.
 */
async function firstTileMismatch(store: LogStore, tiles: WrittenTile[], atEnd: boolean): Promise<number | null> {
  const stored = await store.getTiles(tiles.map((t) => t.id));
  let first: number | null = null;
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
          if (first === null || seq < first) first = seq;
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
