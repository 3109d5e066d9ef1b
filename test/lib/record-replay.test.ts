// Replay from zero (issue 3, "The state machine"): a real service through a mixed workload, then
// a new service on the same data directory rebuilds the very same state from the log, and so
// does replayStore into a fresh state, every time. Writes carry on after a restart, and
// uniqueness holds across it and under racing writes.
import t from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { make, pairingCode, payloadOf, register, send, type TestAgent } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { generateKeyPair, signPayload } from '../../lib/protocol/ed25519.js';
import { applyEntry, emptyState, replayStore, stateDigest, stateJson } from '../../lib/record/fold/index.js';
import { noteApplied, readIndexOf, type ReadIndex } from '../../lib/record/views/index.js';

/** The readers' index as JSON, its Maps as lists of pairs in their order, its columns of rows as lists. */
const indexJson = (ix: ReadIndex): string =>
  JSON.stringify(ix, (_, v) => (v instanceof Map ? [...v] : ArrayBuffer.isView(v) ? [...(v as Int32Array)] : v));

const DAY = 24 * 60 * 60 * 1000;

async function ok(what: string, p: Promise<{ status: number; text: string; body: any }>, status = 201): Promise<any> {
  const r = await p;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body;
}

/** Every kind of write and service event, with time moving on. Returns what later steps need. */
async function workload(s: TestService, advance: (ms: number) => void) {
  const alice = await register(s, 'alice', { operatorId: 'lab-a', models: ['claude-3-opus'] });
  const alice2 = await register(s, 'alice-two', { operatorId: 'lab-a', sponsor: alice });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { pairing: await pairingCode(s, 'op_carol'), models: ['gpt-4o'] });
  const dave = await register(s, 'dave');
  const checkKey = generateKeyPair();
  await ok('delegate', send(s, bob, 'key.delegate', { key: checkKey.publicKey, scope: 'reports', label: 'runner' }));
  bob.checkKey = checkKey;
  await ok('doorbell', send(s, carol, 'doorbell.set', { kind: 'webhook', cadence: 'daily', url: 'https://carol.example/bell' }), 200);

  const p1 = await ok('paper', send(s, alice, 'paper', make.paper(2, { models: ['claude-3-opus'] })));
  const [c1, c2] = p1.claims as [string, string];
  const ext = await ok(
    'external',
    send(s, dave, 'claim.external', {
      source: 'preprint:2401.01234',
      quote: 'Sparse models generalise as well as dense ones.',
      test: 'A dense model that generalises better',
      kind: 'conceptual',
    }),
  );
  await ok(
    'external again',
    send(s, bob, 'claim.external', {
      source: 'preprint:2401.01234',
      quote: 'Sparse models generalise as well as dense ones.',
      test: 'Another test of it entirely',
    }),
    200,
  );
  const parents = [
    { id: p1.id, rel: 'extends', basis: 'reviewed', claims: ['C1'], note: 'We rely on the scaling result of C1 as stated.' },
    { id: ext.id, rel: 'background' },
    { id: 'doi:10.1000/xyz123', rel: 'refutes' },
  ];
  const p2 = await ok('paper with parents', send(s, alice2, 'paper', make.paper(1, { builds_on: parents })));
  await ok('amend', send(s, alice, 'claim.amend', { claim: c2, test: 'A run at twice the scale that gives less' }));

  // Receipts: a result, a cross-check that disagrees (a finding), one by a check key, one lapsing.
  const b1 = await ok('commit', send(s, bob, 'check.commit', make.commit(c1), { checkKey: true }));
  await ok(
    'result',
    send(s, bob, 'check.result', { commit: b1.id, outcome: 'confirmed', outputs: { acc: 0.91 }, crossCheck: null }, { checkKey: true }),
  );
  const k1 = await ok('commit', send(s, carol, 'check.commit', make.commit(c1, { models: ['gpt-4o'] })));
  const k1r = await ok(
    'result',
    send(s, carol, 'check.result', {
      commit: k1.id,
      outcome: 'failed',
      outputs: { acc: 0.5 },
      crossCheck: { receipt: b1.id, outputs: { acc: 0.6 } },
    }),
  );
  if (k1r.finding !== 1) throw new Error('expected a finding');
  const lapsing = await ok('commit', send(s, dave, 'check.commit', make.commit(p2.claims[0], { kind: 'rerun' })));
  await ok(
    'review',
    send(s, bob, 'review', { claim: c2, forecast: 0.3, rationale: 'The sample is small for an effect this size.' }, { checkKey: true }),
  );
  await ok(
    'review',
    send(s, carol, 'review', { claim: c1, forecast: 0.8, rationale: 'Consistent with three earlier studies.', models: ['gpt-4o'] }),
  );

  // Arguments, checks, answers; challenges, a withdrawal, a completion.
  const a1 = await ok(
    'argument',
    send(s, bob, 'argument.file', make.argument(c1, { grounds: 'counterexample', instance: { text: 'n = 3' } })),
  );
  await ok(
    'argument',
    send(s, carol, 'argument.file', make.argument(ext.ref, { stance: 'supports', grounds: 'unsupported-premise', cites: [c1] })),
  );
  await ok('check', send(s, carol, 'argument.check', { argument: a1.id, holds: false, note: 'The instance is outside the claim.' }));
  await ok(
    'check',
    send(s, dave, 'argument.check', { argument: a1.id, holds: true, note: 'The instance is inside the claim.', models: ['llama-3'] }),
  );
  await ok('check', send(s, carol, 'argument.check', { argument: a1.id, holds: true, note: 'On reflection the instance holds.' }));
  await ok('answer', send(s, alice2, 'argument.answer', { argument: a1.id, text: 'The instance breaks an assumption.' }));
  const ch1 = await ok('challenge', send(s, dave, 'challenge.propose', { claim: c2, brief: 'Re-run the second claim with a fresh seed.' }));
  await ok('challenge', send(s, carol, 'challenge.propose', { claim: c1, brief: 'Replicate the first claim on new data.' }));
  await ok('challenge', send(s, bob, 'challenge.propose', { claim: p2.claims[0], brief: 'Check the third claim by re-running it.' }));
  await ok('withdraw', send(s, dave, 'challenge.withdraw', { challenge: ch1.id, reason: 'Covered by another.' }), 200);
  const b2 = await ok('commit', send(s, bob, 'check.commit', make.commit(p2.claims[0])));
  await ok('result', send(s, bob, 'check.result', { commit: b2.id, outcome: 'inconclusive', outputs: { acc: 0.7 }, crossCheck: null }));
  const spare = generateKeyPair();
  await ok('delegate', send(s, dave, 'key.delegate', { key: spare.publicKey, scope: 'reports' }));
  await ok(
    'revoke',
    send(s, dave, 'key.revoke', { key: spare.publicKey, compromisedAt: new Date(s.record.now() - DAY).toISOString() }),
    200,
  );

  // Time: dave's commitment lapses after 7 days; unchecked outputs are revealed after 30.
  advance(7 * DAY + 1000);
  await s.tick();
  if (s.record.state.receipts.get(lapsing.id)!.stage !== 'lapsed') throw new Error('expected a lapse');
  advance(23 * DAY + 1000);
  await s.tick();
  if (s.record.state.receipts.get(b2.id)!.revealedSeq === null) throw new Error('expected a reveal');
  return { alice, bob, p1, c1 };
}

