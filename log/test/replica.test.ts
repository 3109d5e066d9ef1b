// The engine running an application's state machine (replica.ts, cluster.ts): a small key-value
// register whose writes are "key=value", refused when the key is taken by another writer. Writes
// are folded in log order before they are answered; a failed commit turns writes off and the
// state is rebuilt from the log; snapshots are bound to the log's root; on a shared PostgreSQL
// store one process leads and the other follows, and takes over when the leader goes.
import t from 'tap';
import { join } from 'node:path';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  Cluster,
  LogError,
  MemoryStore,
  Replica,
  openLevelStore,
  openLog,
  openPgStore,
  type SnapshotBody,
  type StateMachine,
  type StoredEntry,
  frameSnapshotChunks,
  frameSnapshotSync,
  readBoundState,
  readStateFile,
  writeSnapshotFile,
} from '../src/index.js';
import { tempDir } from './helpers/tmp.js';
import { startPostgres, testSigner } from '../src/testing.js';
import { bytes, str } from './helpers/text.js';

interface Register {
  values: Map<string, string>;
}
interface Put {
  seq: number;
  key: string;
  value: string;
}

const register: StateMachine<Register, Put> = {
  init: () => ({ values: new Map() }),
  decode: (s: StoredEntry) => {
    const [key, value] = str(s.bytes).split('=');
    if (key === undefined || value === undefined) throw new Error('not key=value');
    return { seq: s.seq, key, value };
  },
  apply: (state, e) => {
    const before = state.values.get(e.key);
    state.values.set(e.key, e.value);
    return { replaced: before ?? null };
  },
  snapshot: {
    format: 'register-snapshot/1',
    code: 'register v1',
    encode: (state) => [bytes(JSON.stringify([...state.values]))],
    decode: (body) => {
      try {
        return { state: { values: new Map(JSON.parse(str(body)) as [string, string][]) } };
      } catch {
        return { problem: 'not JSON' };
      }
    },
  },
};

/** Admits "key=value" unless the key holds another value already; the same value again is already so. */
const put = (key: string, value: string) => (state: Register, at: { seq: number }) => {
  const held = state.values.get(key);
  if (held === value) return { already: { key, value } };
  if (held !== undefined) throw new Error(`${key} is taken`);
  return { data: bytes(`${key}=${value}`), entry: { seq: at.seq, key, value } };
};

const { signer } = testSigner();
const ORIGIN = 'replica.example/log';

t.test('writes are checked against the state, folded in order, and answered once durable', async (t) => {
  const store = new MemoryStore();
  const log = await openLog({ store, signer, origin: ORIGIN });
  const seen: string[] = [];
  const r = await Replica.open({ log, machine: register, listeners: [{ applied: (_s, e) => seen.push(e.key) }] });
  const racing = [r.admit(put('a', '1')), r.admit(put('b', '2'))];
  t.throws(() => r.admit(put('a', '9')), /a is taken/, 'a write refused against the state, before its rival is even durable');
  t.same(r.admit(put('a', '1')), { already: { key: 'a', value: '1' } }, 'the same write again: already so, nothing appended');
  t.equal(log.next().seq, 2, 'nothing was queued for the refused and the repeated write');
  const [a, b] = racing as { seq: number; committed: Promise<unknown>; outcome: unknown }[];
  t.same([a!.seq, b!.seq], [0, 1]);
  t.same(a!.outcome, { replaced: null }, 'the apply outcome comes back with the admission');
  await Promise.all([a!.committed, b!.committed]);
  t.equal(log.size, 2);
  t.same(seen, ['a', 'b'], 'listeners told in log order');
  t.same(
    [...r.state.values],
    [
      ['a', '1'],
      ['b', '2'],
    ],
  );
  // A second replica of the same log folds the same state.
  const again = await Replica.open({ log, machine: register });
  t.same([...again.state.values], [...r.state.values]);
  t.equal(again.size, 2);
});

