// The SQLite search index's table of first columns (lib/service/search-sqlite.ts, docs/api.md#search): the tiers of the first
// column read it; an index of the format before it is brought to this one in place, the table filled from the index's texts
// while writes land, and every tier answers the same before, while and after it is filled.
import t from 'tap';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { TIERS, type IndexedItem, type Tier } from '../../lib/service/search.js';
import { BEFORE_FIRSTS, SQLITE_SEARCH_FORMAT, SqliteSearch } from '../../lib/service/search-sqlite.js';

const VOCABULARY = ['learning', 'rates', 'rate', 'plasma', 'turbulence', 'shear', 'sparse', 'probes', 'zebrafish', 'finds'];

/** `n` papers from `from`, of titles and abstracts drawn from VOCABULARY by a fixed rule. */
function items(from: number, n: number): IndexedItem[] {
  let x = from + 1;
  const word = () => VOCABULARY[Math.floor(((x = (x * 48271) % 2147483647) / 2147483647) * VOCABULARY.length)]!;
  return Array.from({ length: n }, (_, i) => ({
    key: `paper-${from + i}`,
    kind: 'paper',
    seq: from + i + 1,
    text: [`${word()} ${word()} ${word()}`, `${word()} ${word()} ${word()} ${word()}`, `${word()} ${word()}`] as [string, string, string],
  }));
}

const QUERIES = [['learning', 'rate'], ['plasma', 'turbulence'], ['sparse'], ['shear', 'probes'], ['rate', 'shear']];

/** Every candidate of every tier of every query (the tiers a search reads, each leaving out those before). */
async function all(store: SqliteSearch, treeSize: number): Promise<string[][]> {
  const out: string[][] = [];
  for (const words of QUERIES) {
    const used = TIERS.flatMap((tier, i) => (tier.phrase && words.length < 2 ? [] : [i]));
    for (const i of used) {
      const tier: Tier = { ...TIERS[i]!, not: TIERS[i]!.not.filter((j) => used.includes(j)) };
      out.push((await store.candidates(words, tier, { treeSize }, -1n, 1_000_000)).map((c) => `${c.rank} ${c.key}`));
    }
  }
  return out;
}

/** An index in `file`, open, with `writes` written in turn, each in one transaction, its head past its last entry. */
async function made(file: string, ...writes: IndexedItem[][]): Promise<SqliteSearch> {
  const store = new SqliteSearch(file, TIERS);
  await store.open();
  for (const w of writes) await store.write(w, { treeSize: Math.max(...w.map((it) => it.seq)) + 1, rootHash: 'a'.repeat(64) });
  return store;
}

/** Makes the index in `file` (closed) one of the format before the table of first columns. */
function former(file: string): void {
  const raw = new Database(file);
  raw.exec(`DROP TABLE firsts; UPDATE meta SET value = '${BEFORE_FIRSTS}' WHERE name = 'format'`);
  raw.close();
}

/** New items, and new versions of some (each then ranked after the version it replaces): writes while the table is filled. */
const LATER = [...items(2500, 300), ...items(0, 50).map((it) => ({ ...it, seq: 3000 + it.seq }))];

t.test('an index of the format before the first columns is filled in place and answers the same throughout', async (t) => {
  const file = join(tempDir(t), 'search.sqlite');
  const first = await made(file, items(0, 2500));
  t.ok(first.firstsFull, 'a new index has the table full from the first write');
  const expected = await all(first, 10_000);
  t.ok(
    expected.every((c) => c.length > 0),
    `every tier finds items: ${expected.map((c) => c.length).join(' ')}`,
  );
  await first.close();
  former(file);

  const store = new SqliteSearch(file, TIERS);
  t.teardown(() => store.close());
  const lines: string[] = [];
  await store.open((l) => lines.push(l));
  t.equal((await store.head()).problem, null, 'the index is of this format once open');
  t.notOk(store.firstsFull, 'the table is being filled');
  t.same(await all(store, 10_000), expected, 'before any row is in it, the answers are the same');
  await new Promise((r) => setImmediate(r));
  t.notOk(store.firstsFull, 'a turn fills a part');
  await store.write(LATER, { treeSize: 3100, rootHash: 'b'.repeat(64) });
  await store.filled();
  t.ok(store.firstsFull, 'filled');
  t.match(lines, [
    /^archive: the search index .* is brought to format archive-search-sqlite\/3: its table of first columns is filled from its texts/,
    /^archive: the search index's table of first columns is filled: \d+ rows in [\d.]+ s$/,
  ]);
  const after = await all(store, 10_000);
  t.same(await all(store, 2501), expected, 'at the size before those writes, the answers of then');
  await store.close();

  // The same writes to an index of this format from its start.
  const fresh = await made(join(tempDir(t), 'search.sqlite'), items(0, 2500), LATER);
  t.teardown(() => fresh.close());
  t.same(after, await all(fresh, 10_000), 'filled while writes landed, it answers as an index that had the table from its start');

  const db = new Database(file, { readonly: true });
  t.teardown(() => db.close());
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  t.equal(count('firsts_docsize'), count('texts'), 'one row of first columns for each version, none twice');
  t.equal((db.prepare(`SELECT value FROM meta WHERE name = 'format'`).get() as { value: string }).value, SQLITE_SEARCH_FORMAT);
  t.equal(db.prepare(`SELECT value FROM meta WHERE name = 'firsts_to'`).get(), undefined, 'nothing left to fill');
});

