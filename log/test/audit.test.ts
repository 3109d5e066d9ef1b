import t, { type Test } from 'tap';
import { join } from 'node:path';
import { auditLog } from '../src/audit.js';
import { headMessage } from '../src/head.js';
import { BUNDLE_SIZE, LevelStore, levelKeys, storedHead } from '../src/level-store.js';
import { Sequencer } from '../src/sequencer.js';
import type { TileId } from '../src/tiles.js';
import { testSigner } from '../src/testing.js';
import { tempDir } from './helpers/tmp.js';
import { textLines } from '../src/framing.js';
import { bytes, timedCodec } from './helpers/text.js';

const ORIGIN = 'audit.example/log';
const { signer, verify } = testSigner();

// The logs audited here store entries as two lines of text, "<time> test.entry" and the data,
// with the rule that times never go back (helpers/text.ts, timedCodec).
const codec = timedCodec;

/** A LevelDB log of `n` entries, closed, ready for tampering; returns its directory. */
async function makeLog(t: Test, n: number): Promise<string> {
  const dir = join(tempDir(t), 'db');
  const store = await LevelStore.open(dir, { framing: textLines(2) });
  const log = await Sequencer.open({ store, signer, origin: ORIGIN, maxBatch: 16, codec });
  await Promise.all(Array.from({ length: n }, (_, i) => log.append(bytes(`{"n":${i},"text":"entry number ${i}"}`))));
  await log.close();
  return dir;
}

async function tamper(dir: string, fn: (db: LevelStore['raw'], store: LevelStore) => Promise<void>) {
  const store = await LevelStore.open(dir);
  await fn(store.raw, store);
  await store.close();
}

/**
 * Rewrites the records of the bundle holding `seq` (records are two lines: "ts type", payload),
 * stored afterwards as one piece: the bundle's pieces are read, edited and written whole.
 */
async function editBundle(dir: string, seq: number, fn: (records: string[], at: number) => void) {
  await tamper(dir, async (db) => {
    const index = Math.floor(seq / BUNDLE_SIZE);
    const pieces = await db.iterator({ gte: levelKeys.bundle(index), lt: levelKeys.bundle(index + 1) }).all();
    const lines = pieces
      .map(([, v]) => v.toString())
      .join('\n')
      .split('\n');
    const records = lines.filter((_, i) => i % 2 === 0).map((leaf, i) => `${leaf}\n${lines[2 * i + 1]}`);
    fn(records, seq % BUNDLE_SIZE);
    for (const [k] of pieces) await db.del(k);
    await db.put(levelKeys.bundle(index), Buffer.from(records.join('\n')));
  });
}

/** Rewrites stored tile `id` (as the store reads it back), stored afterwards whole in one piece. */
async function editTile(dir: string, id: TileId, fn: (tile: Buffer) => Buffer) {
  await tamper(dir, async (db, store) => {
    const [tile] = await store.getTiles([id]);
    for (const k of await db.keys({ gt: levelKeys.tile(id), lte: levelKeys.tile(id, 255) }).all()) await db.del(k);
    await db.put(levelKeys.tile(id), fn(Buffer.from(tile!)));
  });
}

async function audit(dir: string) {
  const store = await LevelStore.open(dir);
  try {
    return await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey, page: 10, codec });
  } finally {
    await store.close();
  }
}

t.test('an untouched log is intact', async (t) => {
  const report = await audit(await makeLog(t, 45));
  t.same(report, { intact: true, problem: null, treeSize: 45 });
});

t.test('an altered entry text is caught at its seq', async (t) => {
  const dir = await makeLog(t, 45);
  await editBundle(dir, 17, (r, i) => (r[i] = r[i]!.replace('entry number 17', 'entry number 71')));
  t.same((await audit(dir)).problem, { seq: 17, detail: 'entry does not match its stored entry hash' });
});

t.test('a reordered pair of entries is caught at the first', async (t) => {
  const dir = await makeLog(t, 45);
  await editBundle(dir, 20, (r, i) => ([r[i], r[i + 1]] = [r[i + 1]!, r[i]!]));
  t.same((await audit(dir)).problem, { seq: 20, detail: 'entry does not match its stored entry hash' });
});

t.test('an altered stored interior hash is caught at the seq that completed it', async (t) => {
  const dir = await makeLog(t, 45);
  await editTile(dir, { level: 0, index: 0 }, (tile) => {
    // Tile 0/0, width 45: row 0 holds 45 leaf hashes, row 1 22, row 2 11, row 3 5, ...
    // Flip a bit of row 3, position 2: node (level 3, index 2) over leaves 16..23.
    t.equal(tile.length, 32 * (45 + 22 + 11 + 5 + 2 + 1));
    tile[32 * (45 + 22 + 11 + 2) + 9]! ^= 1;
    return tile;
  });
  t.same((await audit(dir)).problem, { seq: 23, detail: 'stored interior hashes do not match the entries' });
});

