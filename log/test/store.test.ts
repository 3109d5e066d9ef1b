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
import { batch, entry, head, storeConformance } from './store-conformance.js';
import { lengthPrefixed, textLines } from '../src/framing.js';
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

// Whole blocks (16 entries) lately read are kept, split (level-store.ts, BlockCache): reads give what is stored all the same.
const hexOf = (entries: Uint8Array[]): string[] => entries.map((e) => Buffer.from(e).toString('hex'));
const seqsOf = (from: number, to: number): string[] => hexOf(Array.from({ length: to - from }, (_, i) => entry(from + i)));
const BUNDLE = 0x62;

/** The first seq of each bundle piece stored in `dir`, in key order. */
async function pieceStarts(dir: string): Promise<number[]> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const keys = await db.keys({ gte: Buffer.from([BUNDLE]), lt: Buffer.from([BUNDLE + 1]) }).all();
  await db.close();
  return keys.map((k) => k.readUInt32BE(5) * 256 + (k.length === 10 ? k[9]! : 0));
}

t.test('LevelStore: a commit cuts its pieces at blocks of 16 entries, whatever its length', async (t) => {
  const dir = join(tempDir(t), 'db');
  const store = await LevelStore.open(dir);
  await store.commit(batch(0, 40));
  await store.commit(batch(40, 3));
  await store.commit(batch(43, 300));
  await store.close();
  const starts = [0, 16, 32, 40, 43, 48, ...Array.from({ length: 18 }, (_, i) => 64 + 16 * i)];
  t.same(await pieceStarts(dir), starts, 'a piece starts at each block and at each commit');
  const again = await LevelStore.open(dir);
  t.same(hexOf(await again.readEntries(0, 343)), seqsOf(0, 343), 'read back whole');
  await again.close();
});

t.test('LevelStore: entries of a store whose pieces cross blocks (written before pieces were cut at them)', async (t) => {
  const dir = join(tempDir(t), 'db');
  const store = await LevelStore.open(dir);
  await store.commit(batch(0, 300));
  await store.close();
  // Written again as the code before wrote them: bundle 0 in one piece, bundle 1 in pieces at 256 and 270.
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const key = levelKeys.bundle;
  const joined = (from: number, to: number) =>
    Buffer.from(lengthPrefixed.join(Array.from({ length: to - from }, (_, i) => entry(from + i))));
  const old = await db.keys({ gte: Buffer.from([BUNDLE]), lt: Buffer.from([BUNDLE + 1]) }).all();
  await db.batch([
    ...old.map((k) => ({ type: 'del' as const, key: k })),
    { type: 'put' as const, key: key(0, 0), value: joined(0, 256) },
    { type: 'put' as const, key: key(1, 0), value: joined(256, 270) },
    { type: 'put' as const, key: key(1, 14), value: joined(270, 300) },
  ]);
  await db.close();
  t.same(await pieceStarts(dir), [0, 256, 270]);
  const again = await LevelStore.open(dir);
  for (const [from, n] of [
    [7, 1],
    [130, 1],
    [255, 2],
    [269, 2],
    [280, 5],
    [299, 1],
  ] as const)
    t.same(hexOf(await again.readEntries(from, n)), seqsOf(from, from + n), `${n} from ${from}`);
  t.same(await again.readEntries(300, 1), [], 'none beyond the head');
  const { blocks, bytes: kept } = again.cached;
  const entryBytes = seqsOf(0, 300).reduce((n, h) => n + h.length / 2, 0) / 300;
  t.equal(blocks, 5, 'blocks 0, 8, 15, 16 and 17 kept; block 18 is partial');
  t.ok(kept < (blocks + 1) * 16 * entryBytes, `${kept} bytes kept for ${blocks} blocks: their own, not their pieces'`);
  t.same(hexOf(await again.readEntries(0, 300)), seqsOf(0, 300), 'all of it');
  await again.close();
});

