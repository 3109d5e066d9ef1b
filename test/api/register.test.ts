// Registration (docs/payloads.md#registration-plain-json-not-an-envelope, 5.2, 7.1) and pairing (docs/protocol.md#the-deployments-keys)
// through HTTP: what a registering agent is answered, what lands on the log, and that every
// refusal answers {error, detail} naming the field and writes nothing.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Point } from '@noble/ed25519';
import { generateKeyPair, privateKeyFromPem, signPayload, verifyPayload } from '../../lib/protocol/ed25519.js';
import { sponsorObject } from '../../lib/client/agent.js';
import { pairingCodeHash, pairingEnvelope, pairingPayload } from '../../lib/client/pairing.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { refused } from '../helpers/refused.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, registration, send, type TestAgent } from '../helpers/agents.js';

const keyFile = (s: TestService, name: string) => privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', name), 'utf8'));
const now = (s: TestService) => new Date(s.record.now()).toISOString();
const pair = (s: TestService, operatorId: string, code: string) =>
  s.post('/v2/pairing', pairingEnvelope(keyFile(s, 'operator.key'), operatorId, pairingCodeHash(code), now(s)));
const post = (s: TestService, body: unknown) => s.post('/v2/agents/register', body);
const fresh = (s: TestService, handle: string, opts: Parameters<typeof registration>[3] = {}, extra: object = {}) => ({
  ...registration(s, handle, generateKeyPair().publicKey, opts),
  ...extra,
});
const entry = async (s: TestService, seq: number) => (await s.get(`/v1/log/entries?from=${seq}&limit=1`)).body.entries[0];
const spki = (raw: Buffer) => Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]).toString('base64url');

t.test('a registration: 201 {handle, operatorId, tier, seq, next}, the body logged as sent', async (t) => {
  const s = await startService(t);
  const k = generateKeyPair();
  const body = registration(s, 'Alice-Bot', k.publicKey, { models: ['claude-3-opus', 'gpt-4o'] });
  const r = await post(s, body);
  t.equal(r.status, 201, r.text);
  t.same(Object.keys(r.body).sort(), ['handle', 'next', 'operatorId', 'seq', 'tier']);
  t.match(r.body, { handle: 'Alice-Bot', operatorId: 'agent:alice-bot', tier: 'unverified', seq: 1, next: /heartbeat/ });
  t.equal((await s.get('/v1/log/sth')).body.treeSize, 2, 'genesis and the registration');
  const e = await entry(s, r.body.seq);
  t.equal(e.type, 'agent.register');
  t.same(e.payload, body, 'the logged object is the body as sent');
  // `next` names the agent's own heartbeat, a read that answers as it is written.
  const heartbeat = /GET (\/v2\/heartbeat\?agent=\S+) /.exec(r.body.next)?.[1];
  t.equal(heartbeat, '/v2/heartbeat?agent=Alice-Bot', 'next carries the handle');
  const hb = await s.get(heartbeat!);
  t.match(hb.body, { agent: 'Alice-Bot', operatorId: 'agent:alice-bot', tier: 'unverified', retired: false });
  t.equal((await s.get('/v2/record')).body.agents, 1);
  // The new key signs at once.
  const a: TestAgent = { handle: 'Alice-Bot', publicKey: k.publicKey, privateKey: k.privateKey, operatorId: r.body.operatorId };
  t.equal((await send(s, a, 'paper', make.paper())).status, 201, 'the registered key signs a paper');
  const b = await register(s, 'bob', { operatorId: 'lab-b' });
  t.equal(b.operatorId, 'lab-b', 'a chosen operator id is kept as given');
});

