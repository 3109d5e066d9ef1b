// The PostgreSQL LogStore. The layout (docs/log-format.md, "How the service stores the log"):
// - log_schema_version: one row, the layout's version; the store creates and migrates the
//   tables itself when it opens, under an advisory lock so that nodes opening at once agree.
// - log_entries (seq, record): one row per entry record, written by one multi-row insert per
//   commit (unnest of two arrays: one statement, one round trip, whatever the batch's size).
// - log_tiles (level, idx, bytes): one row per tile of interior hashes, written whole (one
//   multi-row insert per commit).
// - log_head: one row, the signed head. It is the commit point: every commit runs in one
//   transaction that first advances the head by compare-and-swap on the previous head
//   (UPDATE ... WHERE (tree_size, root_hash) is the head this store last saw), so a commit
//   that finds the head moved by another writer is refused (fenced) and writes nothing.
// Data beyond the head (a transaction that failed after COMMIT was sent may have landed) is
// read by nobody above the log and removed by the roll-back commit (store.ts).
import pg from 'pg';
import { LogError } from './errors.js';
import type { CommitBatch, LogReader, LogSnapshot, LogStore, StoredHead } from './store.js';
import { TILE_WIDTH, type TileId } from './tiles.js';

/** The layout's version; MIGRATIONS[v] takes a database from version v to v + 1. */
export const PG_SCHEMA_VERSION = 1;
const MIGRATIONS: string[] = [
  `CREATE TABLE log_head (
     one boolean PRIMARY KEY DEFAULT true CHECK (one),
     tree_size bigint NOT NULL,
     root_hash text NOT NULL,
     ts text NOT NULL,
     signature text NOT NULL,
     checkpoint text NOT NULL
   );
   CREATE TABLE log_entries (seq bigint PRIMARY KEY, record text NOT NULL);
   CREATE TABLE log_tiles (level smallint NOT NULL, idx bigint NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (level, idx));`,
];
/** The advisory lock taken while the schema is created or migrated (any fixed number). */
const MIGRATION_LOCK = 0x617263686976; // 'archiv'

/** Something that runs queries: the pool, or one client inside a transaction or a snapshot. */
type Queryable = Pick<pg.Pool, 'query'>;

interface HeadRow {
  tree_size: string;
  root_hash: string;
  ts: string;
  signature: string;
  checkpoint: string;
}

async function readHead(db: Queryable): Promise<StoredHead | null> {
  const { rows } = await db.query<HeadRow>('SELECT tree_size, root_hash, ts, signature, checkpoint FROM log_head');
  const r = rows[0];
  if (r === undefined) return null;
  return { treeSize: Number(r.tree_size), rootHash: r.root_hash, timestamp: r.ts, signature: r.signature, checkpoint: r.checkpoint };
}

async function readEntries(db: Queryable, from: number, count: number): Promise<string[]> {
  if (count <= 0) return [];
  const { rows } = await db.query<{ seq: string; record: string }>(
    'SELECT seq, record FROM log_entries WHERE seq >= $1 AND seq < $2 ORDER BY seq',
    [from, from + count],
  );
  const out: string[] = [];
  // Entries are contiguous: stop at a gap.
  for (const r of rows) {
    if (Number(r.seq) !== from + out.length) break;
    out.push(r.record);
  }
  return out;
}

async function getTiles(db: Queryable, ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ level: number; idx: string; bytes: Buffer }>(
    'SELECT t.level, t.idx, t.bytes FROM log_tiles t JOIN unnest($1::smallint[], $2::bigint[]) AS k(level, idx) ON t.level = k.level AND t.idx = k.idx',
    [ids.map((id) => id.level), ids.map((id) => id.index)],
  );
  const found = new Map(rows.map((r) => [`${r.level}/${r.idx}`, new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)]));
  return ids.map((id) => found.get(`${id.level}/${id.index}`));
}

/** Creates the tables, or migrates them to PG_SCHEMA_VERSION; refuses a later version. */
async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS log_schema_version (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM log_schema_version');
    const version = rows[0]?.version ?? 0;
    if (version > PG_SCHEMA_VERSION)
      throw new LogError('corrupt', `the database has log schema version ${version}; this code reads version ${PG_SCHEMA_VERSION}`);
    for (let v = version; v < PG_SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!);
    if (rows.length === 0) await client.query('INSERT INTO log_schema_version (version) VALUES ($1)', [PG_SCHEMA_VERSION]);
    else if (version !== PG_SCHEMA_VERSION) await client.query('UPDATE log_schema_version SET version = $1', [PG_SCHEMA_VERSION]);
    await client.query('COMMIT');
    client.release();
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(true);
    throw err;
  }
}

/** The pieces of a head the compare-and-swap compares: the tree it signs. */
const same = (a: StoredHead | null, b: StoredHead | null): boolean =>
  a === null || b === null ? a === b : a.treeSize === b.treeSize && a.rootHash === b.rootHash;

export class PgStore implements LogStore {
  /**
   * The heads the database may hold as far as this store knows: the one it read or committed
   * last, and after a commit whose outcome is unknown (it failed, perhaps after landing), also
   * that commit's head. A commit swaps the head only from one of these.
   */
  private expected: (StoredHead | null)[];

  private constructor(
    private readonly pool: pg.Pool,
    head: StoredHead | null,
  ) {
    this.expected = [head];
  }