t.test('LevelStore: one entry from the middle of a bundle, at the edge of a partial bundle, kept read or not', async (t) => {
  const store = await LevelStore.open(join(tempDir(t), 'db'));
  await store.commit(batch(0, 100));
  await store.commit(batch(100, 256));
  // Bundle 0 whole, bundle 1 of 100 entries (356 in all); block 6 (96 to 111) in two pieces, block 22 partial.
  t.same(store.cached, { blocks: 0, bytes: 0 });
  t.same(hexOf(await store.readEntries(128, 1)), seqsOf(128, 129), 'one entry from the middle of a bundle');
  t.equal(store.cached.blocks, 1, 'its whole block kept');
  t.same(hexOf(await store.readEntries(128, 1)), seqsOf(128, 129), 'the same entry again, from the block kept');
  t.same(hexOf(await store.readEntries(99, 2)), seqsOf(99, 101), 'across the two pieces of a block');
  t.equal(store.cached.blocks, 2);
  t.same(hexOf(await store.readEntries(355, 1)), seqsOf(355, 356), 'the last entry of the partial bundle');
  t.same(await store.readEntries(356, 1), [], 'none beyond it');
  t.same(hexOf(await store.readEntries(250, 200)), seqsOf(250, 356), 'from a whole block into the partial one, to its end');
  t.equal(store.cached.blocks, 9, 'blocks 15 to 21 kept too; the partial block not');
  // The partial bundle grows whole: read again, its blocks are read from the store, then kept.
  await store.commit(batch(356, 156));
  t.same(hexOf(await store.readEntries(300, 212)), seqsOf(300, 512), 'the bundle grown whole');
  t.same(hexOf(await store.readEntries(355, 2)), seqsOf(355, 357));
  t.equal(store.cached.blocks, 19, 'and now kept');
  t.same(hexOf(await store.readEntries(0, 600)), seqsOf(0, 512), 'a longer read gives what is stored');
  await store.close();
});

t.test('LevelStore: after a roll-back the entries read are the ones written again, not those kept before it', async (t) => {
  const store = await LevelStore.open(join(tempDir(t), 'db'));
  await store.commit(batch(0, 300));
  // A commit that landed although it was reported failed.
  await store.commit(batch(300, 300));
  t.same(hexOf(await store.readEntries(300, 1)), seqsOf(300, 301));
  t.same(hexOf(await store.readEntries(100, 1)), seqsOf(100, 101));
  t.equal(store.cached.blocks, 2, 'blocks 6 and 18 kept');
  // Truncated at recovery to 300 (a commit with no entries), then other entries written from 300 on.
  await store.commit({ first: 300, entries: [], tiles: [], head: head(300) });
  t.same(await store.readEntries(300, 1), [], 'nothing beyond the head read');
  const other = (seq: number) => bytes(`written again ${seq}`);
  await store.commit(batch(300, 300, [], 'cd', other));
  t.same(hexOf(await store.readEntries(300, 1)), hexOf([other(300)]), 'the entry written again');
  t.same(hexOf(await store.readEntries(511, 2)), hexOf([other(511), other(512)]));
  t.same(hexOf(await store.readEntries(299, 2)), hexOf([entry(299), other(300)]), 'the bundle that holds both');
  t.same(hexOf(await store.readEntries(100, 1)), seqsOf(100, 101), 'below the roll-back, as before');
  await store.close();
});

t.test("LevelStore: a roll-back to a head inside a stored piece keeps only the piece's entries below it", async (t) => {
  const store = await LevelStore.open(join(tempDir(t), 'db'), { cacheBytes: 0 });
  // One commit of 600 entries: pieces at 0, 256 and 512 (the one at 256 holds 256..511).
  await store.commit(batch(0, 600));
  await store.commit({ first: 300, entries: [], tiles: [], head: head(300) });
  t.same(hexOf(await store.readEntries(0, 1000)), seqsOf(0, 300), 'nothing beyond the head, though its piece held more');
  const other = (seq: number) => bytes(`written again ${seq}`);
  await store.commit(batch(300, 20, [], 'cd', other));
  t.same(hexOf(await store.readEntries(290, 100)), [...seqsOf(290, 300), ...hexOf(Array.from({ length: 20 }, (_, i) => other(300 + i)))]);
  await store.close();
});

t.test('LevelStore: a read begun before a roll-back keeps nothing of what it read', async (t) => {
  const store = await LevelStore.open(join(tempDir(t), 'db'));
  await store.commit(batch(0, 300));
  await store.commit(batch(300, 300));
  // The read begins (its LevelDB iterator made) before the roll-back's commit, and ends after it.
  const reading = store.readEntries(300, 1);
  const rolling = store.commit({ first: 300, entries: [], tiles: [], head: head(300) });
  const [read] = await Promise.all([reading, rolling]);
  t.same(hexOf(read), seqsOf(300, 301), 'it gives what was stored when it began');
  t.equal(store.cached.blocks, 0, 'and keeps none of it');
  const other = (seq: number) => bytes(`written again ${seq}`);
  await store.commit(batch(300, 300, [], 'cd', other));
  t.same(hexOf(await store.readEntries(300, 1)), hexOf([other(300)]), 'a later read gives the entry written again');
  await store.close();
});

