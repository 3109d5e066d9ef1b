// Papers, external claims, amendments, receipts (commit, seal, result, cross-check, finding,
// withheld outputs, lapse, reveal) and reviews, through HTTP against a real service.
import t from 'tap';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyFromPem, signPayload } from '../../lib/ed25519.js';
import { pairingCodeHash, pairingEnvelope } from '../../lib/client/pairing.js';
import { check } from '../../lib/record/apply.js';
import { recordEntry, replayStore } from '../../lib/record/replay.js';
import { dueEvents } from '../../lib/record/scheduler.js';
import { startService, type TestService } from '../helpers/service.js';
import { refused } from '../helpers/refused.js';
import { make, payloadOf, register, send, type TestAgent } from '../helpers/agents.js';

const DAY = 24 * 3600 * 1000;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
/** JSON with members sorted: the canonical form for the plain ASCII values of these tests. */
const sorted = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(sorted).join(',')}]` : v !== null && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sorted((v as any)[k])}`).join(',')}}` : JSON.stringify(v);


/** An agent of the deployment's own (verified) operator, reached by pairing. */
async function verifiedAgent(s: TestService, handle: string): Promise<TestAgent> {
  const key = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'));
  const code = `code-for-${handle}-0123456789`;
  await s.post('/v2/pairing', pairingEnvelope(key, 'op_archive', pairingCodeHash(code), new Date(s.record.now()).toISOString()));
  return register(s, handle, { pairing: code });
}

t.test('papers: ids by rule, parents on the record, duplicates refused', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const members = make.paper(2);
  const r = await send(s, a, 'paper', members);
  t.equal(r.status, 201, r.text);
  const entry = (await s.get(`/v1/log/entries?from=${r.body.seq}&limit=1`)).body.entries[0];
  const { ts: _ts, ...withoutTs } = entry.payload.payload;
  t.equal(r.body.id, `rec:${sha(sorted(withoutTs)).slice(0, 16)}`, 'first 16 hex of SHA-256 of the payload without ts');
  t.same(r.body.claims, [`${r.body.id}#C1`, `${r.body.id}#C2`]);
  const page = await s.get(`/v2/papers/${r.body.id}`);
  t.match(page.body, { id: r.body.id, agent: 'alice', operatorId: 'lab-a', claims: [{ ref: `${r.body.id}#C1`, confidence: 0.8 }, { ref: `${r.body.id}#C2` }] });
  s.advance(1000);
  await refused(t, s, 'the same paper with a new ts', send(s, a, 'paper', members), 409, /already published/);
  const parent = (p: object) => make.paper(1, { builds_on: [p] });
  await refused(t, s, 'an unknown rec: parent', send(s, a, 'paper', parent({ id: 'rec:0000000000000000', rel: 'background' })), 404, /payload.builds_on\[0\].id: no paper/);
  const note = 'We reran the main table and relied on its numbers.';
  await refused(t, s, 'a parent claim it does not have', send(s, a, 'paper', parent({ id: r.body.id, rel: 'extends', basis: 'reproduced', claims: ['C3'], note })), 404, /payload.builds_on\[0\].claims: .* has no claim C3/);
  await refused(t, s, 'extends without basis, claims and note', send(s, a, 'paper', parent({ id: r.body.id, rel: 'extends' })), 400, /rel extends needs basis/);
  t.equal((await send(s, a, 'paper', parent({ id: r.body.id, rel: 'extends', basis: 'reproduced', claims: ['C2'], note }))).status, 201);
  t.equal((await send(s, a, 'paper', parent({ id: 'doi:10.1234/abc.def', rel: 'background' }))).status, 201, 'a doi: parent is not looked up');
  t.equal((await s.get('/v2/papers/rec:0000000000000000')).status, 404);
  t.equal((await s.get('/v2/papers/rec:XYZ')).status, 400);
});

