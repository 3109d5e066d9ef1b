// Arguments over HTTP (docs/payloads.md#arguments, ArgumentCheck, ArgumentAnswer; Part 3; Part 4.1
// and 4.3): filing, checking, answering, and the reads of them. Settlement needs two verified
// operators, which this issue cannot make over HTTP; test/lib/settlement.test.ts covers it.
import t from 'tap';
import { sha256Hex, sortedJson } from '../helpers/by-hand.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, payloadOf, register, send, type TestAgent } from '../helpers/agents.js';
import { signPayload } from '../../lib/protocol/ed25519.js';

/** Canonical JSON for the plain payloads of these tests (sorted keys, no whitespace). */

interface World {
  s: TestService;
  alice: TestAgent;
  alice2: TestAgent;
  bob: TestAgent;
  carol: TestAgent;
  claims: string[];
}

async function world(t: Parameters<typeof startService>[0]): Promise<World> {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const alice2 = await register(s, 'alice-two', { operatorId: 'lab-a', sponsor: alice });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const p = await send(s, alice, 'paper', make.paper(2));
  if (p.status !== 201) throw new Error(p.text);
  return { s, alice, alice2, bob, carol, claims: p.body.claims };
}

const note = (n: string) => `A note on the check, number ${n}, long enough.`;

t.test('filing an argument', async (t) => {
  const { s, alice, bob, claims } = await world(t);
  const payload = payloadOf(s, bob, 'argument.file', make.argument(claims[0]!));
  const envelope = { payload, signature: signPayload(bob.privateKey, payload) };
  const r = await s.post('/v2/arguments', envelope);
  t.equal(r.status, 201, r.text);
  // The id is the SHA-256 of the canonical JSON of the whole signed payload (docs/record.md#identifiers).
  t.equal(r.body.id, sha256Hex(sortedJson(payload)));
  t.equal(r.body.page, `/v2/arguments/${r.body.id}`);
  t.same(r.body.challengesCompleted, []);
  const entries = (await s.get(`/v1/log/entries?from=${r.body.seq}&limit=1`)).body.entries;
  t.equal(entries[0].type, 'argument.file');
  t.same(entries[0].payload, { payload, signature: envelope.signature }, 'logged exactly as signed');

  // The same envelope again: the same id, already filed.
  const size = s.record.state.size;
  const again = await s.post('/v2/arguments', envelope);
  t.equal(again.status, 409);
  t.equal(again.body.error, 'conflict');
  t.match(again.body.detail, r.body.id);
  t.equal(s.record.state.size, size, 'nothing written');

  // The claim's own operator may argue about it too (supporting, here); it is its argument.
  const own = await send(s, alice, 'argument.file', make.argument(claims[0]!, { stance: 'supports', grounds: 'unsupported-premise' }));
  t.equal(own.status, 201, own.text);
});

t.test('filing refusals name the field, and write nothing', async (t) => {
  const { s, bob, claims } = await world(t);
  const unknownRef = `rec:${'0'.repeat(16)}#C1`;
  const cases: [string, Record<string, unknown>, number, string, RegExp][] = [
    [
      'counterexample without instance',
      make.argument(claims[0]!, { grounds: 'counterexample' }),
      400,
      'bad_request',
      /payload\.instance|instance/,
    ],
    ['contradiction without cites', make.argument(claims[0]!, { grounds: 'contradiction' }), 400, 'bad_request', /cites/],
    [
      'contradiction citing a claim not on the record',
      make.argument(claims[0]!, { grounds: 'contradiction', cites: [unknownRef] }),
      404,
      'not_found',
      /payload\.cites\[0\]/,
    ],
    [
      'second cite not on the record',
      make.argument(claims[0]!, { cites: [claims[1]!, unknownRef] }),
      404,
      'not_found',
      /payload\.cites\[1\]/,
    ],
    ['unknown claim', make.argument(unknownRef), 404, 'not_found', /payload\.claim/],
    ['confidence of 1', make.argument(claims[0]!, { confidence: 1 }), 400, 'bad_request', /payload\.confidence/],
    ['text too short', make.argument(claims[0]!, { text: 'too short' }), 400, 'bad_request', /payload\.text/],
    ['unknown stance', make.argument(claims[0]!, { stance: 'doubts' }), 400, 'bad_request', /payload\.stance/],
  ];
  const size = s.record.state.size;
  for (const [name, members, status, error, field] of cases) {
    const r = await send(s, bob, 'argument.file', members);
    t.equal(r.status, status, `${name}: ${r.text}`);
    t.equal(r.body.error, error, name);
    t.match(r.body.detail, field, name);
  }
  t.equal(s.record.state.size, size, 'nothing refused was written');
  t.equal((await s.get('/v1/log/sth')).body.treeSize, size);

  // With what was missing, the same grounds are taken.
  const withInstance = await send(
    s,
    bob,
    'argument.file',
    make.argument(claims[0]!, { grounds: 'counterexample', instance: { text: 'n = 3 gives 7, not 8' } }),
  );
  t.equal(withInstance.status, 201, withInstance.text);
  const citing = await send(s, bob, 'argument.file', make.argument(claims[0]!, { grounds: 'contradiction', cites: [claims[1]!] }));
  t.equal(citing.status, 201, citing.text);
  const read = await s.get(`/v2/arguments/${withInstance.body.id}`);
  t.same(read.body.instance, { text: 'n = 3 gives 7, not 8' });
  t.same((await s.get(`/v2/arguments/${citing.body.id}`)).body.cites, [claims[1]]);
});

