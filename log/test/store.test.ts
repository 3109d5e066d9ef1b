import t, { type Test } from 'tap';
import { Level } from 'level';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { auditLog } from '../src/audit.js';
import { LevelStore, levelKeys } from '../src/level-store.js';
import { MemoryStore } from '../src/memory-store.js';
import { PgStore } from '../src/pg-store.js';
import { Sequencer } from '../src/sequencer.js';
import type { LogStore } from '../src/store.js';
import { startPostgres, testSigner } from '../src/testing.js';
import { tempDir } from './helpers/tmp.js';
import { storeConformance } from './store-conformance.js';
import { textLines } from '../src/framing.js';
import { bytes, twoLines } from './helpers/text.js';

const dirs = new WeakMap<LogStore, string>();

storeConformance(t, 'LevelStore', {
  async create(t) {
    const dir = join(tempDir(t), 'db');
    const store = await LevelStore.open(dir);
    dirs.set(store, dir);
    return store;
  },
  async reopen(_t, store) {
    const dir = dirs.get(store)!;
    await store.close();
    const again = await LevelStore.open(dir);
    dirs.set(again, dir);
    return again;
  },
});

// Framed as lines: each entry two lines of text, joined by newlines (an application's choice, framing.ts).
storeConformance(t, 'LevelStore (lines:2)', {
  async create(t) {
    const dir = join(tempDir(t), 'db');
    const store = await LevelStore.open(dir, { framing: textLines(2) });
    dirs.set(store, dir);
    return store;
  },
  async reopen(_t, store) {
    const dir = dirs.get(store)!;
    await store.close();
    const again = await LevelStore.open(dir);
    dirs.set(again, dir);
    return again;
  },
  entry: (seq) => bytes(`2026-01-01T00:00:00.000Z entry\n{"n":${seq}}`),
});

// One PostgreSQL server for this file, a new database for each test.
const server = await startPostgres(t);
const urls = new WeakMap<LogStore, string>();

storeConformance(t, 'PgStore', {
  async create() {
    const url = await server.createDatabase();
    const store = await PgStore.open(url);
    urls.set(store, url);
    return store;
  },
  async reopen(_t, store) {
    const url = urls.get(store)!;
    await store.close();
    const again = await PgStore.open(url);
    urls.set(again, url);
    return again;
  },
});

storeConformance(t, 'MemoryStore', {
  async create() {
    return new MemoryStore();
  },
  async reopen(_t, store) {
    // The memory store outlives its "process": reopening is reading the same maps.
    return (store as MemoryStore).reopen();
  },
});

t.test('MemoryStore: injected faults fail the commit before or after the write', async (t) => {
  const store = new MemoryStore();
  const batch = {
    first: 0,
    entries: [bytes('e')],
    tiles: [],
    head: { treeSize: 1, rootHash: '', timestamp: '', signature: '', checkpoint: '' },
  };
  store.injectFault('before-write');
  await t.rejects(store.commit(batch), /before write/);
  t.equal(await store.readHead(), null, 'nothing written');
  store.injectFault('after-write');
  await t.rejects(store.commit(batch), /after write/);
  t.equal((await store.readHead())?.treeSize, 1, 'written, acknowledgement lost');
});

// The LevelDB layout (docs/log-format.md, "How the service stores the log"): a commit writes
// only what is new. Measured on LevelDB's write-ahead log, which every write goes through first
// and which the 64 MiB memtable keeps in one file during these tests.

const ORIGIN = 'store.example/log';
const { signer, verify } = testSigner();
const clock = () => Date.parse('2026-11-22T09:00:00.000Z');
const record = (i: number) => `{"n":${i},"text":"${'entry text '.repeat(20)}${i}"}`;