t.test('the constitution: 428 naming the version and hash in force unless acknowledged exactly', async (t) => {
  const s = await startService(t);
  const c = s.record.state.constitution;
  const served = (await s.get('/v1/constitution')).body;
  t.same({ version: served.version, hash: served.hash }, c, 'GET /v1/constitution serves the one in force');
  t.same((await s.get('/v2/record')).body.constitution, c, 'and so does the record summary');
  const inForce = new RegExp(`version ${c.version} hash ${c.hash}`);
  const { constitution: _omit, ...without } = fresh(s, 'bob');
  const cases: [string, unknown, RegExp][] = [
    ['no constitution', without, /constitution: required/],
    ['constitution null', { ...without, constitution: null }, /constitution: not the one in force/],
    ['no version', { ...without, constitution: { hash: c.hash } }, inForce],
    ['no hash', { ...without, constitution: { version: c.version } }, inForce],
    ['an older version', { ...without, constitution: { version: '0.0', hash: c.hash } }, inForce],
    ['another hash', { ...without, constitution: { version: c.version, hash: 'a'.repeat(64) } }, inForce],
    ['a malformed hash', { ...without, constitution: { version: c.version, hash: 'xyz' } }, inForce],
    ['the hash in upper case', { ...without, constitution: { version: c.version, hash: c.hash.toUpperCase() } }, inForce],
  ];
  for (const [what, body, detail] of cases) {
    await refused(t, s, what, post(s, body), 428, detail);
    await refused(t, s, `${what} (detail names the one in force)`, post(s, body), 428, inForce);
  }
  await refused(
    t,
    s,
    'the one in force with an extra member',
    post(s, { ...without, constitution: { ...c, article: 'I' } }),
    400,
    /body.constitution/,
  );
  t.equal((await post(s, { ...without, constitution: { version: c.version, hash: c.hash } })).status, 201, 'acknowledged exactly: taken');
});

t.test('handles and keys: one agent each; keys spelled one way, sound points only', async (t) => {
  const s = await startService(t);
  const k = generateKeyPair();
  t.equal((await post(s, registration(s, 'alice', k.publicKey))).status, 201);
  const a = await register(s, 'carol');
  const check = generateKeyPair();
  t.equal((await send(s, a, 'key.delegate', { key: check.publicKey, scope: 'reports' })).status, 201);
  await refused(t, s, 'handle taken', post(s, fresh(s, 'alice')), 409, /handle: alice is taken/);
  await refused(t, s, 'handle taken in another case', post(s, fresh(s, 'ALICE')), 409, /handle: ALICE is taken/);
  await refused(
    t,
    s,
    "an agent's main key",
    post(s, registration(s, 'bob', k.publicKey)),
    409,
    /publicKey: this key already belongs to an agent/,
  );
  await refused(t, s, "an agent's check key", post(s, registration(s, 'bob', check.publicKey)), 409, /publicKey: this key already belongs/);
  await refused(t, s, 'a one-letter handle', post(s, fresh(s, 'b')), 400, /body.handle/);
  await refused(t, s, 'a handle starting with a hyphen', post(s, fresh(s, '-bob')), 400, /body.handle/);

  const der = Buffer.from(generateKeyPair().publicKey, 'base64url');
  const spellings: [string, string, RegExp][] = [
    ['raw 32 bytes', der.subarray(12).toString('base64url'), /publicKey: expected the 44-byte DER SPKI/],
    ['standard base64, padded', der.toString('base64'), /publicKey/],
    ['base64url with padding', `${der.toString('base64url')}=`, /publicKey/],
    [
      "another algorithm's SPKI prefix",
      Buffer.concat([Buffer.from('302a300506032b656e032100', 'hex'), der.subarray(12)]).toString('base64url'),
      /publicKey: not an Ed25519 SPKI/,
    ],
  ];
  for (const [what, key, detail] of spellings) await refused(t, s, what, post(s, registration(s, 'bob', key)), 400, detail);

  // The speccheck keys: every small-order, non-canonical or mixed-order point is refused (400),
  // and a sound one is taken.
  const keys = [...new Set(fixtureJson<{ pub_key: string }[]>('crypto/ed25519-speccheck-cases.json').map((c) => c.pub_key))];
  const smallOrder = keys.filter((hex) => {
    try {
      return Point.fromHex(hex).isSmallOrder();
    } catch {
      return false;
    }
  });
  t.ok(smallOrder.length > 0, 'speccheck has a small-order public key');
  for (const hex of smallOrder)
    await refused(
      t,
      s,
      `small-order key ${hex.slice(0, 8)}`,
      post(s, registration(s, 'bob', spki(Buffer.from(hex, 'hex')))),
      400,
      /publicKey: small-order point/,
    );
  // Non-canonical encodings: speccheck's (x = 0 with the sign bit), and y = p + 1.
  const nonCanonical = keys.filter((hex) => {
    try {
      Point.fromHex(hex);
      return false;
    } catch {
      return true;
    }
  });
  t.ok(nonCanonical.length > 0, 'speccheck has a non-canonical public key');
  for (const hex of [...nonCanonical, 'ee' + 'ff'.repeat(30) + '7f']) {
    await refused(
      t,
      s,
      `non-canonical key ${hex.slice(0, 8)}`,
      post(s, registration(s, 'bob', spki(Buffer.from(hex, 'hex')))),
      400,
      /publicKey: non-canonical point encoding/,
    );
  }
  const mixed = keys.filter((hex) => {
    try {
      const p = Point.fromHex(hex);
      return !p.isSmallOrder() && !p.isTorsionFree();
    } catch {
      return false;
    }
  });
  t.ok(mixed.length > 0, 'speccheck has a mixed-order public key');
  for (const hex of mixed)
    await refused(
      t,
      s,
      `mixed-order key ${hex.slice(0, 8)}`,
      post(s, registration(s, 'bob', spki(Buffer.from(hex, 'hex')))),
      400,
      /publicKey: point is not torsion-free/,
    );
  const sound = keys.filter((hex) => !smallOrder.includes(hex) && !nonCanonical.includes(hex) && !mixed.includes(hex));
  t.ok(sound.length > 0, 'speccheck has a sound public key');
  const taken = await post(s, registration(s, 'sound', spki(Buffer.from(sound[0]!, 'hex'))));
  t.equal(taken.status, 201, `a sound speccheck key is taken (${taken.text})`);
});

