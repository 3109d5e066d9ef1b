import { bytes, str, iso } from './helpers/text.js';
import t from 'tap';
import { join } from 'node:path';
import { NO_LEAF } from '../src/codec.js';
import { fromHex, toHex } from '../src/hash.js';
import { verifyHeadSignature } from '../src/head.js';
import { LevelStore } from '../src/level-store.js';
import { MemoryStore } from '../src/memory-store.js';
import { hashLeaf, rootFromLeafHashes, verifyConsistency, verifyInclusion } from '../src/merkle.js';
import { decodeBundle } from '../src/tlog-tiles.js';
import { Sequencer } from '../src/sequencer.js';
import type { CommitBatch } from '../src/store.js';
import { testSigner } from '../src/testing.js';
import { tempDir } from './helpers/tmp.js';

const ORIGIN = 'test.example/log';

/** A store that counts commits, to see group commit happen. */
class CountingStore extends MemoryStore {
  commits: number[] = [];
  override async commit(b: CommitBatch): Promise<void> {
    this.commits.push(b.entries.length);
    return super.commit(b);
  }
}

async function appendMany(log: Sequencer, n: number, tag = 'x'): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => log.append(bytes(`{"n":${i},"tag":"${tag}"}`))));
}

t.test('entries chain by prevHash and the head signs the root of their hashes', async (t) => {
  const { signer, verify } = testSigner();
  const log = await Sequencer.open({ store: new MemoryStore(), signer, origin: ORIGIN });
  t.equal(log.size, 0);
  t.ok(verifyHeadSignature(log.sth(), verify), 'the empty head is signed');
  await appendMany(log, 37);
  const entries = await log.entries(0, 100);
  t.equal(entries.length, 37);
  entries.forEach((e, i) => {
    t.equal(e.seq, i);
    t.same(e.prev, i === 0 ? NO_LEAF : entries[i - 1]!.leafHash);
  });
  const sth = log.sth();
  t.equal(sth.treeSize, 37);
  t.equal(sth.rootHash, toHex(rootFromLeafHashes(entries.map((e) => e.leafHash))));
  t.ok(verifyHeadSignature(sth, verify));
  t.notOk(verifyHeadSignature({ ...sth, treeSize: 36 }, verify), 'the signature covers the size');
});

t.test('concurrent appends are committed in batches, acknowledged in call order', async (t) => {
  const { signer } = testSigner();
  const store = new CountingStore();
  const log = await Sequencer.open({ store, signer, origin: ORIGIN, maxBatch: 1000 });
  const acks = await Promise.all(Array.from({ length: 5000 }, (_, i) => log.append(bytes(`{"n":${i}}`))));
  t.same(
    acks.map((a) => a.seq),
    Array.from({ length: 5000 }, (_, i) => i),
    'seq follows call order',
  );
  t.ok(store.commits.length <= 6, `5000 appends in ${store.commits.length} commits`);
  t.ok(Math.max(...store.commits) <= 1000, 'no batch exceeds maxBatch');
  for (const a of acks) t.ok(a.treeSize > a.seq, 'acknowledged under a head that includes it');
});

t.test('an entry queued with the next one is committed in the same batch, even past maxBatch', async (t) => {
  const { signer } = testSigner();
  const store = new CountingStore();
  const log = await Sequencer.open({ store, signer, origin: ORIGIN, maxBatch: 1 });
  await Promise.all([log.enqueue(bytes('{"n":0}')).committed, log.enqueue(bytes('{"n":1}')).committed]);
  t.same(store.commits, [1, 1], 'alone: a batch each, as maxBatch says');
  const a = log.enqueue(bytes('{"n":2}'), { withNext: true });
  const b = log.enqueue(bytes('{"n":3}'));
  await Promise.all([a.committed, b.committed]);
  t.same(store.commits, [1, 1, 2], 'grouped: one atomic batch of two');
  // Queued to go with a next entry that never comes: still committed, at the next turn.
  const c = log.enqueue(bytes('{"n":4}'), { withNext: true });
  t.equal((await c.committed).seq, 4);
  t.same(store.commits, [1, 1, 2, 1]);
  t.equal(log.size, 5);
});

t.test('inclusion and consistency proofs verify for every past size', async (t) => {
  const { signer } = testSigner();
  const log = await Sequencer.open({ store: new MemoryStore(), signer, origin: ORIGIN, maxBatch: 7 });
  await appendMany(log, 70);
  const leaves = (await log.entries(0, 70)).map((e) => e.leafHash);
  const roots = [0, ...leaves.map((_, i) => i + 1)].map((n) => rootFromLeafHashes(leaves.slice(0, n)));
  for (let size = 1; size <= 70; size++) {
    t.same(await log.rootAt(size), roots[size], `root at ${size}`);
    for (let seq = 0; seq < size; seq++) {
      const proof = await log.inclusionProof(seq, size);
      if (!verifyInclusion(seq, size, leaves[seq]!, proof, roots[size]!)) t.fail(`inclusion ${seq} in ${size}`);
    }
    for (let first = 0; first <= size; first++) {
      const proof = await log.consistencyProof(first, size);
      if (!verifyConsistency(first, size, proof, roots[first]!, roots[size]!)) t.fail(`consistency ${first} -> ${size}`);
    }
  }
  await t.rejects(log.inclusionProof(0, 71), { code: 'out_of_range' }, 'a size beyond the tree');
  await t.rejects(log.consistencyProof(1, 71), { code: 'out_of_range' });
});

