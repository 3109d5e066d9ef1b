// The PostgreSQL LogStore, which many processes may share under a sequencer lease. Its tables, the commit by compare-and-swap
// of the head under the lease's epoch, and how a commit whose answer was lost is resolved: docs/log-format.md#on-postgresql;
// the contract it meets: docs/engine.md#the-store-contract and docs/engine.md#sharing-a-store.
import pg from 'pg';
import { LogError } from './errors.js';
import type {
  BlobStore,
  CommitBatch,
  Lease,
  LeaseHolder,
  LogReader,
  LogSnapshot,
  Membership,
  NodeSeen,
  SequencerLease,
  SharedStore,
  StoredHead,
} from './store.js';
import { TILE_WIDTH, type TileId } from './tiles.js';

/** The layout's version; MIGRATIONS[v] takes a database from version v to v + 1. */
export const PG_SCHEMA_VERSION = 3;
export const PG_MIGRATIONS: readonly string[] = [
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
  // Version 2: many processes on one database (the lease, its epoch on the head, the nodes,
  // blobs, notifications). gen_random_uuid() (PostgreSQL 13 on) draws from a strong source.
  `ALTER TABLE log_head ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
   CREATE TABLE log_lease (
     one boolean PRIMARY KEY DEFAULT true CHECK (one),
     epoch bigint NOT NULL,
     node text,
     url text,
     expires_at timestamptz NOT NULL,
     secret text NOT NULL
   );
   INSERT INTO log_lease (epoch, expires_at, secret)
     VALUES (0, to_timestamp(0), replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
   CREATE TABLE log_nodes (
     node text PRIMARY KEY,
     url text NOT NULL,
     role text NOT NULL,
     tree_size bigint NOT NULL,
     seen_at timestamptz NOT NULL
   );
   CREATE TABLE log_blobs (
     name text NOT NULL,
     part integer NOT NULL,
     tree_size bigint NOT NULL,
     bytes bytea NOT NULL,
     PRIMARY KEY (name, part)
   );
   CREATE FUNCTION log_head_notify() RETURNS trigger LANGUAGE plpgsql AS
     $$ BEGIN PERFORM pg_notify('archive_log_head', NEW.tree_size::text); RETURN NULL; END $$;
   CREATE TRIGGER log_head_notify AFTER INSERT OR UPDATE ON log_head FOR EACH ROW EXECUTE FUNCTION log_head_notify();
   CREATE FUNCTION log_lease_notify() RETURNS trigger LANGUAGE plpgsql AS
     $$ BEGIN PERFORM pg_notify('archive_log_lease', NEW.epoch::text); RETURN NULL; END $$;
   CREATE TRIGGER log_lease_notify AFTER UPDATE ON log_lease FOR EACH ROW
     WHEN (OLD.epoch IS DISTINCT FROM NEW.epoch OR OLD.node IS DISTINCT FROM NEW.node) EXECUTE FUNCTION log_lease_notify();`,
  // Version 3: stored entries are the application's bytes (codec.ts), not text; a version-2
  // record's text becomes its UTF-8 bytes, the same bytes.
  `ALTER TABLE log_entries ALTER COLUMN record TYPE bytea USING convert_to(record, 'UTF8');`,
];
/** The notification channels of a new head and of a lease that changed hands. */
const HEAD_CHANNEL = 'archive_log_head';
const LEASE_CHANNEL = 'archive_log_lease';
/** A blob is kept in parts of at most this many bytes (a bytea holds up to 1 GiB; parts keep each statement small). */
const BLOB_PART = 8 * 2 ** 20;

/**
 * The parts a blob is kept in: BLOB_PART bytes each but the last (one empty part for no bytes), across the chunks given; a
 * part within one chunk is a view of it, not a copy.
 */
