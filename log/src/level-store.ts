// The LevelDB LogStore: each commit is one synced batch of what is new (entries, new interior hashes, the head); nothing but
// the head is rewritten. Its keys and values: docs/log-format.md#how-the-service-stores-the-log-not-protocol.
import { Level } from 'level';
import { LogError } from './errors.js';
import { framingNamed, lengthPrefixed, textLines, type Framing } from './framing.js';
import type { CommitBatch, LogReader, LogSnapshot, LogStore, StoredHead } from './store.js';
import { TILE_WIDTH, growTile, tileGrowth, tileWidth, type TileId } from './tiles.js';

const BUNDLE = 0x62; // 'b'
export const BUNDLE_SIZE = 256;
/**
 * A block: the 16 entries from a multiple of 16. A commit cuts its pieces at blocks' edges, so a
 * short read reads the pieces of its blocks and not their whole bundles (a store written before
 * may hold pieces across them, which reads find all the same).
 */
export const BLOCK = 16;
const TILE = 0x74; // 't'
const HEAD = Buffer.from('h');
const VERSION = Buffer.from('v');
const FRAMING = Buffer.from('f');
/** The framing of a store made before the key 'f' was written. */
const FRAMING_BEFORE = textLines(2);
/**
 * Version 2: bundles and growing tiles stored as pieces, each written once. A store without the
 * key is version 1, whose partial bundle and partial tiles were rewritten whole at every commit:
 * version 2 reads them as pieces that start at 0, so such a store opens and continues as is.
 */
const FORMAT = '2';

/** Writes n (up to 2^53) as 8 bytes big-endian at `off`, without 32-bit bit operators. */
function writeIndex(k: Buffer, off: number, n: number): void {
  k.writeUInt32BE(Math.floor(n / 0x1_0000_0000), off);
  k.writeUInt32BE(n % 0x1_0000_0000, off + 4);
}

function readIndex(k: Buffer, off: number): number {
  return k.readUInt32BE(off) * 0x1_0000_0000 + k.readUInt32BE(off + 4);
}

/** The key of the piece of bundle `index` whose first entry is at `offset` in the bundle. */
function bundleKey(index: number, offset = 0): Buffer {
  const k = Buffer.allocUnsafe(offset === 0 ? 9 : 10);
  k[0] = BUNDLE;
  writeIndex(k, 1, index);
  if (offset !== 0) k[9] = offset;
  return k;
}

/** The key of tile `t` (its bytes from width 0), or of its growth from width `from`. */
function tileKey(t: TileId, from = 0): Buffer {
  const k = Buffer.allocUnsafe(from === 0 ? 10 : 11);
  k[0] = TILE;
  k[1] = t.level;
  writeIndex(k, 2, t.index);
  if (from !== 0) k[10] = from;
  return k;
}

type Db = Level<Buffer, Buffer>;
type Snapshot = ReturnType<Db['snapshot']>;
/**
 * How many bytes of pieces one step of a long read brings from LevelDB's thread (classic-level's
 * `highWaterMarkBytes`, 16 KiB by default: a step a piece, so many more steps when pieces are blocks).
 */
const READ_STEP = { highWaterMarkBytes: 4 * 2 ** 20 } as object;

// The head is written at every commit, so at one entry per commit as often as an entry: it is
// packed into about 200 bytes instead of about 440 as JSON. Packed: 0x01, treeSize (8 bytes
// big-endian), the root (32), the timestamp in milliseconds since 1970 (8), the signature (64),
// the origin's length (1) and UTF-8, the checkpoint's signature blob (68: key id, signature). The
// checkpoint is rebuilt as "<origin>\n<size>\n<base64 root>\n\n— <origin> <base64 blob>\n". A
// head that the packed form would not give back exactly is stored as JSON (which starts with '{').
const PACKED_HEAD = 0x01;
const SIG_DASH = '\u2014 ';

