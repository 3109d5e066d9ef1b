// What the PostgreSQL store adds to the store contract (docs/log-format.md, "How the service
// stores the log"): the head row advanced by compare-and-swap (a fenced commit writes nothing),
// a failed transaction leaves the head where it was, a killed server and the log's recovery,
// and the versioned schema. On a real PostgreSQL server (tlog-engine/testing, docs/engine.md).
import { bytes } from './helpers/text.js';
import t from 'tap';
import pg from 'pg';
import { auditLog } from '../src/audit.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION, PgStore } from '../src/pg-store.js';
import { Sequencer } from '../src/sequencer.js';
import type { CommitBatch } from '../src/store.js';
import { batch as commitBatch, head } from './store-conformance.js';
import { startPostgres, testSigner } from '../src/testing.js';

const server = await startPostgres(t);
const ORIGIN = 'test.example/pg';

/** A commit of entries [first, first + n) with one tile, under a head whose root is `root` repeated. */
const batch = (first: number, n: number, root = 'ab'): CommitBatch => commitBatch(first, n, [[0, 0, `tile at ${first + n}`]], root);

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

t.test('a commit that finds the head moved by another writer is fenced and writes nothing', async (t) => {
  const url = await server.createDatabase();
  const a = await PgStore.open(url);
  const b = await PgStore.open(url);
  await a.commit(batch(0, 3));
  // b last saw no head: its commit would overwrite a's.
  await t.rejects(b.commit(batch(0, 5, 'cd')), { code: 'fenced' });
  t.same(await a.readHead(), head(3), 'the head is the first writer’s');
  t.equal((await a.readEntries(0, 10)).length, 3, 'none of the fenced entries');
  await a.commit(batch(3, 2));
  // b stays fenced: it never learns a head it did not commit, until it is opened again.
  await t.rejects(b.commit(batch(3, 1, 'cd')), { code: 'fenced' });
  await t.rejects(b.commit({ first: 3, entries: [], tiles: [], head: head(3) }), { code: 'fenced' }, 'nor can it roll the log back');
  t.same(await a.readHead(), head(5));
  await b.close();
  const c = await PgStore.open(url);
  await c.commit(batch(5, 1));
  t.same(await c.readHead(), head(6), 'a store opened after the move commits from the head it read');
  await t.rejects(a.commit(batch(5, 1, 'cd')), { code: 'fenced' }, 'and the first writer is now the fenced one');
  await a.close();
  await c.close();
});

t.test('a transaction that fails half-way (a row PostgreSQL refuses) leaves the head and the entries where they were', async (t) => {
  const url = await server.createDatabase();
  const store = await PgStore.open(url);
  await store.commit(batch(0, 10));
  // A row at seq 13 that no head holds (put there by hand): the insert of the batch fails on it,
  // after the head was swapped.
  await query(url, "INSERT INTO log_entries (seq, record) VALUES (13, 'stray'::bytea)");
  await t.rejects(store.commit(batch(10, 5)), /duplicate key/);
  t.same(await store.readHead(), head(10));
  t.equal((await store.readEntries(0, 100)).length, 10);
  t.same(await query(url, 'SELECT count(*)::int AS n FROM log_entries'), [{ n: 11 }], 'no row of the failed batch');
  // The same store goes on from the head that is there.
  await query(url, 'DELETE FROM log_entries WHERE seq = 13');
  await store.commit(batch(10, 5));
  t.same(await store.readHead(), head(15));
  await store.close();
});

