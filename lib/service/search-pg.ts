// The search index in PostgreSQL's full-text search (docs/api.md#search), in the database that
// holds the log: every node reads it, the node that leads writes it (docs/deploy.md).
import type pg from 'pg';
import { withoutPassword } from './deployment.js';
import {
  fold,
  KINDS,
  type Candidate,
  type IndexHead,
  type IndexedItem,
  type Kind,
  type SearchStore,
  type Tier,
  rankKey,
} from './search.js';

/** The index's format: an index of another is built anew. */
export const PG_SEARCH_FORMAT = 'archive-search-pg/1';

/** The advisory lock taken while the tables are made (any fixed number). */
const SCHEMA_LOCK = 0x736561726368; // 'search'

const WEIGHTS = { a: 'A', ab: 'AB', abc: 'ABC' } as const;

/** A tsquery for the words (letters and digits only: never an operator) in `columns`, as a phrase or each. */
function queryOf(words: readonly string[], t: Pick<Tier, 'columns' | 'phrase'>): string {
  const w = WEIGHTS[t.columns];
  return `(${words.map((x) => `${x}:${w}`).join(t.phrase ? ' <-> ' : ' & ')})`;
}

/** The tsquery of tier `t` (its items, less those of the tiers it leaves out). */
export function tierQuery(words: readonly string[], t: Tier, tiers: readonly Tier[]): string {
  return [queryOf(words, t), ...t.not.map((j) => `!${queryOf(words, tiers[j]!)}`)].join(' & ');
}

export class PgSearch implements SearchStore {
  private pool: pg.Pool | null = null;

  constructor(
    private readonly url: string,
    private readonly tiers: readonly Tier[],
  ) {}

  get where(): string {
    return `${withoutPassword(this.url)} (tables search_items, search_head)`;
  }

  private get db(): pg.Pool {
    if (this.pool === null) throw new Error(`the search index in ${this.where} is not open`);
    return this.pool;
  }

  /** Once made, the same promise: a bring-up that starts while another opens the store waits for its tables. */
  private opening: Promise<void> | null = null;

  open(): Promise<void> {
    this.opening ??= this.make();
    return this.opening;
  }

