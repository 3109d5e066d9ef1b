// Many nodes on one PostgreSQL database (docs/deploy.md), each a real service on its own port in
// this process: a follower forwards writes to the leader and says which entry holds them; its
// reads and proofs are the leader's; Min-Seq makes it wait for an entry, or answers 503 naming
// how far it is; forwarding keeps the client's address for the leader's limits; a leader whose
// lease was taken has its commit fenced (503, nothing logged); the snapshot is kept in the
// database; a follower serves the cosigned checkpoint the leader kept there.
import t, { type Test } from 'tap';
import { stateDigest, replayStore } from '../../lib/record/fold/index.js';
import { storeSnapshots } from '../../lib/service/snapshot-place.js';
import { openPgStore } from 'tlog-engine';
import { startService, type Reply, type TestService } from '../helpers/service.js';
import { make, payloadOf, register, registration, send } from '../helpers/agents.js';
import { generateKeyPair, signPayload } from '../../lib/protocol/ed25519.js';
import { startPostgres } from 'tlog-engine/testing';
import { tempDir } from '../helpers/tmp.js';
import { join } from 'node:path';
import { cosignedIn, parseWitnessFlag, Witnesses } from '../../lib/service/witnesses.js';
import { addCheckpoint, loadOrCreateWitnessKey, type WitnessRecord } from '../../verify/witness.js';
import { serveGossip } from '../../verify/monitor.js';

