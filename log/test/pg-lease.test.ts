// Many processes on one PostgreSQL database (docs/engine.md, "Sharing a store"): the sequencer
// lease (one holder; taken over once expired; its epoch fences every commit of an earlier holder,
// even one from the very head the database holds, and nothing of it is written), notifications
// of new heads and of the lease changing hands, blobs, and a log that follows another's commits
// (Sequencer.refresh): the same head, entries, proofs and tiles. On a real server.
import { bytes } from './helpers/text.js';
import t, { type Test } from 'tap';
import pg from 'pg';
import { PgStore } from '../src/pg-store.js';
import { Sequencer } from '../src/sequencer.js';
import type { CommitBatch } from '../src/store.js';
import { batch as commitBatch, head } from './store-conformance.js';
import type { StoredEntry } from '../src/reader.js';
import { startPostgres, testSigner } from '../src/testing.js';

const server = await startPostgres(t);
const ORIGIN = 'test.example/lease';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A commit of entries [first, first + n), under a head whose root is `root` repeated. */
const batch = (first: number, n: number, root = 'ab'): CommitBatch => commitBatch(first, n, [], root);

/** Two stores of one new database, closed when the test ends. */
async function twoStores(t: Test): Promise<{ url: string; a: PgStore; b: PgStore }> {
  const url = await server.createDatabase();
  const a = await PgStore.open(url);
  const b = await PgStore.open(url);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  return { url, a, b };
}

async function count(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM log_entries')).rows[0]!.n;
  } finally {
    await c.end();
  }
}

t.test(
  'one holder at a time; taken over once expired; the old holder is fenced even from the head it saw, and writes nothing',
  async (t) => {
    const { url, a, b } = await twoStores(t);
    t.equal(a.members.secret, b.members.secret, 'every store of the database reads the same secret');
    t.match(a.members.secret, /^[0-9a-f]{64}$/);

    const got = await a.lease.acquire({ node: 'a', url: 'http://a' }, 400);
    t.same(got, { epoch: 1, head: null }, 'a takes the free lease');
    await a.commit(batch(0, 3));
    t.equal(await b.lease.acquire({ node: 'b', url: 'http://b' }, 60_000), null, 'b cannot while it is held');
    t.match(await b.lease.read(), { epoch: 1, node: 'a', url: 'http://a' });
    t.ok((await b.lease.read()).remainingMs > 0, 'and it is live');
    t.equal(await a.lease.renew(400), true, 'a renews it');

    // a stops renewing (paused): once it expires, b takes it, and reads the head a left.
    await sleep(500);
    t.equal((await b.lease.read()).remainingMs, 0, 'expired');
    const taken = await b.lease.acquire({ node: 'b', url: 'http://b' }, 60_000);
    t.same(taken, { epoch: 2, head: head(3) }, 'b takes it with a higher epoch, at the head a committed');

    // a wakes up: its commit from the very head the database holds is fenced, and writes nothing.
    await t.rejects(a.commit(batch(3, 2)), { code: 'fenced' }, 'the old holder cannot commit, even from the current head');
    t.same(await b.readHead(), head(3));
    t.equal(await count(url), 3, 'none of its entries');
    await t.rejects(a.commit({ first: 3, entries: [], tiles: [], head: head(3) }), { code: 'fenced' }, 'nor rewrite the head');
    t.equal(await a.lease.renew(400), false, 'nor renew the lease');
    t.equal(await a.lease.acquire({ node: 'a', url: 'http://a' }, 400), null, 'nor take it back while b holds it');

    await b.commit(batch(3, 2));
    t.same(await a.readHead(), head(5), 'the new holder commits');

    // Released, the lease is free at once; the releaser commits no more.
    await b.lease.release();
    t.match(await a.lease.read(), { epoch: 2, node: null, url: null, remainingMs: 0 });
    await t.rejects(b.commit(batch(5, 1)), { code: 'fenced' }, 'a released lease fences its last holder');
    t.match(await a.lease.acquire({ node: 'a', url: 'http://a' }, 400), { epoch: 3, head: head(5) });
  },
);