function packHead(h: StoredHead): Buffer | undefined {
  const lines = h.checkpoint.split('\n');
  const origin = Buffer.from(lines[0]!, 'utf8');
  const sigLine = lines[4] ?? '';
  const prefix = `${SIG_DASH}${lines[0]} `;
  const blob = Buffer.from(sigLine.slice(prefix.length), 'base64');
  const signature = Buffer.from(h.signature, 'base64url');
  const ms = Date.parse(h.timestamp);
  if (lines.length !== 6 || !sigLine.startsWith(prefix) || blob.length !== 68 || origin.length > 255) return undefined;
  if (!/^[0-9a-f]{64}$/.test(h.rootHash) || signature.length !== 64 || !(ms >= 0) || !Number.isSafeInteger(h.treeSize) || h.treeSize < 0)
    return undefined;
  const out = Buffer.allocUnsafe(114 + origin.length + 68);
  out[0] = PACKED_HEAD;
  writeIndex(out, 1, h.treeSize);
  out.write(h.rootHash, 9, 'hex');
  writeIndex(out, 41, ms);
  signature.copy(out, 49);
  out[113] = origin.length;
  origin.copy(out, 114);
  blob.copy(out, 114 + origin.length);
  return out;
}

function unpackHead(v: Buffer): StoredHead {
  const treeSize = readIndex(v, 1);
  const root = v.subarray(9, 41);
  const origin = v.subarray(114, 114 + v[113]!).toString('utf8');
  const blob = v.subarray(114 + v[113]!);
  return {
    treeSize,
    rootHash: root.toString('hex'),
    timestamp: new Date(readIndex(v, 41)).toISOString(),
    signature: v.subarray(49, 113).toString('base64url'),
    checkpoint: `${origin}\n${treeSize}\n${root.toString('base64')}\n\n${SIG_DASH}${origin} ${blob.toString('base64')}\n`,
  };
}

/** The stored form of a head: packed when that gives the same head back, else JSON. */
function encodeHead(h: StoredHead): Buffer {
  const packed = packHead(h);
  if (packed !== undefined && Object.keys(h).length === 5) {
    const back = unpackHead(packed);
    if (
      back.treeSize === h.treeSize &&
      back.rootHash === h.rootHash &&
      back.timestamp === h.timestamp &&
      back.signature === h.signature &&
      back.checkpoint === h.checkpoint
    )
      return packed;
  }
  return Buffer.from(JSON.stringify(h), 'utf8');
}

function decodeHead(v: Buffer): StoredHead {
  return v[0] === PACKED_HEAD ? unpackHead(v) : (JSON.parse(v.toString('utf8')) as StoredHead);
}

async function readHead(db: Db, snapshot: Snapshot | undefined): Promise<StoredHead | null> {
  const v = await db.get(HEAD, { snapshot });
  return v === undefined ? null : decodeHead(v);
}

/** The seq of the first entry of the piece stored under `key`. */
const pieceStart = (key: Buffer): number => readIndex(key, 1) * BUNDLE_SIZE + (key.length === 10 ? key[9]! : 0);

/**
 * Entries [from, to) as stored, read from the pieces that hold them and no others: the piece that
 * starts at `from` and those after it, or, when `from` lies inside a piece that starts before it
 * (a piece written before commits were cut at blocks), that piece first. Stops at a gap. The
 * entries are views of the pieces read.
 */
async function readRange(
  db: Db,
  framing: Framing,
  snapshot: Snapshot | undefined,
  from: number,
  to: number,
  get: (key: Buffer) => Promise<Buffer | undefined> = (key) => db.get(key, { snapshot }),
): Promise<Uint8Array[]> {
  if (to <= from) return [];
  const index = Math.floor(from / BUNDLE_SIZE);
  const offset = from - index * BUNDLE_SIZE;
  // The usual short read, a block that one commit wrote: one get, no iterator.
  if (to - from <= BLOCK) {
    const value = await get(bundleKey(index, offset));
    const split = value === undefined ? [] : framing.split(value);
    if (split.length >= to - from) return split.slice(0, to - from);
  }
  const end = bundleKey(Math.floor(to / BUNDLE_SIZE), to % BUNDLE_SIZE);
  let pieces = await db.iterator({ gte: bundleKey(index, offset), lt: end, snapshot, ...READ_STEP }).all();
  if (offset !== 0 && (pieces.length === 0 || pieceStart(pieces[0]![0]) !== from)) {
    const holder = await db.iterator({ gte: bundleKey(index), lt: bundleKey(index, offset), snapshot, reverse: true, limit: 1 }).all();
    pieces = [...holder, ...pieces];
  }
  const records: Uint8Array[] = [];
  let seq = -1;
  for (const [key, value] of pieces) {
    const start = pieceStart(key);
    // Pieces are contiguous: the first must hold `from`, and each must start where the one before ended.
    if (seq === -1 ? start > from : start !== seq) break;
    seq = start;
    const split = framing.split(value);
    for (const r of split) {
      if (seq >= from && seq < to) records.push(r);
      seq++;
    }
  }
  return records;
}