t.test('operator ids: own by default, op_ only by pairing, agent: only by the service', async (t) => {
  const s = await startService(t);
  const cases: [string, object, number, RegExp][] = [
    ['op_ without pairing', { operatorId: 'op_lab' }, 403, /operatorId: ids beginning op_ belong to accounts/],
    ['OP_ in another case', { operatorId: 'OP_lab' }, 403, /operatorId: ids beginning op_/],
    ['the agent: prefix', { operatorId: 'agent:bob' }, 400, /operatorId: ids beginning agent: are assigned by the service/],
    ['Agent: in another case', { operatorId: 'Agent:alice' }, 400, /operatorId: ids beginning agent:/],
    ['operatorId and pairing both', { operatorId: 'lab', pairing: 'abcdefghij' }, 400, /body/],
    ['a one-character operator id', { operatorId: 'x' }, 400, /body.operatorId/],
    ['an operator id with a space', { operatorId: 'my lab' }, 400, /body.operatorId/],
  ];
  for (const [what, extra, status, detail] of cases) await refused(t, s, what, post(s, fresh(s, 'bob', {}, extra)), status, detail);
  const r = await post(s, fresh(s, 'Bob'));
  t.equal(r.body.operatorId, 'agent:bob', 'without operatorId: agent:<handle in lower case>');
});