/** Bytes in the store's write-ahead log files. */
function walBytes(dir: string): number {
  return readdirSync(dir)
    .filter((f) => /^\d+\.log$/.test(f))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

/** Appends entries [from, to) one commit each to both logs; returns the bytes of the records. */
async function appendEach(logs: Sequencer[], from: number, to: number): Promise<number> {
  let n = 0;
  for (let i = from; i < to; i++) {
    for (const log of logs) await log.append(bytes(record(i)));
    n += (await logs[0]!.records(i, 1))[0]!.bytes.length;
  }
  return n;
}

/** Checks `store` holds what `reference` holds: head, every entry, every tile of the tree. */
async function sameAs(t: Test, store: LogStore, reference: MemoryStore): Promise<void> {
  const head = (await store.readHead())!;
  t.same(head, await reference.readHead(), 'same head');
  for (const [from, count] of [
    [0, head.treeSize + 5],
    [1, 255],
    [250, 20],
    [head.treeSize - 3, 10],
  ] as const) {
    t.same(await store.readEntries(from, count), await reference.readEntries(from, count), `entries [${from}, ${from + count})`);
  }
  const ids = [...reference.tiles.keys()].map((k) => ({ level: Number(k.split('/')[0]), index: Number(k.split('/')[1]) }));
  t.same(
    (await store.getTiles(ids)).map((b) => Buffer.from(b!).toString('hex')),
    (await reference.getTiles(ids)).map((b) => Buffer.from(b!).toString('hex')),
    `all ${ids.length} tiles`,
  );
}

t.test('LevelStore: one entry per commit writes each record and hash once, not its bundle and tiles again', async (t) => {
  const dir = join(tempDir(t), 'db');
  const reference = new MemoryStore();
  const level = await Sequencer.open({ store: await LevelStore.open(dir), signer, origin: ORIGIN, clock });
  const memory = await Sequencer.open({ store: reference, signer, origin: ORIGIN, clock });
  const wal = walBytes(dir);
  // Across two bundles and two complete tiles of level 0, into the second tile of level 1.
  const recordBytes = await appendEach([level, memory], 0, 600);
  const head = JSON.stringify(await reference.readHead());
  // Each commit: its record, its head, a few new hashes and keys. Rewriting the bundle (about
  // 128 records a commit on average) or the tile (up to 16 KiB) would be tens of times more.
  const written = walBytes(dir) - wal;
  t.ok(
    written < 1.5 * (recordBytes + 600 * head.length),
    `${written} bytes written for ${recordBytes} bytes of records and 600 heads of ${head.length} bytes`,
  );
  await level.close();
  const store = await LevelStore.open(dir);
  await sameAs(t, store, reference);
  const report = await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey, page: 100 });
  t.same(report, { intact: true, problem: null, treeSize: 600 });
  // The reopened log continues from its growing tiles.
  const again = await Sequencer.open({ store, signer, origin: ORIGIN, clock });
  await appendEach([again, memory], 600, 700);
  await sameAs(t, store, reference);
  await again.close();
});

t.test('LevelStore: a store in the old layout (partial bundle and tiles rewritten whole) opens and continues', async (t) => {
  const dir = join(tempDir(t), 'db');
  // 300 entries in commits of up to 7, laid out as the old code did: every bundle whole under its
  // 9-byte key (the last one partial), every tile whole (the growing ones partial), the head.
  // Its entries were two lines each, the only framing it knew (framing.ts, textLines).
  const reference = new MemoryStore();
  const memory = await Sequencer.open({ store: reference, signer, origin: ORIGIN, clock, maxBatch: 7, codec: twoLines });
  await Promise.all(Array.from({ length: 300 }, (_, i) => memory.append(bytes(record(i)))));
  const old = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const records = await reference.readEntries(0, 300);
  for (let b = 0; b * 256 < 300; b++)
    await old.put(
      levelKeys.bundle(b),
      Buffer.from(
        records
          .slice(b * 256, b * 256 + 256)
          .map((r) => Buffer.from(r).toString())
          .join('\n'),
      ),
    );
  for (const [k, bytes] of reference.tiles) {
    const [lvl, index] = k.split('/').map(Number);
    await old.put(levelKeys.tile({ level: lvl!, index: index! }), Buffer.from(bytes));
  }
  await old.put(levelKeys.head, Buffer.from(JSON.stringify(await reference.readHead())));
  await old.close();

  let store = await LevelStore.open(dir);
  await sameAs(t, store, reference);
  t.equal((await store.raw.get(levelKeys.version))?.toString(), '2', 'the store now records its layout version');
  t.equal(store.framing.name, 'lines:2', 'and reads its entries as the two lines they were');
  const log = await Sequencer.open({ store, signer, origin: ORIGIN, clock, codec: twoLines });
  const wal = walBytes(dir);
  // On through the partial bundle and tile 0/1 to the next ones, one entry per commit.
  const recordBytes = await appendEach([log, memory], 300, 600);
  const head = JSON.stringify(await reference.readHead());
  const written = walBytes(dir) - wal;
  t.ok(written < 1.5 * (recordBytes + 300 * head.length), `${written} bytes written for ${recordBytes} bytes of records and 300 heads`);
  await log.close();
  store = await LevelStore.open(dir);
  await sameAs(t, store, reference);
  t.same(await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey }), { intact: true, problem: null, treeSize: 600 });
  await store.close();
});

t.test('LevelStore: a store keeps the framing it was made with, and refuses another', async (t) => {
  const dir = join(tempDir(t), 'db');
  let store = await LevelStore.open(dir);
  t.equal(store.framing.name, 'uvarint', 'by default, length-prefixed');
  await store.close();
  await t.rejects(LevelStore.open(dir, { framing: textLines(2) }), {
    code: 'bad_argument',
    message: /frames its entries as uvarint, not lines:2/,
  });
  store = await LevelStore.open(dir);
  t.equal(store.framing.name, 'uvarint', 'opened without a framing: its own');
  await store.close();
  const lines = join(tempDir(t), 'db');
  store = await LevelStore.open(lines, { framing: textLines(2) });
  await store.close();
  store = await LevelStore.open(lines);
  t.equal(store.framing.name, 'lines:2');
  await store.close();
});

t.test('LevelStore: a store of a layout version this code does not know is refused', async (t) => {
  const dir = join(tempDir(t), 'db');
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.put(levelKeys.version, Buffer.from('3'));
  await db.close();
  await t.rejects(LevelStore.open(dir), { code: 'corrupt', message: /layout version 3/ });
  // Refused without being changed, and closed again: a second attempt gives the same answer.
  await t.rejects(LevelStore.open(dir), { code: 'corrupt' });
});