t.test('a failed commit turns writes off, the state is rebuilt from the log, and resume turns them on', async (t) => {
  const store = new MemoryStore();
  const log = await openLog({ store, signer, origin: ORIGIN });
  const r = await Replica.open({ log, machine: register });
  await (r.admit(put('a', '1')) as { committed: Promise<unknown> }).committed;
  const failures: Error[] = [];
  r.onFailure((e) => failures.push(e));
  store.injectFault('before-write');
  const lost = r.admit(put('b', '2')) as { committed: Promise<unknown> };
  t.ok(r.state.values.has('b'), 'folded before it is durable');
  await t.rejects(lost.committed, { code: 'failed' });
  t.ok(r.writesAreOff);
  t.equal(failures.length, 1);
  t.throws(() => r.admit(put('c', '3')), { code: 'failed' }, 'every write refused while off');
  await log.recover();
  await r.resume();
  t.notOk(r.writesAreOff);
  t.notOk(r.state.values.has('b'), 'the refused write is gone from the state');
  await (r.admit(put('b', '4')) as { committed: Promise<unknown> }).committed;
  t.same(
    [...r.state.values],
    [
      ['a', '1'],
      ['b', '4'],
    ],
  );
});

t.test('snapshots: written bound to the root, used at start, refused when they are not this log', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'state.snapshot');
  const log = await openLog({ store: await openLevelStore(join(dir, 'db')), signer, origin: ORIGIN });
  const r = await Replica.open({ log, machine: register, snapshots: file });
  for (let i = 0; i < 50; i++) await (r.admit(put(`k${i}`, `v${i}`)) as { committed: Promise<unknown> }).committed;
  const written = await r.snapshot();
  t.match(written, { treeSize: 50, kept: true });
  for (let i = 50; i < 60; i++) await (r.admit(put(`k${i}`, `v${i}`)) as { committed: Promise<unknown> }).committed;
  const lines: string[] = [];
  const started = await Replica.open({ log, machine: register, snapshots: file, say: (l) => lines.push(l) });
  t.equal(started.startedFrom, 50, 'started from the snapshot');
  t.same(lines, ['starting from the snapshot at entry 50 of 60']);
  t.equal(started.state.values.size, 60, 'and folded the entries after it');

  // A snapshot whose state was altered: its digest does not hold.
  const bytesOf = readFileSync(file);
  writeFileSync(file, Buffer.from(bytesOf.toString('latin1').replace('"v1"', '"v7"'), 'latin1'));
  lines.length = 0;
  const damaged = await Replica.open({ log, machine: register, snapshots: file, say: (l) => lines.push(l) });
  t.equal(damaged.startedFrom, 0);
  t.match(lines[0], /is not used, its state does not hash to its digest; replaying the log from its first entry/);
  t.equal(damaged.state.values.get('k1'), 'v1');

  // Another log's snapshot: the same size, another root.
  const other = await openLog({ store: new MemoryStore(), signer, origin: ORIGIN });
  const or = await Replica.open({ log: other, machine: register, snapshots: file });
  for (let i = 0; i < 50; i++) await (or.admit(put(`x${i}`, 'y')) as { committed: Promise<unknown> }).committed;
  await or.snapshot();
  lines.length = 0;
  const foreign = await Replica.open({ log, machine: register, snapshots: file, say: (l) => lines.push(l) });
  t.equal(foreign.startedFrom, 0);
  t.match(lines[0], /its head \(size 50, root [0-9a-f]{64}\) is not a prefix of this log/);
  t.equal(foreign.state.values.size, 60);
  await log.close();
});