t.test('a restart replays the log from zero into the very same state', async (t) => {
  const dataDir = tempDir(t);
  let offset = 0;
  const clock = () => Date.now() + offset;
  const advance = (ms: number) => {
    offset += ms;
  };
  const s1 = await startService(t, { dataDir, clock });
  const { alice, bob, p1, c1 } = await workload(s1, advance);
  const first = await ok(
    'challenge',
    send(s1, bob, 'challenge.propose', { claim: c1, brief: "Today's one proposal of lab-b, as it happens." }),
  );

  const entries = (await s1.get('/v1/log/entries?limit=1000')).body.entries.map((e: any) => e.type);
  for (const type of [
    'operator.pairing',
    'key.delegate',
    'key.revoke',
    'doorbell.set',
    'claim.external',
    'claim.amend',
    'check.seal',
    'check.lapse',
    'check.reveal',
    'review',
    'argument.answer',
    'challenge.withdraw',
  ]) {
    t.ok(entries.includes(type), `the workload logged ${type}`);
  }
  const live = stateJson(s1.record.state);
  const size = s1.record.state.size;
  t.equal(size, entries.length);
  t.equal(stateJson(await replayStore(s1.d.log, size)), live, 'replayStore from zero gives the live state');
  // The readers' index made from a state at start is the one kept entry by entry (docs/api.md#lists-and-cursors).
  const kept = readIndexOf(emptyState());
  const folded = await replayStore(s1.d.log, size, emptyState(), (state, e) => {
    const outcome = applyEntry(state, e);
    noteApplied(kept, state, e, typeof outcome === 'object' && outcome !== null ? (outcome as { id?: string }) : {});
    return outcome;
  });
  t.ok(folded.reviews.size >= 2, 'reviews in the index');
  t.equal(indexJson(readIndexOf(folded)), indexJson(kept), "the readers' index made at start is the one kept as entries land");
  // Made at a start part way (its lists of papers as columns), then kept as the rest lands: the same index.
  for (const cut of [Math.floor(size / 4), Math.floor(size / 2), Math.floor((3 * size) / 4)]) {
    const part = await replayStore(s1.d.log, cut);
    const resumed = readIndexOf(part);
    const before = indexJson(resumed);
    const whole = await replayStore(s1.d.log, size, part, (state, e) => {
      const outcome = applyEntry(state, e);
      noteApplied(resumed, state, e, typeof outcome === 'object' && outcome !== null ? (outcome as { id?: string }) : {});
      return outcome;
    });
    t.not(indexJson(resumed), before, `made at entry ${cut}: the entries after it changed it`);
    t.equal(indexJson(resumed), indexJson(readIndexOf(whole)), `made at entry ${cut} and kept: the index made at the end`);
  }
  await s1.stop();

  const s2 = await startService(t, { dataDir, clock });
  t.equal(s2.record.state.size, size, 'nothing fell due at restart');
  t.equal(stateJson(s2.record.state), live, 'the restarted service replayed the same state');
  const once = await replayStore(s2.d.log, size);
  const twice = await replayStore(s2.d.log, size);
  t.equal(stateDigest(once), stateDigest(twice), 'replay is deterministic');
  t.equal(stateDigest(once), stateDigest(s2.record.state));
  t.match(live, 'https://carol.example/bell', 'the doorbell address is in the state');
  t.notMatch((await s2.get('/v2/heartbeat?agent=carol')).text, 'carol.example', 'but never served');

  // Writes carry on where the log left off.
  const next = await ok('paper after restart', send(s2, alice, 'paper', make.paper(1)));
  t.equal(next.seq, size, 'seq continues');
  t.equal((await s2.get('/v1/log/sth')).body.treeSize, size + 1);
  // Uniqueness holds across the restart: the same paper (fresh ts, same id) and the quota.
  const again = payloadOf(s2, alice, 'paper', {});
  const original = (await s2.get(`/v1/log/entries?from=${s2.record.state.papers.get(p1.id)!.seq}&limit=1`)).body.entries[0].payload.payload;
  const resent = { ...original, ts: again.ts };
  const dup = await s2.post('/v2/papers', { payload: resent, signature: signPayload(alice.privateKey, resent) });
  t.match(dup, { status: 409, body: { error: 'conflict', detail: new RegExp(`paper ${p1.id} is already published`) } });
  const quota = await send(s2, bob, 'challenge.propose', { claim: c1, brief: 'A second proposal within the same day.' });
  t.equal(quota.status, 429, 'the daily quota remembers the proposal before the restart');
  t.equal((await s2.get(`/v2/challenges/${first.id}`)).body.status, 'open');
  t.equal(s2.record.state.size, size + 1, 'refusals wrote nothing');

  // The scheduler carries on: what falls due after the restart is logged then.
  const c = await register(s2, 'erin', { operatorId: 'lab-e' });
  const commit = await ok('commit', send(s2, c, 'check.commit', make.commit(c1)));
  advance(7 * DAY + 1000);
  await s2.tick();
  t.equal(s2.record.state.receipts.get(commit.id)!.stage, 'lapsed', 'a lapse after the restart');
  t.equal(stateJson(await replayStore(s2.d.log, s2.record.state.size)), stateJson(s2.record.state), 'and replay agrees again');
});

