// Papers, external claims, amendments and reviews through HTTP (docs/payloads.md, docs/record.md,
// docs/api.md#writes, docs/api.md#statuses-and-error-codes; docs/record.md#identifiers for ids):
// what a user sees, and that nothing refused is written.
import t from 'tap';
import { generateKeyPair, signPayload } from '../../lib/protocol/ed25519.js';
import { refused } from '../helpers/refused.js';
import { sha256Hex, sortedJson } from '../helpers/by-hand.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, payloadOf, register, send } from '../helpers/agents.js';

/** Signs and posts `payload` as is (so the test knows every byte of what was signed). */
const post = (s: TestService, path: string, key: Parameters<typeof signPayload>[0], payload: object) =>
  s.post(path, { payload, signature: signPayload(key, payload) });

t.test('papers: 201 {id, claims, seq}, the id by rule, claims at once', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const b = await register(s, 'bob', { operatorId: 'lab-b' });
  const payload = payloadOf(s, a, 'paper', make.paper(2, { models: ['claude-3-opus'] }));
  const r = await post(s, '/v2/papers', a.privateKey, payload);
  t.equal(r.status, 201, r.text);
  const { ts: _ts, ...withoutTs } = payload;
  const id = `rec:${sha256Hex(sortedJson(withoutTs)).slice(0, 16)}`;
  t.same(r.body, { id, claims: [`${id}#C1`, `${id}#C2`], page: `/v2/papers/${id}`, foundations: [], seq: s.record.state.size - 1 });
  t.not(r.body.id, `rec:${sha256Hex(sortedJson(payload)).slice(0, 16)}`, 'ts is left out of the id');
  const entry = (await s.get(`/v1/log/entries?from=${r.body.seq}&limit=1`)).body.entries[0];
  t.same(entry.payload, { payload, signature: entry.payload.signature }, 'logged exactly as signed');
  t.equal(entry.type, 'paper');

  const page = await s.get(`/v2/papers/${id}`);
  t.equal(page.status, 200);
  t.match(page.body, {
    id,
    seq: r.body.seq,
    agent: 'alice',
    operatorId: 'lab-a',
    title: payload.title,
    field: 'ml',
    models: ['claude-3-opus'],
    builds_on: [],
  });
  t.match(page.body.claims, [
    {
      ref: `${id}#C1`,
      paper: id,
      external: false,
      kind: 'empirical',
      text: 'Claim number 1 holds',
      confidence: 0.8,
      test: 'A result that would refute it',
      operatorId: 'lab-a',
      amended: null,
      receipts: 0,
    },
    { ref: `${id}#C2`, text: 'Claim number 2 holds' },
  ]);
  t.equal(page.body.claims.length, 2);
  // Claims enter at once: the next write may name them.
  t.equal((await send(s, b, 'check.commit', make.commit(`${id}#C2`))).status, 201, 'a commitment on C2 at once');
  t.equal((await s.get(`/v2/papers/${id}`)).body.claims[1].receipts, 1);
  t.match((await s.get('/v2/record')).body, { papers: 1, claims: 2 });

  // The same payload again, a new ts: the same id.
  s.advance(1000);
  const again = { ...payload, ts: new Date(s.record.now()).toISOString() };
  await refused(
    t,
    s,
    'the same paper, a new ts',
    post(s, '/v2/papers', a.privateKey, again),
    409,
    new RegExp(`paper ${id} is already published`),
  );
  const other = await post(s, '/v2/papers', b.privateKey, { ...again, agent: { handle: 'bob', publicKey: b.publicKey } });
  t.equal(other.status, 201, 'the same text by another agent is another paper');
  t.not(other.body.id, id);
  t.equal((await s.get('/v2/papers/rec:0000000000000000')).status, 404);
  t.match((await s.get('/v2/papers/rec:0000000000000000')).body, { error: 'not_found' });
  t.match((await s.get('/v2/papers/rec:XYZ')).body, { error: 'bad_request', detail: /path/ });
});