t.test('a second agent of an operator needs a sponsor: an agent of that operator, signing with its main key', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const olga = await register(s, 'olga', { operatorId: 'lab-o' });
  const check = generateKeyPair();
  t.equal((await send(s, alice, 'key.delegate', { key: check.publicKey, scope: 'reports' })).status, 201);
  const k = generateKeyPair();
  const bob = (sponsor?: { handle: string; signature: string }) =>
    post(s, { ...registration(s, 'bob', k.publicKey, { operatorId: 'lab-a' }), ...(sponsor === undefined ? {} : { sponsor }) });
  const by = (handle: string, key = alice.privateKey, obj: object = sponsorObject('bob', k.publicKey)) => ({
    handle,
    signature: signPayload(key, obj),
  });
  await refused(t, s, 'no sponsor', bob(), 403, /sponsor: operator lab-a has agents already/);
  await refused(
    t,
    s,
    'a sponsor of another operator',
    bob(by('olga', olga.privateKey)),
    403,
    /sponsor.handle: olga is not an agent of operator lab-a/,
  );
  await refused(t, s, 'a sponsor nobody knows', bob(by('nobody')), 403, /sponsor.handle: nobody is not an agent/);
  await refused(
    t,
    s,
    'signed by the new key',
    bob(by('alice', k.privateKey)),
    401,
    /sponsor.signature: does not verify with alice's main key/,
  );
  await refused(t, s, "signed by the sponsor's check key", bob(by('alice', check.privateKey)), 401, /sponsor.signature/);
  await refused(
    t,
    s,
    'signed for another handle',
    bob(by('alice', alice.privateKey, sponsorObject('bobby', k.publicKey))),
    401,
    /sponsor.signature/,
  );
  await refused(
    t,
    s,
    'signed for another key',
    bob(by('alice', alice.privateKey, sponsorObject('bob', generateKeyPair().publicKey))),
    401,
    /sponsor.signature/,
  );
  await refused(t, s, 'a malformed signature', bob({ handle: 'alice', signature: 'abc' }), 400, /body.sponsor.signature/);
  const good = await bob(by('alice'));
  t.equal(good.status, 201, good.text);
  t.match(good.body, { handle: 'bob', operatorId: 'lab-a', tier: 'unverified' });
  t.same((await entry(s, good.body.seq)).payload.sponsor, by('alice'), 'the sponsor is logged with the registration');
  const b: TestAgent = { handle: 'bob', publicKey: k.publicKey, privateKey: k.privateKey, operatorId: 'lab-a' };
  t.equal((await register(s, 'cleo', { operatorId: 'lab-a', sponsor: b })).operatorId, 'lab-a', 'any agent of the operator may sponsor');
  // A retired agent sponsors nobody.
  t.equal((await send(s, olga, 'key.revoke', { key: olga.publicKey })).status, 200);
  await refused(
    t,
    s,
    'a retired sponsor',
    post(s, fresh(s, 'oscar', { operatorId: 'lab-o', sponsor: olga })),
    403,
    /sponsor.handle: olga is not an agent of operator lab-o/,
  );
});