  private async make(): Promise<void> {
    // pg is loaded when a search index in PostgreSQL is opened: a deployment on LevelDB never loads it.
    const { Pool } = (await import('pg')).default;
    const pool = new Pool({ connectionString: this.url, max: 4 });
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    this.pool = pool;
    await this.transaction(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await c.query(`CREATE TABLE IF NOT EXISTS search_head (
        one boolean PRIMARY KEY DEFAULT true CHECK (one), format text NOT NULL, tree_size bigint, root_hash text)`);
      await c.query(`CREATE TABLE IF NOT EXISTS search_items (
        rank bigint NOT NULL, key text NOT NULL, kind smallint NOT NULL, seq bigint NOT NULL, until bigint,
        words tsvector NOT NULL, PRIMARY KEY (rank, key))`);
      await c.query('CREATE INDEX IF NOT EXISTS search_items_words ON search_items USING gin (words)');
      await c.query('CREATE INDEX IF NOT EXISTS search_items_key ON search_items (key, rank)');
      await c.query('INSERT INTO search_head (format) VALUES ($1) ON CONFLICT DO NOTHING', [PG_SEARCH_FORMAT]);
    });
  }

  private async transaction<T>(f: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.db.connect();
    try {
      await c.query('BEGIN');
      const r = await f(c);
      await c.query('COMMIT');
      return r;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  async head(): Promise<{ head: IndexHead | null; problem: string | null }> {
    const { rows } = await this.db.query<{ format: string; tree_size: string | null; root_hash: string | null }>(
      'SELECT format, tree_size, root_hash FROM search_head',
    );
    const r = rows[0];
    if (r === undefined || r.format !== PG_SEARCH_FORMAT)
      return { head: null, problem: `it is of format ${r?.format ?? 'none'}, not ${PG_SEARCH_FORMAT}` };
    if (r.tree_size === null || r.root_hash === null) return { head: null, problem: null };
    return { head: { treeSize: Number(r.tree_size), rootHash: r.root_hash }, problem: null };
  }

  async clear(): Promise<void> {
    await this.transaction(async (c) => {
      await c.query('TRUNCATE search_items');
      await c.query('UPDATE search_head SET format = $1, tree_size = NULL, root_hash = NULL', [PG_SEARCH_FORMAT]);
    });
  }

  async write(items: readonly IndexedItem[], head: IndexHead): Promise<void> {
    await this.transaction(async (c) => {
      // The latest version of each item named, if any: an item written already (by a node that
      // led before) is passed over; a new version of one (an amended claim) ends the one before.
      const { rows } = await c.query<{ key: string; rank: string; seq: string }>(
        'SELECT DISTINCT ON (key) key, rank, seq FROM search_items WHERE key = ANY($1) ORDER BY key, rank DESC',
        [[...new Set(items.map((it) => it.key))]],
      );
      const latest = new Map(rows.map((r) => [r.key, { rank: BigInt(r.rank), seq: Number(r.seq) }]));
      const fresh: IndexedItem[] = [];
      const ranks: bigint[] = [];
      const ended: { rank: bigint; key: string; seq: number }[] = [];
      for (const it of items) {
        const was = latest.get(it.key);
        if (was !== undefined && was.seq >= it.seq) continue;
        const rank = was === undefined ? rankKey(it.key) : was.rank + 1n;
        if (was !== undefined) ended.push({ rank: was.rank, key: it.key, seq: it.seq });
        fresh.push(it);
        ranks.push(rank);
        latest.set(it.key, { rank, seq: it.seq });
      }
      if (ended.length > 0)
        await c.query(
          'UPDATE search_items s SET until = u.s FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS u(r, k, s) WHERE s.rank = u.r ' +
            'AND s.key = u.k',
          [ended.map((e) => e.rank.toString()), ended.map((e) => e.key), ended.map((e) => e.seq)],
        );
      await this.insert(c, fresh, ranks);
      if (head.treeSize > 0)
        await c.query('UPDATE search_head SET tree_size = $1, root_hash = $2 WHERE tree_size IS NULL OR tree_size < $1', [
          head.treeSize,
          head.rootHash,
        ]);
    });
  }

  private async insert(c: pg.PoolClient, items: readonly IndexedItem[], ranks: bigint[]): Promise<void> {
    if (items.length === 0) return;
    await c.query(
      `INSERT INTO search_items (rank, key, kind, seq, until, words)
       SELECT r, k, kd, s, NULL,
         setweight(to_tsvector('english', a), 'A') || setweight(to_tsvector('english', b), 'B')
           || setweight(to_tsvector('english', cc), 'C')
       FROM unnest($1::bigint[], $2::text[], $3::smallint[], $4::bigint[], $5::text[], $6::text[], $7::text[]) AS x(r, k, kd, s, a, b, cc)
       ON CONFLICT (rank, key) DO NOTHING`,
      [
        ranks.map(String),
        items.map((it) => it.key),
        items.map((it) => KINDS.indexOf(it.kind)),
        items.map((it) => it.seq),
        items.map((it) => fold(it.text[0])),
        items.map((it) => fold(it.text[1])),
        items.map((it) => fold(it.text[2])),
      ],
    );
  }

  async candidates(
    words: readonly string[],
    tier: Tier,
    at: { treeSize: number; kind?: Kind },
    after: bigint,
    n: number,
  ): Promise<Candidate[]> {
    const args: unknown[] = [tierQuery(words, tier, this.tiers), after.toString(), at.treeSize, n];
    if (at.kind !== undefined) args.push(KINDS.indexOf(at.kind));
    const { rows } = await this.db.query<{ rank: string; key: string; kind: number }>(
      `SELECT rank, key, kind FROM search_items
       WHERE words @@ to_tsquery('english', $1) AND rank > $2 AND seq < $3 AND (until IS NULL OR until >= $3)
         ${at.kind === undefined ? '' : 'AND kind = $5'}
       ORDER BY rank, key LIMIT $4`,
      args,
    );
    return rows.map((r) => ({ rank: BigInt(r.rank), key: r.key, kind: KINDS[r.kind]! }));
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    this.opening = null;
    await p?.end();
  }
}
