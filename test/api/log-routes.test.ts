import t from 'tap';
import { fromHex, headMessage, verifyConsistency, verifyInclusion } from 'tlog-engine';
import { verifySignature } from '../../lib/protocol/ed25519.js';
import { startService } from '../helpers/service.js';
import { appendPairings } from '../helpers/agents.js';
import { sha256TextHex } from 'tlog-engine';

t.test('the index, the key and the signed head name the same log key', async (t) => {
  const s = await startService(t);
  const index = await s.get('/');
  t.equal(index.status, 200);
  t.equal(index.body.protocol, 'archive/0.2');
  t.equal(index.body.operator, 'op_archive');
  const key = await s.get('/v1/log/key');
  t.same(key.body, { key: index.body.logKey, origin: index.body.origin, vkey: index.body.vkey });
  const sth = await s.get('/v1/log/sth');
  t.equal(sth.status, 200);
  t.equal(sth.body.treeSize, 1, 'a new log holds its genesis entry');
  t.ok(verifySignature(key.body.key, headMessage(sth.body), sth.body.signature), 'STH signature verifies with the published key');
  const genesis = (await s.get('/v1/log/entries')).body.entries[0];
  t.equal(genesis.type, 'log.genesis');
  t.same(
    { logKey: genesis.payload.event.logKey, operator: genesis.payload.event.operator, origin: genesis.payload.event.origin },
    { logKey: key.body.key, operator: 'op_archive', origin: key.body.origin },
  );
});

t.test('entries page with next, and every inclusion and consistency proof verifies', async (t) => {
  const s = await startService(t);
  await appendPairings(s, 40);
  const sth1 = (await s.get('/v1/log/sth')).body;
  await appendPairings(s, 25, 40);
  const sth2 = (await s.get('/v1/log/sth')).body;
  t.equal(sth2.treeSize, 66);

  const entries: any[] = [];
  let from: number | null = 0;
  while (from !== null) {
    const page: any = (await s.get(`/v1/log/entries?from=${from}&limit=20`)).body;
    t.equal(page.treeSize, 66);
    t.equal(page.from, from);
    t.equal(page.count, page.entries.length);
    entries.push(...page.entries);
    from = page.next;
  }
  t.equal(entries.length, 66);
  t.same(
    entries.map((e) => e.seq),
    Array.from({ length: 66 }, (_, i) => i),
  );
  t.equal(entries[5].payload.payload.codeHash, sha256TextHex('code 4'), 'entries in the order appended');

  for (const [sth, n] of [
    [sth1, 41],
    [sth2, 66],
  ] as const) {
    for (let seq = 0; seq < n; seq++) {
      const r = await s.get(`/v1/log/inclusion?seq=${seq}&size=${n}`);
      t.equal(r.body.treeSize, n);
      if (
        !verifyInclusion(
          seq,
          n,
          fromHex(entries[seq].entryHash),
          r.body.proof.map((h: string) => fromHex(h)),
          fromHex(sth.rootHash),
        )
      ) {
        t.fail(`inclusion of ${seq} in ${n}`);
      }
    }
  }
  const latest = await s.get('/v1/log/inclusion?seq=3');
  t.equal(latest.body.treeSize, 66, 'size defaults to the current tree');
  const c = (await s.get('/v1/log/consistency?first=41&second=66')).body;
  t.same({ first: c.first, second: c.second }, { first: 41, second: 66 });
  t.ok(
    verifyConsistency(
      41,
      66,
      c.proof.map((h: string) => fromHex(h)),
      fromHex(sth1.rootHash),
      fromHex(sth2.rootHash),
    ),
  );
  t.same((await s.get('/v1/log/consistency?first=0&second=66')).body.proof, [], 'from size 0: the empty proof');
  t.same((await s.get('/v1/log/consistency?first=66&second=66')).body.proof, [], 'equal sizes: the empty proof');
  const end = (await s.get('/v1/log/entries?from=66')).body;
  t.same(end, { treeSize: 66, from: 66, count: 0, next: null, entries: [] }, 'a follower at the end gets an empty page');
});

