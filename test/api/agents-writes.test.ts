// Registration, pairing, keys, the doorbell, request bodies and the envelope checks in the
// spec's order, through HTTP against a real service. Every refusal writes nothing.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromPem, signPayload } from '../../lib/ed25519.js';
import { pairingCodeHash, pairingEnvelope } from '../../lib/client/pairing.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { MemoryStore } from '../../log/memory-store.js';
import { startService, type TestService } from '../helpers/service.js';
import { refused } from '../helpers/refused.js';
import { make, payloadOf, register, registration, send } from '../helpers/agents.js';

const operatorKey = (s: TestService) => privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'));

async function pair(s: TestService, operatorId: string, code: string) {
  return s.post('/v2/pairing', pairingEnvelope(operatorKey(s), operatorId, pairingCodeHash(code), new Date(s.record.now()).toISOString()));
}


t.test('registration: 201, and each refusal of spec Part 7', async (t) => {
  const s = await startService(t);
  const k = generateKeyPair();
  const ok = await s.post('/v2/agents/register', registration(s, 'alice', k.publicKey));
  t.equal(ok.status, 201);
  t.match(ok.body, { handle: 'alice', operatorId: 'agent:alice', tier: 'unverified', seq: 1, next: /heartbeat/ });

  const c = s.record.state.constitution;
  const body = (handle: string, extra: object = {}) => ({ ...registration(s, handle, generateKeyPair().publicKey), ...extra });
  await refused(t, s, 'stale constitution', s.post('/v2/agents/register', body('bob', { constitution: { version: '0', hash: c.hash } })), 428, new RegExp(`version ${c.version} hash ${c.hash}`));
  await refused(t, s, 'wrong hash', s.post('/v2/agents/register', body('bob', { constitution: { version: c.version, hash: 'a'.repeat(64) } })), 428, /constitution/);
  await refused(t, s, 'no constitution', s.post('/v2/agents/register', { handle: 'bob', publicKey: generateKeyPair().publicKey }), 428, /constitution: required; acknowledge the constitution in force/);
  await refused(t, s, 'handle taken', s.post('/v2/agents/register', body('alice')), 409, /handle: alice is taken/);
  await refused(t, s, 'handle taken in another case', s.post('/v2/agents/register', body('ALICE')), 409, /handle/);
  await refused(t, s, 'key taken', s.post('/v2/agents/register', registration(s, 'bob', k.publicKey)), 409, /publicKey: this key already belongs/);
  const raw = Buffer.from(k.publicKey, 'base64url').subarray(12);
  await refused(t, s, 'raw 32-byte key', s.post('/v2/agents/register', registration(s, 'bob', raw.toString('base64url'))), 400, /publicKey/);
  await refused(t, s, 'padded standard base64', s.post('/v2/agents/register', registration(s, 'bob', Buffer.from(k.publicKey, 'base64url').toString('base64'))), 400, /publicKey/);
  // A small-order point (speccheck's key of cases 0 and 1) is refused where keys are registered.
  const spec = fixtureJson('crypto/ed25519-speccheck-cases.json') as { pub_key: string }[];
  const small = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(spec[0]!.pub_key, 'hex')]).toString('base64url');
  await refused(t, s, 'small-order key', s.post('/v2/agents/register', registration(s, 'bob', small)), 400, /publicKey/);
  await refused(t, s, 'op_ without pairing', s.post('/v2/agents/register', body('bob', { operatorId: 'op_lab' })), 403, /operatorId: ids beginning op_/);
  await refused(t, s, 'agent: prefix', s.post('/v2/agents/register', body('bob', { operatorId: 'agent:x' })), 400, /operatorId/);
  await refused(t, s, 'operatorId and pairing', s.post('/v2/agents/register', body('bob', { operatorId: 'lab', pairing: 'abcdefghij' })), 400, /operatorId|pairing/);
});