t.test('pairing: an operator-key envelope issues a code, stored hashed, good once for 24 hours', async (t) => {
  const s = await startService(t);
  const issued = await pair(s, 'op_lab', 'code-one-0123456789');
  t.equal(issued.status, 201, issued.text);
  t.same(Object.keys(issued.body).sort(), ['expires', 'operatorId', 'seq']);
  const e = await entry(s, issued.body.seq);
  t.equal(e.type, 'operator.pairing');
  t.equal(issued.body.expires, new Date(Date.parse(e.ts) + 24 * 3600_000).toISOString(), 'expires 24 hours after its entry');
  t.equal(e.payload.payload.codeHash, pairingCodeHash('code-one-0123456789'));
  t.ok(verifyPayload(s.d.operatorKeyString, e.payload.payload, e.payload.signature), 'logged as signed by the operator key');
  t.notOk((await s.get('/v1/log/entries')).text.includes('code-one-0123456789'), 'the code itself is not on the log');

  const ka = generateKeyPair();
  const a = await post(s, registration(s, 'alice', ka.publicKey, { pairing: 'code-one-0123456789' }));
  t.equal(a.status, 201, a.text);
  t.match(a.body, { handle: 'alice', operatorId: 'op_lab', tier: 'account' });
  t.equal((await s.get('/v2/heartbeat?agent=alice')).body.tier, 'account');
  await refused(
    t,
    s,
    'the code again',
    post(s, fresh(s, 'bob', { pairing: 'code-one-0123456789' })),
    409,
    /pairing: this code was used already \(by alice\)/,
  );
  await refused(t, s, 'an unknown code', post(s, fresh(s, 'bob', { pairing: 'nobody-knows-this' })), 404, /pairing: no such pairing code/);
  await refused(t, s, 'a code too short', post(s, fresh(s, 'bob', { pairing: 'short' })), 400, /body.pairing/);

  // A second agent of op_lab by a second code: no sponsor. A refusal for another reason (a
  // handle taken) leaves the code unused.
  t.equal((await pair(s, 'op_lab', 'code-two-0123456789')).status, 201);
  await refused(t, s, 'a taken handle with a good code', post(s, fresh(s, 'ALICE', { pairing: 'code-two-0123456789' })), 409, /handle/);
  const b = await post(s, fresh(s, 'bob', { pairing: 'code-two-0123456789' }));
  t.equal(b.status, 201, b.text);
  t.equal(b.body.operatorId, 'op_lab', 'no sponsor needed by pairing');
  const alice: TestAgent = { handle: 'alice', publicKey: ka.publicKey, privateKey: ka.privateKey, operatorId: 'op_lab' };
  await refused(
    t,
    s,
    'op_lab by operatorId, even sponsored',
    post(s, fresh(s, 'cleo', { operatorId: 'op_lab', sponsor: alice })),
    403,
    /operatorId: ids beginning op_/,
  );

  // Expiry: a code works until 24 hours after its entry, not after.
  t.equal((await pair(s, 'op_lab', 'code-three-0123456789')).status, 201);
  t.equal((await pair(s, 'op_lab', 'code-four-0123456789')).status, 201);
  s.advance(23 * 3600_000);
  t.equal((await post(s, fresh(s, 'cleo', { pairing: 'code-three-0123456789' }))).status, 201, 'good 23 hours later');
  s.advance(2 * 3600_000);
  await s.tick();
  await refused(
    t,
    s,
    'an expired code',
    post(s, fresh(s, 'dora', { pairing: 'code-four-0123456789' })),
    409,
    /pairing: this code expired at/,
  );

  // The deployment's own operator is verified at genesis: its agents are.
  t.equal((await pair(s, 'op_archive', 'code-five-0123456789')).status, 201);
  t.equal((await post(s, fresh(s, 'vera', { pairing: 'code-five-0123456789' }))).body.tier, 'verified');
});

t.test('pairing refusals: the operator key only, fresh, once per code hash, op_ ids', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice');
  t.equal((await pair(s, 'op_lab', 'code-one-0123456789')).status, 201);
  const op = keyFile(s, 'operator.key');
  const signed = (payload: Record<string, unknown>, key = op) => ({ payload, signature: signPayload(key, payload) });
  const p = (extra: object = {}) => ({ ...pairingPayload('op_lab', pairingCodeHash(`c-${Math.random()}`), now(s)), ...extra });
  const cases: [string, unknown, number, RegExp][] = [
    ["signed by an agent's key", signed(p(), alice.privateKey), 401, /signature: does not verify with the deployment's operator key/],
    ['signed by the log key', signed(p(), keyFile(s, 'log.key')), 401, /operator key/],
    [
      'the same code hash again',
      signed(p({ codeHash: pairingCodeHash('code-one-0123456789') })),
      409,
      /payload.codeHash: this pairing code was issued already/,
    ],
    [
      'the same code hash for another operator',
      signed(p({ operatorId: 'op_other', codeHash: pairingCodeHash('code-one-0123456789') })),
      409,
      /payload.codeHash/,
    ],
    ['not an op_ id', signed(p({ operatorId: 'lab' })), 400, /payload.operatorId/],
    ['op_ and nothing', signed(p({ operatorId: 'op_' })), 400, /payload.operatorId/],
    ['a code hash not hex', signed(p({ codeHash: 'z'.repeat(64) })), 400, /payload.codeHash/],
    ['an extra member', signed(p({ agent: { handle: 'alice', publicKey: alice.publicKey } })), 400, /payload.*agent/],
    ['ts 11 minutes old', signed(p({ ts: new Date(s.record.now() - 11 * 60_000).toISOString() })), 400, /payload.ts: 11.0 minutes behind/],
    ['another type', signed(p({ type: 'paper' })), 400, /payload.type: this endpoint takes operator.pairing/],
    ['the envelope with more', { ...signed(p()), note: 'x' }, 400, /body: unknown member "note"/],
  ];
  for (const [what, body, status, detail] of cases) await refused(t, s, what, s.post('/v2/pairing', body), status, detail);
  // Order: a bad signature is answered before the schema.
  await refused(
    t,
    s,
    'bad signature and not an op_ id',
    s.post('/v2/pairing', signed(p({ operatorId: 'lab' }), alice.privateKey)),
    401,
    /operator key/,
  );
});

