import t, { type Test } from 'tap';
import { join } from 'node:path';
import { auditLog } from '../../log/audit.js';
import { headMessage } from '../../log/head.js';
import { LevelStore, levelKeys } from '../../log/level-store.js';
import { Sequencer } from '../../log/sequencer.js';
import type { StoredHead } from '../../log/store.js';
import { testSigner } from '../helpers/signer.js';
import { tempDir } from '../helpers/tmp.js';

const ORIGIN = 'audit.example/log';
const { signer, verify } = testSigner();

/** A LevelDB log of `n` entries, closed, ready for tampering; returns its directory. */
async function makeLog(t: Test, n: number): Promise<string> {
  const dir = join(tempDir(t), 'db');
  const log = await Sequencer.open({ store: await LevelStore.open(dir), signer, origin: ORIGIN, maxBatch: 16 });
  await Promise.all(Array.from({ length: n }, (_, i) => log.append('test.entry', `{"n":${i},"text":"entry number ${i}"}`)));
  await log.close();
  return dir;
}

async function tamper(dir: string, fn: (db: LevelStore['raw']) => Promise<void>) {
  const store = await LevelStore.open(dir);
  await fn(store.raw);
  await store.close();
}

async function audit(dir: string) {
  const store = await LevelStore.open(dir);
  try {
    return await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey, page: 10 });
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
  await tamper(dir, async (db) => {
    const v = (await db.get(levelKeys.entry(17)))!.toString().replace('entry number 17', 'entry number 71');
    await db.put(levelKeys.entry(17), Buffer.from(v));
  });
  t.same((await audit(dir)).problem, { seq: 17, detail: 'payloadHash does not match the payload' });
});

t.test('a reordered pair of entries is caught at the first', async (t) => {
  const dir = await makeLog(t, 45);
  await tamper(dir, async (db) => {
    const a = (await db.get(levelKeys.entry(20)))!;
    const b = (await db.get(levelKeys.entry(21)))!;
    await db.batch().put(levelKeys.entry(20), b).put(levelKeys.entry(21), a).write();
  });
  t.equal((await audit(dir)).problem?.seq, 20);
});

t.test('an altered stored interior hash is caught at the seq that holds it', async (t) => {
  const dir = await makeLog(t, 45);
  await tamper(dir, async (db) => {
    // Group 31 holds the leaf 31 and the complete subtrees ending there, levels 1 to 5.
    const g = Buffer.from((await db.get(levelKeys.group(31)))!);
    t.equal(g.length, 32 * 6);
    g[32 * 3 + 5]! ^= 1;
    await db.put(levelKeys.group(31), g);
  });
  t.same((await audit(dir)).problem, { seq: 31, detail: 'stored interior hashes do not match the entries' });
});

t.test('a stored head that does not match the entries is caught', async (t) => {
  const dir = await makeLog(t, 45);
  // A head with a flipped root but the old signature: the signature no longer verifies.
  await tamper(dir, async (db) => {
    const h = JSON.parse((await db.get(levelKeys.head))!.toString()) as StoredHead;
    await db.put(levelKeys.head, Buffer.from(JSON.stringify({ ...h, rootHash: 'ff'.repeat(32) })));
  });
  t.same((await audit(dir)).problem, { seq: null, detail: 'head signature does not verify with the log key' });
  // A head signed by the log key over a root the entries do not give.
  await tamper(dir, async (db) => {
    const h = JSON.parse((await db.get(levelKeys.head))!.toString()) as StoredHead;
    const forged = { ...h, rootHash: 'ff'.repeat(32) };
    forged.signature = Buffer.from(signer.sign(headMessage(forged))).toString('base64url');
    await db.put(levelKeys.head, Buffer.from(JSON.stringify(forged)));
  });
  t.same((await audit(dir)).problem, { seq: null, detail: 'head rootHash does not match the entries' });
});

t.test('an entry stored beyond the head is caught', async (t) => {
  const dir = await makeLog(t, 45);
  await tamper(dir, async (db) => {
    await db.put(levelKeys.entry(45), (await db.get(levelKeys.entry(44)))!);
  });
  t.same((await audit(dir)).problem, { seq: 45, detail: 'entry stored beyond the signed head' });
});