t.test('a stored tile missing a hash is caught', async (t) => {
  const dir = await makeLog(t, 45);
  await editTile(dir, { level: 0, index: 0 }, (tile) => tile.subarray(0, tile.length - 32));
  t.equal((await audit(dir)).problem?.detail, 'stored interior hashes do not match the entries');
});

t.test('a stored head that does not match the entries is caught', async (t) => {
  const dir = await makeLog(t, 45);
  // A head with a flipped root but the old signature: the signature no longer verifies.
  await tamper(dir, async (db) => {
    const h = storedHead.decode((await db.get(levelKeys.head))!);
    await db.put(levelKeys.head, storedHead.encode({ ...h, rootHash: 'ff'.repeat(32) }));
  });
  t.same((await audit(dir)).problem, { seq: null, detail: 'head signature does not verify with the log key' });
  // A head signed by the log key over a root the entries do not give.
  await tamper(dir, async (db) => {
    const h = storedHead.decode((await db.get(levelKeys.head))!);
    const forged = { ...h, rootHash: 'ff'.repeat(32) };
    forged.signature = Buffer.from(signer.sign(headMessage(forged))).toString('base64url');
    await db.put(levelKeys.head, storedHead.encode(forged));
  });
  t.same((await audit(dir)).problem, { seq: null, detail: 'head rootHash does not match the entries' });
});

t.test('an entry stored beyond the head is caught', async (t) => {
  const dir = await makeLog(t, 45);
  await editBundle(dir, 44, (r, i) => r.push(r[i]!));
  t.same((await audit(dir)).problem, { seq: 45, detail: 'entry stored beyond the signed head' });
});

t.test('a malformed stored record and a time going back are caught at their seq', async (t) => {
  const dir = await makeLog(t, 45);
  await editBundle(dir, 33, (r, i) => (r[i] = r[i]!.replace(/^(\S+) /, '$1  ')));
  t.same((await audit(dir)).problem, { seq: 33, detail: 'stored entry is malformed: not "<time> test.entry"' });
  const dir2 = await makeLog(t, 45);
  await editBundle(dir2, 38, (r, i) => (r[i] = r[i]!.replace(/^\d{4}/, '1999')));
  t.same((await audit(dir2)).problem, { seq: 38, detail: 'time is earlier than the entry before it' });
});

t.test('pages checked on worker threads and inline find the same first problem', async (t) => {
  const dir = await makeLog(t, 300);
  await editBundle(dir, 250, (r, i) => (r[i] = r[i]!.replace('entry number 250', 'entry number 205')));
  for (const page of [8, 16, 64, 1000]) {
    const store = await LevelStore.open(dir);
    const report = await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey, page, codec });
    await store.close();
    t.same(report.problem, { seq: 250, detail: 'entry does not match its stored entry hash' }, `page ${page}`);
  }
});

t.test('an audit running while appends commit sees one consistent head and finds the log intact', async (t) => {
  const dir = join(tempDir(t), 'db');
  const store = await LevelStore.open(dir);
  const log = await Sequencer.open({ store, signer, origin: ORIGIN, maxBatch: 7 });
  await Promise.all(Array.from({ length: 300 }, (_, i) => log.append(bytes(`{"n":${i}}`))));
  const appending = Promise.all(Array.from({ length: 400 }, (_, i) => log.append(bytes(`{"n":${300 + i}}`))));
  const report = await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey, page: 16 });
  await appending;
  t.equal(report.intact, true, JSON.stringify(report.problem));
  t.ok(report.treeSize >= 300 && report.treeSize <= 700, `audited the head of size ${report.treeSize}`);
  await log.close();
});

t.test('a hash stored beyond the head in a growing tile is caught, and a reopen refuses it', async (t) => {
  const dir = await makeLog(t, 600); // tile 1/0 holds two level-8 nodes; the last pages never touch it
  await editTile(dir, { level: 1, index: 0 }, (tile) => {
    t.equal(tile.length, 32 * 3, 'width 2: two hashes in row 0, one in row 1');
    // Width 3 has rows of 3 and 1: add a third row-0 hash in its place.
    return Buffer.concat([tile.subarray(0, 64), Buffer.alloc(32, 7), tile.subarray(64)]);
  });
  t.same((await audit(dir)).problem?.detail, 'a stored tile holds hashes beyond the signed head');
  await t.rejects(async () => Sequencer.open({ store: await LevelStore.open(dir), signer, origin: ORIGIN }), { code: 'corrupt' });
});
