// The monitor (docs/engine.md, "Monitors") against real logs: two logs from one key and one
// origin, the same first entries, then diverging (a split view), each served over HTTP and
// followed by a monitor; the monitors gossip heads (servers.ts serveGossip) and find the split.
// Also a head that does not extend the saved one, a log that shrank, a log of another key, a
// witness policy, peers that cannot be compared, and the state file.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import {
  MONITOR_FORMAT,
  Witnesses,
  comparePeer,
  fileWitness,
  monitorRound,
  readMonitorState,
  witnessConfig,
  witnessKey,
  witnessPolicy,
  writeMonitorState,
  type Log,
  type MonitorState,
} from '../src/index.js';
import { serveGossip, serveWitness } from '../src/servers.js';
import { logKey, memoryLog, serveLog } from './helpers/serve-log.js';
import { bytes } from './helpers/text.js';
import { tempDir } from './helpers/tmp.js';

const ORIGIN = 'test.example/monitored';
const PREFIX = '/v1/log';

async function appendN(log: Log, n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) await log.append(bytes(`${tag} ${i}`));
}

t.test('two logs from one key diverge; monitors that gossip find the split view', async (t) => {
  const { signer, key } = logKey();
  const [a, b] = [await memoryLog(t, signer, ORIGIN), await memoryLog(t, signer, ORIGIN)];
  await appendN(a, 4, 'shared');
  await appendN(b, 4, 'shared');
  const [urlA, urlB] = [await serveLog(t, a, key, { prefix: PREFIX }), await serveLog(t, b, key, { prefix: PREFIX })];
  const opts = (url: string, peers: string[] = []) => ({ url, prefix: PREFIX, peers });

  // B's monitor gossips what it verified.
  let stateB = (await monitorRound(opts(urlB), null)).state!;
  t.match(stateB, { format: MONITOR_FORMAT, url: urlB, origin: ORIGIN, logKey: key, sth: b.sth() });
  const gossip = await serveGossip(0, '127.0.0.1', () => stateB);
  t.teardown(() => new Promise((r) => gossip.server.close(r)));

  let round = await monitorRound(opts(urlA, [gossip.url]), null);
  t.same(
    round.findings.map((f) => f.kind),
    ['ok', 'ok'],
    'one tree: consistent',
  );
  t.match(round.findings[0], {
    detail: new RegExp(
      String.raw`^head 4 [0-9a-f]{64} verified by log key \S+ \(vkey test\.example\/monitored\+[0-9a-f]{8}\+\S+\), taken from the ` +
        String.raw`log on first use \(first head\)$`,
    ),
  });
  let stateA = round.state!;

  // A grows: B's head is a prefix of A's.
  await appendN(a, 2, 'a');
  round = await monitorRound(opts(urlA, [gossip.url]), stateA);
  t.same(
    round.findings.map((f) => f.kind),
    ['ok', 'ok'],
    'a longer head extending the peer’s',
  );
  t.match(round.findings[0], { detail: /, pinned on first use \(extends 4\)$/ });
  stateA = round.state!;

  // B is shown other entries after the shared four: a split view.
  await appendN(b, 3, 'b');
  stateB = (await monitorRound(opts(urlB), stateB)).state!;
  round = await monitorRound(opts(urlA, [gossip.url]), stateA);
  const split = round.findings.find((f) => f.kind === 'split');
  t.ok(split, 'the split view is found');
  t.match(split, {
    detail: `SPLIT VIEW: the head of size 6 shown to ${urlA} is not a prefix of the head of size 7 shown to ${urlB}`,
    evidence: [
      { url: urlA, sth: stateA.sth },
      { url: `${urlB} (via peer ${gossip.url})`, sth: stateB.sth },
    ],
  });
  t.ok(round.state, 'A’s own head still holds for A’s monitor');

  // Equal sizes, other roots: a split too.
  await appendN(a, 1, 'a again');
  round = await monitorRound(opts(urlA, [gossip.url]), round.state);
  t.equal(round.state!.sth.treeSize, stateB.sth.treeSize);
  t.ok(
    round.findings.some((f) => f.kind === 'split'),
    'same size, another root',
  );

  // A monitor that saved B's head is shown A's: it does not extend it, and is not saved.
  const seenB: MonitorState = { ...stateB, url: urlA };
  round = await monitorRound(opts(urlA), seenB);
  t.equal(round.state, null, 'the saved head is kept');
  t.match(round.findings, [
    { kind: 'inconsistent', detail: /^the head of size 7 does not extend the head of size 7 saved at /, evidence: [stateB.sth, a.sth()] },
  ]);
  await appendN(b, 5, 'b more');
  const larger = (await monitorRound(opts(urlB), null)).state!;
  round = await monitorRound(opts(urlA), { ...larger, url: urlA });
  t.match(round.findings, [{ kind: 'inconsistent', detail: 'the log shrank from 12 to 7 entries' }]);
});

