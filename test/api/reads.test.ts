// Reads of the record (docs/api.md#the-records-reads): the summary and its counts, the heartbeat (owed, queue,
// standing), holds and the governance summary, which serve what is true of the record.
import t from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, send, type TestAgent } from '../helpers/agents.js';
import { MemoryStore } from 'tlog-engine';

const DAY = 24 * 60 * 60 * 1000;

async function counts(s: TestService) {
  const r = await s.get('/v2/record');
  if (r.status !== 200) throw new Error(r.text);
  return r.body;
}

const commitOn = (s: TestService, a: TestAgent, target: string) => send(s, a, 'check.commit', make.commit(target));
const result = (s: TestService, a: TestAgent, commit: string, acc: number, crossCheck: unknown = null) =>
  send(s, a, 'check.result', { commit, outcome: 'confirmed', outputs: { acc }, crossCheck });

t.test('the record summary counts what has landed', async (t) => {
  const s = await startService(t);
  const constitution = await s.get('/v1/constitution');
  let summary = await counts(s);
  t.same(summary.constitution, { version: constitution.body.version, hash: constitution.body.hash }, 'the constitution in force');
  t.match(summary, {
    agents: 0,
    claims: 0,
    external: 0,
    checks: 0,
    receipts: 0,
    findings: 0,
    voidedOperators: 0,
    withheld: [],
    settings: {},
  });
  t.same(
    summary.verifiedByRecord,
    [{ operatorId: s.record.state.operator, round: 0, seq: 0 }],
    'the deployment operator, verified at genesis (entry 0)',
  );
  const expect = {
    agents: 0,
    operators: 1,
    papers: 0,
    claims: 0,
    external: 0,
    checks: 0,
    receipts: 0,
    reviews: 0,
    arguments: 0,
    challenges: 0,
    findings: 0,
  };
  const moved = async (what: string, change: Partial<typeof expect>) => {
    Object.assign(expect, Object.fromEntries(Object.entries(change).map(([k, v]) => [k, expect[k as keyof typeof expect] + v!])));
    summary = await counts(s);
    t.match(summary, expect, what);
  };

  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  await moved('three agents', { agents: 3, operators: 3 });
  const paper = await send(s, alice, 'paper', make.paper(2));
  const [c1] = paper.body.claims;
  await moved('a paper of two claims', { papers: 1, claims: 2 });
  const ext = await send(s, alice, 'claim.external', {
    source: 'doi:10.1234/abc.5',
    quote: 'Larger models are always better.',
    test: 'A smaller model that wins',
  });
  t.equal(ext.status, 201, ext.text);
  await moved('an external claim', { external: 1 });

  const b = await commitOn(s, bob, c1);
  await moved('a commitment is a check, not yet a receipt', { checks: 1 });
  t.equal((await result(s, bob, b.body.id, 0.9)).status, 201);
  await moved('its result', { receipts: 1 });
  const c = await commitOn(s, carol, c1);
  t.equal(c.body.crossCheck?.receipt, b.body.id, "carol is drawn bob's receipt to cross-check");
  const mismatch = await result(s, carol, c.body.id, 0.9, { receipt: b.body.id, outputs: { acc: 0.5 } });
  t.equal(mismatch.status, 201, mismatch.text);
  t.equal(mismatch.body.finding, 1);
  await moved('a cross-check that disagrees opens a finding', { checks: 1, receipts: 1, findings: 1 });
  await send(s, carol, 'review', { claim: c1, forecast: 0.4, rationale: 'The effect size looks too large for the sample.' });
  await send(s, bob, 'argument.file', make.argument(c1));
  await send(s, bob, 'challenge.propose', { claim: c1, brief: 'Re-run the main table with a fresh seed, please.' });
  await moved('a review, an argument, a challenge', { reviews: 1, arguments: 1, challenges: 1 });

  // What is refused moves nothing.
  await send(s, alice, 'check.commit', make.commit(c1));
  await send(s, bob, 'paper', { title: 'x' });
  await moved('refusals', {});
});

t.test('the heartbeat', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const [c1, c2] = (await send(s, alice, 'paper', make.paper(2))).body.claims;
  const beat = async (handle: string) => {
    const r = await s.get(`/v2/heartbeat?agent=${handle}`);
    t.equal(r.status, 200, r.text);
    return r.body;
  };

  let hb = await beat('bob');
  t.match(hb, {
    agent: 'bob',
    operatorId: 'lab-b',
    tier: 'unverified',
    retired: false,
    owed: [],
    standing: { tier: 'unverified', commitments: 0, results: 0, lapsed: 0, shutOuts: [] },
  });
  t.same(hb.doorbell, { kind: null, status: 'unset', cadence: null });
  t.notOk('url' in hb.doorbell);

  // A sealed commitment is owed, with its deadline, until its result lands.
  const commit = await commitOn(s, bob, c1);
  hb = await beat('bob');
  t.same(hb.owed, [{ commit: commit.body.id, target: c1, stage: 'sealed', deadline: commit.body.deadline }]);
  t.equal(Date.parse(commit.body.deadline) - Date.parse((await s.get(`/v2/receipts/${commit.body.id}`)).body.ts), 7 * DAY);
  await result(s, bob, commit.body.id, 0.9);
  hb = await beat('bob');
  t.same(hb.owed, []);
  t.match(hb.standing, { commitments: 1, results: 1, lapsed: 0 });

  // One left without a result lapses after 7 days: no longer owed, marked in the standing.
  const late = await commitOn(s, carol, c2);
  t.equal((await beat('carol')).owed.length, 1);
  s.advance(7 * DAY - 60_000);
  await s.tick();
  t.equal((await beat('carol')).owed.length, 1, 'a minute before the deadline: still owed');
  s.advance(2 * 60_000);
  await s.tick();
  hb = await beat('carol');
  t.same(hb.owed, []);
  t.match(hb.standing, { commitments: 1, results: 0, lapsed: 1 });
  t.equal((await s.get(`/v2/receipts/${late.body.id}`)).body.stage, 'lapsed');

  // The queue: open arguments of other operators that it has not checked; challenges on
  // claims of other operators.
  const arg = await send(s, bob, 'argument.file', make.argument(c1));
  const ch = await send(s, bob, 'challenge.propose', { claim: c2, brief: 'Re-run the main table with a fresh seed, please.' });
  const queued = async (handle: string) => (await beat(handle)).queue;
  t.same((await queued('alice')).arguments, [{ id: arg.body.id, claim: c1, stance: 'refutes', grounds: 'logical-gap' }]);
  t.same(
    (await queued('carol')).arguments.map((a: any) => a.id),
    [arg.body.id],
  );
  t.same((await queued('bob')).arguments, [], 'not its own');
  await send(s, carol, 'argument.check', { argument: arg.body.id, holds: false, note: 'The gap is covered in the appendix.' });
  t.same((await queued('carol')).arguments, [], 'not once checked');
  t.same((await queued('carol')).challenges, [{ id: ch.body.id, claim: c2, wants: 'receipt' }]);
  t.same((await queued('alice')).challenges, [], 'not on its own claims');
  t.same((await queued('alice')).fields, ['ml']);
});

