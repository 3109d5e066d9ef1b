// The search index in SQLite FTS5 (docs/api.md#search), in `<data>/search.sqlite` beside the
// LevelDB log: one contentless FTS5 table of the items' three columns, whose rowid is the item's
// rank key, so a tier is read in rank key order; another of their first column alone, which the
// tiers of the first column read; and each version's columns as written, for the snippets of a
// page (read from the log instead, a result costs a read of its entry's bundle).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Columns } from '../record/types/index.js';
import { KINDS, type Candidate, type IndexHead, type IndexedItem, type Kind, type SearchStore, type Tier, rankKey } from './search.js';

/** The index's format: an index of another is built anew, but for one of BEFORE_FIRSTS. */
export const SQLITE_SEARCH_FORMAT = 'archive-search-sqlite/3';

/**
 * The format before the table of first columns (`firsts`): brought to this one in place, the
 * table filled from `texts` (which hold every version's columns) FILL rows a turn while the index
 * serves; until it is full the tiers of the first column read `words`, as before, and answer the
 * same.
 */
export const BEFORE_FIRSTS = 'archive-search-sqlite/2';

/**
 * Rows of `texts` put in `firsts` a turn while it is filled: about 5 ms at ten million items (a
 * thousand held the bare route's reads 23 ms at p50 while it was filled).
 */
const FILL = 250;

/** Where a deployment on LevelDB keeps its search index. */
export const searchFile = (dataDir: string): string => join(dataDir, 'search.sqlite');

const TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** The table of first columns, as a new index makes it and as one of BEFORE_FIRSTS is given it. */
const CREATE_FIRSTS = `CREATE VIRTUAL TABLE firsts USING fts5 (a, content = '', tokenize = '${TOKENIZER}')`;

/**
 * The FTS5 tables: every column of each item version (`words`), and its first column alone
 * (`firsts`). A two-word phrase in the first column read from `words` (`{a} : "x y"`) decodes the
 * positions of both words in every column of every item that holds both: 150 to 300 ms for common
 * words at ten million items; from `firsts`, a fifth to a third of that (docs/benchmarks-history.md,
 * "The search's first column on its own").
 */
type Table = 'words' | 'firsts';

/**
 * An FTS5 expression for the words (letters and digits only: each a string, never an operator) in `columns`, as a phrase or
 * each; in the table `firsts`, which holds the first column alone, with no filter of columns.
 */
function matchOf(words: readonly string[], t: Pick<Tier, 'columns' | 'phrase'>, table: Table): string {
  const body = t.phrase ? `"${words.join(' ')}"` : `(${words.map((w) => `"${w}"`).join(' AND ')})`;
  return t.columns === 'abc' || table === 'firsts' ? body : `{${t.columns.split('').join(' ')}} : ${body}`;
}

/** The FTS5 expression of tier `t` (its items, less those of the tiers it leaves out) in `table`. */
export function tierMatch(words: readonly string[], t: Tier, tiers: readonly Tier[], table: Table = 'words'): string {
  return [`(${matchOf(words, t, table)})`, ...t.not.map((j) => `(${matchOf(words, tiers[j]!, table)})`)].join(' NOT ');
}

export class SqliteSearch implements SearchStore {
  private db: Database.Database | null = null;
  private statements: ReturnType<SqliteSearch['prepare']> | null = null;
  /** How far `firsts` is filled: null when it holds every row of `texts`, else the last rank key put in it (-1n: none). */
  private firstsTo: bigint | null = null;
  /** The filling of `firsts` under way, if any. */
  private filling: Promise<void> | null = null;
  /** Moved on by each `create`: a filling of the tables before stops. */
  private tables = 0;

  constructor(
    readonly file: string,
    private readonly tiers: readonly Tier[],
  ) {}

  get where(): string {
    return this.file;
  }

