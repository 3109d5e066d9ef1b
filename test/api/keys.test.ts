// Keys (docs/payloads.md#keys-and-doorbell and KeyRevoke, Part 3's key rows, 5.5) and the doorbell (Part 6)
// through HTTP: delegate 201, revoke 200 listing what a compromised key disowned, a revoked main
// key retiring its agent; the doorbell set and stopped (200), its address stored and never served.
import t from 'tap';
import { Point } from '@noble/ed25519';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { refused } from '../helpers/refused.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, registration, send, type TestAgent } from '../helpers/agents.js';

const entryAt = async (s: TestService, seq: number) => (await s.get(`/v1/log/entries?from=${seq}&limit=1`)).body.entries[0];
const spki = (hex: string) =>
  Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(hex, 'hex')]).toString('base64url');
const rationale = (n: number) => `Review number ${n}, with rationale enough to pass the schema.`;

t.test('key.delegate: 201 {key, scope, label}; a key belongs to one agent once', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice');
  const b = await register(s, 'bob');
  const k = generateKeyPair();
  const d = await send(s, a, 'key.delegate', { key: k.publicKey, scope: 'reports', label: 'ci runner' });
  t.equal(d.status, 201, d.text);
  t.same(d.body, { key: k.publicKey, scope: 'reports', label: 'ci runner', seq: d.body.seq });
  t.equal((await entryAt(s, d.body.seq)).type, 'key.delegate');
  const k2 = generateKeyPair();
  const unlabelled = await send(s, a, 'key.delegate', { key: k2.publicKey, scope: 'reports' });
  t.same(unlabelled.body, { key: k2.publicKey, scope: 'reports', label: null, seq: unlabelled.body.seq }, 'no label: null');
  const bk = generateKeyPair();
  t.equal((await send(s, b, 'key.delegate', { key: bk.publicKey, scope: 'reports' })).status, 201);

  const der = Buffer.from(generateKeyPair().publicKey, 'base64url');
  const smallOrder = [...new Set(fixtureJson<{ pub_key: string }[]>('crypto/ed25519-speccheck-cases.json').map((c) => c.pub_key))].find(
    (hex) => {
      try {
        return Point.fromHex(hex).isSmallOrder();
      } catch {
        return false;
      }
    },
  );
  t.ok(smallOrder, 'speccheck has a small-order key');
  const cases: [string, Record<string, unknown>, number, RegExp][] = [
    ['its own check key again', { key: k.publicKey, scope: 'reports' }, 409, /payload.key: this key already belongs to an agent/],
    ['its own main key', { key: a.publicKey, scope: 'reports' }, 409, /payload.key: this key already belongs/],
    ["another agent's main key", { key: b.publicKey, scope: 'reports' }, 409, /payload.key/],
    ["another agent's check key", { key: bk.publicKey, scope: 'reports' }, 409, /payload.key/],
    ['raw 32 bytes', { key: der.subarray(12).toString('base64url'), scope: 'reports' }, 400, /payload.key: expected the 44-byte DER SPKI/],
    ['standard base64, padded', { key: der.toString('base64'), scope: 'reports' }, 400, /payload.key/],
    ['a small-order point', { key: spki(smallOrder!), scope: 'reports' }, 400, /payload.key: small-order point/],
    ['another scope', { key: generateKeyPair().publicKey, scope: 'all' }, 400, /payload.scope/],
    ['no scope', { key: generateKeyPair().publicKey }, 400, /payload.*scope/],
    ['a label of 81 characters', { key: generateKeyPair().publicKey, scope: 'reports', label: 'x'.repeat(81) }, 400, /payload.label/],
  ];
  for (const [what, members, status, detail] of cases) await refused(t, s, what, send(s, a, 'key.delegate', members), status, detail);
  await refused(
    t,
    s,
    'registering a delegated key',
    s.post('/v2/agents/register', registration(s, 'carol', k.publicKey)),
    409,
    /publicKey: this key already belongs/,
  );
});