t.test('an index closed while it is filled goes on from where it stood when opened again', async (t) => {
  const file = join(tempDir(t), 'search.sqlite');
  const first = await made(file, items(0, 3500));
  const expected = await all(first, 10_000);
  await first.close();
  former(file);

  const second = new SqliteSearch(file, TIERS);
  await second.open(() => undefined);
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  await second.close();
  const db = new Database(file, { readonly: true });
  const to = db.prepare(`SELECT value FROM meta WHERE name = 'firsts_to'`).get() as { value: string } | undefined;
  const rows = (db.prepare(`SELECT count(*) AS n FROM firsts_docsize`).get() as { n: number }).n;
  db.close();
  t.not(to, undefined, 'closed before it was full: where it stood is kept');
  t.ok(rows > 0 && rows < 3500, `part of the rows (${rows})`);

  const third = new SqliteSearch(file, TIERS);
  t.teardown(() => third.close());
  const lines: string[] = [];
  await third.open((l) => lines.push(l));
  await third.filled();
  t.ok(third.firstsFull);
  t.same(await all(third, 10_000), expected, 'the same answers');
  t.match(lines[1], new RegExp(`filled: ${3500 - rows} rows in`), 'the rows left, each once');
});

t.test('an index emptied while it is filled (to be built anew) stops filling and is whole from its first write', async (t) => {
  const file = join(tempDir(t), 'search.sqlite');
  await (await made(file, items(0, 2500))).close();
  former(file);

  const store = new SqliteSearch(file, TIERS);
  t.teardown(() => store.close());
  const lines: string[] = [];
  await store.open((l) => lines.push(l));
  await new Promise((r) => setImmediate(r));
  await store.clear();
  t.ok(store.firstsFull);
  await store.write(items(5000, 1000), { treeSize: 6001, rootHash: 'c'.repeat(64) });
  await store.filled();
  t.equal(lines.length, 1, 'the start of the filling said, and nothing of its end');
  const fresh = await made(join(tempDir(t), 'search.sqlite'), items(5000, 1000));
  t.teardown(() => fresh.close());
  t.same(await all(store, 10_000), await all(fresh, 10_000), 'it answers as an index made anew');
});

t.test(
  'an index the code before built anew over one of this format has a table of first columns it never wrote: filled afresh',
  async (t) => {
    // The code before does not know `firsts`: building anew, it drops its own tables and leaves this one as it was.
    const file = join(tempDir(t), 'search.sqlite');
    await (await made(file, items(5000, 1000))).close();
    former(file);
    const raw = new Database(file);
    raw.exec(`CREATE VIRTUAL TABLE firsts USING fts5 (a, content = ''); INSERT INTO firsts (rowid, a) VALUES (1, 'plasma turbulence')`);
    raw.close();

    const store = new SqliteSearch(file, TIERS);
    t.teardown(() => store.close());
    await store.open(() => {});
    await store.filled();
    const fresh = await made(join(tempDir(t), 'search.sqlite'), items(5000, 1000));
    t.teardown(() => fresh.close());
    t.same(await all(store, 10_000), await all(fresh, 10_000), 'it answers as an index made anew');
  },
);
