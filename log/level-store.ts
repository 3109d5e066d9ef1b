// The LevelDB LogStore. Entries are stored in bundles of 256 (as C2SP tlog-tiles stores entry
// bundles): key 'b' and the bundle index as 8 bytes big-endian; the value is the bundle's
// records joined by newlines (a record is itself two lines: "<ts> <type>", payload). The partial
// bundle at the end of the log is rewritten as it grows. Few large writes instead of one per
// entry is what makes durable appends fast: LevelDB's cost is mostly per operation.
// Tile keys are 't', the tile level and the tile index as 8 bytes big-endian.
import { Level } from 'level';
import { LogError } from './errors.js';
import type { CommitBatch, LogReader, LogSnapshot, LogStore, StoredHead } from './store.js';
import type { TileId } from './tiles.js';

const BUNDLE = 0x62; // 'b'
export const BUNDLE_SIZE = 256;
const TILE = 0x74; // 't'
const HEAD = Buffer.from('h');

/** Writes n (up to 2^53) as 8 bytes big-endian at `off`, without 32-bit bit operators. */
function writeIndex(k: Buffer, off: number, n: number): void {
  k.writeUInt32BE(Math.floor(n / 0x1_0000_0000), off);
  k.writeUInt32BE(n % 0x1_0000_0000, off + 4);
}

function bundleKey(index: number): Buffer {
  const k = Buffer.allocUnsafe(9);
  k[0] = BUNDLE;
  writeIndex(k, 1, index);
  return k;
}

/** A bundle's value as records; each record is its two lines joined again. */
function splitBundle(value: string): string[] {
  const lines = value.split('\n');
  const out: string[] = [];
  for (let i = 0; i + 1 < lines.length; i += 2) out.push(`${lines[i]}\n${lines[i + 1]}`);
  return out;
}

function tileKey(t: TileId): Buffer {
  const k = Buffer.allocUnsafe(10);
  k[0] = TILE;
  k[1] = t.level;
  writeIndex(k, 2, t.index);
  return k;
}

type Db = Level<Buffer, Buffer>;
type Snapshot = ReturnType<Db['snapshot']>;

async function readHead(db: Db, snapshot: Snapshot | undefined): Promise<StoredHead | null> {
  const v = await db.get(HEAD, { snapshot });
  return v === undefined ? null : (JSON.parse(v.toString('utf8')) as StoredHead);
}

async function readEntries(db: Db, snapshot: Snapshot | undefined, from: number, count: number): Promise<string[]> {
  if (count <= 0) return [];
  const first = Math.floor(from / BUNDLE_SIZE);
  const last = Math.floor((from + count - 1) / BUNDLE_SIZE);
  const bundles = await db.iterator<Buffer, string>({ gte: bundleKey(first), lte: bundleKey(last), valueEncoding: 'utf8', snapshot }).all();
  const out: string[] = [];
  for (let j = 0; j < bundles.length; j++) {
    const [key, value] = bundles[j]!;
    const index = first + j;
    // Bundles are contiguous and only the last may be short: stop at a gap or a short bundle.
    if (!key.equals(bundleKey(index))) break;
    const records = splitBundle(value);
    for (let i = index === first ? from - first * BUNDLE_SIZE : 0; i < records.length && out.length < count; i++) out.push(records[i]!);
    if (records.length < BUNDLE_SIZE) break;
  }
  return out;
}

async function getTiles(db: Db, snapshot: Snapshot | undefined, ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
  if (ids.length === 0) return [];
  return db.getMany(ids.map(tileKey), { snapshot });
}

export class LevelStore implements LogStore {
  /** The records of the last, partial bundle, as last committed (loaded on first use). */
  private edge: { index: number; records: string[] } | null = null;

  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the LevelDB store in `dir`. */
  static async open(dir: string): Promise<LevelStore> {
    const db: Db = new Level<Buffer, Buffer>(dir, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
      // A larger memtable than LevelDB's 4 MiB default: fewer level-0 files, fewer write stalls.
      writeBufferSize: 64 * 2 ** 20,
    } as never);
    await db.open();
    return new LevelStore(db);
  }

  readHead(): Promise<StoredHead | null> {
    return readHead(this.db, undefined);
  }

  readEntries(from: number, count: number): Promise<string[]> {
    return readEntries(this.db, undefined, from, count);
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
      readEntries: (from, count) => readEntries(db, snap, from, count),
      getTiles: (ids) => getTiles(db, snap, ids),
    };
    return { ...reader, close: () => snap.close() };
  }

  async commit(batch: CommitBatch): Promise<void> {
    // A chained batch: far less per-operation work in abstract-level than an array of operations.
    const b = this.db.batch();
    const utf8 = { valueEncoding: 'utf8' } as const;
    let index = Math.floor(batch.first / BUNDLE_SIZE);
    const kept = batch.first % BUNDLE_SIZE;
    // No await when the edge bundle is cached: the write must start before this returns to the
    // event loop, so the sequencer can form the next batch while this one is written.
    const edge = kept === 0 ? [] : this.edge?.index === index ? this.edge.records : await this.loadBundle(index);
    let records = edge.slice(0, kept);
    if (records.length !== kept) throw new LogError('corrupt', `bundle ${index} holds ${records.length} entries, not ${kept}`);
    for (const e of batch.entries) {
      records.push(e);
      if (records.length === BUNDLE_SIZE) {
        b.put(bundleKey(index), records.join('\n') as never, utf8);
        index++;
        records = [];
      }
    }
    if (records.length > 0) b.put(bundleKey(index), records.join('\n') as never, utf8);
    for (const t of batch.tiles) b.put(tileKey(t.id), Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength));
    b.put(HEAD, JSON.stringify(batch.head) as never, utf8);
    // The next commit builds on this one's edge bundle; a failed write stops the log anyway.
    this.edge = { index, records };
    // sync: the batch is on disk before the promise resolves, so an acknowledged append survives a crash.
    await b.write({ sync: true });
  }

  /** The records stored in bundle `index`. */
  private async loadBundle(index: number): Promise<string[]> {
    const value = await this.db.get(bundleKey(index), { valueEncoding: 'utf8' } as never);
    return value === undefined ? [] : splitBundle(value as unknown as string);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Raw access for tests that corrupt stored data and for tools; not used by the log itself. */
  get raw(): Db {
    return this.db;
  }
}

export const levelKeys = { bundle: bundleKey, tile: tileKey, head: HEAD };