t.test('checking an argument', async (t) => {
  const { s, alice, alice2, bob, carol, claims } = await world(t);
  const filed = await send(s, alice, 'argument.file', make.argument(claims[0]!, { stance: 'supports', grounds: 'unsupported-premise' }));
  t.equal(filed.status, 201, filed.text);
  const id = filed.body.id;
  const size = s.record.state.size;

  // Never by the argument's own operator, whichever of its agents signs.
  for (const a of [alice, alice2]) {
    const own = await send(s, a, 'argument.check', { argument: id, holds: true, note: note('own') });
    t.equal(own.status, 403, own.text);
    t.equal(own.body.error, 'forbidden');
    t.match(own.body.detail, /payload\.argument.*own operator/);
  }
  const unknown = await send(s, bob, 'argument.check', { argument: 'f'.repeat(64), holds: true, note: note('x') });
  t.equal(unknown.status, 404);
  t.match(unknown.body.detail, /payload\.argument/);
  const malformed = await send(s, bob, 'argument.check', { argument: 'F'.repeat(64), holds: true, note: note('x') });
  t.equal(malformed.status, 400);
  t.match(malformed.body.detail, /payload\.argument/);
  const shortNote = await send(s, bob, 'argument.check', { argument: id, holds: true, note: 'short' });
  t.equal(shortNote.status, 400);
  t.match(shortNote.body.detail, /payload\.note/);
  t.equal(s.record.state.size, size, 'nothing refused was written');

  const first = await send(s, bob, 'argument.check', { argument: id, holds: false, note: note('bob 1') });
  t.equal(first.status, 201, first.text);
  t.match(first.body, { argument: id, status: 'open', checks: 1 });
  // A later check by the same operator replaces its earlier one.
  const second = await send(s, bob, 'argument.check', { argument: id, holds: true, note: note('bob 2'), models: ['gpt-4o'] });
  t.equal(second.status, 201, second.text);
  t.match(second.body, { argument: id, status: 'open', checks: 1 });
  const third = await send(s, carol, 'argument.check', { argument: id, holds: true, note: note('carol') });
  t.match(third.body, { argument: id, status: 'open', checks: 2 });

  const read = (await s.get(`/v2/arguments/${id}`)).body;
  t.equal(read.status, 'open', 'unverified operators never settle an argument');
  t.equal(read.settledSeq, null);
  t.same(
    read.checks.map((c: any) => [c.agent, c.operatorId, c.tier, c.holds, c.note, c.models]),
    [
      ['bob', 'lab-b', 'unverified', true, note('bob 2'), ['gpt-4o']],
      ['carol', 'lab-c', 'unverified', true, note('carol'), []],
    ],
  );
  t.equal(read.checks[0].seq, second.body.seq);

  // A replaced check moves to where its latest one stands: the checks are shown oldest first.
  const fourth = await send(s, bob, 'argument.check', { argument: id, holds: false, note: note('bob 3') });
  t.match(fourth.body, { checks: 2 });
  const again = (await s.get(`/v2/arguments/${id}`)).body.checks;
  t.same(
    again.map((c: any) => [c.agent, c.holds, c.seq]),
    [
      ['carol', true, third.body.seq],
      ['bob', false, fourth.body.seq],
    ],
  );
});