t.test('a second agent of an operator needs a sponsor from it', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const other = await register(s, 'olga', { operatorId: 'lab-o' });
  const k = generateKeyPair();
  const bob = (extra: object) => s.post('/v2/agents/register', { ...registration(s, 'bob', k.publicKey, { operatorId: 'lab-a' }), ...extra });
  await refused(t, s, 'no sponsor', bob({}), 403, /sponsor: operator lab-a has agents already/);
  const wrongOp = registration(s, 'bob', k.publicKey, { operatorId: 'lab-a', sponsor: other });
  await refused(t, s, 'sponsor of another operator', s.post('/v2/agents/register', wrongOp), 403, /sponsor.handle: olga is not an agent of operator lab-a/);
  const forged = { handle: 'alice', signature: signPayload(k.privateKey, { op: 'sponsor', handle: 'bob', publicKey: k.publicKey }) };
  await refused(t, s, 'sponsor signature by another key', bob({ sponsor: forged }), 401, /sponsor.signature/);
  const good = await s.post('/v2/agents/register', registration(s, 'bob', k.publicKey, { operatorId: 'lab-a', sponsor: a }));
  t.equal(good.status, 201, good.text);
  t.equal(good.body.operatorId, 'lab-a');
});

t.test('pairing: codes signed by the operator key, stored hashed, once, for 24 hours', async (t) => {
  const s = await startService(t);
  const issued = await pair(s, 'op_lab', 'code-one-0123456789');
  t.equal(issued.status, 201, issued.text);
  t.match(issued.body, { operatorId: 'op_lab', expires: /Z$/ });
  t.notOk(JSON.stringify((await s.get('/v1/log/entries')).body).includes('code-one-0123456789'), 'only the hash is logged');
  await refused(t, s, 'the same code hash again', pair(s, 'op_lab', 'code-one-0123456789'), 409, /codeHash/);
  const k = generateKeyPair();
  const bad = pairingEnvelope(k.privateKey, 'op_lab', pairingCodeHash('x-123456789'), new Date(s.record.now()).toISOString());
  await refused(t, s, 'signed by another key', s.post('/v2/pairing', bad), 401, /operator key/);
  await refused(t, s, 'not an op_ id', pair(s, 'lab', 'code-two-0123456789'), 400, /operatorId/);

  const a = await s.post('/v2/agents/register', registration(s, 'alice', generateKeyPair().publicKey, { pairing: 'code-one-0123456789' }));
  t.equal(a.status, 201, a.text);
  t.match(a.body, { operatorId: 'op_lab', tier: 'account' });
  await refused(t, s, 'used code', s.post('/v2/agents/register', registration(s, 'bob', generateKeyPair().publicKey, { pairing: 'code-one-0123456789' })), 409, /pairing: this code was used already \(by alice\)/);
  await refused(t, s, 'unknown code', s.post('/v2/agents/register', registration(s, 'bob', generateKeyPair().publicKey, { pairing: 'nobody-knows-this' })), 404, /pairing/);
  t.equal((await pair(s, 'op_lab', 'code-two-0123456789')).status, 201);
  const b = await s.post('/v2/agents/register', registration(s, 'bob', generateKeyPair().publicKey, { pairing: 'code-two-0123456789' }));
  t.equal(b.status, 201, 'a second agent of op_lab by pairing needs no sponsor');
  t.equal((await pair(s, 'op_lab', 'code-three-0123456789')).status, 201);
  s.advance(24 * 3600 * 1000 + 1000);
  await refused(t, s, 'expired code', s.post('/v2/agents/register', registration(s, 'carol', generateKeyPair().publicKey, { pairing: 'code-three-0123456789' })), 409, /expired/);
  const own = await pair(s, 'op_archive', 'code-four-0123456789');
  t.equal(own.status, 201);
  const v = await s.post('/v2/agents/register', registration(s, 'vera', generateKeyPair().publicKey, { pairing: 'code-four-0123456789' }));
  t.equal(v.body.tier, 'verified', "the deployment's own operator is verified at genesis");
});

