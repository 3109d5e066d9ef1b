// The search index in SQLite FTS5 (docs/api.md#search), in `<data>/search.sqlite` beside the
// LevelDB log: one contentless FTS5 table of the items' three columns, whose rowid is the item's
// rank key, so a tier is read in rank key order; and each version's columns as written, for the
// snippets of a page (read from the log instead, a result costs a read of its entry's bundle).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Columns } from '../record/types/index.js';
import { KINDS, type Candidate, type IndexHead, type IndexedItem, type Kind, type SearchStore, type Tier, rankKey } from './search.js';

/** The index's format: an index of another is built anew. */
export const SQLITE_SEARCH_FORMAT = 'archive-search-sqlite/2';

/** Where a deployment on LevelDB keeps its search index. */
export const searchFile = (dataDir: string): string => join(dataDir, 'search.sqlite');

const TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** An FTS5 expression for the words (letters and digits only: each a string, never an operator) in `columns`, as a phrase or each. */
function matchOf(words: readonly string[], t: Pick<Tier, 'columns' | 'phrase'>): string {
  const body = t.phrase ? `"${words.join(' ')}"` : `(${words.map((w) => `"${w}"`).join(' AND ')})`;
  return t.columns === 'abc' ? body : `{${t.columns.split('').join(' ')}} : ${body}`;
}

/** The FTS5 expression of tier `t` (its items, less those of the tiers it leaves out). */
export function tierMatch(words: readonly string[], t: Tier, tiers: readonly Tier[]): string {
  return [`(${matchOf(words, t)})`, ...t.not.map((j) => `(${matchOf(words, tiers[j]!)})`)].join(' NOT ');
}

export class SqliteSearch implements SearchStore {
  private db: Database.Database | null = null;
  private statements: ReturnType<SqliteSearch['prepare']> | null = null;

  constructor(
    readonly file: string,
    private readonly tiers: readonly Tier[],
  ) {}

  get where(): string {
    return this.file;
  }