t.test('the trusted key: given, pinned on first use, or another log’s', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 2, 'x');
  const url = await serveLog(t, log, key, { prefix: PREFIX });
  const other = logKey();

  const given = await monitorRound({ url, prefix: PREFIX, logKey: { key, origin: ORIGIN } }, null);
  t.match(given.findings, [{ kind: 'ok', detail: /, given \(first head\)$/ }]);
  const wrong = await monitorRound({ url, prefix: PREFIX, logKey: { key: other.key, origin: null } }, null);
  t.equal(wrong.state, null);
  t.match(wrong.findings, [{ kind: 'inconsistent', detail: `the log publishes log key ${key}; the trusted key is ${other.key}` }]);
  const origin = await monitorRound({ url, prefix: PREFIX, logKey: { key, origin: 'elsewhere.example' } }, null);
  t.match(origin.findings, [
    { kind: 'inconsistent', detail: `the log publishes origin ${ORIGIN}; the trusted key names elsewhere.example` },
  ]);
  await t.rejects(monitorRound({ url, prefix: PREFIX, logKey: { key: other.key, origin: null } }, given.state), {
    code: 'bad_argument',
    message: `the saved state trusts log key ${key}; the key given is ${other.key}`,
  });

  // Another log behind the same state: the key pinned on first use is named beside the new one.
  const another = await memoryLog(t, other.signer, ORIGIN);
  const anotherUrl = await serveLog(t, another, other.key, { prefix: PREFIX });
  const moved = await monitorRound({ url: anotherUrl, prefix: PREFIX }, given.state);
  t.match(moved.findings, [{ kind: 'inconsistent', detail: `the log publishes log key ${other.key}; the trusted key is ${key}` }]);
  t.equal(moved.state, null);
  await t.rejects(monitorRound({ url: `${url}/nowhere`, prefix: PREFIX }, null), { code: 'unavailable' });
});

t.test('under a witness policy a head must extend a checkpoint the quorum cosigned', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 3, 'x');
  const dir = tempDir(t);
  const w = witnessKey('w.test/w', generateKeyPairSync('ed25519').privateKey);
  const server = await serveWitness(0, '127.0.0.1', fileWitness(w, [{ origin: ORIGIN, logKey: key }], join(dir, 'w.json')));
  t.teardown(() => new Promise((r) => server.server.close(r)));
  const witnesses = new Witnesses(log, [witnessConfig(server.url, w.vkey)], { intervalMs: 0, note: () => {} });
  const url = await serveLog(t, log, key, { prefix: PREFIX, checkpoint: () => witnesses.checkpoint() });
  const policy = witnessPolicy([w.vkey]);

  const before = await monitorRound({ url, prefix: PREFIX, policy }, null);
  t.equal(before.state, null, 'not cosigned yet: not taken');
  t.match(before.findings, [
    {
      kind: 'unwitnessed',
      detail: /^the head of size 3 is refused: the checkpoint of size 3 carries 0 valid cosignature/,
      evidence: log.checkpoint(),
    },
  ]);
  await witnesses.tick();
  const after = await monitorRound({ url, prefix: PREFIX, policy }, null);
  t.same(
    after.findings.map((f) => f.kind),
    ['ok', 'ok'],
  );
  t.match(after.findings[0], { detail: 'checkpoint 3 cosigned by w.test/w (quorum 1)' });

  // The log grows past the cosigned checkpoint: the head must still extend it (by a proof).
  await appendN(log, 2, 'y');
  const grown = await monitorRound({ url, prefix: PREFIX, policy }, after.state);
  t.match(grown.findings, [
    { kind: 'warning', detail: /^the checkpoint is not of the head's size 5/ },
    { kind: 'ok', detail: 'checkpoint 3 cosigned by w.test/w (quorum 1)' },
    { kind: 'ok' },
  ]);
});