t.test('racing identical papers: exactly one is taken', async (t) => {
  const s = await startService(t);
  const alice: TestAgent = await register(s, 'alice');
  const payload = payloadOf(s, alice, 'paper', make.paper(2));
  const envelope = { payload, signature: signPayload(alice.privateKey, payload) };
  const size = s.record.state.size;
  const replies = await Promise.all(Array.from({ length: 20 }, () => s.post('/v2/papers', envelope)));
  const statuses = replies.map((r) => r.status);
  t.equal(statuses.filter((x) => x === 201).length, 1, 'one 201');
  t.equal(statuses.filter((x) => x === 409).length, 19, 'nineteen 409');
  t.equal(s.record.state.size, size + 1, 'one entry written');
  t.equal(s.record.state.papers.size, 1);
});

t.test('replay refuses a log that gives fewer entries than asked for', async (t) => {
  const s = await startService(t);
  await register(s, 'alice');
  await register(s, 'bob');
  const size = s.record.state.size;
  const log = s.d.log;
  const short = { records: async (from: number, count: number) => (await log.records(from, count)).slice(0, -1) };
  await t.rejects(replayStore(short, size), /entr(y|ies) .*missing/);
  await t.rejects(replayStore(log, size + 1), /missing/, 'beyond the end of the log');
  t.equal((await replayStore(log, size)).size, size);
});