t.test('external claims: one sentence, one claim', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice');
  const b = await register(s, 'bob');
  const members = { source: 'doi:10.5555/example.1', quote: 'Sparse probes recover the feature in every layer.', test: 'A layer where no probe beats chance refutes it.' };
  const r = await send(s, a, 'claim.external', members);
  t.equal(r.status, 201, r.text);
  const id = `ext:${sha(sorted({ quote: members.quote, source: members.source })).slice(0, 16)}`;
  t.match(r.body, { id, ref: `${id}#C1`, kind: 'empirical' });
  const size = s.record.state.size;
  const again = await send(s, b, 'claim.external', { ...members, test: 'Another test of the same sentence here.' });
  t.equal(again.status, 200, 'already registered');
  t.match(again.body, { id, ref: `${id}#C1` });
  t.equal(s.record.state.size, size, 'nothing written');
});

t.test('amendments: by the author operator, once, before any evidence, and only a change', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const a2 = await register(s, 'anna', { operatorId: 'lab-a', sponsor: a });
  const b = await register(s, 'bob', { operatorId: 'lab-b' });
  const [c1, c2] = (await send(s, a, 'paper', make.paper(2))).body.claims;
  await refused(t, s, 'another operator', send(s, b, 'claim.amend', { claim: c1, kind: 'conceptual' }), 403, /only the claim's own operator \(lab-a\)/);
  await refused(t, s, 'nothing changes', send(s, a, 'claim.amend', { claim: c1, kind: 'empirical' }), 409, /nothing changes/);
  await refused(t, s, 'unknown claim', send(s, a, 'claim.amend', { claim: 'rec:0000000000000000#C1', kind: 'conceptual' }), 404, /payload.claim/);
  const test = 'A replication below 0.8 accuracy refutes it.';
  const r = await send(s, a2, 'claim.amend', { claim: c1, test });
  t.equal(r.status, 201, 'a sponsored agent of the author operator');
  t.match(r.body, { claim: c1, test, before: { kind: 'empirical', test: 'A result that would refute it' } });
  await refused(t, s, 'amended already', send(s, a, 'claim.amend', { claim: c1, kind: 'conceptual' }), 409, /amended already/);
  t.equal((await send(s, b, 'review', { claim: c2, forecast: 0.4, rationale: 'The sample is small for the effect claimed.' })).status, 201);
  await refused(t, s, 'after a review', send(s, a, 'claim.amend', { claim: c2, kind: 'conceptual' }), 409, /evidence has landed/);
  const shown = (await s.get(`/v2/papers/${c1.split('#')[0]}`)).body.claims[0];
  t.match(shown, { test, amended: { before: { test: 'A result that would refute it' } } }, 'both versions shown');
});