t.test('key.revoke of a check key: 200; revoked at once; with compromisedAt, its reports from then on disowned and listed', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author');
  const paper = await send(s, author, 'paper', make.paper(2));
  const [c1, c2] = paper.body.claims as [string, string];
  const a = await register(s, 'alice');
  const other = await register(s, 'olga');
  const check = generateKeyPair();
  t.equal((await send(s, a, 'key.delegate', { key: check.publicKey, scope: 'reports' })).status, 201);
  a.checkKey = check;
  const review = (n: number, checkKey = true) => send(s, a, 'review', { claim: c1, forecast: 0.6, rationale: rationale(n) }, { checkKey });

  const before = await review(1);
  t.equal(before.status, 201, before.text);
  s.advance(60_000);
  const first = await review(2);
  t.equal(first.status, 201);
  // compromisedAt is the time of that entry on the log: a report at that very time is disowned.
  const compromisedAt: string = (await entryAt(s, first.body.seq)).ts;
  s.advance(1_000);
  const byMain = await review(3, false);
  const commit = await send(s, a, 'check.commit', make.commit(c2), { checkKey: true });
  t.equal(commit.status, 201, commit.text);
  const later = await review(4);
  t.equal(later.status, 201);

  const r = await send(s, a, 'key.revoke', { key: check.publicKey, compromisedAt });
  t.equal(r.status, 200, `200, not 201 (${r.text})`);
  t.same(Object.keys(r.body).sort(), ['disowned', 'key', 'retired', 'revoked', 'seq']);
  t.match(r.body, { key: check.publicKey, revoked: 'check', retired: false });
  t.same(
    r.body.disowned,
    [
      { type: 'review', id: first.body.id, seq: first.body.seq },
      { type: 'check.commit', id: commit.body.id, seq: commit.body.seq },
      { type: 'review', id: later.body.id, seq: later.body.seq },
    ],
    "the reports the key signed from compromisedAt on, in log order; not those before, nor the main key's",
  );
  const receipt = await s.get(`/v2/receipts/${commit.body.id}`);
  t.equal(receipt.body.disownedSeq, r.body.seq, 'the receipt read shows it disowned by the revocation');
  t.equal(s.record.state.reviews.get(before.body.id)!.disownedSeq, null, 'a review before compromisedAt stands');
  t.equal(s.record.state.reviews.get(byMain.body.id)!.disownedSeq, null, 'a review by the main key stands');
  t.equal(s.record.state.reviews.get(later.body.id)!.disownedSeq, r.body.seq);
  const logged = await entryAt(s, r.body.seq);
  t.equal(logged.type, 'key.revoke');
  t.equal(logged.payload.payload.compromisedAt, compromisedAt);

  await refused(
    t,
    s,
    'the revoked key signing a review',
    review(5),
    401,
    new RegExp(`payload.agent.publicKey: this check key of alice was revoked at entry ${r.body.seq}`),
  );
  await refused(
    t,
    s,
    'revoking it twice',
    send(s, a, 'key.revoke', { key: check.publicKey }),
    409,
    new RegExp(`payload.key: revoked already at entry ${r.body.seq}`),
  );
  await refused(
    t,
    s,
    'delegating it again',
    send(s, a, 'key.delegate', { key: check.publicKey, scope: 'reports' }),
    409,
    /payload.key: this key already belongs/,
  );
  await refused(
    t,
    s,
    'a key nobody has',
    send(s, a, 'key.revoke', { key: generateKeyPair().publicKey }),
    404,
    /payload.key: not a key of agent alice/,
  );
  await refused(
    t,
    s,
    "another agent's main key",
    send(s, a, 'key.revoke', { key: other.publicKey }),
    404,
    /payload.key: not a key of agent alice/,
  );
  await refused(
    t,
    s,
    'a compromisedAt that is no time',
    send(s, a, 'key.revoke', { key: check.publicKey, compromisedAt: 'yesterday' }),
    400,
    /payload.compromisedAt/,
  );

  // Without compromisedAt nothing is disowned.
  const k2 = generateKeyPair();
  t.equal((await send(s, a, 'key.delegate', { key: k2.publicKey, scope: 'reports' })).status, 201);
  a.checkKey = k2;
  t.equal((await review(6)).status, 201);
  const plain = await send(s, a, 'key.revoke', { key: k2.publicKey });
  t.equal(plain.status, 200);
  t.same(plain.body.disowned, [], 'a plain revocation disowns nothing');
  t.equal((await send(s, a, 'paper', make.paper())).status, 201, 'the main key still signs');
});