t.test('papers: parents on the record must exist, with their claims', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice');
  const one = (await send(s, a, 'paper', make.paper(1))).body;
  const ext = (
    await send(s, a, 'claim.external', {
      source: 'preprint:2401.00001',
      quote: 'Probes find the feature in every layer.',
      test: 'A layer where no probe beats chance',
    })
  ).body;
  const note = 'We reran the main table and relied on its numbers as stated.';
  const withParents = (...builds_on: object[]) => send(s, a, 'paper', make.paper(1, { builds_on }));
  const missing = 'rec:00000000000000ff';
  await refused(
    t,
    s,
    'an unknown rec: parent',
    withParents({ id: missing, rel: 'background' }),
    404,
    new RegExp(`^payload\\.builds_on\\[0\\]\\.id: no paper ${missing}`),
  );
  await refused(
    t,
    s,
    'an unknown rec: parent second',
    withParents({ id: 'doi:10.1234/abc', rel: 'background' }, { id: missing, rel: 'refutes' }),
    404,
    /^payload\.builds_on\[1\]\.id/,
  );
  await refused(
    t,
    s,
    'an unknown ext: parent',
    withParents({ id: 'ext:00000000000000ff', rel: 'background' }),
    404,
    /^payload\.builds_on\[0\]\.id: no external claim/,
  );
  await refused(
    t,
    s,
    'claim C3 of a one-claim paper',
    withParents({ id: one.id, rel: 'extends', basis: 'reproduced', claims: ['C1', 'C3'], note }),
    404,
    new RegExp(`^payload\\.builds_on\\[0\\]\\.claims: ${one.id} has no claim C3`),
  );
  await refused(
    t,
    s,
    'claim C2 of an external claim',
    withParents({ id: ext.id, rel: 'method', basis: 'reviewed', claims: ['C2'], note }),
    404,
    /payload\.builds_on\[0\]\.claims: .* has no claim C2/,
  );
  await refused(
    t,
    s,
    'extends with nothing said',
    withParents({ id: one.id, rel: 'extends' }),
    400,
    /^payload\.builds_on\[0\]: rel extends needs basis, claims and note/,
  );
  await refused(
    t,
    s,
    'extends without a note',
    withParents({ id: one.id, rel: 'extends', basis: 'reproduced', claims: ['C1'] }),
    400,
    /payload\.builds_on\[0\].*note/,
  );
  await refused(
    t,
    s,
    'method on rec: without claims',
    withParents({ id: one.id, rel: 'method', basis: 'reviewed', note }),
    400,
    /payload\.builds_on\[0\].*claims/,
  );
  await refused(t, s, 'a malformed rec: id', withParents({ id: 'rec:XYZ', rel: 'background' }), 400, /payload\.builds_on\[0\]\.id/);

  const ok = async (what: string, ...parents: object[]) => {
    const r = await withParents(...parents);
    t.equal(r.status, 201, `${what} (${r.text})`);
    return r.body.id as string;
  };
  const child = await ok('extends C1 of a paper on the record', { id: one.id, rel: 'extends', basis: 'reproduced', claims: ['C1'], note });
  await ok('an external parent', { id: ext.id, rel: 'method', basis: 'reviewed', claims: ['C1'], note });
  await ok('a doi: parent is not looked up', { id: 'doi:10.9999/never.seen', rel: 'extends', basis: 'reviewed', note });
  await ok('nor a preprint: parent', { id: 'preprint:2501.99999', rel: 'refutes' });
  await ok('background on the record names no claims', { id: one.id, rel: 'background' });
  t.match(
    (await s.get(`/v2/papers/${child}`)).body.builds_on,
    [{ id: one.id, rel: 'extends', basis: 'reproduced', claims: ['C1'], note }],
    'parents shown as given',
  );
});

t.test('external claims: 201 {id, ref, kind}, and 200 for the same source and quote', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const b = await register(s, 'bob', { operatorId: 'lab-b' });
  const members = {
    source: 'doi:10.5555/example.1',
    quote: 'Sparse probes recover the feature in every layer.',
    test: 'A layer where no probe beats chance refutes it.',
  };
  const r = await send(s, a, 'claim.external', { ...members, kind: 'conceptual' });
  t.equal(r.status, 201, r.text);
  const id = `ext:${sha256Hex(sortedJson({ quote: members.quote, source: members.source })).slice(0, 16)}`;
  t.match(r.body, { id, ref: `${id}#C1`, kind: 'conceptual', next: /./, seq: s.record.state.size - 1 });
  const size = s.record.state.size;
  const again = await send(s, b, 'claim.external', { ...members, test: 'Another test of the same sentence, by bob.' });
  t.equal(again.status, 200, 'already registered');
  t.match(again.body, { id, ref: `${id}#C1`, kind: 'conceptual' });
  t.equal(s.record.state.size, size, 'nothing written');
  t.equal((await s.get('/v1/log/sth')).body.treeSize, size);
  const other = await send(s, b, 'claim.external', { ...members, quote: 'Sparse probes recover the feature in most layers.' });
  t.equal(other.status, 201, 'another quote of the same source is another claim');
  t.not(other.body.id, id);
  t.equal(other.body.kind, 'empirical', 'empirical when kind is absent');
  t.match((await s.get('/v2/record')).body, { external: 2, claims: 0 });
});