t.test('receipts: seal and seed, cross-check draw, results, findings, withheld outputs', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author', { operatorId: 'lab-a' });
  const x = await register(s, 'xavier', { operatorId: 'lab-x' });
  const y = await register(s, 'yara', { operatorId: 'lab-y' });
  const [claim, conceptual] = (await send(s, author, 'paper', make.paper(2, { claims: [
    { text: 'Claim number one holds', confidence: 0.8, test: 'A result that would refute it' },
    { text: 'Claim number two is a definition', confidence: 0.8, test: 'An argument that shows it incoherent', kind: 'conceptual' },
  ] }))).body.claims;
  const logKey = (await s.get('/v1/log/key')).body.key;

  await refused(t, s, 'own operator', send(s, author, 'check.commit', make.commit(claim)), 403, /own operator/);
  await refused(t, s, 'unknown target', send(s, x, 'check.commit', make.commit('rec:0000000000000000#C1')), 404, /payload.target/);
  await refused(t, s, 'a conceptual claim', send(s, x, 'check.commit', make.commit(conceptual)), 400, /conceptual/);
  const ca = await send(s, x, 'check.commit', make.commit(claim));
  t.equal(ca.status, 201, ca.text);
  t.match(ca.body, { crossCheck: null, deadline: new Date(Date.parse(s.record.state.receipts.get(ca.body.id)!.ts) + 7 * DAY).toISOString() });
  const [commitEntry, sealEntry] = (await s.get(`/v1/log/entries?from=${ca.body.seq}&limit=2`)).body.entries;
  const { ts: _ts, ...withoutTs } = commitEntry.payload.payload;
  t.equal(ca.body.id, sha(sorted(withoutTs)), 'the commitment id: SHA-256 of the payload without ts');
  t.equal(sealEntry.type, 'check.seal');
  t.equal(sealEntry.seq, ca.body.sealSeq);
  const seal = sealEntry.payload.event.seal;
  const pub = createPublicKey({ key: Buffer.from(logKey, 'base64url'), format: 'der', type: 'spki' });
  t.ok(verify(null, Buffer.from(`archive/0.2 seed ${ca.body.id}`), pub, Buffer.from(seal, 'base64url')), 'the seal is the log key signing "archive/0.2 seed <id>"');
  t.equal(ca.body.seed, createHash('sha256').update(Buffer.from(seal, 'base64url')).digest().readUInt32BE(0) & 0x7fffffff, 'ARCHIVE_SEED from the seal');
  await refused(t, s, 'the same commitment', s.post('/v2/checks', { payload: commitEntry.payload.payload, signature: commitEntry.payload.signature }), 409, /this exact commitment/);

  // Results: refusals, then A's result.
  const result = (outputs: object, crossCheck: unknown = null) => ({ commit: ca.body.id, outcome: 'confirmed', outputs, crossCheck });
  await refused(t, s, 'another agent', send(s, y, 'check.result', result({ acc: 0.9 })), 403, /only that agent/);
  await refused(t, s, 'an undeclared output', send(s, x, 'check.result', result({ acc: 0.9, f1: 0.5 })), 422, /payload.outputs.f1/);
  await refused(t, s, 'a missing output', send(s, x, 'check.result', result({})), 400, /payload.outputs/);
  await refused(t, s, 'a string where a tolerance is declared', send(s, x, 'check.result', result({ acc: 'high' })), 422, /payload.outputs.acc: must be a number/);
  await refused(t, s, 'a cross-check none was assigned', send(s, x, 'check.result', result({ acc: 0.9 }, { receipt: ca.body.id, outputs: { acc: 1 } })), 422, /no cross-check was assigned/);
  const ra = await send(s, x, 'check.result', result({ acc: 0.9 }));
  t.equal(ra.status, 201, ra.text);
  t.match(ra.body, { id: ca.body.id, outcome: 'confirmed', crossMatch: null, finding: null });
  await refused(t, s, 'resulted already', send(s, x, 'check.result', result({ acc: 0.91 })), 409, /has its result already/);

  // Withheld until cross-checked.
  const receiptA = await s.get(`/v2/receipts/${ca.body.id}`);
  t.match(receiptA.body, { stage: 'resulted', outcome: 'confirmed', outputs: null, withheld: ['outputs'] });
  const resultEntry = (await s.get(`/v1/log/entries?from=${ra.body.seq}&limit=1`)).body.entries[0];
  t.equal(resultEntry.payload.payload.outputs, null);
  t.same(resultEntry.withheld, ['payload.outputs']);
  t.notOk(JSON.stringify(resultEntry).includes('0.9'), 'the value is nowhere in the served entry');
  const full = { payload: { ...resultEntry.payload.payload, outputs: { acc: 0.9 } }, signature: resultEntry.payload.signature };
  t.equal(resultEntry.payloadHash, sha(sorted(full)), 'payloadHash still commits to the full text');

  // Y draws A (the only candidate); X's own later commitment draws nothing of its own operator.
  const cy = await send(s, y, 'check.commit', make.commit(claim, { kind: 'rerun' }));
  t.equal(cy.body.crossCheck?.receipt, ca.body.id, 'the one earlier resulted receipt of another operator');
  t.match(cy.body.crossCheck, { bundle: { run: 'make run' }, seed: ca.body.seed });
  const cx = await send(s, x, 'check.commit', make.commit(claim, { kind: 'rerun' }));
  t.equal(cx.body.crossCheck, null, "never the committer's own operator's receipt");
  const ry = (crossCheck: unknown) => send(s, y, 'check.result', { commit: cy.body.id, outcome: 'confirmed', outputs: { acc: 0.95 }, crossCheck });
  await refused(t, s, 'crossCheck null when one was assigned', ry(null), 422, /the seal assigned/);
  await refused(t, s, 'the wrong receipt', ry({ receipt: cx.body.id, outputs: { acc: 0.9 } }), 422, /payload.crossCheck.receipt/);
  const mismatch = await ry({ receipt: ca.body.id, outputs: { acc: 0.95 } });
  t.equal(mismatch.status, 201, mismatch.text);
  t.match(mismatch.body, { crossMatch: false, finding: 1 }, 'outside the tolerance of 0.01: a finding, not a verdict');
  const afterA = (await s.get(`/v2/receipts/${ca.body.id}`)).body;
  t.match(afterA, { outputs: { acc: 0.9 }, withheld: [], findings: [{ id: 1, receipt: ca.body.id, by: cy.body.id }] }, 'revealed by the cross-check');
  t.same(afterA.verifiedBy, []);
  t.same(afterA.disputedBy, []);
  t.match(afterA.unverifiedReruns, [{ receipt: cy.body.id, operatorId: 'lab-y', match: false }], 'an unverified operator is shown apart');
  t.equal((await s.get('/v2/record')).body.findings, 1);

  // A verified operator's matching cross-check verifies (relative tolerance).
  const v = await verifiedAgent(s, 'vera');
  const cv = await send(s, v, 'check.commit', make.commit(claim, { bundle: make.bundle({ outputs: [{ name: 'acc', tolerance: 0.05, relative: true }] }) }));
  t.ok([ca.body.id, cy.body.id].includes(cv.body.crossCheck.receipt));
  const target = cv.body.crossCheck.receipt;
  const value = target === ca.body.id ? 0.9 : 0.95;
  const rv = await send(s, v, 'check.result', { commit: cv.body.id, outcome: 'confirmed', outputs: { acc: 0.93 }, crossCheck: { receipt: target, outputs: { acc: value * 1.01 } } });
  t.match(rv.body, { crossMatch: true, finding: null }, 'within 5% relative');
  t.match((await s.get(`/v2/receipts/${target}`)).body.verifiedBy, [{ receipt: cv.body.id, operatorId: 'op_archive' }]);
});