  /** Connects to the database at `url` (postgres://user@host/db), creating or migrating its tables. */
  static async open(url: string): Promise<PgStore> {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    // A connection that breaks (the server restarted) between two queries must not throw in
    // the process: the pool drops an idle one, and the next query on a checked-out one fails.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    try {
      await migrate(pool);
      return new PgStore(pool, await readHead(pool));
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  readHead(): Promise<StoredHead | null> {
    return readHead(this.pool);
  }

  readEntries(from: number, count: number): Promise<string[]> {
    return readEntries(this.pool, from, count);
  }

  getTiles(ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
    return getTiles(this.pool, ids);
  }

  /** Reads inside one REPEATABLE READ transaction: what later commits write is not seen. */
  async snapshot(): Promise<LogSnapshot> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // The snapshot is taken at the transaction's first query: now, not at the first read.
      await client.query('SELECT 1');
    } catch (err) {
      client.release(true);
      throw err;
    }
    const reader: LogReader = {
      readHead: () => readHead(client),
      readEntries: (from, count) => readEntries(client, from, count),
      getTiles: (ids) => getTiles(client, ids),
    };
    let closed = false;
    return {
      ...reader,
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await client.query('ROLLBACK');
          client.release();
        } catch (err) {
          client.release(true);
          throw err;
        }
      },
    };
  }

  async commit(batch: CommitBatch): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // The head first: the row lock it takes orders concurrent writers, and a fenced commit
      // stops before writing anything else.
      if (!(await this.swapHead(client, batch.head)))
        throw new LogError(
          'fenced',
          `the log's head in the database is not the one this store last saw (size ${this.expected[0]?.treeSize ?? 'none'}): another writer moved it`,
        );
      if (batch.entries.length === 0) await deleteBeyond(client, batch.head.treeSize);
      else {
        // No row is beyond the head (a transaction lands whole, and a roll-back deletes what a
        // landed but unacknowledged one wrote): a seq already there is an error, never replaced.
        await client.query('INSERT INTO log_entries (seq, record) SELECT * FROM unnest($1::bigint[], $2::text[])', [
          batch.entries.map((_, i) => batch.first + i),
          batch.entries,
        ]);
      }
      if (batch.tiles.length > 0) {
        // One multi-row statement; the tiles' bytes go as binary parameters.
        const rows = batch.tiles.map((_, i) => `($${3 * i + 1}::smallint, $${3 * i + 2}::bigint, $${3 * i + 3}::bytea)`);
        await client.query(
          `INSERT INTO log_tiles (level, idx, bytes) VALUES ${rows.join(', ')} ON CONFLICT (level, idx) DO UPDATE SET bytes = EXCLUDED.bytes`,
          batch.tiles.flatMap((t) => [t.id.level, t.id.index, Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength)]),
        );
      }
      // synchronous_commit (on by default): COMMIT returns once the transaction is durable.
      await client.query('COMMIT');
      client.release();
    } catch (err) {
      // The transaction is rolled back, unless COMMIT was sent and the answer lost: then the
      // database holds the previous head or this one, and nothing else.
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      if (!(err instanceof LogError && err.code === 'fenced'))
        this.expected = [...this.expected.filter((h) => !same(h, batch.head)), batch.head];
      throw err;
    }
    this.expected = [batch.head];
  }

  /** Advances the head row from one of the expected heads to `head`; false if it holds none of them. */
  private async swapHead(client: pg.PoolClient, head: StoredHead): Promise<boolean> {
    const values = [head.treeSize, head.rootHash, head.timestamp, head.signature, head.checkpoint];
    if (this.expected.includes(null)) {
      const r = await client.query(
        'INSERT INTO log_head (tree_size, root_hash, ts, signature, checkpoint) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (one) DO NOTHING',
        values,
      );
      if (r.rowCount === 1) return true;
    }
    const known = this.expected.filter((h): h is StoredHead => h !== null);
    if (known.length === 0) return false;
    const r = await client.query(
      `UPDATE log_head SET tree_size = $1, root_hash = $2, ts = $3, signature = $4, checkpoint = $5
       WHERE (tree_size, root_hash) IN (SELECT * FROM unnest($6::bigint[], $7::text[]))`,
      [...values, known.map((h) => h.treeSize), known.map((h) => h.rootHash)],
    );
    return r.rowCount === 1;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * Deletes what lies beyond a head of `size` entries: entries from `size` on, and on each tile
 * level the tiles after the one holding the last node at that size (the roll-back batch
 * rewrites that one whole).
 */
async function deleteBeyond(client: pg.PoolClient, size: number): Promise<void> {
  await client.query('DELETE FROM log_entries WHERE seq >= $1', [size]);
  const levels: number[] = [];
  const lasts: number[] = [];
  // Tree levels are below 64, so tile levels below 8.
  for (let level = 0; level < 8; level++) {
    const nodes = Math.floor(size / 2 ** (8 * level));
    levels.push(level);
    lasts.push(nodes === 0 ? -1 : Math.floor((nodes - 1) / TILE_WIDTH));
  }
  await client.query(
    'DELETE FROM log_tiles t USING unnest($1::smallint[], $2::bigint[]) AS k(level, last) WHERE t.level = k.level AND t.idx > k.last',
    [levels, lasts],
  );
}