/** The pieces of tile `id` after its first, in order: [width it grows from, bytes]. */
async function tileGrowths(db: Db, snapshot: Snapshot | undefined, id: TileId): Promise<[number, Buffer][]> {
  const pieces = await db.iterator({ gte: tileKey(id, 1), lte: tileKey(id, TILE_WIDTH - 1), snapshot }).all();
  return pieces.map(([key, value]) => [key[10]!, value]);
}

async function getTiles(db: Db, snapshot: Snapshot | undefined, ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
  if (ids.length === 0) return [];
  const firsts = await db.getMany(
    ids.map((id) => tileKey(id)),
    { snapshot },
  );
  return Promise.all(
    firsts.map(async (bytes, i) => {
      // Only a tile whose first piece is short of full has later pieces.
      const w = bytes === undefined ? undefined : tileWidth(bytes);
      if (w === undefined || w === TILE_WIDTH) return bytes;
      let tile: Uint8Array = bytes!;
      let width = w;
      for (const [from, growth] of await tileGrowths(db, snapshot, ids[i]!)) {
        // Pieces follow each other; a piece that does not start where the tile ends is not used.
        const grown = from === width ? growTile(tile, growth) : undefined;
        if (grown === undefined) break;
        tile = grown;
        width = tileWidth(grown)!;
      }
      return tile;
    }),
  );
}

/** What is stored of the last tile of a tile level: its width and the widths its later pieces grow from. */
interface EdgeTile {
  index: number;
  width: number;
  growths: number[];
}

/** The last stored tile of each tile level, read from the store. */
async function readEdgeTiles(db: Db): Promise<Map<number, EdgeTile>> {
  const edges = new Map<number, EdgeTile>();
  // Tree levels are below 64, so tile levels below 8.
  for (let level = 0; level < 8; level++) {
    const lastKey = await db.keys({ gte: Buffer.from([TILE, level]), lt: Buffer.from([TILE, level + 1]), reverse: true, limit: 1 }).all();
    if (lastKey.length === 0) continue;
    const id = { level, index: readIndex(lastKey[0]!, 2) };
    const [tile] = await getTiles(db, undefined, [id]);
    const growths = await tileGrowths(db, undefined, id);
    const width = tile === undefined ? 0 : (tileWidth(tile) ?? TILE_WIDTH);
    edges.set(level, { index: id.index, width, growths: growths.map(([from]) => from) });
  }
  return edges;
}

/** A kept block: where it starts in the ring, and where each of its entries ends, from its start. */
interface Placed {
  at: number;
  ends: number[];
}

/** A kept block's bytes: where its last entry ends. */
const bytesOf = (b: Placed): number => b.ends[b.ends.length - 1]!;

/**
 * Whole blocks lately read, the least recently used dropped first beyond `limit` bytes (their
 * stored bytes): a page that shows a few entries spread along the log (a hot claim's reviews)
 * reads each of their blocks once, not at every view. Only blocks wholly below the store's head
 * are kept, which appends never change; a roll-back or a write below the head empties it.
 *
 * The bytes are copied into one buffer of `limit` bytes, made at the first block kept and used
 * as a ring, and the entries a read asks for are copied out of it. A cache of the buffers LevelDB
 * gives would keep each until it is dropped, long enough to outlive the young generation: V8
 * counts such buffers as external memory, and each 64 MiB of them dropped since the last full
 * collection starts another, over the whole heap (at 10M entries, 0.6 s of CPU every 300 pages
 * of an agent).
 */
class BlockCache {
  /** Each block kept, in the order of use. */
  private readonly blocks = new Map<number, Placed>();
  private ring: Uint8Array | null = null;
  /** Where the next block is written. */
  private head = 0;
  private bytes = 0;
  /** Raised when what is kept may no longer be what is stored: a read begun before does not keep what it read. */
  generation = 0;

  constructor(readonly limit: number) {}

