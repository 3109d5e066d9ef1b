// Doorbell ringing: a real HTTPS receiver on loopback (a self-signed certificate the ringer is
// told to trust, and the setting that allows loopback), rung when something is new in the
// agent's fields or owed, at most as often as its cadence; retried with backoff; marked failing;
// and addresses inside the service's own network refused.
import t, { type Test } from 'tap';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, send, type TestAgent } from '../helpers/agents.js';
import { DoorbellRinger, type WakeUp } from '../../lib/service/doorbell/ringer.js';
import { forbiddenAddress } from '../../lib/protocol/doorbell-address.js';

/** An HTTPS server on 127.0.0.1 that records the wake-ups and answers `status()`. */
async function receiver(t: Test, status: () => number) {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  } as any);
  const got: WakeUp[] = [];
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push(JSON.parse(body));
      res.writeHead(status()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { got, cert: pems.cert, url: `https://localhost:${(server.address() as AddressInfo).port}/wake` };
}

async function setup(t: Test, status: () => number, allowLoopback = true) {
  const rx = await receiver(t, status);
  let ringer!: DoorbellRinger;
  const s: TestService = await startService(t, {
    ringer: (record, clock) => (ringer = new DoorbellRinger(record.state, { origin: 'archive.local', clock, allowLoopback, ca: rx.cert })),
  });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  return { s, rx, ringer, bob, alice };
}

const setBell = (s: TestService, a: TestAgent, url: string, cadence = 'immediate') =>
  send(s, a, 'doorbell.set', { kind: 'webhook', cadence, url });

t.test('rung when something is new in its fields, at most as often as its cadence', async (t) => {
  const { s, rx, ringer, bob, alice } = await setup(t, () => 204);
  t.equal((await setBell(s, bob, rx.url, 'hourly')).status, 200);
  await ringer.tick();
  t.equal(rx.got.length, 0, 'nothing new yet: no ring');

  await send(s, alice, 'paper', make.paper(1));
  await ringer.tick();
  t.equal(rx.got.length, 1, 'a new paper: rung');
  t.match(rx.got[0], {
    protocol: 'archive/0.2',
    type: 'doorbell.ring',
    origin: 'archive.local',
    agent: 'bob',
    treeSize: s.d.log.size,
    owed: 0,
    news: { papers: 1, challenges: 0, arguments: 0 },
    heartbeat: '/v2/heartbeat?agent=bob',
  });
  t.notOk(JSON.stringify(rx.got[0]).includes(rx.url), 'the wake-up never carries the address');

  await ringer.tick();
  t.equal(rx.got.length, 1, 'nothing new since: not rung again');
  await send(s, alice, 'paper', make.paper(1));
  await ringer.tick();
  t.equal(rx.got.length, 1, 'hourly: not within the hour');
  s.advance(61 * 60 * 1000);
  await ringer.tick();
  t.equal(rx.got.length, 2, 'an hour later: rung');
  t.match(rx.got[1], { news: { papers: 1 } }, 'only what is new since the last ring');

  // A poll doorbell is never rung; the heartbeat shows kind, status and cadence, never the address.
  await send(s, bob, 'doorbell.set', { kind: 'poll', cadence: 'daily' });
  await send(s, alice, 'paper', make.paper(1));
  s.advance(2 * 60 * 60 * 1000);
  await ringer.tick();
  t.equal(rx.got.length, 2, 'poll: not rung');
  const hb = (await s.get('/v2/heartbeat?agent=bob')).body;
  t.same(hb.doorbell, { kind: 'poll', status: 'set', cadence: 'daily' });
});

t.test('a failing address is retried with backoff, then marked failing until set anew', async (t) => {
  let answer = 500;
  const { s, rx, ringer, bob, alice } = await setup(t, () => answer);
  await setBell(s, bob, rx.url);
  await send(s, alice, 'paper', make.paper(1));
  await ringer.tick();
  t.equal(rx.got.length, 1, 'first try');
  await ringer.tick();
  t.equal(rx.got.length, 1, 'not again before the backoff');
  for (const [wait, n] of [
    [60_000, 2],
    [5 * 60_000, 3],
    [30 * 60_000, 4],
  ] as const) {
    s.advance(wait);
    await ringer.tick();
    t.equal(rx.got.length, n, `retried after ${wait / 60000} minutes`);
  }
  s.advance(24 * 60 * 60_000);
  await ringer.tick();
  t.equal(rx.got.length, 4, 'after four failures: not retried forever');
  const hb = (await s.get('/v2/heartbeat?agent=bob')).body;
  t.match(hb.doorbell, {
    kind: 'webhook',
    status: 'failing',
    cadence: 'immediate',
    failure: /4 rings in a row failed; the last: answered 500/,
  });
  t.notOk(JSON.stringify(hb).includes(rx.url), 'never the address');

  // Set anew: the mark is lifted; news from then on rings.
  answer = 200;
  await setBell(s, bob, rx.url);
  t.equal((await s.get('/v2/heartbeat?agent=bob')).body.doorbell.status, 'set');
  await send(s, alice, 'paper', make.paper(1));
  await ringer.tick();
  t.equal(rx.got.length, 5);
  t.match(rx.got[4], { news: { papers: 1 } });
});