t.test('a log whose lease was taken stops at its first commit (fenced), and the head is the new holder’s', async (t) => {
  const url = await server.createDatabase();
  const { signer } = testSigner();
  const storeA = await PgStore.open(url);
  await storeA.lease.acquire({ node: 'a', url: 'http://a' }, 200);
  const a = await Sequencer.open({ store: storeA, signer, origin: ORIGIN });
  await Promise.all(Array.from({ length: 50 }, (_, i) => a.append(bytes(`{"n":${i}}`))));
  await sleep(300);
  const storeB = await PgStore.open(url);
  t.ok(await storeB.lease.acquire({ node: 'b', url: 'http://b' }, 60_000));
  const b = await Sequencer.open({ store: storeB, signer, origin: ORIGIN });
  t.equal(b.size, 50);
  const refused = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => a.append(bytes(`{"late":${i}}`))));
  t.ok(
    refused.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'fenced'),
    'every append of the old holder is refused, fenced',
  );
  t.ok(a.stopped, 'its log stopped');
  await b.append(bytes('{"new":1}'));
  t.equal((await storeB.readHead())!.treeSize, 51, 'the new holder goes on from 50');
  t.equal(await count(url), 51);
  await a.close();
  await b.close();
});

t.test('a log that follows: each refresh reads what the leader committed, checks it against the head, and serves it', async (t) => {
  const url = await server.createDatabase();
  const { signer } = testSigner();
  const leaderStore = await PgStore.open(url);
  await leaderStore.lease.acquire({ node: 'l', url: 'http://l' }, 60_000);
  const leader = await Sequencer.open({ store: leaderStore, signer, origin: ORIGIN });
  const follower = await Sequencer.open({ store: await PgStore.open(url), signer, origin: ORIGIN });
  t.teardown(async () => {
    await leader.close();
    await follower.close();
  });
  const seen: StoredEntry[] = [];
  const follow = () => follower.refresh((page) => seen.push(...page));
  t.equal(await follow(), false, 'nothing to read in an empty log');

  // Across tile boundaries (256 entries) and in pages (4,096 entries).
  for (const n of [1, 300, 5000]) {
    await Promise.all(Array.from({ length: n }, (_, i) => leader.append(bytes(`{"n":${i},"of":${n}}`))));
    const waiting = follower.waitFor(leader.size);
    t.equal(await follow(), true, `the head moved (${leader.size})`);
    await waiting;
    t.same(follower.sth(), leader.sth(), 'the same signed head');
    t.equal(follower.checkpoint(), leader.checkpoint(), 'the same checkpoint');
  }
  t.equal(seen.length, leader.size, 'every entry was given once, in order');
  t.ok(
    seen.every((e, i) => e.seq === i),
    'in seq order',
  );
  t.same(seen.slice(-2), await leader.records(leader.size - 2, 2), 'as the leader reads them');
  const size = leader.size;
  for (const seq of [0, 255, 256, 4000, size - 1]) {
    t.same(await follower.inclusionProof(seq), await leader.inclusionProof(seq), `inclusion of ${seq}`);
  }
  t.same(await follower.consistencyProof(300, size), await leader.consistencyProof(300, size));
  t.same(await follower.entries(size - 3, 3), await leader.entries(size - 3, 3));
  const tile = { level: 0, index: 1, width: 256 };
  t.same(await follower.hashTile(tile), await leader.hashTile(tile));
  t.equal(await follow(), false, 'nothing new');

  // A follower that leads next appends from that head: its entries chain on the leader's.
  await leaderStore.lease.release();
  const followerStore = (follower as unknown as { store: PgStore }).store;
  t.ok(await followerStore.lease.acquire({ node: 'f', url: 'http://f' }, 60_000));
  const next = await follower.append(bytes('{"after":1}'));
  t.equal(next.seq, size);
  t.equal(await leader.refresh(), true, 'and the former leader follows it');
  t.same(leader.sth(), follower.sth());
});

t.test('a head whose entries do not give its root is refused by a follower (corrupt), not served', async (t) => {
  const url = await server.createDatabase();
  const { signer } = testSigner();
  const store = await PgStore.open(url);
  const leader = await Sequencer.open({ store, signer, origin: ORIGIN });
  await Promise.all(Array.from({ length: 10 }, (_, i) => leader.append(bytes(`{"n":${i}}`))));
  const follower = await Sequencer.open({ store: await PgStore.open(url), signer, origin: ORIGIN });
  await Promise.all(Array.from({ length: 5 }, (_, i) => leader.append(bytes(`{"m":${i}}`))));
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(
    `UPDATE log_entries SET record = convert_to(replace(convert_from(record, 'UTF8'), '"m":2', '"m":9'), 'UTF8') WHERE seq = 12`,
  );
  await c.end();
  await t.rejects(follower.refresh(), { code: 'corrupt', message: /do not give the root/ });
  t.equal(follower.size, 10, 'its head did not move');
  await leader.close();
  await follower.close();
});