t.test('bad parameters answer 400 naming the parameter; beyond the tree 400 or 404, never 500', async (t) => {
  const s = await startService(t);
  await appendPairings(s, 9);
  const cases: [string, number, RegExp][] = [
    ['/v1/log/inclusion', 400, /^seq: required/],
    ['/v1/log/inclusion?seq=abc', 400, /^seq: expected an integer/],
    ['/v1/log/inclusion?seq=-1', 400, /^seq:/],
    ['/v1/log/inclusion?seq=01', 400, /^seq:/],
    ['/v1/log/inclusion?seq=1e2', 400, /^seq:/],
    ['/v1/log/inclusion?seq=1.0', 400, /^seq:/],
    ['/v1/log/inclusion?seq=99999999999999999999', 400, /^seq:/],
    ['/v1/log/inclusion?seq=1&seq=2', 400, /^seq: given more than once/],
    ['/v1/log/inclusion?seq=1&size=0', 400, /^size:/],
    ['/v1/log/inclusion?seq=5&size=5', 400, /^seq: 5 is not in a tree of size 5/],
    ['/v1/log/inclusion?seq=10', 400, /^seq: 10 is not in a tree of size 10/],
    ['/v1/log/inclusion?seq=1&size=11', 404, /size 11 is beyond the tree size 10/],
    ['/v1/log/inclusion?seq=1&sise=3', 400, /^sise: unknown parameter/],
    ['/v1/log/consistency?second=3', 400, /^first: required/],
    ['/v1/log/consistency?first=3', 400, /^second: required/],
    ['/v1/log/consistency?first=4&second=3', 400, /^first: 4 is larger than second/],
    ['/v1/log/consistency?first=1&second=0', 400, /^second:/],
    ['/v1/log/consistency?first=1&second=11', 404, /second 11 is beyond the tree size 10/],
    ['/v1/log/entries?limit=0', 400, /^limit: expected an integer from 1 to 1000/],
    ['/v1/log/entries?limit=1001', 400, /^limit:/],
    ['/v1/log/entries?from=11', 400, /^from: 11 is beyond the tree size 10/],
    ['/v1/log/sth?x=1', 400, /^x: unknown parameter/],
    ['/v1/log/nothing', 404, /no such endpoint/],
  ];
  for (const [path, status, detail] of cases) {
    const r = await s.get(path);
    t.equal(r.status, status, `${path}: ${status}`);
    t.equal(r.body?.error, status === 400 ? 'bad_request' : 'not_found', `${path}: error code`);
    t.match(r.body?.detail, detail, `${path}: detail`);
  }
});

t.test('the audit answers intact, then 429 with Retry-After past its limit', async (t) => {
  const s = await startService(t, { auditLimit: { max: 1, windowSeconds: 60 } });
  await appendPairings(s, 20);
  const a = await s.get('/v1/log/audit');
  t.equal(a.status, 200);
  t.same(a.body, { intact: true, problem: null, treeSize: 21 });
  const b = await s.get('/v1/log/audit');
  t.equal(b.status, 429);
  t.equal(b.body.error, 'rate_limited');
  const retry = Number(b.headers.get('retry-after'));
  t.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
});

t.test('the checkpoint is the signed head as a C2SP signed note', async (t) => {
  const s = await startService(t);
  await appendPairings(s, 3);
  const sth = (await s.get('/v1/log/sth')).body;
  const cp = await s.get('/v1/log/checkpoint');
  t.equal(cp.status, 200);
  t.match(cp.headers.get('content-type'), /^text\/plain/);
  const origin = (await s.get('/v1/log/key')).body.origin;
  const [text, sig] = cp.text.split('\n\n') as [string, string];
  t.equal(text, `${origin}\n4\n${Buffer.from(sth.rootHash, 'hex').toString('base64')}`);
  t.match(sig, new RegExp(`^\u2014 ${origin.replace(/\./g, '\\.')} [A-Za-z0-9+/]+=*\n$`));
});

t.test('a restarted service keeps its key, its head and its one genesis', async (t) => {
  const s = await startService(t);
  await appendPairings(s, 5);
  const key = (await s.get('/v1/log/key')).body;
  const sth = (await s.get('/v1/log/sth')).body;
  await s.stop();
  const again = await startService(t, { dataDir: s.dataDir });
  t.same((await again.get('/v1/log/key')).body, key);
  t.same((await again.get('/v1/log/sth')).body, sth);
  const types = (await again.get('/v1/log/entries')).body.entries.map((e: any) => e.type);
  t.same(
    types.filter((x: string) => x === 'log.genesis'),
    ['log.genesis'],
  );
});

t.test('query strings are decoded strictly', async (t) => {
  const s = await startService(t);
  await appendPairings(s, 3);
  t.equal((await s.get('/v1/log/inclusion?%73eq=1')).status, 200, 'a percent-encoded name is decoded');
  const bad = await s.get('/v1/log/inclusion?seq=%E0%A4%A');
  t.equal(bad.status, 400);
  t.match(bad.body.detail, /malformed percent-encoding/);
  const plus = await s.get('/v1/log/inclusion?seq=+1');
  t.equal(plus.status, 400, '"+1" decodes to " 1", which is no integer');
});