const server = await startPostgres(t);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function get(s: TestService, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(s.url + path, { headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Waits until `f` holds (checked every 20 ms, at most `ms`). */
async function until(f: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (await f()) return true;
  return f();
}

/** Two nodes on a new database: `a` leads, `b` follows. */
async function pair(
  t: Test,
  opts: { leaseMs?: number; a?: Parameters<typeof startService>[1]; b?: Parameters<typeof startService>[1] } = {},
) {
  const storeUrl = await server.createDatabase();
  const dataDir = tempDir(t);
  const leaseMs = opts.leaseMs ?? 2000;
  const a = await startService(t, { dataDir, ...opts.a, node: { storeUrl, id: 'a', leaseMs } });
  const b = await startService(t, { dataDir, ...opts.b, node: { storeUrl, id: 'b', leaseMs } });
  return { a, b, storeUrl };
}

t.test('a follower forwards writes and says which entry holds them; its reads and proofs are the leader’s', async (t) => {
  const { a, b } = await pair(t, { b: { minSeqWaitMs: 300 } });
  t.match((await a.get('/v1/node')).body, { node: 'a', role: 'leader', leader: a.url, treeSize: 1, applied: 1 });
  t.match((await b.get('/v1/node')).body, { node: 'b', role: 'follower', leader: a.url });

  // Writes through the follower: registered, published, on the leader's log.
  const alice = await register(b, 'alice', { operatorId: 'lab-a' });
  const bob = await register(b, 'bob', { operatorId: 'lab-b' });
  const paper = await send(b, alice, 'paper', make.paper(2));
  t.equal(paper.status, 201, paper.text);
  t.equal(paper.headers.get('archive-leader'), a.url, 'forwarded to the leader');
  t.equal(paper.headers.get('archive-seq'), String(paper.body.seq), 'Archive-Seq names the entry');
  t.equal(a.d.log.size, paper.body.seq + 1, 'it is on the log');

  // Read on the follower with Min-Seq: answered once the follower has that entry.
  const read = await get(b, `/v2/papers/${paper.body.id}`, { 'min-seq': String(paper.body.seq) });
  t.equal(read.status, 200, read.text);
  t.equal(read.body.id, paper.body.id, 'the follower serves the write at once');
  const review = await send(b, bob, 'review', {
    claim: paper.body.claims[0],
    forecast: 0.4,
    rationale: 'The effect size looks too large for the sample.',
  });
  t.equal(review.status, 201, review.text);
  const [c1] = paper.body.claims as string[];
  const fromB = await get(b, '/v2/credence', { 'min-seq': String(review.body.seq) });
  t.equal(fromB.status, 200);
  t.ok(
    fromB.body.claims.some((c: { ref: string }) => c.ref === c1),
    'the claim and its numbers are there',
  );
  t.same(fromB.body, (await a.get('/v2/credence')).body, 'the same numbers as the leader');

  // Every log read and proof the follower serves is the leader's.
  const size = a.d.log.size;
  await until(() => b.d.log.size === size);
  for (const path of [
    '/v1/log/sth',
    '/v1/log/checkpoint',
    `/v1/log/entries?from=0&limit=${size}`,
    `/v1/log/inclusion?seq=${paper.body.seq}`,
    `/v1/log/inclusion?seq=0&size=${size - 1}`,
    `/v1/log/consistency?first=1&second=${size}`,
    `/v1/log/tile/0/000.p/${size}`,
    `/v1/log/tile/entries/000.p/${size}`,
    '/v2/record',
  ]) {
    const [x, y] = await Promise.all([get(a, path), get(b, path)]);
    t.equal(y.status, 200, `${path}: ${y.text.slice(0, 200)}`);
    t.equal(y.text, x.text, `${path} is the leader's`);
  }
  // A list's cursor made by one node pages on at the other (docs/api.md#lists-and-cursors).
  for (const [from, to] of [
    [a, b],
    [b, a],
  ] as const) {
    const first = await from.get('/v2/credence?limit=1');
    t.type(first.body.next, 'string');
    const there = await to.get(`/v2/credence?limit=1&cursor=${first.body.next}`);
    t.equal(there.status, 200, there.text);
    t.same(there.body, (await from.get(`/v2/credence?limit=1&cursor=${first.body.next}`)).body, "the other node's next page");
  }
  const audit = await b.get('/v1/log/audit');
  t.same(audit.body, { intact: true, problem: null, treeSize: size }, 'the audit from the follower');
  t.equal(stateDigest(b.record.state), stateDigest(a.record.state), 'the same state');
  t.equal(stateDigest(b.record.state), stateDigest(await replayStore(b.d.log, size)), 'a replay of the log');

  // Min-Seq that does not come: 503 naming how far the node is; malformed: 400 naming it.
  const far = await get(b, '/v1/log/sth', { 'min-seq': String(size + 1000) });
  t.equal(far.status, 503);
  t.equal(far.body.error, 'unavailable');
  t.match(far.body.detail, new RegExp(`Min-Seq: this node holds the log up to entry ${size - 1}, not yet entry ${size + 1000}`));
  t.equal(far.headers.get('retry-after'), '1');
  for (const bad of ['-1', '01', 'x', '1e3', String(2 ** 53)]) {
    const r = await get(b, '/v1/log/sth', { 'min-seq': bad });
    t.equal(r.status, 400, `Min-Seq: ${bad}`);
    t.match(r.body.detail, /^Min-Seq: expected an integer/);
  }

  // A refusal by the leader comes back as it was given, and nothing is logged.
  const again = await b.post('/v2/agents/register', registration(b, 'alice', generateKeyPair().publicKey));
  t.equal(again.status, 409, again.text);
  t.equal(again.body.error, 'conflict');
  const tooBig = await b.post('/v2/papers', JSON.stringify({ x: 'y'.repeat(70_000) }));
  t.equal(tooBig.status, 413, 'a body over 64 KiB is refused by the follower itself');
  t.equal(a.d.log.size, size, 'nothing logged');
});

t.test('writes that reach a follower together go to the leader in fewer exchanges, each answered as if it had come alone', async (t) => {
  const { a, b } = await pair(t);
  const alice = await register(b, 'alice', { operatorId: 'lab-a' });
  const posts: string[] = [];
  a.server.server.on('request', (req: { method?: string; url?: string }) => {
    if (req.method === 'POST') posts.push(req.url ?? '');
  });
  const payload = payloadOf(b, alice, 'paper', make.paper(1));
  const paper = JSON.stringify({ payload, signature: signPayload(alice.privateKey, payload) });
  const good = Array.from({ length: 24 }, (_, i) => registration(b, `batch${i}`, generateKeyPair().publicKey));
  const bad = { ...registration(b, 'x', generateKeyPair().publicKey), handle: 'Not A Handle!' };
  const twice = registration(b, 'twice', generateKeyPair().publicKey);
  const [paper1, paper2, badReply, twice1, twice2, ...goods] = await Promise.all([
    b.post('/v2/papers', paper),
    b.post('/v2/papers', paper),
    b.post('/v2/agents/register', bad),
    b.post('/v2/agents/register', twice),
    b.post('/v2/agents/register', { ...twice, publicKey: generateKeyPair().publicKey }),
    ...good.map((g) => b.post('/v2/agents/register', g)),
  ]);
  const writes = 5 + good.length;
  t.ok(posts.length < writes, `the leader took ${posts.length} requests for ${writes} writes`);
  t.ok(posts.includes('/v1/node/writes'), 'in batches');
  for (const [i, r] of goods.entries()) {
    t.equal(r.status, 201, r.text);
    t.equal(r.body.handle, `batch${i}`, 'each client its own answer');
    t.equal(r.headers.get('archive-seq'), String(r.body.seq));
    t.equal(r.headers.get('archive-leader'), a.url);
    t.equal(a.d.log.size > r.body.seq, true, 'on the log');
  }
  t.same([paper1!.status, paper2!.status].sort(), [201, 409], 'one paper logged, its copy refused: ' + paper1!.text + paper2!.text);
  const copy = paper1!.status === 409 ? paper1! : paper2!;
  t.equal(copy.body.error, 'conflict');
  t.same([twice1!.status, twice2!.status].sort(), [201, 409], 'one handle, two registrations: ' + twice1!.text + twice2!.text);
  // The refusal among them is word for word what the leader answers the same bytes sent alone; nothing of it was logged.
  const direct = await a.post('/v2/agents/register', bad);
  t.equal(direct.status, 400);
  t.equal(badReply!.status, 400);
  t.equal(badReply!.text, direct.text, 'the same body');
  t.equal(badReply!.headers.get('content-type'), direct.headers.get('content-type'));
});

t.test('the batch route between the nodes refuses a request without the nodes’ secret, and reads nothing of it', async (t) => {
  const { a } = await pair(t);
  const before = a.d.log.size;
  const w = Buffer.from(JSON.stringify(registration(a, 'sneaky', generateKeyPair().publicKey)));
  const head = Buffer.from(JSON.stringify({ path: '/v2/agents/register', client: '10.1.2.3', contentType: 'application/json' }));
  const u32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
  const batch = Buffer.concat([u32(head.length), head, u32(w.length), w]);
  for (const token of [undefined, 'guess']) {
    const res = await fetch(`${a.url}/v1/node/writes`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.archive.write-batch', ...(token === undefined ? {} : { 'x-archive-self-token': token }) },
      body: batch,
    });
    t.equal(res.status, 403);
    const body = (await res.json()) as { error: string; detail: string };
    t.equal(body.error, 'forbidden');
    t.match(body.detail, /^x-archive-self-token: /);
  }
  t.equal(a.d.log.size, before, 'nothing logged');
  // With the secret, the same batch is taken: the route is there, behind the secret.
  const ok = await fetch(`${a.url}/v1/node/writes`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.archive.write-batch', 'x-archive-self-token': a.cluster!.secret },
    body: batch,
  });
  t.equal(ok.status, 200);
  t.equal(a.d.log.size, before + 1, 'the write in it logged');
});

t.test('forwarding keeps the client’s address: the leader’s registration limit counts clients, not the node that forwarded', async (t) => {
  const { a, b } = await pair(t, {
    a: { registerLimit: { max: 2, windowSeconds: 3600 } },
    b: { trustProxy: ['127.0.0.1'] },
  });
  const from = async (ip: string, handle: string, extra: Record<string, string> = {}) =>
    b.post('/v2/agents/register', registration(b, handle, generateKeyPair().publicKey), { 'x-forwarded-for': ip, ...extra });
  t.equal((await from('10.0.0.1', 'ann1')).status, 201);
  t.equal((await from('10.0.0.1', 'ann2')).status, 201);
  const third = await from('10.0.0.1', 'ann3');
  t.equal(third.status, 429, 'the third from one client is over its limit, at the leader');
  t.equal(third.body.error, 'rate_limited');
  t.ok(Number(third.headers.get('retry-after')) > 0);
  t.equal((await from('10.0.0.2', 'bea1')).status, 201, 'another client behind the same node has its own count');
  // A client cannot name itself with the forwarding headers: without the nodes' secret they are ignored.
  const forged = await a.post('/v2/agents/register', registration(a, 'cy1', generateKeyPair().publicKey), {
    'x-archive-self-client': '10.9.9.9',
    'x-archive-self-token': 'guess',
  });
  t.equal(forged.status, 201, 'counted as the address it came from (127.0.0.1), its first');
  const forged2 = await a.post('/v2/agents/register', registration(a, 'cy2', generateKeyPair().publicKey), {
    'x-archive-self-client': '10.9.9.8',
    'x-archive-self-token': 'guess',
  });
  t.equal(forged2.status, 201);
  const forged3 = await a.post('/v2/agents/register', registration(a, 'cy3', generateKeyPair().publicKey), {
    'x-archive-self-client': '10.9.9.7',
    'x-archive-self-token': 'guess',
  });
  t.equal(forged3.status, 429, 'all three counted against 127.0.0.1');
});

t.test('a leader whose lease was taken (it stopped renewing): its next commit is fenced, 503, and nothing is logged', async (t) => {
  // Node a holds a short lease and never renews it (paused, or cut off from the database while
  // its commits still get through): once it expires, b takes it; a does not know.
  const storeUrl = await server.createDatabase();
  const dataDir = tempDir(t);
  const storeA = await openPgStore(storeUrl);
  t.ok(await storeA.lease.acquire({ node: 'a', url: '' }, 300));
  const a = await startService(t, { dataDir, store: storeA });
  const alice = await register(a, 'alice');
  const b = await startService(t, { dataDir, node: { storeUrl, id: 'b' } });
  t.ok(await until(() => b.cluster!.leading), 'b takes the lease once it expired');
  const before = b.d.log.size;

  const refused = await send(a, alice, 'paper', make.paper());
  t.equal(refused.status, 503, refused.text);
  t.equal(refused.body.error, 'unavailable');
  t.match(refused.body.detail, /lost the sequencer lease before the write was committed: nothing of it was logged/);
  t.equal(refused.headers.get('retry-after'), '1');
  t.equal((await storeA.readHead())!.treeSize, before, 'nothing of it is on the log');
  t.notOk(a.record.leading, 'a admits no more writes');
  const next = await send(a, alice, 'paper', make.paper());
  t.equal(next.status, 503, 'nor the next');
  await a.record.stopLeading('test');
  t.equal(a.record.state.size, a.d.log.size, 'its state is back at its log');
  t.equal(stateDigest(a.record.state), stateDigest(await replayStore(a.d.log, a.d.log.size)), 'and is a replay of it');

  // The same write, to the node that leads: taken, at the place the fenced one did not get.
  const taken = await send(b, alice, 'paper', make.paper());
  t.equal(taken.status, 201, taken.text);
  t.equal(taken.body.seq, before);
});

t.test('search on PostgreSQL: one index, written by the leader, read by both; a cursor pages on at the other node', async (t) => {
  const { a, b } = await pair(t);
  const alice = await register(a, 'alice', { operatorId: 'lab-a' });
  const made: string[] = [];
  for (let i = 0; i < 7; i++) {
    const where = i % 3 === 0 ? { title: `Quasar survey ${i}` } : { abstract: `We study quasar ${i} across many settings, with data.` };
    const r = await send(a, alice, 'paper', make.paper(1, where));
    t.equal(r.status, 201, r.text);
    made.push(r.body.id);
  }
  t.ok(await until(() => b.d.log.size === a.d.log.size));
  const whole = await a.get('/v2/search?q=quasars&kind=paper&limit=100');
  t.equal(whole.status, 200, whole.text);
  const ids = whole.body.results.map((r: { id: string }) => r.id);
  t.same([...ids].sort(), [...made].sort(), 'every paper, the word in any of its forms');
  t.same((await b.get('/v2/search?q=quasars&kind=paper&limit=100')).body, whole.body, 'the same answer from the follower');

  // Pages read at one node, then the other, while better matches land: nothing skipped, nothing repeated.
  const walked: string[] = [];
  let next: string | null = null;
  for (let page = 0, node = a; page < 10; page++, node = node === a ? b : a) {
    const r = await get(node, `/v2/search?q=quasars&kind=paper&limit=2${next === null ? '' : `&cursor=${next}`}`);
    t.equal(r.status, 200, r.text);
    walked.push(...r.body.results.map((x: { id: string }) => x.id));
    next = r.body.next;
    if (next === null) break;
    t.equal((await send(b, alice, 'paper', make.paper(1, { title: `Quasar ${page} first` }))).status, 201);
  }
  t.same(walked, ids, 'the pages of the first, as they were');

  // A paper written through the follower is found there at once: its search waits for the index to hold its state.
  const late = await send(b, alice, 'paper', make.paper(1, { title: 'Blazar jets at low frequency' }));
  t.equal(late.status, 201, late.text);
  const found = await get(b, '/v2/search?q=blazar', { 'min-seq': String(late.body.seq) });
  t.equal(found.status, 200, found.text);
  t.same(
    found.body.results.map((r: { id: string }) => r.id),
    [late.body.id],
  );
});

t.test('on PostgreSQL the snapshot is kept in the database: another node starts from it', async (t) => {
  const { a, storeUrl } = await pair(t);
  const alice = await register(a, 'alice');
  for (let i = 0; i < 5; i++) t.equal((await send(a, alice, 'paper', make.paper())).status, 201);
  const store = await openPgStore(storeUrl);
  t.teardown(() => store.close());
  const place = storeSnapshots(store.blobs, 'db');
  const written = await a.record.snapshot(place);
  t.match(written, { treeSize: a.d.log.size, kept: true });
  const lines: string[] = [];
  const c = await startService(t, { dataDir: a.dataDir, snapshot: place, say: (l) => lines.push(l), node: { storeUrl, id: 'c' } });
  t.same(lines, [`archive: starting from the snapshot at entry ${written!.treeSize} of ${c.d.log.size}`]);
  t.equal(stateDigest(c.record.state), stateDigest(a.record.state));
});

t.test(
  'witnesses: the leader keeps its cosigned checkpoint in the database; a follower serves it once it holds against its own log',
  async (t) => {
    const { a, b, storeUrl } = await pair(t);
    const alice = await register(a, 'alice');
    t.equal((await send(a, alice, 'paper', make.paper())).status, 201);
    // A real witness (the monitor's add-checkpoint, served over HTTP), in this process.
    const { witness: key } = loadOrCreateWitnessKey(join(tempDir(t), 'w.key'), 'w.test/witness');
    let last: WitnessRecord | null = null;
    const endpoint = {
      add: (body: string) => {
        const answer = addCheckpoint(body, { origin: a.d.origin, logKey: a.d.logKeyString }, last, key);
        if (answer.record !== undefined) last = answer.record;
        return answer;
      },
      last: () => last,
    };
    const w = await serveGossip(0, '127.0.0.1', () => null, endpoint);
    t.teardown(() => new Promise((r) => w.server.close(r)));
    const config = parseWitnessFlag(`${w.url}=${key.vkey}`);
    const [storeA, storeB] = [await openPgStore(storeUrl), await openPgStore(storeUrl)];
    t.teardown(async () => {
      await storeA.close();
      await storeB.close();
    });
    const wa = new Witnesses(a.d.log, [config], { intervalMs: 20, shared: cosignedIn(storeA.blobs), note: () => {} });
    const wb = new Witnesses(b.d.log, [config], { intervalMs: 20, shared: cosignedIn(storeB.blobs), note: () => {} });
    t.teardown(async () => {
      await wa.stop();
      await wb.stop();
    });
    await wa.tick();
    const cosigned = wa.checkpoint();
    t.not(cosigned, a.d.log.checkpoint(), 'the leader’s checkpoint is cosigned');
    t.ok(await until(() => b.d.log.size === a.d.log.size));
    t.equal(wb.checkpoint(), b.d.log.checkpoint(), 'before following, the follower serves its own');
    wb.follow();
    t.ok(await until(() => wb.checkpoint() === cosigned), 'then the cosigned one the leader kept');

    // A note that is not a checkpoint of this log, or not cosigned by a known witness, is not served.
    const stranger = await startService(t, { store: await openPgStore(await server.createDatabase()) });
    await cosignedIn(storeA.blobs).put(1_000_000, `${stranger.d.log.checkpoint()}— w.test/witness AAAA\n`);
    await sleep(100);
    t.equal(wb.checkpoint(), cosigned, 'a checkpoint of another log is not taken');
    await cosignedIn(storeA.blobs).put(2_000_000, a.d.log.checkpoint());
    await sleep(100);
    t.equal(wb.checkpoint(), cosigned, 'nor one without a cosignature it can verify');
  },
);
