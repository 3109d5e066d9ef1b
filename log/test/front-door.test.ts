// The log through its front door (src/index.ts, docs/engine.md): the appender's durable
// promise and waitFor, the reader's parsed records, the audit, and a LevelDB store opened
// again after a close.
import { bytes, str } from './helpers/text.js';
import t from 'tap';
import { join } from 'node:path';
import { MemoryStore, openLevelStore, openLog, storeReader, type CommitBatch } from '../src/index.js';
import { testSigner } from '../src/testing.js';
import { tempDir } from './helpers/tmp.js';

const ORIGIN = 'test.example/front-door';

/** A store whose commits wait until `release` is called. */
class HeldStore extends MemoryStore {
  private held: (() => void)[] = [];
  override async commit(b: CommitBatch): Promise<void> {
    await new Promise<void>((resolve) => this.held.push(resolve));
    return super.commit(b);
  }
  release(): void {
    for (const r of this.held.splice(0)) r();
  }
  get waiting(): number {
    return this.held.length;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('waitFor resolves when the entry is durable, not before, and records read it back', async (t) => {
  const { signer } = testSigner();
  const store = new HeldStore();
  const log = await openLog({ store, signer, origin: ORIGIN });
  const queued = log.enqueue(bytes('{"n":1}'));
  t.equal(queued.seq, 0);
  let reached = false;
  const waiting = log.waitFor(1).then(() => (reached = true));
  await tick();
  t.equal(store.waiting, 1, 'the commit is being written');
  t.notOk(reached, 'waitFor does not resolve before the commit is durable');
  t.same(await log.records(0, 10), [], 'a reader sees nothing uncommitted');
  store.release();
  await waiting;
  t.ok(reached);
  t.equal(log.size, 1);
  t.same(
    (await log.records(0, 10)).map((r) => ({ seq: r.seq, text: str(r.bytes) })),
    [{ seq: 0, text: '{"n":1}' }],
    'records: seq and the stored bytes (by default, what was appended)',
  );
  await log.waitFor(1);
  t.pass('waitFor of a size already reached resolves at once');
  await log.close();
});

t.test('waitFor rejects when a commit fails (the log stops) and when the log is closed', async (t) => {
  const { signer } = testSigner();
  const store = new MemoryStore();
  const log = await openLog({ store, signer, origin: ORIGIN });
  await log.append(bytes('{"n":1}'));
  store.injectFault('before-write');
  const lost = log.append(bytes('{"n":2}'));
  const waiting = log.waitFor(2);
  await t.rejects(lost);
  await t.rejects(waiting, 'waiting for an entry the log refused ends in an error');
  t.ok(log.stopped);
  await t.rejects(log.waitFor(2), 'and so does a later wait while the log is stopped');
  await log.recover();
  await log.append(bytes('{"n":3}'));
  await log.waitFor(2);
  t.same(
    (await log.records(1, 1)).map((r) => str(r.bytes)),
    ['{"n":3}'],
    'after recovery the log goes on from its acknowledged head',
  );
  const never = log.waitFor(10);
  await log.close();
  await t.rejects(never, { code: 'closed' }, 'a wait the log can no longer meet ends when it closes');
});

t.test('a stored entry the codec cannot read is a corrupt log where the log needs its leaf', async (t) => {
  const { signer } = testSigner();
  const store = new MemoryStore();
  const codec = {
    leaf: (stored: Uint8Array) => {
      if (!str(stored).startsWith('{')) throw new Error('not JSON');
      return stored;
    },
  };
  const log = await openLog({ store, signer, origin: ORIGIN, codec });
  await log.append(bytes('{"n":1}'));
  store.entries.set(0, bytes('not a record'));
  t.same(str((await log.records(0, 1))[0]!.bytes), 'not a record', 'records are the bytes as stored');
  await t.rejects(log.entryBundle({ level: null, index: 0, width: 1 }), /not JSON/, 'a bundle needs the leaf: refused');
  await log.close();
});

t.test('a LevelDB store through the index: the audit, and the same log after a reopen', async (t) => {
  const { signer, verify } = testSigner();
  const dir = join(tempDir(t), 'db');
  const log = await openLog({ store: await openLevelStore(dir), signer, origin: ORIGIN });
  for (let i = 0; i < 300; i++) log.enqueue(bytes(`{"n":${i}}`));
  await log.waitFor(300);
  const report = await log.audit(verify);
  t.same(report, { intact: true, problem: null, treeSize: 300 });
  const sth = log.sth();
  await log.close();

  const store = await openLevelStore(dir);
  const before = await storeReader(store);
  t.equal(before.size, 300, 'the store holds the head before it is opened as a log');
  t.same(
    (await before.records(299, 5)).map((r) => str(r.bytes)),
    ['{"n":299}'],
    'and reads up to it',
  );
  const again = await openLog({ store, signer, origin: ORIGIN });
  t.same(again.sth(), sth, 'reopened at its last head');
  t.same(str((await again.records(0, 1))[0]!.bytes), '{"n":0}');
  await again.close();
});