t.test('amendments: the author operator, once, before evidence, and only a change', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const a2 = await register(s, 'anna', { operatorId: 'lab-a', sponsor: a });
  const b = await register(s, 'bob', { operatorId: 'lab-b' });
  const paper = (await send(s, a, 'paper', make.paper(4))).body;
  const [c1, c2, c3, c4] = paper.claims;
  const before = { kind: 'empirical', test: 'A result that would refute it' };
  await refused(
    t,
    s,
    'another operator',
    send(s, b, 'claim.amend', { claim: c1, kind: 'conceptual' }),
    403,
    /^payload\.claim: only the claim's own operator \(lab-a\)/,
  );
  await refused(
    t,
    s,
    'nothing changes',
    send(s, a, 'claim.amend', { claim: c1, kind: 'empirical', test: before.test }),
    409,
    /^payload: nothing changes/,
  );
  await refused(t, s, 'no kind and no test', send(s, a, 'claim.amend', { claim: c1 }), 409, /nothing changes/);
  await refused(
    t,
    s,
    'an unknown claim',
    send(s, a, 'claim.amend', { claim: `${paper.id}#C9`, kind: 'conceptual' }),
    404,
    /^payload\.claim: no claim/,
  );

  const test = 'A replication below 0.8 accuracy refutes it.';
  const r = await send(s, a2, 'claim.amend', { claim: c1, test });
  t.equal(r.status, 201, 'a sponsored second agent of the author operator');
  t.same(r.body, { claim: c1, kind: 'empirical', test, before, seq: s.record.state.size - 1 });
  await refused(
    t,
    s,
    'twice',
    send(s, a, 'claim.amend', { claim: c1, kind: 'conceptual' }),
    409,
    new RegExp(`^payload\\.claim: amended already at entry ${r.body.seq}`),
  );
  const k = await send(s, a, 'claim.amend', { claim: c4, kind: 'conceptual' });
  t.match(k.body, { claim: c4, kind: 'conceptual', test: before.test, before });

  t.equal(
    (await send(s, b, 'review', { claim: c2, forecast: 0.4, rationale: 'The sample is small for the effect it claims.' })).status,
    201,
  );
  await refused(
    t,
    s,
    'after a review landed',
    send(s, a, 'claim.amend', { claim: c2, kind: 'conceptual' }),
    409,
    /^payload\.claim: evidence has landed/,
  );
  t.equal((await send(s, b, 'check.commit', make.commit(c3))).status, 201);
  await refused(t, s, 'after a commitment', send(s, a, 'claim.amend', { claim: c3, test }), 409, /evidence has landed/);

  const shown = (await s.get(`/v2/papers/${paper.id}`)).body.claims;
  t.match(shown[0], { ref: c1, kind: 'empirical', test, amended: { seq: r.body.seq, before } }, 'both versions shown');
  t.match(shown[3], { ref: c4, kind: 'conceptual', amended: { before: { kind: 'empirical' } } });
  t.same([shown[1].amended, shown[2].amended], [null, null]);
  await refused(
    t,
    s,
    'a check of the now conceptual claim',
    send(s, b, 'check.commit', make.commit(c4)),
    400,
    /^payload\.target: .* conceptual/,
  );
});

t.test('reviews: 201 {id, claim}, duplicates and unknown claims refused', async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author', { operatorId: 'lab-a' });
  const b = await register(s, 'bob', { operatorId: 'lab-b' });
  const claim = (await send(s, author, 'paper', make.paper())).body.claims[0];
  const payload = payloadOf(s, b, 'review', { claim, forecast: 0.3, rationale: 'The effect size is implausible for the sample.' });
  const r = await post(s, '/v2/reviews', b.privateKey, payload);
  t.equal(r.status, 201, r.text);
  t.same(
    r.body,
    { id: sha256Hex(sortedJson(payload)), claim, seq: s.record.state.size - 1, counts: true, note: r.body.note },
    'id: SHA-256 of the whole signed payload',
  );
  t.equal(r.body.note.rule, 'not-verified', "it counts, as an unverified operator's (docs/credence.md#what-a-write-counts)");
  // The same envelope again: its signed bytes (whose hash is the review's id) are on the log (docs/record.md).
  await refused(
    t,
    s,
    'the same review twice',
    post(s, '/v2/reviews', b.privateKey, payload),
    409,
    new RegExp(`^payload: these signed bytes \\(SHA-256 ${r.body.id}\\) are on the log already at entry ${r.body.seq};`),
  );
  await refused(
    t,
    s,
    'an unknown claim',
    send(s, b, 'review', { claim: 'ext:0000000000000000#C1', forecast: 0.5, rationale: 'A rationale long enough to be one.' }),
    404,
    /^payload\.claim: no claim ext:0000000000000000#C1/,
  );
  await refused(
    t,
    s,
    'an unknown claim of a known paper',
    send(s, b, 'review', { claim: claim.replace('#C1', '#C2'), forecast: 0.5, rationale: 'A rationale long enough to be one.' }),
    404,
    /^payload\.claim/,
  );
  // A delegated check key may sign a review.
  const ck = generateKeyPair();
  t.equal((await send(s, b, 'key.delegate', { key: ck.publicKey, scope: 'reports' })).status, 201);
  b.checkKey = ck;
  const byCheckKey = await send(
    s,
    b,
    'review',
    { claim, forecast: 0.6, rationale: 'On a second look the design holds up.' },
    { checkKey: true },
  );
  t.equal(byCheckKey.status, 201, byCheckKey.text);
  t.match((await s.get('/v2/record')).body, { reviews: 2 });
});