t.test('holds and governance serve what is true', async (t) => {
  const s = await startService(t);
  const holds = await s.get('/v2/holds');
  t.equal(holds.status, 200);
  t.same(holds.body.holds, []);
  t.type(holds.body.note, 'string');
  t.equal((await s.get('/v2/holds?limit=200')).status, 200);
  const gov = await s.get('/v2/governance');
  t.equal(gov.status, 200);
  t.match(gov.body, { version: 'governance/0.1', electorate: 1, proposals: [] });
  t.same(gov.body.constitution, (await counts(s)).constitution);
  t.equal(gov.body.electorate, s.record.state.verified.size, 'the verified operators');
});

t.test('reads refuse unknown and malformed parameters', async (t) => {
  const s = await startService(t);
  await register(s, 'alice');
  const cases: [string, number, RegExp][] = [
    ['/v2/record?x=1', 400, /x: unknown parameter \(takes none\)/],
    ['/v2/heartbeat', 400, /agent: required/],
    ['/v2/heartbeat?agent=a', 400, /agent: expected a handle/],
    ['/v2/heartbeat?agent=alice&agent=alice', 400, /agent: given more than once/],
    ['/v2/heartbeat?agent=alice&since=1', 400, /since: unknown parameter/],
    ['/v2/heartbeat?agent=nobody', 404, /no agent nobody/],
    ['/v2/holds?limit=0', 400, /limit: expected an integer from 1 to 200/],
    ['/v2/holds?limit=201', 400, /limit/],
    ['/v2/holds?page=2', 400, /page: unknown parameter/],
    ['/v2/governance?x=1', 400, /x: unknown parameter/],
    ['/v2/receipts/' + 'a'.repeat(64) + '?x=1', 400, /x: unknown parameter/],
    ['/v2/receipts/' + 'a'.repeat(64), 404, /no receipt/],
    ['/v2/papers/rec:0123456789abcdef?x=1', 400, /x: unknown parameter/],
  ];
  for (const [path, status, detail] of cases) {
    t.match(await s.get(path), { status, body: { error: status === 400 ? 'bad_request' : 'not_found', detail } }, path);
  }
  t.equal((await s.get('/v2/heartbeat?agent=alice')).status, 200);
});

t.test('a read naming an entry the log has not written yet waits for it', async (t) => {
  // The record applies a write as it queues it; the log writes it a moment later. Slow the
  // store's commits down so that reads land in between.
  const store = new MemoryStore();
  let delay = 0;
  const commit = store.commit.bind(store);
  store.commit = async (batch) => {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return commit(batch);
  };
  const s = await startService(t, { store });
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const [c1] = (await send(s, alice, 'paper', make.paper(1))).body.claims;
  const filed = await send(s, bob, 'argument.file', make.argument(c1));
  delay = 200;
  const brief = 'Re-run the main table with a fresh seed, please.';
  const writes = Promise.all([
    send(s, alice, 'argument.check', { argument: filed.body.id, holds: false, note: 'The gap is covered in the appendix.' }),
    send(s, alice, 'argument.answer', { argument: filed.body.id, text: 'See the appendix, section two.' }),
    send(s, bob, 'challenge.propose', { claim: c1, brief }),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.ok(s.record.state.size > (await s.get('/v1/log/sth')).body.treeSize, 'the state is ahead of the log');
  const [list, one, challenges] = await Promise.all([
    s.get(`/v2/arguments?claim=${encodeURIComponent(c1)}`),
    s.get(`/v2/arguments/${filed.body.id}`),
    s.get('/v2/challenges'),
  ]);
  t.equal(list.status, 200, list.text);
  t.equal(one.status, 200, one.text);
  t.equal(challenges.status, 200, challenges.text);
  t.match(one.body, {
    checks: [{ agent: 'alice', note: 'The gap is covered in the appendix.' }],
    answer: { text: 'See the appendix, section two.' },
  });
  t.match(challenges.body.challenges, [{ claim: c1, brief }]);
  const replies = await writes;
  t.same(
    replies.map((r) => r.status),
    [201, 201, 201],
  );
});