t.test('a snapshot read from its file a piece at a time: the same bytes, hashed apart; changed, cut or longer, refused', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'state.snapshot');
  // 20 MiB of bytes that repeat nowhere, read back in pieces of every kind: small ones through the buffer, large ones into place.
  const body = new Uint8Array(20 * 2 ** 20);
  for (let i = 0, x = 1; i < body.length; i++) body[i] = (x = Math.imul(x, 1103515245) + 12345) >>> 24;
  const root = new Uint8Array(32).fill(7);
  const header = { format: 'pieces/1', code: 'pieces v1', treeSize: 3, rootHash: Buffer.from(root).toString('hex') };
  writeFileSync(file, frameSnapshotSync(header, body));
  const sizes = [1, 100, 9 * 2 ** 20, 5, 3 * 2 ** 20, 4 * 2 ** 20 - 1];
  const decode = async (b: SnapshotBody, treeSize: number) => {
    const got: Uint8Array[] = [];
    for (const n of sizes) got.push(await b.read(n));
    const rest = new Uint8Array(b.left);
    await b.readInto(rest);
    return { state: { bytes: Buffer.concat([...got, rest]), treeSize } };
  };
  const read = (opts: { hashApart?: number }, d = decode) =>
    readBoundState(file, async () => root, 'pieces/1', 'pieces v1', { size: 10, of: "the log's" }, d, opts);
  for (const hashApart of [0, Infinity]) {
    const r = await read({ hashApart });
    if (r === null || 'problem' in r) throw new Error(`not read: ${JSON.stringify(r)}`);
    t.ok(Buffer.from(body).equals(r.state.bytes), `hashed ${hashApart === 0 ? 'apart' : 'here'}: every byte read back in order`);
    t.equal(r.state.treeSize, 3);
  }
  t.match(
    await read({ hashApart: 0 }, async (b) => ({ state: { bytes: Buffer.from(await b.read(10)), treeSize: 0 } })),
    { problem: /longer than its manifest says/ },
    'not read to its end',
  );
  t.match(
    await read({ hashApart: 0 }, async (b) => ({ state: { bytes: Buffer.from(await b.read(b.left + 1)), treeSize: 0 } })),
    { problem: /shorter than its manifest says/ },
    'read past its end',
  );
  const good = readFileSync(file);
  const flipped = Buffer.from(good);
  flipped[flipped.length - 5_000_000] = flipped[flipped.length - 5_000_000]! ^ 1;
  writeFileSync(file, flipped);
  for (const hashApart of [0, Infinity])
    t.match(
      await read({ hashApart }),
      { problem: 'its state does not hash to its digest' },
      `a byte changed, hashed ${hashApart === 0 ? 'apart' : 'here'}`,
    );
  writeFileSync(file, good.subarray(0, good.length - 1));
  t.match(await read({ hashApart: 0 }), { problem: /truncated/ });
  writeFileSync(file, good);
  t.match(await readBoundState(file, async () => new Uint8Array(32), 'pieces/1', 'pieces v1', { size: 10, of: "the log's" }, decode), {
    problem: /is not a prefix of this log/,
  });
  t.equal(await readBoundState(join(dir, 'none'), async () => root, 'pieces/1', 'pieces v1', { size: 10, of: "the log's" }, decode), null);
});

t.test('a snapshot file written in one pass: the bytes of frameSnapshotChunks, whole or not at all', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'written.snapshot');
  const chunks = [5, 9 * 2 ** 20, 0, 1, 3 * 2 ** 20 + 7].map((n, k) => {
    const c = new Uint8Array(n);
    for (let i = 0, x = k + 1; i < n; i++) c[i] = (x = Math.imul(x, 1103515245) + 12345) >>> 24;
    return c;
  });
  const header = { format: 'pieces/1', code: 'pieces v1', treeSize: 3, rootHash: '07'.repeat(32) };
  const extra = { note: 'kept in the header' };
  const expected = Buffer.concat(frameSnapshotChunks(header, chunks, extra));
  writeSnapshotFile(file, header, chunks, extra);
  t.ok(readFileSync(file).equals(expected), 'the bytes of frameSnapshotChunks');
  const decode = async (b: SnapshotBody, treeSize: number) => ({ state: { bytes: Buffer.from(await b.read(b.left)), treeSize } });
  const read = await readStateFile<{ bytes: Buffer }, typeof extra>(
    file,
    'pieces/1',
    'pieces v1',
    (h) => (h.note === extra.note ? null : 'no note'),
    decode,
  );
  if (read === null || 'problem' in read) throw new Error(`not read: ${JSON.stringify(read)}`);
  t.ok(read.state.bytes.equals(Buffer.concat(chunks)), 'read back by readStateFile');
  t.same(
    await readStateFile(file, 'pieces/1', 'pieces v1', () => 'its header is not the one wanted', decode),
    { problem: 'its header is not the one wanted' },
    "the caller's check of the header",
  );
  // A write that fails midway leaves the file that was there, and no temporary file.
  const broken = [chunks[0]!, { length: 3 } as unknown as Uint8Array];
  t.throws(() => writeSnapshotFile(file, header, broken, extra));
  t.ok(readFileSync(file).equals(expected), 'the file before, unchanged');
  t.notOk(existsSync(`${file}.tmp`), 'no temporary file left');
});