t.test('LevelStore: short reads begun at once are read from LevelDB together, each given its own entries', async (t) => {
  const dir = join(tempDir(t), 'db');
  let store = await LevelStore.open(dir, { cacheBytes: 0 });
  await store.commit(batch(0, 256 * 8));
  // 100 reads of one to three entries, each in one block of its own, and one beyond the head: 101 keys.
  const asked = Array.from({ length: 100 }, (_, i) => ({ from: i * 16 + (i % 14), count: 1 + (i % 3) }));
  const before = store.readsTogether;
  const got = await Promise.all([...asked.map((a) => store.readEntries(a.from, a.count)), store.readEntries(256 * 8, 2)]);
  t.same(
    got.slice(0, 100).map(hexOf),
    asked.map((a) => seqsOf(a.from, Math.min(a.from + a.count, 256 * 8))),
    'each its own entries',
  );
  t.same(got[100], [], 'none beyond the head');
  t.equal(store.readsTogether - before, 2, 'in two reads: 64 keys at most in each');
  t.same(hexOf(await store.readEntries(5, 1)), seqsOf(5, 6), 'a read alone after them');
  t.equal(store.readsTogether - before, 3);
  // Closed before the reads begin: each of them fails, none is left waiting.
  const reads = [store.readEntries(16, 1), store.readEntries(32, 1)];
  const closing = store.close();
  const results = await Promise.allSettled(reads);
  await closing;
  t.same(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
    'reads of a store closing fail',
  );
  store = await LevelStore.open(dir, { cacheBytes: 0 });
  t.same(hexOf(await store.readEntries(16, 1)), seqsOf(16, 17), 'and read again once it is open');
  await store.close();
});

t.test('LevelStore: the blocks kept are bounded in bytes, the least recently read dropped first', async (t) => {
  const dir = join(tempDir(t), 'db');
  let store = await LevelStore.open(dir);
  await store.commit(batch(0, 256 * 6));
  await store.close();
  // Blocks 20, 25, 40 and 50: of the same bytes (entries of three digits, none of them empty).
  const bytesOf = (block: number) => Array.from({ length: 16 }, (_, i) => entry(block * 16 + i).length).reduce((a, b) => a + b);
  const block = bytesOf(20);
  t.same([25, 40, 50].map(bytesOf), [block, block, block]);
  const read = async (b: number) => t.same(hexOf(await store.readEntries(b * 16 + 7, 1)), seqsOf(b * 16 + 7, b * 16 + 8));
  store = await LevelStore.open(dir, { cacheBytes: 2.5 * block });
  for (const b of [20, 25, 40]) await read(b);
  t.same(store.cachedBlocks, [25, 40], 'two blocks fit: block 20 goes');
  t.ok(store.cached.bytes <= 2.5 * block, `${store.cached.bytes} bytes kept, at most ${2.5 * block}`);
  // Block 25 read again (kept), then block 50: block 40, the least recently read, goes.
  await read(25);
  t.same(store.cachedBlocks, [40, 25], 'block 25 read from the cache, now the most recently read');
  await read(50);
  t.same(store.cachedBlocks, [25, 50], 'block 40 dropped');
  await read(40);
  t.same(store.cachedBlocks, [50, 40], 'block 40 read again, block 25 dropped');
  await read(50);
  await read(25);
  t.same(store.cachedBlocks, [50, 25], 'block 50 read again, block 40 dropped');
  t.same(store.cached.bytes, 2 * block);
  // Blocks of unlike sizes (some with empty entries, some of four digits) read at random, over and over round the ring.
  let seed = 7;
  const wrong: number[] = [];
  for (let i = 0; i < 400; i++) {
    seed = (seed * 48271) % 2147483647;
    const seq = seed % (256 * 6);
    if (hexOf(await store.readEntries(seq, 1))[0] !== seqsOf(seq, seq + 1)[0]) wrong.push(seq);
  }
  t.same(wrong, [], '400 reads at random give what is stored');
  t.ok(store.cached.bytes <= 2.5 * block);
  for (const b of [0, 1, 2, 3, 4, 5]) t.same(hexOf(await store.readEntries(b * 256 + 255, 1)), seqsOf(b * 256 + 255, b * 256 + 256));
  // A read of many blocks (a replay) neither fills the cache nor needs it.
  await store.close();
  store = await LevelStore.open(dir);
  t.same(hexOf(await store.readEntries(0, 256 * 6)), seqsOf(0, 256 * 6));
  t.same(store.cached, { blocks: 0, bytes: 0 }, 'nothing kept from a read of 96 blocks');
  await store.close();
  store = await LevelStore.open(dir, { cacheBytes: 0 });
  t.same(hexOf(await store.readEntries(7, 1)), seqsOf(7, 8));
  t.same(store.cached, { blocks: 0, bytes: 0 }, 'cacheBytes 0 keeps none');
  // A block of sixteen empty entries holds no bytes, and is not kept either.
  await store.commit(batch(256 * 6, 32, [], 'ab', () => new Uint8Array(0)));
  t.same(await store.readEntries(256 * 6 + 3, 1), [new Uint8Array(0)]);
  t.same(store.cached, { blocks: 0, bytes: 0 }, 'cacheBytes 0 keeps no block of empty entries');
  await store.close();
});