t.test('a server killed mid-batch: appends are refused, the head stays at an acknowledged one, recover() goes on', async (t) => {
  const url = await server.createDatabase();
  const { signer, verify } = testSigner();
  const store = await PgStore.open(url);
  const log = await Sequencer.open({ store, signer, origin: ORIGIN, maxBatch: 500 });
  const text = (i: number) => `{"n":${i},"pad":"${'p'.repeat(200)}"}`;
  let acked = 0;
  let n = 0;
  // Appends refused as 'unknown': the batch whose COMMIT was sent and whose answer was lost.
  let unsure = 0;
  const writing = (async () => {
    for (;;) {
      const wave = Array.from({ length: 1000 }, () => log.append(bytes(text(n++))));
      const results = await Promise.allSettled(wave);
      for (const r of results) {
        if (r.status === 'fulfilled') acked = Math.max(acked, r.value.treeSize);
        else if ((r.reason as { code?: string }).code === 'unknown') unsure++;
      }
      if (results.some((r) => r.status === 'rejected')) return;
    }
  })();
  while (acked < 3000) await new Promise((resolve) => setTimeout(resolve, 5));
  await server.kill();
  await writing;
  t.ok(log.stopped, 'the log stopped');
  const ackedHead = log.sth();
  t.equal(ackedHead.treeSize, acked, 'the served head is the last acknowledged one');
  await t.rejects(log.recover(), 'no recovery while the server is down');
  await server.start();
  await log.recover();
  // Nothing committed is taken back (other nodes may serve it): the log goes on from the head
  // the database holds, the last acknowledged one or the one whose answer was lost.
  const stored = (await store.readHead())!.treeSize;
  t.ok(
    stored === acked || (unsure > 0 && stored === acked + unsure),
    `the stored head (${stored}) is ${acked}, or ${acked} + ${unsure} unsure`,
  );
  t.equal(log.size, stored, 'recovered at the head the database holds');
  await Promise.all(Array.from({ length: 700 }, (_, i) => log.append(bytes(text(-i)))));
  t.same(await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey }), {
    intact: true,
    problem: null,
    treeSize: stored + 700,
  });
  const root = log.sth().rootHash;
  await log.close();
  const again = await Sequencer.open({ store: await PgStore.open(url), signer, origin: ORIGIN });
  t.equal(again.size, stored + 700);
  t.equal(again.sth().rootHash, root);
  await again.close();
});

t.test('a server restarted between two commits: the next commit lands, on a new connection', async (t) => {
  // The store keeps the connection its commits go on: one the server closed must not be used again.
  const url = await server.createDatabase();
  const store = await PgStore.open(url);
  await store.commit(batch(0, 3));
  await store.commit(batch(3, 2)); // on a head the store knows: one statement, on the connection it keeps
  await server.kill();
  await server.start();
  await store.commit(batch(5, 2));
  t.same(await store.readHead(), head(7));
  t.equal((await store.readEntries(0, 10)).length, 7);
  await store.close();
});

t.test('two commits asked for at once: one lands, the other is fenced, and the store still closes', async (t) => {
  // The log sends one commit at a time; a store used otherwise must not keep a second connection it never gives back.
  const url = await server.createDatabase();
  const store = await PgStore.open(url);
  await store.commit(batch(0, 3));
  const [first, second] = await Promise.allSettled([store.commit(batch(3, 2)), store.commit(batch(3, 2, 'cd'))]);
  t.equal(first.status, 'fulfilled');
  t.match(second, { status: 'rejected', reason: { code: 'fenced' } });
  t.same(await store.readHead(), head(5));
  // A connection never given back would keep close() waiting.
  const closed = await Promise.race([store.close().then(() => true), new Promise((r) => setTimeout(() => r(false), 5000).unref())]);
  t.ok(closed, 'the store closes');
});

t.test('the schema is created at version 3 and a later version is refused', async (t) => {
  const url = await server.createDatabase();
  const store = await PgStore.open(url);
  await store.close();
  t.equal(PG_SCHEMA_VERSION, 3);
  t.same(await query(url, 'SELECT version FROM log_schema_version'), [{ version: 3 }]);
  t.same(
    (await query<{ tablename: string }>(url, "SELECT tablename FROM pg_tables WHERE tablename LIKE 'log_%' ORDER BY 1")).map(
      (r) => r.tablename,
    ),
    ['log_blobs', 'log_entries', 'log_head', 'log_lease', 'log_nodes', 'log_schema_version', 'log_tiles'],
  );
  // Opening again changes nothing; two stores opening at once agree.
  await Promise.all([PgStore.open(url), PgStore.open(url)].map(async (s) => (await s).close()));
  t.same(await query(url, 'SELECT version FROM log_schema_version'), [{ version: 3 }]);
  t.same(await query(url, 'SELECT count(*)::int AS n FROM log_lease'), [{ n: 1 }], 'one lease row');
  await query(url, 'UPDATE log_schema_version SET version = 4');
  await t.rejects(PgStore.open(url), { code: 'corrupt', message: /schema version 4/ });
  // A database opened for the first time by two stores at once: one creates, the other waits.
  const fresh = await server.createDatabase();
  await Promise.all([PgStore.open(fresh), PgStore.open(fresh)].map(async (s) => (await s).close()));
  t.same(await query(fresh, 'SELECT version FROM log_schema_version'), [{ version: 3 }]);
});