function* blobParts(bytes: Uint8Array | readonly Uint8Array[]): Generator<Buffer> {
  const joined = (slices: Buffer[]): Buffer => (slices.length === 1 ? slices[0]! : Buffer.concat(slices));
  const chunks = bytes instanceof Uint8Array ? [bytes] : bytes;
  let part: Buffer[] = [];
  let held = 0;
  let made = 0;
  for (const c of chunks)
    for (let at = 0; at < c.length;) {
      const take = Math.min(BLOB_PART - held, c.length - at);
      part.push(Buffer.from(c.buffer, c.byteOffset + at, take));
      held += take;
      at += take;
      if (held === BLOB_PART) {
        yield joined(part);
        made++;
        part = [];
        held = 0;
      }
    }
  if (held > 0 || made === 0) yield joined(part);
}
/** How long a commit whose answer was lost keeps asking whether it landed. */
const RESOLVE_MS = 5000;
/** The advisory lock taken while the schema is created or migrated (any fixed number). */
const MIGRATION_LOCK = 0x617263686976; // 'archiv'

/**
 * The commit of a batch on a head this store knows, in one statement (so one round trip, and
 * its own transaction: with synchronous_commit on, durable once answered). The head row is
 * swapped first: the other parts read its result, so they run after it and write nothing when
 * it swapped nothing (fenced, or the lease is another's). Its row lock orders concurrent
 * writers. No entry lies beyond the head (a transaction lands whole): a seq already there is an
 * error, never replaced. Tiles are written whole, replacing what is there.
 * $1..$5 the new head, $6 this store's epoch, $7 $8 the heads it may swap from (sizes, roots),
 * $9 the first seq, $10 the entries, $11..$13 the tiles (levels, indexes, bytes).
 */
const COMMIT_ONE = `WITH head AS (
    UPDATE log_head SET tree_size = $1, root_hash = $2, ts = $3, signature = $4, checkpoint = $5
    WHERE epoch = $6 AND (tree_size, root_hash) IN (SELECT * FROM unnest($7::bigint[], $8::text[]))
    RETURNING 1
  ), entries AS (
    INSERT INTO log_entries (seq, record)
    SELECT $9::bigint + i - 1, r FROM unnest($10::bytea[]) WITH ORDINALITY AS e(r, i) WHERE EXISTS (SELECT FROM head)
  ), tiles AS (
    INSERT INTO log_tiles (level, idx, bytes)
    SELECT * FROM unnest($11::smallint[], $12::bigint[], $13::bytea[]) WHERE EXISTS (SELECT FROM head)
    ON CONFLICT (level, idx) DO UPDATE SET bytes = EXCLUDED.bytes
  )
  SELECT count(*)::int AS swapped FROM head`;

/** The type of bytea, as PostgreSQL's binary array format names an element type. */
const BYTEA = 17;

/**
 * A one-dimensional array of byte strings in PostgreSQL's binary format (what array_send writes):
 * given as a Buffer, pg sends it as a binary parameter, about half the bytes of the hex text a
 * JavaScript array of Buffers becomes, and nothing for either side to escape or parse.
 */
function binaryArray(elementType: number, items: readonly Uint8Array[]): Buffer {
  const header = items.length === 0 ? 12 : 20;
  let size = header;
  for (const it of items) size += 4 + it.byteLength;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(items.length === 0 ? 0 : 1, 0); // dimensions
  out.writeInt32BE(0, 4); // no nulls
  out.writeUInt32BE(elementType, 8);
  if (items.length > 0) {
    out.writeInt32BE(items.length, 12);
    out.writeInt32BE(1, 16); // lower bound
  }
  let at = header;
  for (const it of items) {
    out.writeInt32BE(it.byteLength, at);
    out.set(it, at + 4);
    at += 4 + it.byteLength;
  }
  return out;
}

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

