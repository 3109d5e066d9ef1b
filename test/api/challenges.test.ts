// Challenges over HTTP (docs/api.md#the-records-reads, docs/record.md, docs/api.md#writes;
// docs/record.md#identifiers, docs/credence.md#tiers-quotas-and-rate-limits; the payloads are this
// project's, docs/protocol.md): propose within the daily quota of the tier, withdraw, completion by
// a receipt or (conceptual claims) an argument, and the reads.
import t from 'tap';
import { sha256Hex, sortedJson } from '../helpers/by-hand.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, pairingCode, payloadOf, register, send, type TestAgent } from '../helpers/agents.js';
import { signPayload } from '../../lib/protocol/ed25519.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const brief = (n: number | string) => `Re-run the main table with a fresh seed, please; brief ${n}.`;
const propose = (s: TestService, a: TestAgent, claim: string, n: number | string = Math.random()) =>
  send(s, a, 'challenge.propose', { claim, brief: brief(n) });
const withdraw = (s: TestService, a: TestAgent, challenge: string) =>
  send(s, a, 'challenge.withdraw', { challenge, reason: 'No longer needed here.' });

async function world(t: Parameters<typeof startService>[0]) {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const bob2 = await register(s, 'bob-two', { operatorId: 'lab-b', sponsor: bob });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const p = await send(
    s,
    alice,
    'paper',
    make.paper(1, {
      claims: [
        { text: 'An empirical claim that holds', confidence: 0.7, test: 'A run that gives less' },
        { text: 'A conceptual claim that holds', confidence: 0.6, test: 'An argument against it', kind: 'conceptual' },
      ],
    }),
  );
  if (p.status !== 201) throw new Error(p.text);
  const [empirical, conceptual] = p.body.claims as string[];
  return { s, alice, bob, bob2, carol, empirical: empirical!, conceptual: conceptual! };
}

t.test('proposing a challenge', async (t) => {
  const { s, bob, carol, empirical, conceptual } = await world(t);
  const payload = payloadOf(s, bob, 'challenge.propose', { claim: empirical, brief: brief(1) });
  const envelope = { payload, signature: signPayload(bob.privateKey, payload) };
  const r = await s.post('/v2/challenges', envelope);
  t.equal(r.status, 201, r.text);
  // The same envelope again: its signed bytes (whose hash the id begins) are on the log; 409, before any quota is counted.
  t.match(await s.post('/v2/challenges', envelope), {
    status: 409,
    body: {
      error: 'conflict',
      detail: new RegExp(
        `^payload: these signed bytes \\(SHA-256 ${r.body.id.slice(3)}[0-9a-f]{48}\\) are on the log already at entry ${r.body.seq};`,
      ),
    },
  });
  t.equal(r.body.id, `ch:${sha256Hex(sortedJson(payload)).slice(0, 16)}`, 'first 16 hex of SHA-256 of the whole payload');
  t.equal(r.body.page, `/v2/challenges/${r.body.id}`);
  const read = await s.get(r.body.page);
  t.equal(read.status, 200, read.text);
  t.match(read.body, {
    id: r.body.id,
    claim: empirical,
    brief: brief(1),
    proposer: 'lab-b',
    agent: 'bob',
    wants: 'receipt',
    status: 'open',
    seq: r.body.seq,
    closedSeq: null,
    completedBy: null,
    receiptsSince: [],
  });
  t.same((await s.get(`/v2/challenges/${r.body.id.slice(3)}`)).body, read.body, 'the bare id reads the same');
  const c = await propose(s, carol, conceptual);
  t.equal((await s.get(c.body.page)).body.wants, 'argument', 'a conceptual claim wants an argument');

  const size = s.record.state.size;
  const unknown = await propose(s, carol, `rec:${'0'.repeat(16)}#C1`);
  t.match(unknown, { status: 404, body: { error: 'not_found', detail: /payload\.claim/ } });
  const short = await send(s, carol, 'challenge.propose', { claim: empirical, brief: 'too short' });
  t.match(short, { status: 400, body: { error: 'bad_request', detail: /payload\.brief/ } });
  t.equal(s.record.state.size, size, 'nothing refused was written');
});

t.test('the daily quota of an unverified operator', async (t) => {
  const { s, bob, bob2, carol, empirical } = await world(t);
  t.equal((await propose(s, bob, empirical)).status, 201);
  s.advance(HOUR);
  const size = s.record.state.size;
  // The quota is the operator's: a second agent of lab-b shares it.
  for (const a of [bob, bob2]) {
    const r = await propose(s, a, empirical);
    t.equal(r.status, 429, r.text);
    t.equal(r.body.error, 'rate_limited');
    t.match(r.body.detail, /operator lab-b \(tier unverified\) has proposed 1 in the last 24 hours/);
    const retry = Number(r.headers.get('retry-after'));
    t.ok(retry > 23 * 3600 - 10 && retry <= 23 * 3600, `Retry-After ${retry}: until the first leaves the window`);
  }
  t.equal(s.record.state.size, size, 'nothing refused was written');
  t.equal((await propose(s, carol, empirical)).status, 201, 'other operators have their own quota');

  const first = await propose(s, bob, empirical);
  const retry = Number(first.headers.get('retry-after'));
  s.advance(retry * 1000 - 2000);
  const early = await propose(s, bob, empirical);
  t.equal(early.status, 429, 'two seconds early');
  t.ok(Number(early.headers.get('retry-after')) <= 2);
  s.advance(2000);
  t.equal((await propose(s, bob, empirical)).status, 201, 'once the first has left the window');
  t.equal((await propose(s, bob2, empirical)).status, 429, 'and that one fills it again');
  s.advance(DAY);
  t.equal((await propose(s, bob2, empirical)).status, 201, 'a day later');
});

