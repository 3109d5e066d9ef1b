// The numbers over HTTP (docs/api.md#the-records-reads; docs/credence.md,
// docs/credence.md#operators-verified-by-the-record,
// docs/credence.md#tiers-quotas-and-rate-limits): /v2/credence with its ETag, /v2/frontier,
// challenges ranked by value of checking, standing in the heartbeat, the record summary's
// verifiedByRecord, and the same numbers after a restart. Real service, real keys.
import t from 'tap';
import { startService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';
import { refused } from '../helpers/refused.js';

const scoreOf = (body: any, ref: string) => body.claims.find((c: any) => c.ref === ref);

t.test('credence, frontier, challenges, heartbeat and summary as writes land, and after a restart', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const paper = await send(s, alice, 'paper', make.paper(2));
  const [c1, c2] = paper.body.claims as [string, string];

  // A new operator's claims at 0.8: prior 0.685 (docs/credence.md, the worked example).
  let r = await s.get('/v2/credence');
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /application\/json/);
  t.equal(r.body.version, 'credence/0.3');
  t.same(
    r.body.claims.map((c: any) => c.ref),
    [c1, c2],
    'every claim, in log order',
  );
  t.same(scoreOf(r.body, c1), {
    ref: c1,
    paper: paper.body.id,
    external: false,
    kind: 'empirical',
    prior: 0.685,
    calibration: 0.5,
    credence: 0.685,
    credenceVerified: 0.685,
    cap: null,
    status: 'unchecked',
    resolved: null,
    use: 0,
    dispute: 0,
    reproduced: false,
    families: [],
    arguments: {
      refutes: { open: 0, upheld: 0, dismissed: 0 },
      qualifies: { open: 0, upheld: 0, dismissed: 0 },
      supports: { open: 0, upheld: 0, dismissed: 0 },
    },
    foundations: [],
    // With one confirming verified replication: logit(0.685) + ln 4 -> 0.8969.
    lift: [{ ref: c1, from: 0.685, to: 0.8969, gain: 0.2119 }],
  });
  const etag = r.headers.get('etag')!;
  t.match(etag, /^"credence-\d+"$/, 'an ETag naming the tree size');
  const again = await fetch(`${s.url}/v2/credence`, { headers: { 'if-none-match': etag } });
  t.equal(again.status, 304, 'unchanged: 304');
  t.equal(await again.text(), '', 'with no body');

  // The deployment's operator (verified) confirms c1: 0.8969, supported.
  const houseReceipt = await replicate(t, s, house, c1, 'confirmed');
  r = await s.get('/v2/credence');
  t.not(r.headers.get('etag'), etag, 'a new tree size, a new ETag');
  t.match(scoreOf(r.body, c1), { credence: 0.8969, credenceVerified: 0.8969, status: 'supported' });
  t.equal((await fetch(`${s.url}/v2/credence`, { headers: { 'if-none-match': etag } })).status, 200, 'a stale ETag gets the body');
  // bob (unverified) fails it, and his cross-check of house's receipt disagrees: a finding,
  // but not a verified operator's, so house's receipt still counts. -(1/4) ln 6 -> 0.8475.
  await replicate(t, s, bob, c1, 'failed', true);
  r = await s.get('/v2/credence');
  t.match(scoreOf(r.body, c1), { credence: 0.8475, credenceVerified: 0.8969, dispute: 0, status: 'supported' });
  t.equal((await s.get('/v2/record')).body.findings, 1);
  // carol reviews at 0.3: -(1/16) ln 4 -> 0.8360.
  t.equal(
    (await send(s, carol, 'review', { claim: c1, forecast: 0.3, rationale: 'The effect looks too large for the sample size used.' }))
      .status,
    201,
  );
  t.match(scoreOf((await s.get('/v2/credence')).body, c1), { credence: 0.836 });

  // The frontier: value of checking per minute. c1: 0.5 * 0.836 * 0.164 = 0.06856 over its
  // latest bundle's 30 minutes = 0.002285; c2: 0.5 * 0.685 * 0.315 = 0.1079 over 60 = 0.001798.
  const arg = await send(s, carol, 'argument.file', make.argument(c2));
  t.equal(arg.status, 201, arg.text);
  let f = await s.get('/v2/frontier');
  t.equal(f.status, 200);
  t.same(
    f.body.claims.map((c: any) => c.ref),
    [c1, c2],
    'c1 first: cheaper to check',
  );
  t.match(f.body.claims[0], { ref: c1, credence: 0.836, status: 'supported', runtimeMinutes: 30, perMinute: 0.002285 });
  t.match(f.body.claims[1], { ref: c2, value: 0.1079, runtimeMinutes: 60, perMinute: 0.001798 });
  t.same(
    f.body.receipts.map((x: any) => x.id),
    [houseReceipt],
    "house's receipt: only an unverified operator disagreed with it",
  );
  t.same(
    f.body.arguments.map((x: any) => x.id),
    [arg.body.id],
    'the open argument awaits checks',
  );
  t.same(f.body.disputes, [], 'no verified disagreement');
  t.same(f.body.conceptual, []);
  f = await s.get('/v2/frontier?limit=1');
  t.equal(f.body.claims.length, 1, 'limit: items per queue');
  await refused(t, s, 'limit 0', s.get('/v2/frontier?limit=0'), 400, /^limit: expected an integer from 1 to 50/);
  await refused(t, s, 'limit 51', s.get('/v2/frontier?limit=51'), 400, /^limit: /);
  await refused(t, s, 'unknown parameter', s.get('/v2/frontier?sort=new'), 400, /^sort: unknown parameter/);
  await refused(t, s, 'credence takes no parameter', s.get('/v2/credence?paper=x'), 400, /^paper: unknown parameter/);

  // Challenges ranked by value of checking: c2's (0.1079) before c1's (0.0686), though later.
  const brief = 'Re-run the main table with a fresh seed and report the spread.';
  const ch1 = await send(s, bob, 'challenge.propose', { claim: c1, brief });
  const ch2 = await send(s, carol, 'challenge.propose', { claim: c2, brief });
  t.equal(ch2.status, 201, ch2.text);
  const list = await s.get('/v2/challenges');
  t.same(
    list.body.challenges.map((c: any) => c.id),
    [ch2.body.id, ch1.body.id],
    'ranked by value of checking',
  );
  t.match(list.body.challenges[1].numbers, { credence: 0.836, status: 'supported', value: 0.0686 }, "each shows its claim's numbers");

  // The heartbeat: tier and calibration; claims worth checking, not its own operator's.
  const hb = await s.get('/v2/heartbeat?agent=bob');
  t.match(hb.body.standing, { tier: 'unverified', calibration: { rho: 0.5, resolved: 0 }, verifiedByRecord: null });
  t.same(
    hb.body.queue.claims.map((c: any) => c.ref),
    [c1, c2],
  );
  t.same((await s.get('/v2/heartbeat?agent=alice')).body.queue.claims, [], "alice's own claims are not hers to check");
  t.match((await s.get('/v2/heartbeat?agent=house')).body.standing, { tier: 'verified', verifiedByRecord: { round: 0, seq: 0 } });
  t.same((await s.get('/v2/record')).body.verifiedByRecord, [{ operatorId: s.record.state.operator, round: 0, seq: 0 }]);

  // A restart replays the log: the same numbers, byte for byte, under the same ETag.
  const before = await s.get('/v2/credence');
  const frontierBefore = (await s.get('/v2/frontier')).text;
  await s.stop();
  const s2 = await startService(t, { dataDir: s.dataDir });
  const after = await s2.get('/v2/credence');
  t.equal(after.text, before.text, 'the same credence body');
  t.equal(after.headers.get('etag'), before.headers.get('etag'), 'the same ETag');
  t.equal((await s2.get('/v2/frontier')).text, frontierBefore, 'the same frontier');
});