async function readEntries(db: Queryable, from: number, count: number): Promise<Uint8Array[]> {
  if (count <= 0) return [];
  const { rows } = await db.query<{ seq: string; record: Buffer }>(
    'SELECT seq, record FROM log_entries WHERE seq >= $1 AND seq < $2 ORDER BY seq',
    [from, from + count],
  );
  const out: Uint8Array[] = [];
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
    'SELECT t.level, t.idx, t.bytes FROM log_tiles t JOIN unnest($1::smallint[], $2::bigint[]) AS k(level, idx) ON t.level = k.level ' +
      'AND t.idx = k.idx',
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
    for (let v = version; v < PG_SCHEMA_VERSION; v++) await client.query(PG_MIGRATIONS[v]!);
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

/** An error the server sent (a refused statement): the transaction is rolled back, not lost in transit. */
const fromServer = (err: unknown): boolean => err instanceof pg.DatabaseError;

export class PgStore implements SharedStore {
  readonly shared = true;
  /** The sequencer lease (store.ts): its row in log_lease, and the epoch on the head row. */
  readonly lease: SequencerLease = {
    acquire: (me, ms) => this.acquireLease(me, ms),
    renew: (ms) => this.renewLease(ms),
    release: () => this.releaseLease(),
    read: () => this.readLease(),
  };
  /** Values kept beside the log (table log_blobs), such as an application's snapshot. */
  readonly blobs: BlobStore = {
    put: (name, treeSize, bytes) => this.putBlob(name, treeSize, bytes),
    get: (name) => this.getBlob(name),
  };
  /** The processes sharing the database (table log_nodes) and the secret made with it. */
  readonly members: Membership;
  /**
   * The heads the database may hold as far as this store knows: the one it read or committed
   * last, and after a commit whose outcome is unknown (it failed, perhaps after landing), also
   * that commit's head. A commit swaps the head only from one of these.
   */
  private expected: (StoredHead | null)[];
  /** The lease epoch this store commits under: the one it read on opening, or the one it took. */
  private epoch: number;
  /** Its holder's id while this store holds the lease. */
  private holder: string | null = null;
  /**
   * What a commit's transaction begins with: under a lease of L ms, the database ends the
   * session of a commit left idle inside its transaction for L / 2 (its process paused, say),
   * which releases the head row, so that another node can take the lease over.
   */
  private begin = 'BEGIN';
  /**
   * The connection the one-statement commits go on, kept from one to the next, so that a commit
   * is sent in the step the sequencer asks for it. Taking a connection from the pool answers a
   * tick later, after the work the last acknowledgements set off (the next appends, some
   * milliseconds of it), and the commit's round trip would wait for that work instead of
   * running beside it. Dropped when it fails or its connection ends; the next commit takes another.
   */
  private writer: pg.PoolClient | null = null;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    head: StoredHead | null,
    epoch: number,
    secret: string,
  ) {
    this.expected = [head];
    this.epoch = epoch;
    this.members = { secret, announce: (me) => this.announce(me), nodes: () => this.nodes() };
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
      const { rows } = await pool.query<{ epoch: string; secret: string }>('SELECT epoch, secret FROM log_lease');
      return new PgStore(pool, url, await readHead(pool), Number(rows[0]!.epoch), rows[0]!.secret);
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  readHead(): Promise<StoredHead | null> {
    return readHead(this.pool);
  }

  readEntries(from: number, count: number): Promise<Uint8Array[]> {
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
    // Once the commit is sent, a lost answer leaves the outcome unknown until it is asked for.
    let sent = false;
    try {
      // The common commit (entries on a head this store knows) is one statement, one round trip;
      // the first head and a roll-back are a transaction of a few.
      const swapped =
        batch.entries.length > 0 && !this.expected.includes(null)
          ? await this.commitOne(batch, () => (sent = true))
          : await this.commitSteps(batch, () => (sent = true));
      if (!swapped)
        throw new LogError(
          'fenced',
          `the log's head in the database is not the one this store last saw (size ${this.expected[0]?.treeSize ?? 'none'}), or the ` +
            `sequencer lease is not this store's (epoch ${this.epoch}): another writer moved it`,
        );
    } catch (err) {
      if (!sent || fromServer(err) || (err instanceof LogError && err.code === 'fenced')) throw err;
      const landed = await this.resolve(batch);
      if (landed === false) throw err;
      if (landed === null) {
        // The database holds the previous head or this one, and nothing else.
        this.expected = [...this.expected.filter((h) => !same(h, batch.head)), batch.head];
        throw new LogError(
          'unknown',
          `the database did not say whether the commit of size ${batch.head.treeSize} landed: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
    }
    this.expected = [batch.head];
  }

  /**
   * A commit as one statement, run on its own (its own transaction, durable when it returns):
   * the head swapped by compare-and-swap, and only if it was, the entries and tiles written.
   * The parameters that carry bytes go in PostgreSQL's binary array format. False when fenced
   * (nothing written).
   */
  private async commitOne(batch: CommitBatch, sending: () => void): Promise<boolean> {
    const { head } = batch;
    const known = this.expected as StoredHead[];
    // No await before the query when the connection is held (see `writer`).
    const client = this.writer ?? (await this.takeWriter());
    try {
      sending();
      const { rows } = await client.query<{ swapped: number }>({
        name: 'log_commit',
        text: COMMIT_ONE,
        values: [
          head.treeSize,
          head.rootHash,
          head.timestamp,
          head.signature,
          head.checkpoint,
          this.epoch,
          known.map((h) => h.treeSize),
          known.map((h) => h.rootHash),
          batch.first,
          binaryArray(BYTEA, batch.entries),
          batch.tiles.map((t) => t.id.level),
          batch.tiles.map((t) => t.id.index),
          binaryArray(
            BYTEA,
            batch.tiles.map((t) => t.bytes),
          ),
        ],
      });
      return rows[0]!.swapped === 1;
    } catch (err) {
      this.dropWriter(client);
      throw err;
    }
  }

  private async takeWriter(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    // Another commit took one meanwhile (the log sends one at a time; a store used otherwise may not).
    if (this.writer !== null) {
      client.release();
      return this.writer;
    }
    const drop = () => this.dropWriter(client);
    client.once('error', drop);
    client.once('end', drop);
    this.writer = client;
    return client;
  }

  /** Gives the commits' connection back to the pool to be closed (it failed, or the store closes). */
  private dropWriter(client: pg.PoolClient): void {
    if (this.writer !== client) return;
    this.writer = null;
    client.release(true);
  }

  /** A commit as a transaction of a few statements: the first head (none known yet), or a roll-back (no entries). */
  private async commitSteps(batch: CommitBatch, sending: () => void): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query(this.begin);
      // The head first: the row lock it takes orders concurrent writers, and a fenced commit
      // stops before writing anything else.
      if (!(await this.swapHead(client, batch.head))) {
        await client.query('ROLLBACK');
        client.release();
        return false;
      }
      if (batch.entries.length === 0) await deleteBeyond(client, batch.head.treeSize);
      else {
        // No row is beyond the head (a transaction lands whole): a seq already there is an
        // error, never replaced.
        await client.query(
          'INSERT INTO log_entries (seq, record) SELECT $1::bigint + i - 1, r FROM unnest($2::bytea[]) WITH ORDINALITY AS e(r, i)',
          [batch.first, binaryArray(BYTEA, batch.entries)],
        );
      }
      if (batch.tiles.length > 0) {
        await client.query(
          `INSERT INTO log_tiles (level, idx, bytes) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])
           ON CONFLICT (level, idx) DO UPDATE SET bytes = EXCLUDED.bytes`,
          [
            batch.tiles.map((t) => t.id.level),
            batch.tiles.map((t) => t.id.index),
            binaryArray(
              BYTEA,
              batch.tiles.map((t) => t.bytes),
            ),
          ],
        );
      }
      // synchronous_commit (on by default): COMMIT returns once the transaction is durable.
      sending();
      await client.query('COMMIT');
      client.release();
      return true;
    } catch (err) {
      // The transaction is rolled back, unless COMMIT was sent and the answer lost.
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw err;
    }
  }

  /**
   * Whether a commit whose answer was lost landed: true when the database holds its entries
   * (whatever came after), false when it holds others or none, null when it cannot be asked.
   * The head row's lock is taken first, so a transaction still finishing (its session not yet
   * ended) is waited for rather than read around.
   */
  private async resolve(batch: CommitBatch): Promise<boolean | null> {
    const until = Date.now() + RESOLVE_MS;
    for (;;) {
      let client: pg.PoolClient | null = null;
      try {
        client = await this.pool.connect();
        await client.query('BEGIN');
        await client.query("SET LOCAL lock_timeout = '1s'");
        const { rows } = await client.query<{ tree_size: string }>('SELECT tree_size FROM log_head FOR SHARE');
        const size = rows[0] === undefined ? 0 : Number(rows[0].tree_size);
        const n = batch.entries.length;
        const there = size < batch.first + n ? [] : await readEntries(client, batch.first, n);
        await client.query('COMMIT');
        client.release();
        if (n === 0) return size === batch.head.treeSize;
        return there.length === n && there.every((r, i) => Buffer.compare(r, batch.entries[i]!) === 0);
      } catch {
        client?.release(true);
        if (Date.now() >= until) return null;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** Advances the head row from one of the expected heads to `head`, under this store's epoch; false if it holds none of them. */
  private async swapHead(client: pg.PoolClient, head: StoredHead): Promise<boolean> {
    const values = [head.treeSize, head.rootHash, head.timestamp, head.signature, head.checkpoint, this.epoch];
    if (this.expected.includes(null)) {
      // The first head: written only while the lease's epoch is this store's (the lease row
      // locked against a taker until this transaction ends).
      const r = await client.query(
        `INSERT INTO log_head (tree_size, root_hash, ts, signature, checkpoint, epoch)
         SELECT $1, $2, $3, $4, $5, $6 FROM log_lease WHERE epoch = $6 FOR SHARE
         ON CONFLICT (one) DO NOTHING`,
        values,
      );
      if (r.rowCount === 1) return true;
    }
    const known = this.expected.filter((h): h is StoredHead => h !== null);
    if (known.length === 0) return false;
    const r = await client.query(
      `UPDATE log_head SET tree_size = $1, root_hash = $2, ts = $3, signature = $4, checkpoint = $5
       WHERE epoch = $6 AND (tree_size, root_hash) IN (SELECT * FROM unnest($7::bigint[], $8::text[]))`,
      [...values, known.map((h) => h.treeSize), known.map((h) => h.rootHash)],
    );
    return r.rowCount === 1;
  }

  private async acquireLease(me: LeaseHolder, ms: number): Promise<{ epoch: number; head: StoredHead | null } | null> {
    const client = await this.pool.connect();
    try {
      // A holder paused inside a commit holds the head row until its session ends: wait for that
      // at most the lease's length, then let the next step try again.
      await client.query(`BEGIN; SET LOCAL lock_timeout = ${Math.ceil(ms)}`);
      const { rows } = await client.query<{ epoch: string }>(
        `UPDATE log_lease SET epoch = epoch + 1, node = $1, url = $2, expires_at = clock_timestamp() + $3 * interval '1 millisecond'
         WHERE expires_at <= clock_timestamp() OR node IS NULL OR node = $1
         RETURNING epoch`,
        [me.node, me.url, ms],
      );
      if (rows[0] === undefined) {
        await client.query('ROLLBACK');
        client.release();
        return null;
      }
      const epoch = Number(rows[0].epoch);
      // Fences every earlier holder: this waits for a commit of theirs in progress (it holds
      // the head row), which is then in the head read next, or refused.
      await client.query('UPDATE log_head SET epoch = $1', [epoch]);
      const head = await readHead(client);
      await client.query('COMMIT');
      client.release();
      this.epoch = epoch;
      this.holder = me.node;
      this.expected = [head];
      this.begin = `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.ceil(ms / 2))}`;
      return { epoch, head };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw err;
    }
  }

  private async renewLease(ms: number): Promise<boolean> {
    if (this.holder === null) return false;
    // Renewed even past its expiry, as long as nobody took it meanwhile (the epoch is ours).
    const r = await this.pool.query(
      `UPDATE log_lease SET expires_at = clock_timestamp() + $2 * interval '1 millisecond' WHERE epoch = $1 AND node = $3`,
      [this.epoch, ms, this.holder],
    );
    if (r.rowCount === 1) return true;
    this.holder = null;
    return false;
  }

  private async releaseLease(): Promise<void> {
    const holder = this.holder;
    this.holder = null;
    const epoch = this.epoch;
    // No epoch is negative: nothing this store commits passes any more.
    this.epoch = -1;
    if (holder === null) return;
    await this.pool.query('UPDATE log_lease SET node = NULL, url = NULL, expires_at = to_timestamp(0) WHERE epoch = $1 AND node = $2', [
      epoch,
      holder,
    ]);
  }

  private async readLease(): Promise<Lease> {
    const { rows } = await this.pool.query<{ epoch: string; node: string | null; url: string | null; remaining: number }>(
      `SELECT epoch, node, url, greatest(0, extract(epoch FROM (expires_at - clock_timestamp())) * 1000)::float8 AS remaining ` +
        `FROM log_lease`,
    );
    const r = rows[0]!;
    return { epoch: Number(r.epoch), node: r.node, url: r.url, remainingMs: r.remaining };
  }

  watch(onChange: (what: 'head' | 'lease') => void): { close(): Promise<void> } {
    let client: pg.Client | null = null;
    let closed = false;
    let retry: NodeJS.Timeout | null = null;
    const connect = async (): Promise<void> => {
      retry = null;
      if (closed) return;
      const c = new pg.Client({ connectionString: this.url });
      client = c;
      const again = () => {
        if (client !== c) return;
        client = null;
        c.end().catch(() => undefined);
        if (!closed) retry = setTimeout(() => void connect(), 1000);
      };
      c.on('error', again);
      c.on('end', again);
      c.on('notification', (m) => onChange(m.channel === LEASE_CHANNEL ? 'lease' : 'head'));
      try {
        await c.connect();
        await c.query(`LISTEN ${HEAD_CHANNEL}`);
        await c.query(`LISTEN ${LEASE_CHANNEL}`);
        // What was committed while nobody listened.
        onChange('head');
        onChange('lease');
      } catch {
        again();
      }
    };
    void connect();
    return {
      close: async () => {
        closed = true;
        if (retry !== null) clearTimeout(retry);
        const c = client;
        client = null;
        await c?.end().catch(() => undefined);
      },
    };
  }

  private async announce(me: LeaseHolder & { role: string; treeSize: number }): Promise<void> {
    await this.pool.query(
      `INSERT INTO log_nodes (node, url, role, tree_size, seen_at) VALUES ($1, $2, $3, $4, clock_timestamp())
       ON CONFLICT (node) DO UPDATE
       SET url = EXCLUDED.url, role = EXCLUDED.role, tree_size = EXCLUDED.tree_size, seen_at = EXCLUDED.seen_at`,
      [me.node, me.url, me.role, me.treeSize],
    );
  }

  private async nodes(): Promise<NodeSeen[]> {
    const { rows } = await this.pool.query<{ node: string; url: string; role: string; tree_size: string; ago: number }>(
      `SELECT node, url, role, tree_size, (extract(epoch FROM (clock_timestamp() - seen_at)) * 1000)::float8 AS ago
       FROM log_nodes ORDER BY seen_at DESC`,
    );
    return rows.map((r) => ({ node: r.node, url: r.url, role: r.role, treeSize: Number(r.tree_size), seenMsAgo: r.ago }));
  }

  private async putBlob(name: string, treeSize: number, bytes: Uint8Array | readonly Uint8Array[]): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // One writer of a name at a time; the other waits, then finds what the first wrote.
      await client.query("SELECT pg_advisory_xact_lock(hashtext('archive-blob:' || $1))", [name]);
      const { rows } = await client.query<{ tree_size: string }>('SELECT tree_size FROM log_blobs WHERE name = $1 AND part = 0', [name]);
      if (rows[0] !== undefined && Number(rows[0].tree_size) > treeSize) {
        await client.query('ROLLBACK');
        client.release();
        return false;
      }
      await client.query('DELETE FROM log_blobs WHERE name = $1', [name]);
      let part = 0;
      for (const piece of blobParts(bytes)) {
        await client.query('INSERT INTO log_blobs (name, part, tree_size, bytes) VALUES ($1, $2, $3, $4)', [name, part++, treeSize, piece]);
      }
      await client.query('COMMIT');
      client.release();
      return true;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw err;
    }
  }

  private async getBlob(name: string): Promise<{ treeSize: number; bytes: Buffer } | null> {
    const { rows } = await this.pool.query<{ part: number; tree_size: string; bytes: Buffer }>(
      'SELECT part, tree_size, bytes FROM log_blobs WHERE name = $1 ORDER BY part',
      [name],
    );
    if (rows.length === 0) return null;
    if (rows.some((r, i) => r.part !== i)) throw new LogError('corrupt', `blob ${name}: a part is missing`);
    return { treeSize: Number(rows[0]!.tree_size), bytes: Buffer.concat(rows.map((r) => r.bytes)) };
  }

  close(): Promise<void> {
    if (this.writer !== null) this.dropWriter(this.writer);
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