  /**
   * Entries [lo, hi) of block `block`, each copied out of the ring (a small entry into a slice of
   * Node's pool: a buffer of its own costs more than the copy); the block becomes the most recently used.
   */
  get(block: number, lo = 0, hi = BLOCK): Uint8Array[] | undefined {
    const b = this.blocks.get(block);
    if (b === undefined) return undefined;
    const ring = this.ring!;
    const records: Uint8Array[] = [];
    for (let i = lo; i < hi; i++) {
      const start = b.at + (i === 0 ? 0 : b.ends[i - 1]!);
      const r = Buffer.allocUnsafe(b.at + b.ends[i]! - start);
      r.set(ring.subarray(start, start + r.length));
      records.push(r);
    }
    // Moved to the ring's head, as the block most recently used.
    this.drop(block);
    const at = this.place(bytesOf(b));
    ring.copyWithin(at, b.at, b.at + bytesOf(b));
    this.blocks.set(block, { at, ends: b.ends });
    return records;
  }

  keep(block: number, records: Uint8Array[]): void {
    if (this.blocks.has(block)) return;
    const ends: number[] = [];
    let bytes = 0;
    for (const r of records) ends.push((bytes += r.length));
    // A limit of 0 keeps none, not even a block of empty entries.
    if (bytes > this.limit || this.limit === 0) return;
    this.ring ??= new Uint8Array(this.limit);
    let at = this.place(bytes);
    this.blocks.set(block, { at, ends });
    for (const r of records) {
      this.ring.set(r, at);
      at += r.length;
    }
  }

  /**
   * Where the next block of `bytes` goes: at the ring's head, or at its start when the end has not
   * room; the blocks it will overwrite are dropped (the oldest: the ring holds blocks in the order
   * of use), and the bytes counted.
   */
  private place(bytes: number): number {
    if (this.head + bytes > this.limit) {
      // The end of the ring is left: the blocks there are the oldest, and go.
      this.dropWhile((b) => b.at >= this.head);
      this.head = 0;
    }
    const at = this.head;
    this.dropWhile((b) => b.at >= at && b.at < at + bytes);
    this.head = at + bytes;
    this.bytes += bytes;
    return at;
  }

  /** Drops the oldest blocks while `test` holds of the oldest. */
  private dropWhile(test: (b: Placed) => boolean): void {
    for (const [block, b] of this.blocks) {
      if (!test(b)) break;
      this.drop(block);
    }
  }

  private drop(block: number): void {
    const b = this.blocks.get(block)!;
    this.blocks.delete(block);
    this.bytes -= bytesOf(b);
  }

  clear(): void {
    this.blocks.clear();
    this.bytes = 0;
    this.head = 0;
    this.generation++;
  }

  /** Blocks kept and their bytes, for tests. */
  get size(): { blocks: number; bytes: number } {
    return { blocks: this.blocks.size, bytes: this.bytes };
  }

  /** The blocks kept, the least recently read first, for tests. */
  get kept(): number[] {
    return [...this.blocks.keys()];
  }
}

/**
 * Tables LevelDB keeps open: a store of up to about 40 GiB (100M entries of the record's sizes).
 * LevelDB itself keeps at most a fifth of the process's file limit as open files and opens the
 * others for each read, so a lower limit slows reads but never fails them.
 */
const MAX_OPEN_TABLES = 20_000;

/** Bytes of whole blocks a store keeps read (`LevelStore.open`'s `cacheBytes`). */
export const CACHE_BYTES = 8 * 2 ** 20;
/** A read of more blocks than this (a replay, a scan) neither fills the cache nor reads from it. */
const SHORT_READ = 64;
/** Keys read in one `getMany` at most: one task of LevelDB's threads reads them one after another. */
const GETS_TOGETHER = 64;

/** Gets asked for in one turn of the event loop, and those waiting for them. */
interface Gets {
  keys: Buffer[];
  waiting: { resolve: (value: Buffer | undefined) => void; reject: (err: unknown) => void }[];
}