t.test('an account operator proposes 5 a day, a verified one 20', async (t) => {
  const { s, empirical } = await world(t);
  const paired = await register(s, 'paula', { pairing: await pairingCode(s, 'op_paula') });
  t.equal(paired.operatorId, 'op_paula');
  const own = await register(s, 'ottilie', { pairing: await pairingCode(s, s.record.state.operator) });
  for (const [a, quota, tier] of [
    [paired, 5, 'account'],
    [own, 20, 'verified'],
  ] as const) {
    for (let i = 0; i < quota; i++) {
      const r = await propose(s, a, empirical);
      if (r.status !== 201) t.fail(`${a.handle} proposal ${i + 1}: ${r.text}`);
    }
    const over = await propose(s, a, empirical);
    t.equal(over.status, 429, `${a.handle}: proposal ${quota + 1}`);
    t.match(over.body.detail, new RegExp(`\\(tier ${tier}\\) has proposed ${quota} in the last 24 hours`));
  }
});

t.test('withdrawing a challenge', async (t) => {
  const { s, bob, bob2, carol, empirical } = await world(t);
  const { body } = await propose(s, bob, empirical);
  const id: string = body.id;
  const size = s.record.state.size;
  const other = await withdraw(s, carol, id);
  t.match(other, { status: 403, body: { error: 'forbidden', detail: /payload\.challenge: proposed by operator lab-b/ } });
  const unknown = await withdraw(s, bob, 'ch:' + '0'.repeat(16));
  t.match(unknown, { status: 404, body: { error: 'not_found', detail: /payload\.challenge/ } });
  const bare = await withdraw(s, bob, '0'.repeat(16));
  t.equal(bare.status, 404, 'the bare form of an unknown id too');
  const malformed = await withdraw(s, bob, 'ch:XYZ');
  t.match(malformed, { status: 400, body: { error: 'bad_request', detail: /payload\.challenge/ } });
  t.equal(s.record.state.size, size, 'nothing refused was written');

  // Any agent of the proposer's operator withdraws it, with or without the ch: prefix.
  const done = await withdraw(s, bob2, id.slice(3));
  t.ok(done.status === 200 || done.status === 201, done.text);
  t.equal(done.status, 200, 'docs/api.md#writes: POST /v2/challenges/withdraw answers 200 withdrawn');
  t.match(done.body, { id, status: 'withdrawn' });
  const twice = await withdraw(s, bob, id);
  t.match(twice, { status: 409, body: { error: 'conflict', detail: /payload\.challenge: withdrawn already/ } });
  const read = (await s.get(`/v2/challenges/${id}`)).body;
  t.match(read, { status: 'withdrawn', closedSeq: done.body.seq, reason: 'No longer needed here.', completedBy: null });
  const logged = (await s.get(`/v1/log/entries?from=${done.body.seq}&limit=1`)).body.entries[0];
  t.match(logged, { type: 'challenge.withdraw', payload: { payload: { challenge: id.slice(3), reason: 'No longer needed here.' } } });
});

t.test('a receipt completes a challenge on an empirical claim; an argument one on a conceptual claim', async (t) => {
  const { s, bob, carol, empirical, conceptual } = await world(t);
  const wantsReceipt = (await propose(s, carol, empirical)).body.id;
  const withdrawn = (await propose(s, bob, empirical)).body.id;
  await withdraw(s, bob, withdrawn);
  s.advance(DAY);
  const wantsArgument = (await propose(s, bob, conceptual)).body.id;

  // A commitment is not yet a receipt; an argument does not complete a receipt-wanting challenge.
  const commit = await send(s, bob, 'check.commit', make.commit(empirical));
  t.equal(commit.status, 201, commit.text);
  const arg = await send(s, bob, 'argument.file', make.argument(empirical));
  t.same(arg.body.challengesCompleted, []);
  let read = (await s.get(`/v2/challenges/${wantsReceipt}`)).body;
  t.match(read, { status: 'open', completedBy: null });
  t.match(read.receiptsSince, [{ id: commit.body.id, kind: 'replication', stage: 'sealed', outcome: null, operatorId: 'lab-b' }]);

  // The result completes it, whichever way it goes; the withdrawn one stays withdrawn.
  const result = await send(s, bob, 'check.result', { commit: commit.body.id, outcome: 'failed', outputs: { acc: 0.4 }, crossCheck: null });
  t.equal(result.status, 201, result.text);
  t.same(result.body.challengesCompleted, [wantsReceipt]);
  read = (await s.get(`/v2/challenges/${wantsReceipt}`)).body;
  t.match(read, { status: 'completed', closedSeq: result.body.seq, completedBy: { type: 'receipt', id: commit.body.id } });
  t.match(read.receiptsSince, [{ id: commit.body.id, stage: 'resulted', outcome: 'failed' }]);
  t.equal((await s.get(`/v2/challenges/${withdrawn}`)).body.status, 'withdrawn');
  t.equal((await s.get(`/v2/challenges/${wantsArgument}`)).body.status, 'open', 'a receipt elsewhere does not complete it');
  t.match(await withdraw(s, carol, wantsReceipt), { status: 409, body: { detail: /completed already/ } });

  const argued = await send(s, carol, 'argument.file', make.argument(conceptual));
  t.equal(argued.status, 201, argued.text);
  t.same(argued.body.challengesCompleted, [wantsArgument]);
  t.match((await s.get(`/v2/challenges/${wantsArgument}`)).body, {
    status: 'completed',
    closedSeq: argued.body.seq,
    completedBy: { type: 'argument', id: argued.body.id },
  });
});