t.test('racing registrations: one handle, one key, one use of a code', async (t) => {
  const s = await startService(t);
  t.equal((await pair(s, 'op_lab', 'code-race-0123456789')).status, 201);
  const k = generateKeyPair();
  const size = s.record.state.size;
  const statuses = async (bodies: unknown[]) => (await Promise.all(bodies.map((b) => post(s, b)))).map((r) => r.status).sort();
  t.same(await statuses(Array.from({ length: 5 }, () => fresh(s, 'alice'))), [201, 409, 409, 409, 409], 'one handle: one agent');
  t.same(await statuses(['bob', 'cleo', 'dora'].map((h) => registration(s, h, k.publicKey))), [201, 409, 409], 'one key: one agent');
  t.same(
    await statuses(['erin', 'fred', 'gina'].map((h) => fresh(s, h, { pairing: 'code-race-0123456789' }))),
    [201, 409, 409],
    'one code: one use',
  );
  t.equal(s.record.state.size, size + 3, 'three entries, no more');
  t.equal((await s.get('/v1/log/sth')).body.treeSize, size + 3);
});

t.test('registrations are limited per client address: 429 with Retry-After, nothing written', async (t) => {
  const s = await startService(t, { registerLimit: { max: 3, windowSeconds: 600 } });
  for (let i = 0; i < 3; i++) t.equal((await post(s, fresh(s, `limited-${i}`))).status, 201, `registration ${i + 1} of 3`);
  const size = s.d.log.size;
  const over = await post(s, fresh(s, 'limited-3'));
  t.equal(over.status, 429, over.text);
  t.match(over.body, { error: 'rate_limited', detail: /^registration is limited to 3 per 600 s; retry after \d+ s$/ });
  const retryAfter = Number(over.headers.get('retry-after'));
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600, `Retry-After in seconds: ${retryAfter}`);
  // A client cannot choose its address: X-Forwarded-For is ignored without a trusted proxy.
  for (const xff of ['203.0.113.5', '198.51.100.9, 203.0.113.5']) {
    const spoofed = await s.post('/v2/agents/register', fresh(s, 'spoofer'), { 'x-forwarded-for': xff });
    t.equal(spoofed.status, 429, `X-Forwarded-For: ${xff} is ignored`);
  }
  t.equal(s.d.log.size, size, 'nothing written past the limit');
});

t.test('behind a trusted proxy, X-Forwarded-For names the client', async (t) => {
  const s = await startService(t, { registerLimit: { max: 2, windowSeconds: 600 }, trustProxy: ['127.0.0.1'] });
  const from = (xff: string, handle: string) => s.post('/v2/agents/register', fresh(s, handle), { 'x-forwarded-for': xff });
  t.equal((await from('203.0.113.5', 'via-a1')).status, 201);
  t.equal((await from('203.0.113.5', 'via-a2')).status, 201);
  t.equal((await from('203.0.113.5', 'via-a3')).status, 429, 'the third from 203.0.113.5');
  // The proxy appends the address it saw: entries to its left are the client's to write.
  t.equal((await from('198.51.100.1, 203.0.113.5', 'via-a4')).status, 429, 'a spoofed left-hand entry does not help');
  t.equal((await from('203.0.113.6', 'via-b1')).status, 201, 'another client has its own count');
  // A chain of trusted proxies is skipped, right to left.
  t.equal((await from('203.0.113.6, 127.0.0.1', 'via-b2')).status, 201);
  t.equal((await from('203.0.113.6, 127.0.0.1', 'via-b3')).status, 429, 'through two proxies: still 203.0.113.6');
});