t.test('a database of version 1 is migrated: its log is kept (entries as bytes), a lease row is added, and it takes commits', async (t) => {
  const url = await server.createDatabase();
  await query(
    url,
    `CREATE TABLE log_schema_version (version integer NOT NULL); INSERT INTO log_schema_version VALUES (1); ${PG_MIGRATIONS[0]}`,
  );
  await query(
    url,
    `INSERT INTO log_head (tree_size, root_hash, ts, signature, checkpoint) VALUES
       (3, '${'ab'.repeat(32)}', '2026-01-01T00:00:00.000Z', 'sig3', 'cp3
');
     INSERT INTO log_entries VALUES (0, 'entry 0
{"n":0}'), (1, 'entry 1
{"n":1}'), (2, 'entry 2
{"n":2}')`,
  );
  const store = await PgStore.open(url);
  t.same(await query(url, 'SELECT version FROM log_schema_version'), [{ version: 3 }]);
  t.same(await store.readHead(), head(3), 'the head as version 1 left it');
  t.same(
    (await store.readEntries(0, 10)).map((e) => Buffer.from(e).toString()),
    [0, 1, 2].map((n) => `entry ${n}\n{"n":${n}}`),
    'its entries, their text now the same bytes (version 3)',
  );
  t.match(await store.lease.read(), { epoch: 0, node: null, url: null, remainingMs: 0 }, 'a lease nobody holds');
  await store.commit(batch(3, 2));
  t.same(await store.readHead(), head(5), 'commits go on from it');
  await store.close();
});

t.test('a blob given as chunks is kept in parts of 8 MiB across their bounds and read back whole, in order', async (t) => {
  const url = await server.createDatabase();
  const s = await PgStore.open(url);
  const MiB = 2 ** 20;
  // Chunks of 3, 6 and 8 MiB and a few bytes: the parts' bounds fall inside the chunks.
  const chunks = [3 * MiB, 6 * MiB, 8 * MiB, 5].map((n, i) => new Uint8Array(n).map((_, j) => (i * 31 + j) % 251));
  const whole = Buffer.concat(chunks);
  t.ok(await s.blobs.put('big', 7, chunks));
  t.same(await s.blobs.get('big'), { treeSize: 7, bytes: whole }, 'read back whole');
  const parts = async (name: string) =>
    (await query<{ n: number }>(url, `SELECT length(bytes) AS n FROM log_blobs WHERE name = '${name}' ORDER BY part`)).map((r) => r.n);
  t.same(await parts('big'), [8 * MiB, 8 * MiB, MiB + 5], 'in parts of 8 MiB, the last the rest');
  t.ok(await s.blobs.put('exact', 1, [new Uint8Array(4 * MiB), new Uint8Array(12 * MiB)]));
  t.same(await parts('exact'), [8 * MiB, 8 * MiB], 'no empty part after a whole number of parts');
  t.ok(await s.blobs.put('empty', 1, []));
  t.same(await s.blobs.get('empty'), { treeSize: 1, bytes: Buffer.alloc(0) }, 'no bytes: one empty part');
  t.notOk(await s.blobs.put('big', 6, [new Uint8Array(1)]), 'a blob of a smaller tree size is not kept over a larger');
  t.same((await s.blobs.get('big'))?.bytes.length, whole.length);
  await s.close();
});