export class LevelStore implements LogStore {
  /** The last stored tile of each tile level; null after a failed write, until read again. */
  private edges: Map<number, EdgeTile> | null;
  /** Whole blocks lately read. */
  private readonly cache: BlockCache;
  /** Entries below this are stored for good: the size of the last head written (or read at open). */
  private size: number;
  /** The gets asked for in this turn of the event loop, not yet begun (`getTogether`). */
  private gets: Gets | null = null;
  /** How many `getMany` calls `getTogether` made, for tests. */
  private together = 0;

  private constructor(
    private readonly db: Db,
    /** How the entries of a bundle piece are joined. */
    readonly framing: Framing,
    edges: Map<number, EdgeTile>,
    size: number,
    cacheBytes: number,
  ) {
    this.edges = edges;
    this.size = size;
    this.cache = new BlockCache(cacheBytes);
  }

  /**
   * Opens (creating if needed) the LevelDB store in `dir`. `framing`: how a new store joins the
   * entries of a bundle (default: length-prefixed); an existing store opens with the framing it
   * was made with, and refuses another. `cacheBytes`: how many bytes of whole blocks lately read
   * it keeps (default CACHE_BYTES; 0 keeps none).
   */
  static async open(dir: string, opts: { framing?: Framing; cacheBytes?: number } = {}): Promise<LevelStore> {
    const db: Db = new Level<Buffer, Buffer>(dir, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
      // A larger memtable than LevelDB's 4 MiB default: fewer level-0 files, fewer write stalls.
      writeBufferSize: 64 * 2 ** 20,
      // Tables (files of 2 MiB) kept open, each with its index in memory (under 1 % of its bytes). LevelDB's default of
      // 1,000 covers 2 GiB: past it, a read at random opens a table almost every time (docs/engine.md#the-store-contract).
      maxOpenFiles: MAX_OPEN_TABLES,
    } as never);
    await db.open();
    try {
      const version = (await db.get(VERSION))?.toString('utf8');
      let framing: Framing;
      if (version === undefined && (await db.get(HEAD)) !== undefined) {
        // Layout version 1, made before framings: its entries are two lines each.
        framing = FRAMING_BEFORE;
        if (opts.framing !== undefined && opts.framing.name !== framing.name)
          throw new LogError('bad_argument', `the store in ${dir} frames its entries as ${framing.name}, not ${opts.framing.name}`);
        await db.put(VERSION, Buffer.from(FORMAT), { sync: true } as never);
      } else if (version === undefined) {
        framing = opts.framing ?? lengthPrefixed;
        await db.batch().put(VERSION, Buffer.from(FORMAT)).put(FRAMING, Buffer.from(framing.name)).write({ sync: true });
      } else {
        if (version !== FORMAT)
          throw new LogError('corrupt', `the store in ${dir} has layout version ${version}; this code reads version ${FORMAT}`);
        const named = (await db.get(FRAMING))?.toString('utf8');
        framing = named === undefined ? FRAMING_BEFORE : framingNamed(named);
        if (opts.framing !== undefined && opts.framing.name !== framing.name)
          throw new LogError('bad_argument', `the store in ${dir} frames its entries as ${framing.name}, not ${opts.framing.name}`);
      }
      const size = (await readHead(db, undefined))?.treeSize ?? 0;
      return new LevelStore(db, framing, await readEdgeTiles(db), size, opts.cacheBytes ?? CACHE_BYTES);
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  readHead(): Promise<StoredHead | null> {
    return readHead(this.db, undefined);
  }

  /**
   * Reads `key` together with the other keys asked for in the same turn of the event loop (up to
   * GETS_TOGETHER), in one `getMany`: a page's reads of scattered entries, begun at once, cost the
   * main thread about a third of what a get each costs (docs/engine.md#the-store-contract).
   */
  private readonly getTogether = (key: Buffer): Promise<Buffer | undefined> =>
    new Promise((resolve, reject) => {
      let gets = this.gets;
      if (gets === null || gets.keys.length === GETS_TOGETHER) {
        const begun: Gets = { keys: [], waiting: [] };
        gets = this.gets = begun;
        // Begun once the code asking has run to its next wait: what it asked for by then is one read.
        queueMicrotask(() => {
          if (this.gets === begun) this.gets = null;
          this.together++;
          this.db.getMany(begun.keys).then(
            (values) => values.forEach((v, i) => begun.waiting[i]!.resolve(v)),
            (err: unknown) => begun.waiting.forEach((w) => w.reject(err)),
          );
        });
      }
      gets.keys.push(key);
      gets.waiting.push({ resolve, reject });
    });

  async readEntries(from: number, count: number): Promise<Uint8Array[]> {
    if (count <= 0) return [];
    const first = Math.floor(from / BLOCK);
    const last = Math.floor((from + count - 1) / BLOCK);
    if (last - first >= SHORT_READ) return readRange(this.db, this.framing, undefined, from, from + count);
    // Each block's entries asked for: [lo, hi) of its sixteen.
    const lo = (block: number) => Math.max(from - block * BLOCK, 0);
    const hi = (block: number) => Math.min(from + count - block * BLOCK, BLOCK);
    const asked = new Map<number, Uint8Array[]>();
    const missing: number[] = [];
    for (let block = first; block <= last; block++) {
      const records = this.cache.get(block, lo(block), hi(block));
      if (records === undefined) missing.push(block);
      else asked.set(block, records);
    }
    if (missing.length > 0) {
      const generation = this.cache.generation;
      const size = this.size;
      // The blocks missing, in one read from the first to the last of them: only the pieces that hold them.
      const low = missing[0]!;
      const read = await readRange(
        this.db,
        this.framing,
        undefined,
        low * BLOCK,
        (missing[missing.length - 1]! + 1) * BLOCK,
        this.getTogether,
      );
      for (const block of missing) {
        const records = read.slice((block - low) * BLOCK, (block - low + 1) * BLOCK);
        asked.set(block, records.slice(lo(block), hi(block)));
        // Kept (copied) only when whole and below the head as it was before the read began, and when no roll-back came meanwhile.
        if (records.length === BLOCK && (block + 1) * BLOCK <= size && this.cache.generation === generation)
          this.cache.keep(block, records);
      }
    }
    // In order, to the first block that ends short: it ends what the store holds.
    const out: Uint8Array[] = [];
    for (let block = first; block <= last; block++) {
      const records = asked.get(block)!;
      out.push(...records);
      if (records.length < hi(block) - lo(block)) break;
    }
    return out;
  }

  /** Blocks the cache keeps and their bytes, for tests. */
  get cached(): { blocks: number; bytes: number } {
    return this.cache.size;
  }

  /** How many reads of many keys at once the short reads made, for tests. */
  get readsTogether(): number {
    return this.together;
  }

  /** The blocks the cache keeps, the least recently read first, for tests. */
  get cachedBlocks(): number[] {
    return this.cache.kept;
  }

  getTiles(ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
    return getTiles(this.db, undefined, ids);
  }

  /** Reads through a LevelDB snapshot: what later commits write is not seen. */
  async snapshot(): Promise<LogSnapshot> {
    const db = this.db;
    const snap = db.snapshot();
    const reader: LogReader = {
      readHead: () => readHead(db, snap),
      readEntries: (from, count) => readRange(db, this.framing, snap, from, from + count),
      getTiles: (ids) => getTiles(db, snap, ids),
    };
    return { ...reader, close: () => snap.close() };
  }

  // Few large writes rather than one per entry is what makes durable appends fast under load: LevelDB's cost is mostly per
  // operation, and a batch of many entries writes whole bundles.
  async commit(batch: CommitBatch): Promise<void> {
    // No await unless a write failed before: the write must start before this returns to the
    // event loop, so the sequencer can form the next batch while this one is written.
    const before = this.edges ?? (await readEdgeTiles(this.db));
    // A roll-back, or entries written below the head: bundles kept may no longer be what is stored.
    // Emptied before the write and again after it, so that no read begun before keeps what it read.
    const rewrites = batch.entries.length === 0 || batch.first < this.size;
    if (rewrites) this.cache.clear();
    // A chained batch: far less per-operation work in abstract-level than an array of operations.
    const b = this.db.batch();
    // A batch with no entries rewrites a head (a roll-back after a failed write, store.ts): what
    // a refused commit left beyond that head is deleted in the same batch, so no later piece
    // grows on it and the last tile of each level is again the head's.
    if (batch.entries.length === 0) await this.deleteBeyond(b, batch);
    // Entries: one piece per block the batch touches, keyed by where it starts.
    for (let i = 0; i < batch.entries.length;) {
      const seq = batch.first + i;
      const offset = seq % BUNDLE_SIZE;
      const n = Math.min(BLOCK - (offset % BLOCK), batch.entries.length - i);
      b.put(bundleKey((seq - offset) / BUNDLE_SIZE, offset), this.framing.join(batch.entries.slice(i, i + n)) as Buffer);
      i += n;
    }
    // Tiles: what a tile gained since what is stored of it. Bytes that are not a growth of the
    // stored tile (the log never writes such) are written whole, replacing the tile's pieces.
    const after = new Map(before);
    for (const t of batch.tiles) {
      const bytes = Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength);
      const { level, index } = t.id;
      const last = before.get(level);
      const stored = last?.index === index ? last : undefined;
      const width = tileWidth(bytes);
      const from = stored?.width ?? 0;
      const growth = width !== undefined && (last === undefined || last.index <= index) && from < width;
      if (growth) {
        b.put(tileKey(t.id, from), from === 0 ? bytes : Buffer.from(tileGrowth(bytes, from)!));
      } else {
        b.put(tileKey(t.id), bytes);
        for (const g of stored?.growths ?? []) b.del(tileKey(t.id, g));
      }
      const known = after.get(level);
      if (known === undefined || known.index <= index) {
        after.set(level, { index, width: width ?? TILE_WIDTH, growths: growth && from > 0 ? [...(stored?.growths ?? []), from] : [] });
      }
    }
    b.put(HEAD, encodeHead(batch.head));
    try {
      // sync: the batch is on disk before the promise resolves, so an acknowledged append survives a crash.
      await b.write({ sync: true });
    } catch (err) {
      // The write may or may not have reached the disk: read the tiles' state again before the next.
      this.edges = null;
      throw err;
    } finally {
      if (rewrites) this.cache.clear();
    }
    this.size = batch.head.treeSize;
    // After a roll-back the tiles' state is read again from the store.
    this.edges = batch.entries.length === 0 ? null : after;
  }