t.test('answering an argument', async (t) => {
  const { s, alice, alice2, bob, carol, claims } = await world(t);
  const filed = await send(s, bob, 'argument.file', make.argument(claims[1]!));
  const id = filed.body.id;
  const text = 'The step is covered by the second lemma of the paper.';
  const size = s.record.state.size;
  for (const a of [bob, carol]) {
    const r = await send(s, a, 'argument.answer', { argument: id, text });
    t.equal(r.status, 403, `${a.handle}: ${r.text}`);
    t.equal(r.body.error, 'forbidden');
    t.match(r.body.detail, /payload\.argument.*lab-a/);
  }
  const unknown = await send(s, alice, 'argument.answer', { argument: 'e'.repeat(64), text });
  t.equal(unknown.status, 404);
  t.match(unknown.body.detail, /payload\.argument/);
  t.equal(s.record.state.size, size, 'nothing refused was written');

  // Any agent of the claim's operator answers, once.
  const answered = await send(s, alice2, 'argument.answer', { argument: id, text });
  t.equal(answered.status, 201, answered.text);
  t.equal(answered.body.argument, id);
  const twice = await send(s, alice, 'argument.answer', { argument: id, text: `${text} Again.` });
  t.equal(twice.status, 409);
  t.equal(twice.body.error, 'conflict');
  t.match(twice.body.detail, /payload\.argument: answered already/);
  t.same((await s.get(`/v2/arguments/${id}`)).body.answer, { agent: 'alice-two', text, seq: answered.body.seq });
});

t.test('reading the arguments on a claim', async (t) => {
  const { s, alice, bob, carol, claims } = await world(t);
  const a1 = await send(s, bob, 'argument.file', make.argument(claims[0]!, { models: ['claude-3-opus'] }));
  const a2 = await send(
    s,
    carol,
    'argument.file',
    make.argument(claims[0]!, { stance: 'qualifies', grounds: 'statistical-insufficiency' }),
  );
  const other = await send(s, carol, 'argument.file', make.argument(claims[1]!));
  await send(s, carol, 'argument.check', { argument: a1.body.id, holds: false, note: note('carol on a1') });
  await send(s, alice, 'argument.answer', { argument: a1.body.id, text: 'An answer of some twenty characters.' });
  const texts = [a1, a2].map((r) => r.body.id);

  const list = await s.get(`/v2/arguments?claim=${encodeURIComponent(claims[0]!)}`);
  t.equal(list.status, 200, list.text);
  t.equal(list.body.claim, claims[0]);
  t.same(
    list.body.arguments.map((a: any) => a.id),
    texts,
    'oldest first, only this claim',
  );
  const [first, second] = list.body.arguments;
  t.match(first, {
    claim: claims[0],
    agent: 'bob',
    operatorId: 'lab-b',
    stance: 'refutes',
    grounds: 'logical-gap',
    status: 'open',
    models: ['claude-3-opus'],
    seq: a1.body.seq,
  });
  t.match(first.text, /does not follow/);
  t.same(
    first.checks.map((c: any) => [c.agent, c.holds, c.note]),
    [['carol', false, note('carol on a1')]],
  );
  t.same(first.answer, { agent: 'alice', text: 'An answer of some twenty characters.', seq: first.answer.seq });
  t.match(second, { stance: 'qualifies', checks: [], answer: null, instance: null, cites: [] });
  t.same((await s.get(`/v2/arguments/${a1.body.id}`)).body, first, 'the single read is the same item');

  const onC2 = await s.get(`/v2/arguments?claim=${encodeURIComponent(claims[1]!)}`);
  t.same(
    onC2.body.arguments.map((a: any) => a.id),
    [other.body.id],
  );
});

t.test('argument reads refuse what is malformed, and 404 what is not there', async (t) => {
  const { s, claims } = await world(t);
  const cases: [string, number, RegExp][] = [
    ['/v2/arguments', 400, /claim: required/],
    ['/v2/arguments?claim=rec:abc%23C1', 400, /claim: expected a claim ref/],
    [`/v2/arguments?claim=${encodeURIComponent(claims[0]!)}&claim=${encodeURIComponent(claims[0]!)}`, 400, /claim: given more than once/],
    [`/v2/arguments?claim=${encodeURIComponent(claims[0]!)}&since=5`, 400, /since: unknown parameter \(takes claim, limit, cursor\)/],
    [`/v2/arguments?claim=${encodeURIComponent(claims[0]!)}&cursor=abc`, 400, /^cursor: not a cursor of this list/],
    [`/v2/arguments?claim=${encodeURIComponent(claims[0]!.replace(/#C1$/, '#C3'))}`, 404, /no claim/],
    [`/v2/arguments?claim=${encodeURIComponent(`ext:${'1'.repeat(16)}#C1`)}`, 404, /no claim/],
    ['/v2/arguments/' + 'a'.repeat(63), 400, /path: expected an argument id/],
    ['/v2/arguments/' + 'A'.repeat(64), 400, /path: expected an argument id/],
    ['/v2/arguments/' + 'a'.repeat(64), 404, /no argument/],
    ['/v2/arguments/' + 'a'.repeat(64) + '?x=1', 400, /x: unknown parameter/],
  ];
  for (const [path, status, detail] of cases) {
    const r = await s.get(path);
    t.equal(r.status, status, `${path}: ${r.text}`);
    t.match(r.body, { error: status === 400 ? 'bad_request' : 'not_found', detail }, path);
  }
});
