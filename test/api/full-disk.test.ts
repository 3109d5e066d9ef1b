// A full or failing store (docs/record.md, "A full or failing store"): writes answer 507 with a
// detail that says the store is full, reads and proofs keep answering, every acknowledged write
// is on the log and nothing refused is; once there is space again writes resume without a
// restart, and the state is the log's.
import t from 'tap';
import { join } from 'node:path';
import { StorageWatch } from '../../lib/service/storage.js';
import { stateDigest, replayStore } from '../../lib/record/fold/index.js';
import { startService, watchStorage, type Reply } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { FullDiskStore } from '../helpers/full-disk-store.js';
import { tempDir } from '../helpers/tmp.js';

t.test('a disk that fills under concurrent writers: 507, reads go on, nothing refused is logged, writes resume', async (t) => {
  const dataDir = tempDir(t);
  const store = await FullDiskStore.open(join(dataDir, 'db'));
  const s = await startService(t, { dataDir, store });
  const { said } = watchStorage(t, s);
  const agents = await Promise.all(['ann', 'bob', 'cy', 'dee'].map((h) => register(s, h)));
  const before = (await s.get('/v1/log/sth')).body.treeSize;

  // The disk fills after ten more entries; the first failing commit lands in the store anyway.
  store.room = 10;
  store.land = true;
  const papers = agents.flatMap((a) => Array.from({ length: 6 }, () => ({ a, paper: make.paper() })));
  const replies: Reply[] = [];
  // Three waves of eight concurrent writers.
  for (let w = 0; w < 3; w++)
    replies.push(...(await Promise.all(papers.slice(8 * w, 8 * w + 8).map(({ a, paper }) => send(s, a, 'paper', paper)))));
  const taken = replies.filter((r) => r.status === 201);
  const refused = replies.filter((r) => r.status !== 201);
  t.ok(taken.length > 0 && refused.length > 0, `some writes were taken (${taken.length}), the rest refused (${refused.length})`);
  for (const r of refused) {
    t.equal(r.status, 507, r.text);
    t.equal(r.body.error, 'insufficient_storage');
    t.match(r.body.detail, /the store is full/);
  }
  t.equal(said.length, 1, 'one line when writes went off');
  t.match(said[0], /^archive: writes are off: the store is full/);

  // Reads, proofs and the head keep answering; the head is the last acknowledged one.
  const sth = await s.get('/v1/log/sth');
  t.equal(sth.status, 200);
  const acked = Math.max(...taken.map((r) => r.body.seq as number));
  t.equal(sth.body.treeSize, acked + 1, 'the head ends at the last acknowledged write');
  t.equal((await s.get(`/v1/log/inclusion?seq=${acked}`)).status, 200);
  t.equal((await s.get(`/v1/log/consistency?first=${before}&second=${sth.body.treeSize}`)).status, 200);
  t.equal((await s.get(`/v2/papers/${taken[0]!.body.id}`)).status, 200);
  const again = await send(s, agents[0]!, 'paper', make.paper());
  t.equal(again.status, 507, 'still full: still refused');

  const onLog = async (): Promise<string> => {
    const size = (await s.get('/v1/log/sth')).body.treeSize;
    return (await s.get(`/v1/log/entries?from=${before}&limit=${size - before}`)).text;
  };
  const logged = await onLog();
  for (const { paper } of papers) {
    const i = papers.findIndex((p) => p.paper === paper);
    const isOn = logged.includes(JSON.stringify(paper.abstract).slice(1, -1));
    t.equal(isOn, replies[i]!.status === 201, `paper ${i} is on the log exactly when it was acknowledged (${replies[i]!.status})`);
  }

  // Space is freed: writes resume without a restart, and the state is the log's own.
  store.full = false;
  await t.resolves(async () => {
    for (let i = 0; i < 100 && s.record.writesAreOff; i++) await new Promise((r) => setTimeout(r, 50));
  });
  t.notOk(s.record.writesAreOff, 'writes are on again');
  t.ok(store.restarts >= 1, 'the store was reopened in place');
  t.equal(said.length, 2);
  t.match(said[1], /^archive: writes are on again/);
  const after = await send(s, agents[1]!, 'paper', make.paper());
  t.equal(after.status, 201, after.text);
  t.equal(after.body.seq, acked + 1, 'the log goes on from the last acknowledged head');
  const fresh = await replayStore(s.d.log, s.d.log.size);
  t.equal(stateDigest(s.record.state), stateDigest(fresh), 'the live state is a fresh replay of the log');
  // The readers' indexes were made again with the state: only what the log holds is listed or found.
  const onTheLog = [...fresh.papers.keys()].sort();
  t.ok(onTheLog.length < papers.length + 1, 'some papers were refused');
  t.same((await s.get('/v2/papers?limit=200')).body.papers.map((p: any) => p.id).sort(), onTheLog, "the list of papers is the log's");
  const found = await s.get('/v2/search?q=abstract&kind=paper&limit=100');
  t.same(found.body.results.map((r: any) => r.id).sort(), onTheLog, 'the search finds what the log holds, no paper refused');
  const audit = await s.d.audit();
  t.ok(audit.intact, `the log audits intact: ${audit.problem ?? ''}`);
});

t.test('a restart on a full disk opens for reads with writes off (507), and writes resume when space is back', async (t) => {
  const dataDir = tempDir(t);
  const first = await startService(t, { dataDir });
  const a = await register(first, 'ann');
  const size = (await first.get('/v1/log/sth')).body.treeSize;
  await first.stop();

  // "Full": more free space is needed than the disk has.
  const full = { reserveBytes: 64 * 1024, minFreeBytes: Number.MAX_SAFE_INTEGER, probeMs: 50 };
  const why = await StorageWatch.check(dataDir, full);
  t.ok(why !== undefined, 'the check says writes must start off');
  const store = await FullDiskStore.open(join(dataDir, 'db'));
  store.full = true;
  const s = await startService(t, { dataDir, store, writesOff: why });
  const said: string[] = [];
  // The watch reads these options as they change: space comes back below by lowering the floor.
  const opts = { ...full, say: (line: string) => said.push(line) };
  const watch = new StorageWatch(dataDir, s.d.log, s.record, opts);
  t.teardown(() => watch.stop());
  watch.reportStart();
  t.match(said[0], /^archive: writes are off: the store is full/);
  t.equal((await s.get('/v1/log/sth')).body.treeSize, size, 'reads are served');
  t.equal((await s.get('/v2/record')).status, 200);
  const refused = await send(s, a, 'paper', make.paper());
  t.equal(refused.status, 507, refused.text);
  t.equal(refused.body.error, 'insufficient_storage');

  // Space is back.
  store.full = false;
  opts.minFreeBytes = 0;
  for (let i = 0; i < 100 && s.record.writesAreOff; i++) await new Promise((r) => setTimeout(r, 50));
  const taken = await send(s, a, 'paper', make.paper());
  t.equal(taken.status, 201, taken.text);
  t.equal(taken.body.seq, size);
});