  /**
   * Adds to `b` the deletion of every bundle piece and tile piece beyond `batch.head`: pieces of
   * entries from its size on, tiles past the last tile of each level at its size, and the later
   * pieces of the tiles the batch rewrites whole.
   */
  private async deleteBeyond(b: ReturnType<Db['batch']>, batch: CommitBatch): Promise<void> {
    const size = batch.head.treeSize;
    const bundle = Math.floor(size / BUNDLE_SIZE);
    const offset = size % BUNDLE_SIZE;
    const firstGone = offset === 0 ? bundleKey(bundle) : bundleKey(bundle, offset);
    for (const k of await this.db.keys({ gte: firstGone, lt: Buffer.from([BUNDLE + 1]) }).all()) b.del(k);
    // A piece that begins below the head and holds entries beyond it is written again with only those below.
    if (offset > 0) {
      const [piece] = await this.db.iterator({ gte: bundleKey(bundle), lt: firstGone, reverse: true, limit: 1 }).all();
      if (piece !== undefined) {
        const [key, value] = piece;
        const start = key.length === 10 ? key[9]! : 0;
        const entries = this.framing.split(value);
        if (start + entries.length > offset) b.put(key, this.framing.join(entries.slice(0, offset - start)) as Buffer);
      }
    }
    const whole = new Set(batch.tiles.map((t) => `${t.id.level}/${t.id.index}`));
    for (let level = 0; level < 8; level++) {
      // Nodes of tree level 8 * level at this size, and the index of the tile holding the last.
      const nodes = Math.floor(size / 2 ** (8 * level));
      const last = nodes === 0 ? -1 : Math.floor((nodes - 1) / TILE_WIDTH);
      const from =
        last < 0
          ? Buffer.from([TILE, level])
          : whole.has(`${level}/${last}`)
            ? tileKey({ level, index: last }, 1)
            : tileKey({ level, index: last + 1 });
      for (const k of await this.db.keys({ gte: from, lt: Buffer.from([TILE, level + 1]) }).all()) b.del(k);
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Raw access for tests that corrupt stored data and for tools; not used by the log itself. */
  get raw(): Db {
    return this.db;
  }
}

export const levelKeys = { bundle: bundleKey, tile: tileKey, head: HEAD, version: VERSION, framing: FRAMING };
/** The head's stored form, for tests that alter it and for tools. */
export const storedHead = { encode: encodeHead, decode: decodeHead };