t.test('key.revoke of the main key retires the agent', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author');
  const claim = (await send(s, author, 'paper', make.paper())).body.claims[0];
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const check = generateKeyPair();
  t.equal((await send(s, a, 'key.delegate', { key: check.publicKey, scope: 'reports' })).status, 201);
  a.checkKey = check;
  const early = await send(s, a, 'review', { claim, forecast: 0.3, rationale: rationale(1) });
  s.advance(60_000);
  const compromisedAt = new Date(s.record.now()).toISOString();
  const late = await send(s, a, 'review', { claim, forecast: 0.3, rationale: rationale(2) });
  const r = await send(s, a, 'key.revoke', { key: a.publicKey, compromisedAt });
  t.equal(r.status, 200, r.text);
  t.match(r.body, { key: a.publicKey, revoked: 'main', retired: true });
  t.same(r.body.disowned, [{ type: 'review', id: late.body.id, seq: late.body.seq }], "the main key's reports from compromisedAt on");
  t.equal(s.record.state.reviews.get(early.body.id)!.disownedSeq, null);
  t.equal((await s.get('/v2/heartbeat?agent=alice')).body.retired, true, 'the heartbeat says retired');
  const retired = new RegExp(`payload.agent.handle: agent alice is retired \\(its main key was revoked at entry ${r.body.seq}\\)`);
  await refused(t, s, 'a paper by the retired agent', send(s, a, 'paper', make.paper()), 401, retired);
  await refused(
    t,
    s,
    'a review by its check key',
    send(s, a, 'review', { claim, forecast: 0.3, rationale: rationale(3) }, { checkKey: true }),
    401,
    retired,
  );
  await refused(t, s, 'revoking the main key again', send(s, a, 'key.revoke', { key: a.publicKey }), 401, retired);
  await refused(t, s, 'its doorbell', send(s, a, 'doorbell.set', { kind: 'poll' }), 401, retired);
  await refused(
    t,
    s,
    'its handle for a new agent',
    s.post('/v2/agents/register', registration(s, 'alice', generateKeyPair().publicKey)),
    409,
    /handle: alice is taken/,
  );
  await refused(
    t,
    s,
    'its key for a new agent',
    s.post('/v2/agents/register', registration(s, 'alicia', a.publicKey)),
    409,
    /publicKey: this key already belongs/,
  );
  await refused(
    t,
    s,
    'its operator without a sponsor',
    s.post('/v2/agents/register', registration(s, 'alicia', generateKeyPair().publicKey, { operatorId: 'lab-a' })),
    403,
    /sponsor/,
  );
});