t.test('a claim amended to conceptual after a challenge: an argument completes it', async (t) => {
  const { s, alice, bob, carol, empirical } = await world(t);
  const ch = (await propose(s, carol, empirical)).body.id;
  t.equal((await s.get(`/v2/challenges/${ch}`)).body.wants, 'receipt');
  // A challenge is not evidence: the author may still amend the claim's kind.
  const amended = await send(s, alice, 'claim.amend', { claim: empirical, kind: 'conceptual' });
  t.equal(amended.status, 201, amended.text);
  t.equal((await s.get(`/v2/challenges/${ch}`)).body.wants, 'argument', 'it now wants what can check the claim');
  t.equal((await send(s, bob, 'check.commit', make.commit(empirical))).status, 400, 'no receipt can come');
  const argued = await send(s, bob, 'argument.file', make.argument(empirical));
  t.same(argued.body.challengesCompleted, [ch]);
  t.match((await s.get(`/v2/challenges/${ch}`)).body, { status: 'completed', completedBy: { type: 'argument', id: argued.body.id } });
});

t.test('listing challenges', async (t) => {
  const { s, alice, bob, carol, empirical } = await world(t);
  const a = (await propose(s, alice, empirical)).body.id;
  const b = (await propose(s, bob, empirical)).body.id;
  const c = (await propose(s, carol, empirical)).body.id;
  await withdraw(s, bob, b);
  const ids = async (q: string) => {
    const r = await s.get(`/v2/challenges${q}`);
    t.equal(r.status, 200, `${q}: ${r.text}`);
    return r.body.challenges.map((x: any) => x.id);
  };
  t.same(await ids(''), [a, c], 'open ones, oldest first');
  t.same(await ids('?all=1'), [a, b, c], 'all=1 includes the withdrawn');
  t.same(await ids('?all=1&limit=2'), [a, b]);
  t.same(await ids('?limit=1'), [a]);
  t.same(await ids('?limit=200'), [a, c]);
  const list = (await s.get('/v2/challenges?all=1')).body.challenges;
  t.match(list[1], { id: b, status: 'withdrawn', brief: /Re-run the main table/ });

  const bad: [string, RegExp][] = [
    ['?limit=0', /limit: expected an integer from 1 to 200/],
    ['?limit=201', /limit: expected an integer from 1 to 200/],
    ['?limit=01', /limit/],
    ['?limit=ten', /limit/],
    ['?all=2', /all: expected the string 1/],
    ['?all=true', /all/],
    ['?all=1&all=1', /all/],
    ['?status=open', /status: unknown parameter/],
    ['/ch:0123', /path: expected a challenge id/],
    ['/CH:0123456789abcdef', /path: expected a challenge id/],
    ['/ch:0123456789abcdef?x=1', /x: unknown parameter/],
  ];
  for (const [q, detail] of bad) t.match(await s.get(`/v2/challenges${q}`), { status: 400, body: { error: 'bad_request', detail } }, q);
  for (const id of ['ch:0123456789abcdef', '0123456789abcdef']) {
    t.match(
      await s.get(`/v2/challenges/${id}`),
      { status: 404, body: { error: 'not_found', detail: /no challenge ch:0123456789abcdef/ } },
      id,
    );
  }
});

t.test('racing proposals of one unverified operator: exactly one is taken', async (t) => {
  const { s, bob, empirical } = await world(t);
  const size = s.record.state.size;
  const replies = await Promise.all([1, 2, 3].map((n) => propose(s, bob, empirical, `race ${n}`)));
  t.same(replies.map((r) => r.status).sort(), [201, 429, 429]);
  t.equal(s.record.state.size, size + 1, 'one entry written');
  t.equal((await s.get('/v2/challenges')).body.challenges.length, 1);
});