t.test('a reopened LevelDB log continues its chain and serves the same proofs', async (t) => {
  const { signer, verify } = testSigner();
  const dir = join(tempDir(t), 'db');
  let log = await Sequencer.open({ store: await LevelStore.open(dir), signer, origin: ORIGIN });
  await appendMany(log, 100, 'a');
  const before = log.sth();
  const proof = await log.inclusionProof(42, 100);
  await log.close();

  log = await Sequencer.open({ store: await LevelStore.open(dir), signer, origin: ORIGIN });
  t.same(log.sth(), before, 'same head after reopen');
  t.same(await log.inclusionProof(42, 100), proof);
  await appendMany(log, 50, 'b');
  const entries = await log.entries(99, 2);
  t.same(entries[1]!.prev, entries[0]!.leafHash, 'the chain continues across the reopen');
  const all = (await log.entries(0, 150)).map((e) => e.leafHash);
  t.equal(log.sth().rootHash, toHex(rootFromLeafHashes(all)));
  t.ok(verifyHeadSignature(log.sth(), verify));
  t.ok(verifyConsistency(100, 150, await log.consistencyProof(100, 150), fromHex(before.rootHash), fromHex(log.sth().rootHash)));
  await log.close();
});

t.test('a failed commit acknowledges nothing and stops the log until it is reopened', async (t) => {
  const { signer } = testSigner();
  for (const fault of ['before-write', 'after-write'] as const) {
    const store = new MemoryStore();
    const log = await Sequencer.open({ store, signer, origin: ORIGIN });
    await appendMany(log, 10);
    const head = log.sth();
    store.injectFault(fault);
    await t.rejects(log.append(bytes('{"n":10}')), /injected fault/, `${fault}: append rejected`);
    t.same(log.sth(), head, `${fault}: the served head has not moved`);
    await t.rejects(log.append(bytes('{"n":11}')), { code: 'failed' }, `${fault}: fail-stop`);
    const reopened = await Sequencer.open({ store: store.reopen(), signer, origin: ORIGIN });
    t.equal(reopened.size, fault === 'before-write' ? 10 : 11, `${fault}: reopens at the store's last head`);
    await reopened.append(bytes('{"n":12}'));
    const [a, b] = await reopened.entries(reopened.size - 2, 2);
    t.same(b!.prev, a!.leafHash, `${fault}: the chain goes on from the stored head`);
  }
});

t.test('entry times never go backwards, and appends are checked', async (t) => {
  const { signer } = testSigner();
  let now = Date.parse('2026-05-01T12:00:00Z');
  const log = await Sequencer.open({ store: new MemoryStore(), signer, origin: ORIGIN, clock: () => now });
  await log.append(bytes('{}'));
  now -= 60_000;
  const a = await log.append(bytes('{}'));
  t.equal(iso(a.time), '2026-05-01T12:00:00.000Z', 'a clock stepping back does not reorder time');
  now += 120_000;
  t.equal(iso((await log.append(bytes('{}'))).time), '2026-05-01T12:01:00.000Z');
  t.same(log.next(), { seq: 3, time: now }, 'the next entry: its seq and time');
  t.throws(() => log.enqueue(bytes('{}'), { time: now - 120_001 }), { code: 'bad_argument' }, 'a time before the last entry');
  t.throws(() => log.enqueue(bytes('{}'), { time: now + 0.5 }), { code: 'bad_argument' }, 'a time that is not whole milliseconds');
  t.throws(() => log.enqueue('{}' as never), { code: 'bad_argument' }, 'an entry that is not bytes');
  const later = log.enqueue(bytes('{}'), { time: now + 5000 });
  t.equal(later.time, now + 5000, 'a time given, from the last entry on');
  t.equal(log.next().time, now + 5000, 'and the next entry is no earlier');
  await later.committed;
  t.equal(log.size, 4, 'refused appends wrote nothing');
});

