// Stewards and switches over HTTP: the operator key appoints and removes stewards; a steward
// pauses a surface (503 naming the switch, nothing written) or every write (read-only), and
// resumes it; the record summary's settings show them; the same after a restart.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromPem, signPayload } from '../../lib/protocol/ed25519.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, send, type TestAgent } from '../helpers/agents.js';
import { refused } from '../helpers/refused.js';
import { stateJson } from '../../lib/record/fold/index.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ARCHIVE = join(process.cwd(), 'bin', 'archive');

/** An operator-key write: appoint or remove a steward. */
function operatorWrite(s: TestService, type: 'steward.appoint' | 'steward.remove', steward: string) {
  const key = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'));
  const payload = { protocol: PROTOCOL, type, steward, ts: new Date(s.record.now()).toISOString() };
  return s.post('/v2/stewards', { payload, signature: signPayload(key, payload) });
}

const flip = (s: TestService, a: TestAgent, name: string, paused: boolean) =>
  send(s, a, 'switch.set', { switch: name, paused, reason: `Looking into a flood of ${name}.` });

t.test('stewards hold the switches; a paused surface answers 503 naming it', async (t) => {
  const s = await startService(t);
  const sam = await register(s, 'sam', { operatorId: 'lab-s' });
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const paper = await send(s, alice, 'paper', make.paper(1));
  const [c1] = paper.body.claims as [string];

  await refused(t, s, 'not a steward yet', flip(s, sam, 'papers', true), 403, /sam is not a steward/);
  const appointed = await operatorWrite(s, 'steward.appoint', 'sam');
  t.equal(appointed.status, 201, appointed.text);
  t.same(appointed.body.stewards, ['sam']);
  t.equal((await operatorWrite(s, 'steward.appoint', 'sam')).status, 409, 'appointed once');
  t.equal((await operatorWrite(s, 'steward.appoint', 'nobody')).status, 404);

  const paused = await flip(s, sam, 'papers', true);
  t.equal(paused.status, 200, paused.text);
  t.match(paused.body.settings.papers, { paused: true, by: 'sam', reason: 'Looking into a flood of papers.' });
  await refused(
    t,
    s,
    'papers paused',
    send(s, alice, 'paper', make.paper(1)),
    503,
    /^switch papers: papers are paused by steward sam since entry \d+/,
  );
  t.equal(
    (await send(s, alice, 'review', { claim: c1, forecast: 0.6, rationale: 'Another surface is not paused by it.' })).status,
    201,
    'reviews go on',
  );
  t.match((await s.get('/v2/record')).body.settings, {
    papers: { paused: true, by: 'sam' },
    reviews: { paused: false },
    writes: { paused: false },
  });

  // Read-only: every write but the switches; registrations too.
  await flip(s, sam, 'writes', true);
  await refused(
    t,
    s,
    'read-only',
    send(s, alice, 'review', { claim: c1, forecast: 0.6, rationale: 'All writes are paused now, this too.' }),
    503,
    /^switch writes: every write is paused/,
  );
  const c = s.record.state.constitution;
  const reg = await s.post('/v2/agents/register', {
    handle: 'late',
    publicKey: generateKeyPair().publicKey,
    operatorId: 'lab-l',
    constitution: { version: c.version, hash: c.hash },
  });
  t.match(reg, { status: 503, body: { error: 'paused', detail: /^switch writes/ } }, 'no registration while read-only');
  t.equal((await s.get('/v2/record')).status, 200, 'reads go on');
  await flip(s, sam, 'writes', false);
  await flip(s, sam, 'papers', false);
  t.equal((await send(s, alice, 'paper', make.paper(1))).status, 201, 'resumed');

  // Removed: no more switches for sam; the state survives a restart.
  t.equal((await operatorWrite(s, 'steward.remove', 'sam')).status, 200);
  await refused(t, s, 'removed', flip(s, sam, 'papers', true), 403, /not a steward/);
  const before = stateJson(s.record.state);
  await s.stop();
  const s2 = await startService(t, { dataDir: s.dataDir });
  t.equal(stateJson(s2.record.state), before, 'the same stewards and switches after a restart');
  t.same((await s2.get('/v2/record')).body.stewards, []);
});

t.test('registrations paused: 503 naming the switch, nothing written', async (t) => {
  const s = await startService(t);
  const sam = await register(s, 'sam', { operatorId: 'lab-s' });
  await operatorWrite(s, 'steward.appoint', 'sam');
  await flip(s, sam, 'registrations', true);
  const size = s.d.log.size;
  const c = s.record.state.constitution;
  const r = await s.post('/v2/agents/register', {
    handle: 'newcomer',
    publicKey: generateKeyPair().publicKey,
    operatorId: 'lab-n',
    constitution: { version: c.version, hash: c.hash },
  });
  t.equal(r.status, 503);
  t.match(r.body, { error: 'paused', detail: /^switch registrations: registrations are paused/ });
  t.equal(s.d.log.size, size, 'nothing written');
});

t.test('archive steward appoint and remove, signed by the operator key', async (t) => {
  const s = await startService(t);
  await register(s, 'sam', { operatorId: 'lab-s' });
  const key = join(s.dataDir, 'keys', 'operator.key');
  const appointed = await run(ARCHIVE, ['steward', 'appoint', 'sam', '--url', s.url, '--key', key]);
  t.same(JSON.parse(appointed.stdout).stewards, ['sam']);
  const again = await run(ARCHIVE, ['steward', 'appoint', 'sam', '--url', s.url, '--key', key]).catch((e) => e);
  t.equal(again.code, 1);
  t.match(again.stderr, /HTTP 409[\s\S]*a steward already/);
  const removed = await run(ARCHIVE, ['steward', 'remove', 'sam', '--url', s.url, '--key', key]);
  t.same(JSON.parse(removed.stdout).stewards, []);
  const wrongKey = await run(ARCHIVE, ['steward', 'appoint', 'sam', '--url', s.url, '--key', join(s.dataDir, 'keys', 'log.key')]).catch(
    (e) => e,
  );
  t.match(wrongKey.stderr, /HTTP 401/, "another key than the operator's: refused");
});