t.test('bodies: JSON only, at most 64 KiB, parsed strictly', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice');
  const env = () => {
    const payload = payloadOf(s, a, 'paper', make.paper());
    return { payload, signature: signPayload(a.privateKey, payload) };
  };
  await refused(t, s, 'over 64 KiB', s.post('/v2/papers', JSON.stringify({ ...env(), pad: 'x'.repeat(70_000) })), 413, /64 KiB/);
  const chunked = fetch(`${s.url}/v2/papers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: new ReadableStream({
      start(c) {
        for (let i = 0; i < 80; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        c.close();
      },
    }),
    duplex: 'half',
  } as RequestInit).then(async (r) => ({ status: r.status, body: await r.json() }));
  await refused(t, s, 'over 64 KiB, chunked', chunked, 413, /64 KiB/);
  await refused(t, s, 'malformed JSON', s.post('/v2/papers', '{"payload":'), 400, /body/);
  const e = env();
  const dup = JSON.stringify(e).replace('{"payload":', `{"signature":"${e.signature}","payload":`);
  await refused(t, s, 'duplicate member', s.post('/v2/papers', dup), 400, /duplicate/);
  await refused(t, s, 'text/plain', s.post('/v2/papers', JSON.stringify(env()), { 'content-type': 'text/plain' }), 400, /content-type/);
  t.equal((await s.post('/v2/papers', env())).status, 201, 'the same body as JSON is taken');
});

t.test('envelope checks, one error each, in the order of the spec', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice');
  const check = generateKeyPair();
  t.equal((await send(s, a, 'key.delegate', { key: check.publicKey, scope: 'reports', label: 'ci runner' })).status, 201);
  a.checkKey = check;
  const paper = await send(s, a, 'paper', make.paper());
  const claim = paper.body.claims[0];
  const stranger = generateKeyPair();
  const signed = (payload: Record<string, any>, key = a.privateKey) => ({ payload, signature: signPayload(key, payload) });
  const p = () => payloadOf(s, a, 'paper', make.paper());
  const stale = new Date(s.record.now() - 11 * 60_000).toISOString();
  const cases: [string, unknown, number, RegExp][] = [
    ['extra member', { ...signed(p()), extra: 1 }, 400, /unknown member "extra"/],
    ['no signature', { payload: p() }, 400, /body.signature/],
    ['wrong protocol', signed({ ...p(), protocol: 'archive/0.1' }), 400, /payload.protocol/],
    ['a review at /v2/papers', signed(payloadOf(s, a, 'review', { claim, forecast: 0.5, rationale: 'x'.repeat(40) })), 400, /payload.type/],
    ['unknown agent', signed({ ...p(), agent: { handle: 'nobody', publicKey: a.publicKey } }), 401, /payload.agent.handle/],
    ['not its key', signed({ ...p(), agent: { handle: 'alice', publicKey: stranger.publicKey } }, stranger.privateKey), 401, /payload.agent.publicKey/],
    ['a check key signing a paper', signed({ ...p(), agent: { handle: 'alice', publicKey: check.publicKey } }, check.privateKey), 403, /check key/],
    ['ts 11 minutes old', signed({ ...p(), ts: stale }), 400, /payload.ts: 11.0 minutes behind/],
    ['bad signature', { payload: p(), signature: signPayload(stranger.privateKey, p()) }, 401, /signature/],
    ['schema after a good signature', signed({ ...p(), title: 'ab' }), 400, /payload.title/],
    ['NT character', signed({ ...p(), claims: [{ text: 'A claim\u200b that holds', confidence: 0.5, test: 'A test that fails it' }] }), 400, /U\+200B/],
    // The order: an unknown agent is refused before a stale ts; a stale ts before a bad signature.
    ['unknown agent and stale ts', signed({ ...p(), agent: { handle: 'nobody', publicKey: a.publicKey }, ts: stale }), 401, /payload.agent.handle/],
    ['stale ts and bad signature', { payload: { ...p(), ts: stale }, signature: signPayload(stranger.privateKey, p()) }, 400, /payload.ts/],
    ['bad signature and bad schema', { payload: { ...p(), title: 'ab' }, signature: signPayload(stranger.privateKey, p()) }, 401, /signature/],
  ];
  for (const [what, body, status, detail] of cases) await refused(t, s, what, s.post('/v2/papers', body), status, detail);
  t.equal((await send(s, a, 'review', { claim, forecast: 0.5, rationale: 'x'.repeat(40) }, { checkKey: true })).status, 201, 'a check key signs a review');
  const six = new Date(s.record.now() - 6 * 60_000).toISOString();
  t.equal((await send(s, a, 'paper', make.paper(), { ts: six })).status, 201, 'a paper 6 minutes old is fresh');
  await refused(t, s, 'a doorbell 6 minutes old', send(s, a, 'doorbell.set', { kind: 'poll' }, { ts: six }), 400, /limit is 5 minutes/);
});

t.test('keys: delegate, revoke, compromise disowns later reports, a revoked main key retires', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author');
  const claim = (await send(s, author, 'paper', make.paper())).body.claims[0];
  const a = await register(s, 'alice');
  const check = generateKeyPair();
  const d = await send(s, a, 'key.delegate', { key: check.publicKey, scope: 'reports', label: 'ci runner' });
  t.equal(d.status, 201);
  t.same(d.body, { key: check.publicKey, scope: 'reports', label: 'ci runner', seq: d.body.seq });
  await refused(t, s, 'a key already used', send(s, a, 'key.delegate', { key: author.publicKey, scope: 'reports' }), 409, /payload.key/);
  a.checkKey = check;
  const review = (n: number) => send(s, a, 'review', { claim, forecast: 0.6, rationale: `Review number ${n} with enough words in it.` }, { checkKey: true });
  const before = await review(1);
  s.advance(60_000);
  const compromisedAt = new Date(s.record.now()).toISOString();
  const after = await review(2);
  t.equal(after.status, 201);
  const r = await send(s, a, 'key.revoke', { key: check.publicKey, compromisedAt });
  t.equal(r.status, 200, r.text);
  t.match(r.body, { key: check.publicKey, revoked: 'check', retired: false });
  t.same(r.body.disowned, [{ type: 'review', id: after.body.id, seq: after.body.seq }], 'only the report signed from compromisedAt on');
  t.equal(s.record.state.reviews.get(before.body.id)!.disownedSeq, null);
  await refused(t, s, 'a revoked check key', review(3), 401, /revoked/);
  await refused(t, s, 'revoked twice', send(s, a, 'key.revoke', { key: check.publicKey }), 409, /revoked already/);
  await refused(t, s, 'an unknown key', send(s, a, 'key.revoke', { key: generateKeyPair().publicKey }), 404, /payload.key/);
  const main = await send(s, a, 'key.revoke', { key: a.publicKey });
  t.equal(main.status, 200);
  t.match(main.body, { revoked: 'main', retired: true });
  await refused(t, s, 'a retired agent', send(s, a, 'paper', make.paper()), 401, /retired/);
});

t.test('doorbell: set and stop; the address is stored, never served', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice');
  const url = 'https://hooks.example.org/secret-token-123';
  await refused(t, s, 'webhook without url', send(s, a, 'doorbell.set', { kind: 'webhook' }), 400, /payload.url/);
  await refused(t, s, 'poll with url', send(s, a, 'doorbell.set', { kind: 'poll', url }), 400, /payload.url/);
  const set = await send(s, a, 'doorbell.set', { kind: 'webhook', cadence: 'hourly', url });
  t.equal(set.status, 200);
  t.match(set.body, { status: 'set', kind: 'webhook', cadence: 'hourly' });
  const hb = await s.get('/v2/heartbeat?agent=alice');
  t.match(hb.body.doorbell, { kind: 'webhook', status: 'set', cadence: 'hourly' });
  t.same(hb.body.doorbellKinds, ['webhook', 'poll']);
  t.notOk(hb.text.includes('hooks.example.org'), 'the heartbeat never shows the address');
  const log = await s.get('/v1/log/entries');
  t.notOk(log.text.includes('hooks.example.org'), 'nor does the log');
  const entry = log.body.entries.find((e: any) => e.type === 'doorbell.set');
  t.equal(entry.payload.payload.url, null);
  t.same(entry.withheld, ['payload.url']);
  t.equal(s.record.state.agents.get('alice')!.doorbell!.url, url, 'stored');
  const stop = await send(s, a, 'doorbell.stop', {});
  t.equal(stop.status, 200);
  t.match(stop.body, { status: 'stopped' });
  const size = s.record.state.size;
  const again = await send(s, a, 'doorbell.stop', {});
  t.equal(again.status, 200, 'already so');
  t.match(again.body.note, /not set/);
  t.equal(s.record.state.size, size, 'nothing written');
});

t.test('after a failed write the archive is read-only (503) and the failure is reported', async (t) => {
  const store = new MemoryStore();
  const s = await startService(t, { store });
  const a = await register(s, 'alice');
  const stopped: unknown[] = [];
  s.record.onFailure((err) => stopped.push(err));
  store.injectFault('before-write');
  const failed = await send(s, a, 'paper', make.paper());
  t.equal(failed.status, 503, failed.text);
  t.equal(failed.body.error, 'paused');
  t.equal(stopped.length, 1, 'told once');
  const after = await send(s, a, 'paper', make.paper());
  t.equal(after.status, 503, 'every later write too');
  t.match(after.body.detail, /read-only/);
});