  async open(say: (line: string) => void = console.log): Promise<void> {
    if (this.db !== null) return;
    const db = new Database(this.file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    this.db = db;
    const format = db.prepare(`SELECT value FROM meta WHERE name = 'format'`).get() as { value: string } | undefined;
    if (format === undefined) this.create();
    else if (format.value === BEFORE_FIRSTS)
      db.transaction(() => {
        // The code before does not know the table: one it finds was left by an index of this format it built anew over.
        db.exec(`DROP TABLE IF EXISTS firsts; ${CREATE_FIRSTS}`);
        db.prepare(`INSERT INTO meta (name, value) VALUES ('firsts_to', '-1')`).run();
        db.prepare(`UPDATE meta SET value = ? WHERE name = 'format'`).run(SQLITE_SEARCH_FORMAT);
      })();
    const to = db.prepare(`SELECT value FROM meta WHERE name = 'firsts_to'`).get() as { value: string } | undefined;
    this.firstsTo = to === undefined ? null : BigInt(to.value);
    if (this.firstsTo !== null) {
      say(
        `archive: the search index ${this.file} is brought to format ${SQLITE_SEARCH_FORMAT}: its table of first columns is ` +
          `filled from its texts, ${FILL} a turn, while it answers searches as before`,
      );
      // A filling that fails (a full disk, say) leaves the searches reading `words`, as before, until the next start.
      this.filling = this.fill(db, say).catch((err: unknown) =>
        say(`archive: the search index's table of first columns was not filled (${String(err)}); searches read its other table`),
      );
    }
  }

  /** Fills `firsts` from `texts`, FILL rows a turn, until it holds every row or the index is closed or cleared. */
  private async fill(db: Database.Database, say: (line: string) => void): Promise<void> {
    const t0 = performance.now();
    const tables = this.tables;
    const going = () => this.db === db && this.tables === tables && this.firstsTo !== null;
    let n = 0;
    const rows = db.prepare(`SELECT rank, a FROM texts WHERE rank > ? ORDER BY rank LIMIT ${FILL}`).safeIntegers(true);
    const note = db.prepare(`UPDATE meta SET value = ? WHERE name = 'firsts_to'`);
    const done = db.prepare(`DELETE FROM meta WHERE name = 'firsts_to'`);
    const step = db.transaction(() => {
      const got = rows.all(this.firstsTo!) as { rank: bigint; a: string }[];
      for (const r of got) this.s.first.run(r.rank, r.a);
      n += got.length;
      if (got.length < FILL) {
        done.run();
        this.firstsTo = null;
      } else {
        this.firstsTo = got[got.length - 1]!.rank;
        note.run(String(this.firstsTo));
      }
    });
    while (going()) {
      await new Promise((r) => setImmediate(r));
      if (!going()) break;
      step();
    }
    if (this.db === db && this.tables === tables && this.firstsTo === null)
      say(`archive: the search index's table of first columns is filled: ${n} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }

  /** Makes the tables anew (dropping any of another format). */
  private create(): void {
    this.db!.exec(`
      DROP TABLE IF EXISTS items;
      DROP TABLE IF EXISTS words;
      DROP TABLE IF EXISTS firsts;
      DROP TABLE IF EXISTS texts;
      DELETE FROM meta;
      CREATE TABLE items (rank INTEGER PRIMARY KEY, key TEXT NOT NULL, kind INTEGER NOT NULL, seq INTEGER NOT NULL, until INTEGER);
      CREATE INDEX items_key ON items (key, rank);
      CREATE TABLE texts (rank INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL, c TEXT NOT NULL);
      CREATE VIRTUAL TABLE words USING fts5 (a, b, c, content = '', tokenize = '${TOKENIZER}');
      ${CREATE_FIRSTS};
    `);
    this.db!.prepare(`INSERT INTO meta (name, value) VALUES ('format', ?)`).run(SQLITE_SEARCH_FORMAT);
    this.firstsTo = null;
    this.tables++;
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
      first: db.prepare(`INSERT INTO firsts (rowid, a) VALUES (?, ?)`),
      text: db.prepare(`INSERT INTO texts (rank, a, b, c) VALUES (?, ?, ?, ?)`),
      texts: db.prepare(`SELECT a, b, c FROM texts WHERE rank = ?`),
      find: (table: Table, kind: boolean) =>
        db
          .prepare(
            `SELECT i.rank AS rank, i.key AS key, i.kind AS kind FROM ${table} w JOIN items i ON i.rank = w.rowid
             WHERE ${table} MATCH ? AND w.rowid > ? AND i.seq < ? AND (i.until IS NULL OR i.until >= ?)${kind ? ' AND i.kind = ?' : ''}
             ORDER BY w.rowid LIMIT ?`,
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
    this.filling = null;
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
        // While `firsts` is filled, a row past where it stands is put in it from `texts` when the filling gets there.
        if (this.firstsTo === null || rank <= this.firstsTo) s.first.run(rank, it.text[0]);
        s.text.run(rank, it.text[0], it.text[1], it.text[2]);
      }
      if (head.treeSize > 0) {
        s.setMeta.run('tree_size', String(head.treeSize));
        s.setMeta.run('root_hash', head.rootHash);
      }
    })();
  }

  private finders = new Map<string, Database.Statement>();

  async candidates(
    words: readonly string[],
    tier: Tier,
    at: { treeSize: number; kind?: Kind },
    after: bigint,
    n: number,
  ): Promise<Candidate[]> {
    const byKind = at.kind !== undefined;
    // A tier of the first column, and of first columns only where it leaves tiers out, reads `firsts` once it is full.
    const firsts = this.firstsTo === null && [tier, ...tier.not.map((j) => this.tiers[j]!)].every((x) => x.columns === 'a');
    const table = firsts ? 'firsts' : 'words';
    let st = this.finders.get(`${table} ${byKind}`);
    if (st === undefined) this.finders.set(`${table} ${byKind}`, (st = this.s.find(table, byKind)));
    const match = tierMatch(words, tier, this.tiers, table);
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
    const db = this.db;
    this.db = null;
    await this.filling;
    db?.close();
    this.statements = null;
    this.finders.clear();
  }

  /** Whether `firsts` holds every first column (tests; docs/api.md#search). */
  get firstsFull(): boolean {
    return this.firstsTo === null;
  }

  /** Until `firsts` is full (tests). */
  async filled(): Promise<void> {
    await this.filling;
  }
}