t.test('a codec stores and hashes what the application says, with the seq, time and chain it is given', async (t) => {
  const { signer, verify } = testSigner();
  const now = Date.parse('2026-05-01T12:00:00Z');
  const seen: number[] = [];
  // Stored: "<seq> <time> <data>"; leaf: the previous leaf hash, then the stored bytes.
  const codec = {
    stored: (data: Uint8Array, at: { seq: number; time: number }) => bytes(`${at.seq} ${at.time} ${str(data)}`),
    leaf: (stored: Uint8Array, at: { seq: number; prev: Uint8Array }) => {
      seen.push(at.seq);
      if (!str(stored).startsWith(`${at.seq} `)) throw new Error('not this seq');
      return Buffer.concat([at.prev, stored]);
    },
  };
  const store = new MemoryStore();
  const log = await Sequencer.open({ store, signer, origin: ORIGIN, clock: () => now, codec });
  const q = log.enqueue(bytes('hello'));
  t.equal(str(q.stored), `0 ${now} hello`, 'enqueue gives what is stored');
  await q.committed;
  await log.append(bytes('world'));
  const [e0, e1] = await log.entries(0, 2);
  t.equal(str(e1!.bytes), `1 ${now} world`);
  t.same(e0!.leafHash, hashLeaf(Buffer.concat([NO_LEAF, bytes(`0 ${now} hello`)])), 'the leaf is what the codec made of it');
  t.same(e1!.leafHash, hashLeaf(Buffer.concat([e0!.leafHash, bytes(`1 ${now} world`)])), 'chained to the leaf before');
  const bundle = decodeBundle((await log.entryBundle({ level: null, index: 0, width: 2 }))!);
  t.same(bundle.map(str), [`${str(NO_LEAF)}0 ${now} hello`, `${str(e0!.leafHash)}1 ${now} world`], 'the bundle holds the leaf inputs');
  t.ok((await log.audit(verify)).intact, 'the audit recomputes each leaf with the codec');
  // A stored entry the codec refuses is the store's corruption, found by the audit at its seq.
  store.entries.set(1, bytes(`7 ${now} world`));
  t.match(await log.audit(verify), { intact: false, problem: { seq: 1, detail: /malformed: not this seq/ } });
  t.ok(seen.length > 0);
});

t.test('proofs across tile boundaries verify, before and after a reopen', async (t) => {
  const { signer } = testSigner();
  const store = new MemoryStore();
  let log = await Sequencer.open({ store, signer, origin: ORIGIN, maxBatch: 100 });
  await appendMany(log, 600);
  log = await Sequencer.open({ store: store.reopen(), signer, origin: ORIGIN, maxBatch: 100 });
  await appendMany(log, 1100, 'b'); // 1,700 leaves: tiles 0/0 to 0/6, and tile 1/0 of width 6
  const leaves = (await log.entries(0, 1700)).map((e) => e.leafHash);
  const sizes = [1, 2, 255, 256, 257, 511, 512, 513, 600, 767, 768, 1024, 1537, 1700];
  const roots = new Map(sizes.map((n) => [n, rootFromLeafHashes(leaves.slice(0, n))]));
  for (const size of sizes) {
    t.same(await log.rootAt(size), roots.get(size), `root at ${size}`);
    for (const seq of new Set([0, 1, size >> 1, size - 2, size - 1, 255, 256, 511, 512].filter((s) => s >= 0 && s < size))) {
      if (!verifyInclusion(seq, size, leaves[seq]!, await log.inclusionProof(seq, size), roots.get(size)!))
        t.fail(`inclusion ${seq} in ${size}`);
    }
    for (const first of sizes.filter((f) => f <= size)) {
      if (!verifyConsistency(first, size, await log.consistencyProof(first, size), roots.get(first)!, roots.get(size)!))
        t.fail(`consistency ${first} -> ${size}`);
    }
  }
  t.pass('all proofs verified');
});

t.test('the stored head is never older than an acknowledged append, under many small batches', async (t) => {
  const { signer } = testSigner();
  const dir = join(tempDir(t), 'db');
  let log = await Sequencer.open({ store: await LevelStore.open(dir), signer, origin: ORIGIN, maxBatch: 20 });
  await appendMany(log, 3000);
  const head = log.sth();
  await log.close();
  log = await Sequencer.open({ store: await LevelStore.open(dir), signer, origin: ORIGIN });
  t.equal(log.size, 3000, 'every acknowledged entry is under the stored head');
  t.same(log.sth(), head);
  await log.close();
});

t.test('a batch that cannot be formed is refused, and the log stops', async (t) => {
  const { signer } = testSigner();
  let broken = false;
  const flaky = {
    publicKey: signer.publicKey,
    sign: (m: Uint8Array) => {
      if (broken) throw new Error('signer unavailable');
      return signer.sign(m);
    },
  };
  const store = new MemoryStore();
  const log = await Sequencer.open({ store, signer: flaky, origin: ORIGIN });
  await appendMany(log, 5);
  broken = true;
  await t.rejects(log.append(bytes('{"n":5}')), /signer unavailable/);
  broken = false;
  await t.rejects(log.append(bytes('{"n":6}')), { code: 'failed' }, 'fail-stop');
  const reopened = await Sequencer.open({ store: store.reopen(), signer, origin: ORIGIN });
  t.equal(reopened.size, 5, 'nothing of the refused batch was stored');
});

t.test('reading an entry the store lost is an error, not an empty page', async (t) => {
  const { signer } = testSigner();
  const store = new MemoryStore();
  const log = await Sequencer.open({ store, signer, origin: ORIGIN });
  await appendMany(log, 10);
  store.entries.delete(4);
  await t.rejects(log.entries(4, 3), { code: 'corrupt' });
  await t.rejects(log.entries(2, 5), { code: 'corrupt' });
  t.equal((await log.entries(0, 4)).length, 4);
});
