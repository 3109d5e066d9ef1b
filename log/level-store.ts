// The LevelDB LogStore. Keys are one prefix byte and the seq as 8 bytes big-endian, so
// entries and hash groups sort by seq and an audit streams both in order.
import { Level } from 'level';
import type { CommitBatch, LogStore, StoredHead } from './store.js';

const ENTRY = 0x65; // 'e'
const GROUP = 0x6e; // 'n'
const HEAD = Buffer.from('h');

/** Key of `seq` under `prefix`; seqs up to 2^53 (no 32-bit bit operators). */
function key(prefix: number, seq: number): Buffer {
  const k = Buffer.allocUnsafe(9);
  k[0] = prefix;
  k.writeUInt32BE(Math.floor(seq / 0x1_0000_0000), 1);
  k.writeUInt32BE(seq % 0x1_0000_0000, 5);
  return k;
}

type Db = Level<Buffer, Buffer>;

export class LevelStore implements LogStore {
  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the LevelDB store in `dir`. */
  static async open(dir: string): Promise<LevelStore> {
    const db: Db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
    return new LevelStore(db);
  }

  async readHead(): Promise<StoredHead | null> {
    const v = await this.db.get(HEAD);
    return v === undefined ? null : (JSON.parse(v.toString('utf8')) as StoredHead);
  }

  readEntries(from: number, count: number): Promise<Uint8Array[]> {
    return this.range(ENTRY, from, count);
  }

  readGroups(from: number, count: number): Promise<Uint8Array[]> {
    return this.range(GROUP, from, count);
  }

  async getGroups(seqs: number[]): Promise<(Uint8Array | undefined)[]> {
    if (seqs.length === 0) return [];
    return this.db.getMany(seqs.map((s) => key(GROUP, s)));
  }

  async commit(batch: CommitBatch): Promise<void> {
    const b = this.db.batch();
    batch.entries.forEach((e, i) => b.put(key(ENTRY, batch.first + i), Buffer.from(e.buffer, e.byteOffset, e.byteLength)));
    batch.groups.forEach((g, i) => b.put(key(GROUP, batch.first + i), Buffer.from(g.buffer, g.byteOffset, g.byteLength)));
    b.put(HEAD, Buffer.from(JSON.stringify(batch.head)));
    // sync: the write is on disk before the promise resolves, so an acknowledged append survives a crash.
    await b.write({ sync: true });
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Raw access for tests that corrupt stored data and for tools; not used by the log itself. */
  get raw(): Db {
    return this.db;
  }

  private async range(prefix: number, from: number, count: number): Promise<Uint8Array[]> {
    if (count <= 0) return [];
    return this.db.values({ gte: key(prefix, from), lt: key(prefix, from + count) }).all();
  }
}

export const levelKeys = { entry: (seq: number) => key(ENTRY, seq), group: (seq: number) => key(GROUP, seq), head: HEAD };