t.test("addresses inside the service's own network are refused", async (t) => {
  const { s, rx, ringer, bob, alice } = await setup(t, () => 204, false);
  await setBell(s, bob, rx.url);
  await send(s, alice, 'paper', make.paper(1));
  await ringer.tick();
  t.equal(rx.got.length, 0, 'loopback is not rung without the setting');
  const hb = await s.get('/v2/heartbeat?agent=bob');
  t.match(hb.body.doorbell, {
    status: 'failing',
    failure: "the doorbell's host resolves to a refused address: a loopback address (RFC 1122 section 3.2.1.3)",
  });
  for (const shown of ['127.0.0.1', 'localhost', rx.url]) t.notOk(hb.text.includes(shown), `the heartbeat never shows ${shown}`);

  const cases: [string, boolean, string | null][] = [
    ['127.0.0.1', false, 'loopback'],
    ['127.0.0.1', true, null],
    ['::1', false, 'loopback'],
    ['10.1.2.3', true, 'private'],
    ['172.16.0.1', true, 'private'],
    ['172.32.0.1', true, null],
    ['192.168.1.1', true, 'private'],
    ['169.254.169.254', true, 'private'],
    ['100.64.0.1', true, 'private'],
    ['0.0.0.0', true, 'private'],
    ['fe80::1', true, 'private'],
    ['fd12:3456::1', true, 'private'],
    ['::ffff:10.0.0.1', true, 'private'],
    ['::ffff:127.0.0.1', false, 'loopback'],
    ['93.184.216.34', false, null],
    ['2606:4700::1111', false, null],
    // Every special-purpose range, and private addresses reached through translation or tunnel prefixes.
    ['::a00:1', true, 'private'], // IPv4-compatible 10.0.0.1
    ['::7f00:1', true, 'private'], // IPv4-compatible 127.0.0.1
    ['::ffff:7f00:1', false, 'loopback'], // IPv4-mapped, spelled in hex
    ['::ffff:a9fe:a9fe', true, 'private'], // IPv4-mapped 169.254.169.254
    ['64:ff9b::a9fe:a9fe', true, 'private'], // NAT64 of the metadata address
    ['64:ff9b::808:808', true, 'private'], // NAT64 of a public address: still the translator's
    ['64:ff9b:1::a00:1', true, 'private'], // local-use NAT64
    ['2002:a00:1::1', true, 'private'], // 6to4 of 10.0.0.1
    ['2001::f5ff:fffe', true, 'private'], // Teredo
    ['2001:2::1', true, 'private'], // benchmarking
    ['2001:db8::1', true, 'private'], // documentation
    ['3fff::1', true, 'private'], // documentation
    ['5f00::1', true, 'private'], // SRv6 SIDs
    ['fec0::1', true, 'private'], // site-local
    ['100::1', true, 'private'], // discard-only
    ['ff02::1', true, 'private'], // multicast
    ['1::1', true, 'private'], // outside global unicast
    ['192.0.2.1', true, 'private'],
    ['198.51.100.7', true, 'private'],
    ['203.0.113.9', true, 'private'],
    ['192.88.99.1', true, 'private'],
    ['198.19.255.255', true, 'private'],
    ['240.0.0.1', true, 'private'],
    ['255.255.255.255', true, 'private'],
    ['::ffff:8.8.8.8', false, null],
    ['2a00:1450:4001::1', false, null],
  ];
  for (const [ip, allow, want] of cases) {
    const why = forbiddenAddress(ip, allow);
    if (want === null) t.equal(why, null, `${ip} allowed`);
    else {
      t.match(why, want === 'loopback' ? /loopback/ : /private, link-local or reserved/, `${ip} refused`);
      t.notOk(why!.includes(ip), `the reason for ${ip} does not quote it`);
    }
  }
});

t.test('a doorbell whose host is an IP literal is refused when set: 400 naming the rule', async (t) => {
  const { s, bob } = await setup(t, () => 204);
  const before = s.d.log.size;
  for (const url of [
    'https://127.0.0.1/wake',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://169.254.169.254./latest',
    'https://[::1]:8443/',
    'https://[::a00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[::ffff:7f00:1]/',
    'https://93.184.216.34/wake',
  ]) {
    const r = await setBell(s, bob, url);
    t.equal(r.status, 400, `${url}: ${r.text}`);
    t.match(
      r.body,
      { error: 'bad_request', detail: /^payload\.url: the host is an IP address; a doorbell names its host by a DNS name/ },
      url,
    );
  }
  t.equal(s.d.log.size, before, 'nothing written');
  t.equal((await setBell(s, bob, 'https://hooks.example.org/wake')).status, 200, 'a name is taken (checked when rung)');
});

t.test('a failure reason never quotes the address', async (t) => {
  const { s, ringer, bob, alice } = await setup(t, () => 204);
  // A port nobody listens on: the system's message would say "connect ECONNREFUSED 127.0.0.1:<port>".
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await setBell(s, bob, `https://localhost:${port}/wake`);
  await send(s, alice, 'paper', make.paper(1));
  await ringer.tick();
  for (const wait of [60_000, 5 * 60_000, 30 * 60_000]) {
    s.advance(wait);
    await ringer.tick();
  }
  const hb = await s.get('/v2/heartbeat?agent=bob');
  t.match(hb.body.doorbell, { status: 'failing', failure: '4 rings in a row failed; the last: could not deliver (ECONNREFUSED)' });
  for (const shown of ['127.0.0.1', 'localhost', String(port)]) t.notOk(hb.text.includes(shown), `the heartbeat never shows ${shown}`);
});

t.test('what is out of view is not news', async (t) => {
  const { s, rx, ringer, bob, alice } = await setup(t, () => 204);
  await setBell(s, bob, rx.url);
  const referred = await send(
    s,
    alice,
    'paper',
    make.paper(1, { abstract: 'Write to the first author at jane.doe@example.org for the raw data of this study.' }),
  );
  t.equal(referred.status, 202, 'referred to the stewards by screening');
  await ringer.tick();
  t.equal(rx.got.length, 0, 'a paper out of view: no ring');
  await send(s, alice, 'paper', make.paper(1));
  await ringer.tick();
  t.equal(rx.got.length, 1);
  t.match(rx.got[0], { news: { papers: 1 } }, 'only the paper in view is news');
});