t.test('watch: told of each new head and of the lease changing hands; a dropped connection is made again', async (t) => {
  const url = await server.createDatabase();
  const a = await PgStore.open(url);
  const b = await PgStore.open(url);
  const told: string[] = [];
  const w = b.watch((what) => told.push(what));
  t.teardown(async () => {
    await w.close();
    await a.close();
    await b.close();
  });
  const until = async (what: string, n: number) => {
    for (let i = 0; i < 200 && told.filter((x) => x === what).length < n; i++) await sleep(10);
    return told.filter((x) => x === what).length;
  };
  await until('lease', 1); // the first connection says "look" once
  told.length = 0;
  await a.commit(batch(0, 2));
  t.equal(await until('head', 1), 1, 'a commit');
  await a.lease.acquire({ node: 'a', url: 'http://a' }, 60_000);
  t.ok((await until('lease', 1)) >= 1, 'the lease taken');
  told.length = 0;
  await a.lease.renew(60_000);
  await a.commit(batch(2, 1));
  await until('head', 1);
  t.equal(told.filter((x) => x === 'lease').length, 0, 'a renewal is not told');

  // The server drops every other connection: the watch connects again and says "look".
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query ILIKE $1', ['LISTEN%']);
  await c.end();
  told.length = 0;
  t.ok((await until('head', 1)) >= 1, 'told to look after connecting again');
  told.length = 0;
  await a.commit(batch(3, 1));
  t.ok((await until('head', 1)) >= 1, 'and told of the next commit');
});

t.test('blobs: kept whole in parts; a blob of a smaller tree size does not replace a larger one', async (t) => {
  const { a, b } = await twoStores(t);
  t.equal(await a.blobs.get('x'), null);
  const big = Buffer.alloc(20 * 2 ** 20 + 5);
  for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
  t.equal(await a.blobs.put('x', 100, big), true);
  const got = await b.blobs.get('x');
  t.equal(got!.treeSize, 100);
  t.ok(got!.bytes.equals(big), 'read back whole from its parts');
  t.equal(await b.blobs.put('x', 99, Buffer.from('older')), false, 'an older one is not kept');
  t.ok((await a.blobs.get('x'))!.bytes.equals(big));
  t.equal(await b.blobs.put('x', 120, Buffer.from('newer')), true);
  t.same(await a.blobs.get('x'), { treeSize: 120, bytes: Buffer.from('newer') }, 'a newer one replaces it, every part');
  t.equal(await b.blobs.put('empty', 1, Buffer.alloc(0)), true);
  t.same(await a.blobs.get('empty'), { treeSize: 1, bytes: Buffer.alloc(0) });
});

t.test(
  'a holder paused inside a commit (its transaction left open on the head row) does not keep the lease from being taken',
  async (t) => {
    const { url, a, b } = await twoStores(t);
    await a.lease.acquire({ node: 'a', url: 'http://a' }, 400);
    await a.commit(batch(0, 1));
    // A commit of a's that swapped the head and was then paused (SIGSTOP): its transaction, begun as
    // the store begins its commits, holds the head row and says nothing more.
    const paused = new pg.Client({ connectionString: url });
    paused.on('error', () => undefined);
    await paused.connect();
    await paused.query((a as unknown as { begin: string }).begin);
    await paused.query('UPDATE log_head SET ts = ts');
    await sleep(450);
    const t0 = Date.now();
    const got = await b.lease.acquire({ node: 'b', url: 'http://b' }, 60_000);
    t.match(got, { epoch: 2, head: head(1) }, 'b takes it');
    t.ok(Date.now() - t0 < 2000, `once the database ended the paused session (${Date.now() - t0} ms)`);
    await t.rejects(paused.query('COMMIT'), 'the paused commit cannot finish');
    await paused.end().catch(() => undefined);
    t.equal(await count(url), 1);
  },
);