t.test('peers that cannot be compared are warnings; the gossip endpoint and the state file', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 2, 'x');
  const url = await serveLog(t, log, key, { prefix: PREFIX });
  const ours = (await monitorRound({ url, prefix: PREFIX }, null)).state!;

  let gossiped: MonitorState | null = null;
  const peer = await serveGossip(0, '127.0.0.1', () => gossiped);
  t.teardown(() => new Promise((r) => peer.server.close(r)));
  const before = await fetch(`${peer.url}/head`);
  t.same([before.status, await before.json()], [404, { error: 'not_found', detail: 'no head verified yet' }]);
  t.equal((await fetch(`${peer.url}/elsewhere`)).status, 404);
  t.match(await comparePeer(ours, peer.url, { prefix: PREFIX }), {
    kind: 'warning',
    detail: `peer ${peer.url}: GET ${peer.url}/head: 404`,
  });

  gossiped = { ...ours, witness: { origin: ORIGIN, treeSize: 1, rootHash: 'x', checkpoint: 'x' } };
  const head = await fetch(`${peer.url}/head`);
  t.same(await head.json(), JSON.parse(JSON.stringify(ours)), 'GET /head: the state, without the witness’s record');
  t.equal(head.headers.get('access-control-allow-origin'), '*');
  t.match(await comparePeer(ours, peer.url, { prefix: PREFIX }), { kind: 'ok', detail: /its head 2 and ours are consistent/ });

  gossiped = { ...ours, format: 'another/1' };
  t.match(await comparePeer(ours, peer.url, { prefix: PREFIX }), { kind: 'warning', detail: /follows another log/ });
  gossiped = { ...ours, sth: { ...ours.sth, treeSize: 1 } };
  t.match(await comparePeer(ours, peer.url, { prefix: PREFIX }), { kind: 'warning', detail: /gossips a head not signed by the log key/ });
  await appendN(log, 1, 'z');
  gossiped = { ...(await monitorRound({ url, prefix: PREFIX }, null)).state!, url: 'http://127.0.0.1:9/' };
  t.match(await comparePeer(ours, peer.url, { prefix: PREFIX }), { kind: 'warning', detail: /gave no consistency proof from 2 to 3/ });

  // The state file: written whole, read back; another format is refused.
  const dir = tempDir(t);
  const file = join(dir, 'm.json');
  t.equal(readMonitorState(file), null, 'none yet');
  writeMonitorState(file, ours);
  t.same(readMonitorState(file), ours);
  t.throws(() => readMonitorState(file, 'another/1'), { code: 'corrupt', message: /not a monitor state \(another\/1\)/ });
  writeFileSync(file, '{');
  t.throws(() => readMonitorState(file), { code: 'corrupt' });
});

t.test('a log that cannot be read for the proof fails the round; one that answers without a proof is inconsistent', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 3, 'x');
  const upstream = await serveLog(t, log, key, { prefix: PREFIX });
  // In front of the log: every read passed on, but a consistency proof dropped (its socket destroyed) or refused (404).
  let proofs: 'drop' | 'refuse' = 'drop';
  const proxy = createServer(async (req, res) => {
    if (req.url!.includes('/consistency')) {
      if (proofs === 'drop') req.socket.destroy();
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found","detail":"no"}');
      return;
    }
    const r = await fetch(`${upstream}${req.url}`);
    res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' }).end(Buffer.from(await r.arrayBuffer()));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => proxy.close(r)));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  const first = (await monitorRound({ url, prefix: PREFIX }, null)).state!;
  await appendN(log, 2, 'y');
  await t.rejects(monitorRound({ url, prefix: PREFIX }, first), { code: 'unavailable' }, 'the round fails, no finding made');
  proofs = 'refuse';
  const refused = await monitorRound({ url, prefix: PREFIX }, first);
  t.equal(refused.state, null, 'the saved head stays');
  t.match(refused.findings, [
    { kind: 'inconsistent', detail: /^the head of size 5 does not extend the head of size 3 saved at .* \(the service gave no proof\)$/ },
  ]);
});