t.test('doorbell: 200 set and stopped; the address stored, never served', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice');
  const url = 'https://hooks.example.org/ring/secret-token-123';
  t.same((await s.get('/v2/heartbeat?agent=alice')).body.doorbell, { kind: null, status: 'unset', cadence: null }, 'unset at first');

  let size = s.record.state.size;
  const never = await send(s, a, 'doorbell.stop', {});
  t.equal(never.status, 200, never.text);
  // A 200 that writes nothing names the entry that holds the state: here the agent's registration (docs/record.md).
  t.same(never.body, {
    status: 'stopped',
    kind: null,
    cadence: null,
    entry: s.record.state.agents.get('alice')!.seq,
    note: 'the doorbell was never set; nothing to stop',
  });
  t.equal(s.record.state.size, size, 'stopping an unset doorbell writes nothing');

  const cases: [string, 'doorbell.set' | 'doorbell.stop', Record<string, unknown>, RegExp][] = [
    ['a webhook without url', 'doorbell.set', { kind: 'webhook' }, /payload.url: a webhook doorbell needs an https:\/\/ address/],
    ['a poll with url', 'doorbell.set', { kind: 'poll', url }, /payload.url: a poll doorbell takes no address/],
    ['a url without kind', 'doorbell.set', { url }, /payload.url: .*kind is poll when omitted/],
    ['an http url', 'doorbell.set', { kind: 'webhook', url: 'http://hooks.example.org/x' }, /payload.url/],
    ['an unknown kind', 'doorbell.set', { kind: 'sms' }, /payload.kind/],
    ['an unknown cadence', 'doorbell.set', { kind: 'poll', cadence: 'weekly' }, /payload.cadence/],
    ['a stop with members', 'doorbell.stop', { kind: 'poll' }, /payload.*kind/],
  ];
  for (const [what, type, members, detail] of cases) await refused(t, s, what, send(s, a, type, members), 400, detail);

  const poll = await send(s, a, 'doorbell.set', {});
  t.equal(poll.status, 200, poll.text);
  t.same(poll.body, { status: 'set', kind: 'poll', cadence: 'immediate', seq: poll.body.seq }, 'defaults: poll, immediate');

  const set = await send(s, a, 'doorbell.set', { kind: 'webhook', cadence: 'hourly', url });
  t.equal(set.status, 200, set.text);
  t.same(set.body, { status: 'set', kind: 'webhook', cadence: 'hourly', seq: set.body.seq });
  t.equal(s.record.state.agents.get('alice')!.doorbell!.url, url, 'the address is stored');
  const hb = await s.get('/v2/heartbeat?agent=alice');
  t.same(hb.body.doorbell, { kind: 'webhook', status: 'set', cadence: 'hourly' });
  t.same(hb.body.doorbellKinds, ['webhook', 'poll'], 'the kinds this deployment speaks');
  const secret = /hooks\.example\.org|secret-token-123/;
  t.notMatch(hb.text, secret, 'the heartbeat never shows the address');
  const log = await s.get('/v1/log/entries');
  t.notMatch(log.text, secret, 'nor does the log');
  const e = log.body.entries.find((x: any) => x.seq === set.body.seq);
  t.equal(e.type, 'doorbell.set');
  t.same(e.withheld, ['payload.url']);
  t.match(
    e.payload,
    { payload: { kind: 'webhook', cadence: 'hourly', url: null }, signature: /^[A-Za-z0-9_-]{86}$/ },
    'the rest of the entry is served',
  );
  t.notMatch((await s.get(`/v1/log/entries?from=${set.body.seq}&limit=1`)).text, secret, 'nor a page holding only that entry');
  t.notOk(log.body.entries.find((x: any) => x.seq === poll.body.seq).withheld, 'an entry without an address withholds nothing');

  const stop = await send(s, a, 'doorbell.stop', {});
  t.equal(stop.status, 200, stop.text);
  t.same(stop.body, { status: 'stopped', kind: 'webhook', cadence: 'hourly', seq: stop.body.seq });
  t.match((await s.get('/v2/heartbeat?agent=alice')).body.doorbell, { status: 'stopped', kind: 'webhook' });
  size = s.record.state.size;
  const again = await send(s, a, 'doorbell.stop', {});
  t.equal(again.status, 200);
  t.match(again.body, { status: 'stopped', note: new RegExp(`not set \\(stopped at entry ${stop.body.seq}\\); nothing to stop`) });
  t.notOk('seq' in again.body, 'no entry, no seq');
  t.equal(again.body.entry, stop.body.seq, 'it names the entry that stopped it');
  t.equal(s.record.state.size, size, 'stopping again writes nothing');
  t.equal((await s.get('/v1/log/sth')).body.treeSize, size);

  const back = await send(s, a, 'doorbell.set', { kind: 'poll', cadence: 'daily' });
  t.equal(back.status, 200);
  t.equal(s.record.state.agents.get('alice')!.doorbell!.url, null, 'a new setting replaces the address');
  t.notMatch((await s.get('/v2/heartbeat?agent=alice')).text, secret);
});

t.test('statuses of the writes: 200 for what changes something already there, 201 for what is taken', async (t) => {
  const s = await startService(t);
  const a: TestAgent = await register(s, 'alice');
  const k = generateKeyPair();
  t.equal((await send(s, a, 'key.delegate', { key: k.publicKey, scope: 'reports' })).status, 201, 'key.delegate 201');
  t.equal((await send(s, a, 'doorbell.set', { kind: 'poll' })).status, 200, 'doorbell.set 200');
  t.equal((await send(s, a, 'doorbell.stop', {})).status, 200, 'doorbell.stop 200');
  t.equal((await send(s, a, 'key.revoke', { key: k.publicKey })).status, 200, 'key.revoke 200');
  t.equal((await send(s, a, 'paper', make.paper())).status, 201, 'paper 201');
});