  async open(): Promise<void> {
    if (this.db !== null) return;
    const db = new Database(this.file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    this.db = db;
    const format = db.prepare(`SELECT value FROM meta WHERE name = 'format'`).get() as { value: string } | undefined;
    if (format === undefined) this.create();
  }

  /** Makes the tables anew (dropping any of another format). */
  private create(): void {
    this.db!.exec(`
      DROP TABLE IF EXISTS items;
      DROP TABLE IF EXISTS words;
      DROP TABLE IF EXISTS texts;
      DELETE FROM meta;
      CREATE TABLE items (rank INTEGER PRIMARY KEY, key TEXT NOT NULL, kind INTEGER NOT NULL, seq INTEGER NOT NULL, until INTEGER);
      CREATE INDEX items_key ON items (key, rank);
      CREATE TABLE texts (rank INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL, c TEXT NOT NULL);
      CREATE VIRTUAL TABLE words USING fts5 (a, b, c, content = '', tokenize = '${TOKENIZER}');
    `);
    this.db!.prepare(`INSERT INTO meta (name, value) VALUES ('format', ?)`).run(SQLITE_SEARCH_FORMAT);
  }

  private prepare() {
    const db = this.db!;
    return {
      setMeta: db.prepare(`INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`),
      current: db.prepare(`SELECT rank FROM items WHERE key = ? AND until IS NULL ORDER BY rank DESC LIMIT 1`).safeIntegers(true),
      taken: db.prepare(`SELECT key FROM items WHERE rank = ?`),
      close: db.prepare(`UPDATE items SET until = ? WHERE rank = ?`),
      item: db.prepare(`INSERT INTO items (rank, key, kind, seq, until) VALUES (?, ?, ?, ?, NULL)`),
      words: db.prepare(`INSERT INTO words (rowid, a, b, c) VALUES (?, ?, ?, ?)`),
      text: db.prepare(`INSERT INTO texts (rank, a, b, c) VALUES (?, ?, ?, ?)`),
      texts: db.prepare(`SELECT a, b, c FROM texts WHERE rank = ?`),
      find: (kind: boolean) =>
        db
          .prepare(
            `SELECT i.rank AS rank, i.key AS key, i.kind AS kind FROM words JOIN items i ON i.rank = words.rowid
             WHERE words MATCH ? AND words.rowid > ? AND i.seq < ? AND (i.until IS NULL OR i.until >= ?)${kind ? ' AND i.kind = ?' : ''}
             ORDER BY words.rowid LIMIT ?`,
          )
          .safeIntegers(true),
    };
  }

  /** The statements, prepared at first use: those of an index of another format (its tables not these) are never prepared. */
  private get s() {
    if (this.db === null) throw new Error(`the search index ${this.file} is not open`);
    return (this.statements ??= this.prepare());
  }

  async head(): Promise<{ head: IndexHead | null; problem: string | null }> {
    if (this.db === null) throw new Error(`the search index ${this.file} is not open`);
    const meta = new Map(
      (this.db.prepare(`SELECT name, value FROM meta`).all() as { name: string; value: string }[]).map((r) => [r.name, r.value]),
    );
    if (meta.get('format') !== SQLITE_SEARCH_FORMAT)
      return { head: null, problem: `it is of format ${meta.get('format') ?? 'none'}, not ${SQLITE_SEARCH_FORMAT}` };
    const size = meta.get('tree_size');
    const root = meta.get('root_hash');
    if (size === undefined || root === undefined) return { head: null, problem: null };
    return { head: { treeSize: Number(size), rootHash: root }, problem: null };
  }

  async clear(): Promise<void> {
    this.db!.transaction(() => this.create())();
    this.statements = null;
    this.finders.clear();
  }

  async write(items: readonly IndexedItem[], head: IndexHead): Promise<void> {
    const s = this.s;
    this.db!.transaction(() => {
      for (const it of items) {
        // A new version of an item: the one it replaces ends at this entry; its rank key is the next one.
        const current = s.current.get(it.key) as { rank: bigint } | undefined;
        let rank: bigint;
        if (current !== undefined) {
          s.close.run(it.seq, current.rank);
          rank = current.rank + 1n;
        } else {
          rank = rankKey(it.key);
          // Two ids of one hash (one in about 10^17 pairs): the later goes to the next free key.
          while ((s.taken.get(rank) as { key: string } | undefined) !== undefined) rank += 1n << 7n;
        }
        s.item.run(rank, it.key, KINDS.indexOf(it.kind), it.seq);
        s.words.run(rank, it.text[0], it.text[1], it.text[2]);
        s.text.run(rank, it.text[0], it.text[1], it.text[2]);
      }
      if (head.treeSize > 0) {
        s.setMeta.run('tree_size', String(head.treeSize));
        s.setMeta.run('root_hash', head.rootHash);
      }
    })();
  }

  private finders = new Map<boolean, Database.Statement>();

  async candidates(
    words: readonly string[],
    tier: Tier,
    at: { treeSize: number; kind?: Kind },
    after: bigint,
    n: number,
  ): Promise<Candidate[]> {
    const byKind = at.kind !== undefined;
    let st = this.finders.get(byKind);
    if (st === undefined) this.finders.set(byKind, (st = this.s.find(byKind)));
    const match = tierMatch(words, tier, this.tiers);
    const args: unknown[] = [match, after, at.treeSize, at.treeSize];
    if (byKind) args.push(KINDS.indexOf(at.kind!));
    args.push(n);
    return (st.all(...args) as { rank: bigint; key: string; kind: bigint }[]).map((r) => ({
      rank: r.rank,
      key: r.key,
      kind: KINDS[Number(r.kind)]!,
    }));
  }

  async texts(ranks: readonly bigint[]): Promise<Map<bigint, Columns>> {
    const out = new Map<bigint, Columns>();
    for (const rank of ranks) {
      const r = this.s.texts.get(rank) as { a: string; b: string; c: string } | undefined;
      if (r !== undefined) out.set(rank, [r.a, r.b, r.c]);
    }
    return out;
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = null;
    this.statements = null;
    this.finders.clear();
  }
}