t.test('an entry the machine cannot read is a corrupt log', async (t) => {
  const store = new MemoryStore();
  const log = await openLog({ store, signer, origin: ORIGIN });
  await log.append(bytes('not a put'));
  await t.rejects(Replica.open({ log, machine: register }), { code: 'corrupt', message: /entry 0 cannot be folded: not key=value/ });
});

t.test('on a shared store one process leads, the other follows, and takes over when the leader goes', async (t) => {
  const server = await startPostgres(t);
  const url = await server.createDatabase();
  const open = async (node: string) => {
    const store = await openPgStore(url);
    const log = await openLog({ store, signer, origin: ORIGIN });
    const replica = await Replica.open({ log, machine: register, following: true });
    const cluster = new Cluster(store, log, replica as never, { node, leaseMs: 600, pollMs: 50, members: store.members, say: () => {} });
    await cluster.start(`http://${node}`);
    return { store, log, replica, cluster };
  };
  const a = await open('a');
  const b = await open('b');
  t.ok(a.cluster.leading, 'the first to ask leads');
  t.notOk(b.cluster.leading);
  t.throws(() => b.replica.admit(put('z', '1')), { code: 'fenced' }, 'a follower takes no writes');
  for (let i = 0; i < 20; i++) await (a.replica.admit(put(`k${i}`, 'v')) as { committed: Promise<unknown> }).committed;
  // The follower is told of each head and folds what the leader committed.
  for (let i = 0; i < 100 && b.replica.size < 20; i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(b.replica.size, 20, 'the follower folded every entry');
  t.equal(b.cluster.leaderUrl, 'http://a');
  t.ok(await b.cluster.othersUp(), 'the leader announced itself');
  await a.cluster.stop();
  for (let i = 0; i < 100 && !b.cluster.leading; i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(b.cluster.leading, 'the follower leads once the lease is free');
  await (b.replica.admit(put('after', 'failover')) as { committed: Promise<unknown> }).committed;
  t.equal(b.log.size, 21);
  // The old leader's log cannot commit: fenced by the new epoch.
  await t.rejects(a.log.append(bytes('late=1')), LogError);
  await b.cluster.stop();
  await Promise.all([a.log.close(), b.log.close()]);
});

t.test('keepSnapshots takes one every N entries and at a flush; reaches waits for an entry to be folded', async (t) => {
  const dir = tempDir(t);
  const log = await openLog({ store: new MemoryStore(), signer, origin: ORIGIN });
  const r = await Replica.open({ log, machine: register, snapshots: join(dir, 's') });
  const taken: number[] = [];
  const after: string[] = [];
  const keep = r.keepSnapshots({
    every: 10,
    intervalMs: 20,
    written: (w) => taken.push(w.treeSize),
    after: async (why) => void after.push(why),
  });
  for (let i = 0; i < 25; i++) await (r.admit(put(`k${i}`, 'v')) as { committed: Promise<unknown> }).committed;
  for (let i = 0; i < 100 && taken.length === 0; i++) await new Promise((res) => setTimeout(res, 20));
  t.ok(taken.length >= 1 && taken[0]! >= 10, `a snapshot once 10 entries had gone by (${taken})`);
  await keep.flush('shutdown');
  t.equal(taken.at(-1), 25, 'the flush takes one of everything');
  t.equal(after.at(-1), 'shutdown', 'and runs what comes after');
  await keep.flush('again');
  t.equal(taken.at(-1), 25, 'nothing new: no snapshot, only what comes after');
  t.equal(after.at(-1), 'again');
  keep.stop();

  t.equal(await r.reaches(25, 0), true, 'an entry it holds');
  t.equal(await r.reaches(27, 30), false, 'an entry that does not come in time');
  const waiting = r.reaches(26, 2000);
  await (r.admit(put('late', 'v')) as { committed: Promise<unknown> }).committed;
  t.equal(await waiting, true, 'an entry folded while it waits');
});