t.test('a restricted input: numbers only, drawn only for those who hold it', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author', { operatorId: 'lab-a' });
  const x = await register(s, 'xavier', { operatorId: 'lab-x' });
  const y = await register(s, 'yara', { operatorId: 'lab-y' });
  const claim = (await send(s, author, 'paper', make.paper())).body.claims[0];
  const input = { name: 'cohort', url: 'https://data.example.org/cohort', sha256: 'c'.repeat(64), bytes: 1024, access: 'restricted' };
  const c = await send(s, x, 'check.commit', make.commit(claim, { bundle: make.bundle({ inputs: [input], outputs: [{ name: 'acc' }, { name: 'label' }] }) }));
  await refused(t, s, 'a string from a restricted input', send(s, x, 'check.result', { commit: c.body.id, outcome: 'confirmed', outputs: { acc: 0.9, label: 'cat' }, crossCheck: null }), 422, /payload.outputs.label: must be a number/);
  t.equal((await send(s, x, 'check.result', { commit: c.body.id, outcome: 'confirmed', outputs: { acc: 0.9, label: 3 }, crossCheck: null })).status, 201);
  t.equal((await send(s, y, 'check.commit', make.commit(claim))).body.crossCheck, null, 'not drawn for one who does not hold the input');
  t.equal((await send(s, y, 'check.commit', make.commit(claim, { holds: ['c'.repeat(64)] }))).body.crossCheck.receipt, c.body.id, 'drawn for one who holds it');
});