t.test('behind a trusted proxy, one IPv6 client is one client however it is spelled, and a /64 is one client', async (t) => {
  const s = await startService(t, { registerLimit: { max: 2, windowSeconds: 600 }, trustProxy: ['127.0.0.1'] });
  let n = 0;
  const from = async (xff: string) => (await s.post('/v2/agents/register', fresh(s, `v6-${n++}`), { 'x-forwarded-for': xff })).status;

  // Five spellings of 2001:db8:a::1 (case, zeros written out, no compression, a zone id, brackets): one count.
  const spellings = [
    '2001:db8:a::1',
    '2001:DB8:A::1',
    '2001:0db8:000a:0000:0000:0000:0000:0001',
    '2001:db8:a:0:0:0:0:1%eth0',
    '[2001:db8:a::1]',
  ];
  const spelled: number[] = [];
  for (const xff of spellings) spelled.push(await from(xff));
  t.same(spelled, [201, 201, 429, 429, 429], 'two taken, then 429 for every other spelling');

  // Ten addresses of one /64: one count.
  const subnet = Array.from({ length: 10 }, (_, i) => `2001:db8:b:c::${(i + 1).toString(16)}`);
  const statuses: number[] = [];
  for (const xff of subnet) statuses.push(await from(xff));
  t.same(statuses, [201, 201, 429, 429, 429, 429, 429, 429, 429, 429], 'ten addresses of 2001:db8:b:c::/64 share two registrations');
  // Another /64 has its own count, even the next one.
  t.equal(await from('2001:db8:b:d::1'), 201, 'another /64');
  t.equal(await from('2001:db8:b:d:ffff:ffff:ffff:ffff'), 201, 'the same other /64');
  t.equal(await from('2001:db8:b:d::2'), 429);

  // An IPv4-mapped IPv6 address is the IPv4 address it maps.
  const v4 = ['203.0.113.7', '::ffff:203.0.113.7', '::FFFF:cb00:7107'];
  const v4statuses: number[] = [];
  for (const xff of v4) v4statuses.push(await from(xff));
  t.same(v4statuses, [201, 201, 429], '203.0.113.7 in three spellings: one count');
  t.equal(await from('203.0.113.8'), 201, 'IPv4 addresses are not grouped');
});

t.test("the IPv6 prefix a client is counted by is the deployment's (ipv6Prefix), and the audit counts the same way", async (t) => {
  const s = await startService(t, {
    registerLimit: { max: 1, windowSeconds: 600 },
    auditLimit: { max: 1, windowSeconds: 60 },
    trustProxy: ['127.0.0.1'],
    ipv6Prefix: 48,
  });
  let n = 0;
  const register = async (xff: string) => (await s.post('/v2/agents/register', fresh(s, `p48-${n++}`), { 'x-forwarded-for': xff })).status;
  t.equal(await register('2001:db8:1:1::1'), 201);
  t.equal(await register('2001:db8:1:ffff::1'), 429, 'another /64 of the same /48');
  t.equal(await register('2001:db8:2::1'), 201, 'another /48');

  const audit = async (xff: string) => (await fetch(`${s.url}/v1/log/audit`, { headers: { 'x-forwarded-for': xff } })).status;
  t.equal(await audit('2001:db8:5::1'), 200);
  t.equal(await audit('2001:0DB8:0005:0::1'), 429, 'the same address spelled otherwise');
  t.equal(await audit('2001:db8:5:77::9'), 429, 'the same /48');
  t.equal(await audit('2001:db8:6::1'), 200, 'another /48');
});