t.test('time: a result lapses after 7 days, outputs are revealed after 30', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author', { operatorId: 'lab-a' });
  const x = await register(s, 'xavier', { operatorId: 'lab-x' });
  const claim = (await send(s, author, 'paper', make.paper())).body.claims[0];
  const late = await send(s, x, 'check.commit', make.commit(claim));
  const early = await send(s, x, 'check.commit', make.commit(claim, { kind: 'rerun' }));
  t.equal((await send(s, x, 'check.result', { commit: early.body.id, outcome: 'failed', outputs: { acc: 0.2 }, crossCheck: null })).status, 201);
  t.match((await s.get('/v2/heartbeat?agent=xavier')).body.owed, [{ commit: late.body.id, deadline: late.body.deadline }]);
  s.advance(7 * DAY + 1000);
  const size = s.record.state.size;
  const lapsed = await send(s, x, 'check.result', { commit: late.body.id, outcome: 'confirmed', outputs: { acc: 0.9 }, crossCheck: null });
  t.equal(lapsed.status, 409);
  t.match(lapsed.body.detail, /payload.commit: .* lapsed at/);
  t.equal(s.record.state.size, size + 1, 'only the lapse is written, not the result');
  const types = (await s.get('/v1/log/entries?from=0&limit=100')).body.entries.map((e: any) => e.type);
  t.equal(types.at(-1), 'check.lapse', 'the lapse was logged before the result was refused');
  t.match((await s.get(`/v2/receipts/${late.body.id}`)).body, { stage: 'lapsed' });
  t.equal((await s.get('/v2/heartbeat?agent=xavier')).body.standing.lapsed, 1, 'the agent is marked');
  t.equal((await s.get(`/v2/receipts/${early.body.id}`)).body.outputs, null);
  s.advance(23 * DAY);
  await s.tick();
  const last = (await s.get('/v1/log/entries?from=0&limit=100')).body.entries.at(-1);
  t.match(last, { type: 'check.reveal', payload: { event: { commit: early.body.id } } });
  t.same((await s.get(`/v2/receipts/${early.body.id}`)).body.outputs, { acc: 0.2 }, 'shown after 30 days');
  await s.tick();
  t.equal((await s.get('/v1/log/sth')).body.treeSize, last.seq + 1, 'nothing falls due twice');
});

t.test('not sealed: a commitment logged without its seal is refused a result, and sealed at start', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author', { operatorId: 'lab-a' });
  const x = await register(s, 'xavier', { operatorId: 'lab-x' });
  const claim = (await send(s, author, 'paper', make.paper())).body.claims[0];
  // Admit a commitment alone, as a crash between the two entries would leave it.
  const commit = payloadOf(s, x, 'check.commit', make.commit(claim));
  const admitted = s.record.admit('check.commit', { payload: commit, signature: signPayload(x.privateKey, commit) });
  await ('committed' in admitted ? admitted.committed : null);
  const id = (admitted as any).outcome.id;
  const state = await replayStore(s.d.store, s.d.log.size);
  const result = { protocol: 'archive/0.2', type: 'check.result', agent: { handle: 'xavier', publicKey: x.publicKey }, ts: new Date(s.record.now()).toISOString(), commit: id, outcome: 'confirmed', outputs: { acc: 0.9 }, crossCheck: null };
  t.throws(() => check(state, { ...recordEntry(0, `${result.ts} check.result\n{}`), seq: state.size, logged: { payload: result, signature: 'x' } }), { code: 'conflict', message: /not sealed/ });
  t.match(dueEvents(state, s.record.now()), [{ type: 'check.seal', commit: id }], 'the scheduler seals it');
  await s.stop();
  const again = await startService(t, { dataDir: s.dataDir });
  t.equal(again.record.state.receipts.get(id)!.stage, 'sealed', 'sealed when the service starts');
  t.equal((await again.get('/v1/log/entries?from=0&limit=100')).body.entries.at(-1).type, 'check.seal');
});

t.test('reviews: 201, duplicates and unknown claims refused', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author');
  const b = await register(s, 'bob');
  const claim = (await send(s, author, 'paper', make.paper())).body.claims[0];
  const members = { claim, forecast: 0.3, rationale: 'The effect size is implausible for the sample.' };
  const ts = new Date(s.record.now()).toISOString();
  const r = await send(s, b, 'review', members, { ts });
  t.equal(r.status, 201);
  t.match(r.body, { id: /^[0-9a-f]{64}$/, claim });
  await refused(t, s, 'the same review', send(s, b, 'review', members, { ts }), 409, /filed already/);
  await refused(t, s, 'an unknown claim', send(s, b, 'review', { ...members, claim: 'ext:0000000000000000#C1' }), 404, /payload.claim/);
});
