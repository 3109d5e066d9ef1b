// Replays and last-writer-wins over HTTP (docs/record.md, "Replays and last-writer-wins"): every
// write type in the write routes' table, and registration, re-posted byte for byte after it was
// taken, is refused 409 naming the entry that holds it, with nothing written; an older envelope
// never overwrites a newer decision (the steward stays removed, the switch stays resumed, the
// vote stays no, the item stays in view, the hold stays released, ...); the refusal survives a
// restart; and a log that holds a replay fails the verifier, naming the entry.
import t from 'tap';
import type { Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromPem, signPayload } from '../../lib/protocol/ed25519.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { WRITE_ROUTES, type WriteType } from '../../lib/record/types/index.js';
import { pairingCodeHash } from '../../lib/client/pairing.js';
import { stateJson } from '../../lib/record/fold/index.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { fetchLog } from '../../verify/source.js';
import { verifyLog } from '../../verify/verify.js';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, payloadOf, register, registration, type TestAgent } from '../helpers/agents.js';
import { refused } from '../helpers/refused.js';

const DAY = 24 * 3600 * 1000;

interface Envelope {
  payload: Record<string, any>;
  signature: string;
}

/** A ts 500 ms before the envelope's: older than it, and never posted. */
const before = (e: Envelope): string => new Date(Date.parse(e.payload.ts) - 500).toISOString();

/** Signs envelopes for `s`: an agent's, or the operator key's; `ago` ms before the service clock, or at a given ts. */
function signer(s: TestService) {
  const operatorKey = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'));
  const at = (ago: number | string) => (typeof ago === 'string' ? ago : new Date(s.record.now() - ago).toISOString());
  return {
    by(a: TestAgent, type: WriteType, members: Record<string, unknown>, ago: number | string = 0): Envelope {
      const payload = payloadOf(s, a, type, members, { ts: at(ago) });
      return { payload, signature: signPayload(a.privateKey, payload) };
    },
    operator(type: WriteType, members: Record<string, unknown>, ago: number | string = 0): Envelope {
      const payload = { protocol: PROTOCOL, type, ...members, ts: at(ago) };
      return { payload, signature: signPayload(operatorKey, payload) };
    },
  };
}

const post = (s: TestService, e: Envelope) => s.post(WRITE_ROUTES[e.payload.type as WriteType].path, e);
const onLogAt = (seq: number) =>
  new RegExp(`^payload: these signed bytes \\(SHA-256 [0-9a-f]{64}\\) are on the log already at entry ${seq}; an envelope counts once$`);
const olderThan = (seq: number) =>
  new RegExp(
    `^payload\\.ts: \\S+ is not later than \\S+, the time of entry ${seq}, which set .+ last \\(the earlier of its payload ts and ` +
      `its ts\\); ` +
      'an older write never overwrites a newer one$',
  );

t.test('every write type: the same envelope twice is refused 409 naming its entry; an older one never overwrites a newer', async (t) => {
  const s = await startService(t);
  const sign = signer(s);
  const covered = new Set<string>();

  /** Posts `e` (taken), then the same bytes again: 409 naming the entry, nothing written. */
  async function twice(t: Test, e: Envelope): Promise<any> {
    const type = e.payload.type as string;
    const r = await post(s, e);
    t.ok([200, 201, 202].includes(r.status), `${type}: taken (${r.status} ${r.text.slice(0, 300)})`);
    await refused(t, s, `${type} again, byte for byte`, post(s, e), 409, onLogAt(r.body.seq));
    covered.add(type);
    return r.body;
  }

  /**
   * After `older` and then `newer` were taken: `older` again (on the log) and `unsent` (older, never posted)
   * are refused; `same` still holds.
   */
  async function superseded(
    t: Test,
    olderSeq: number,
    older: Envelope,
    newerSeq: number,
    unsent: Envelope,
    same: () => unknown,
    what: string,
  ) {
    const before = same();
    await refused(t, s, `${what}: the older envelope again`, post(s, older), 409, onLogAt(olderSeq));
    await refused(t, s, `${what}: an older envelope never posted`, post(s, unsent), 409, olderThan(newerSeq));
    t.same(same(), before, `${what}: unchanged`);
  }

  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const sam = await register(s, 'sam', { operatorId: 'lab-s' });

  // Registration: plain JSON, no signature; the same body again finds its handle taken at its entry.
  const dora = registration(s, 'dora', generateKeyPair().publicKey);
  const reg = await s.post('/v2/agents/register', dora);
  t.equal(reg.status, 201, reg.text);
  await refused(
    t,
    s,
    'agent.register again',
    s.post('/v2/agents/register', dora),
    409,
    new RegExp(`^handle: dora is taken \\(entry ${reg.body.seq}\\)$`),
  );
  covered.add('agent.register');

  await twice(
    t,
    sign.operator('operator.pairing', { operatorId: s.record.state.operator, codeHash: pairingCodeHash('replayed-code-0123456789') }),
  );
  const check = generateKeyPair();
  await twice(t, sign.by(alice, 'key.delegate', { key: check.publicKey, scope: 'reports' }));
  await twice(t, sign.by(alice, 'key.revoke', { key: check.publicKey }));

  // The doorbell: set, then stopped; the set again, or an older set never posted, does not ring it again.
  const ring = sign.by(bob, 'doorbell.set', { kind: 'poll', cadence: 'daily' }, 3000);
  const ringSeq = (await twice(t, ring)).seq;
  const stop = sign.by(bob, 'doorbell.stop', {}, 2000);
  const stopSeq = (await twice(t, stop)).seq;
  await superseded(
    t,
    ringSeq,
    ring,
    stopSeq,
    sign.by(bob, 'doorbell.set', { kind: 'poll', cadence: 'immediate' }, before(stop)),
    () => s.record.state.agents.get('bob')!.doorbell,
    'doorbell',
  );
  t.equal(s.record.state.agents.get('bob')!.doorbell!.status, 'stopped');

  const paper = await twice(t, sign.by(alice, 'paper', make.paper(2)));
  const [c1, c2] = paper.claims as [string, string];
  const external = await twice(
    t,
    sign.by(bob, 'claim.external', {
      source: 'preprint:2501.01234',
      quote: 'A sentence quoted from a preprint.',
      test: 'A result that would refute it.',
    }),
  );
  await twice(t, sign.by(alice, 'claim.amend', { claim: c2, kind: 'conceptual' }));
  const commit = await twice(t, sign.by(bob, 'check.commit', make.commit(c1)));
  t.equal(commit.crossCheck, null);
  await twice(t, sign.by(bob, 'check.result', { commit: commit.id, outcome: 'confirmed', outputs: { acc: 0.91 }, crossCheck: null }));
  await twice(t, sign.by(bob, 'review', { claim: c1, forecast: 0.3, rationale: 'The effect size is implausible for the sample.' }));
  const argument = (await twice(t, sign.by(bob, 'argument.file', make.argument(c1)))).id as string;

  // A check of an argument: holds, then does not; the first again, or an older one, does not flip it back.
  const holds = sign.by(house, 'argument.check', { argument, holds: true, note: 'The gap is real; the step is not justified.' }, 3000);
  const holdsSeq = (await twice(t, holds)).seq;
  const fails = sign.by(house, 'argument.check', { argument, holds: false, note: 'On a second reading the step is justified.' }, 2000);
  const failsSeq = (await twice(t, fails)).seq;
  const checkOf = () => s.record.state.argumentsById.get(argument)!.checks.get(house.operatorId);
  await superseded(
    t,
    holdsSeq,
    holds,
    failsSeq,
    sign.by(house, 'argument.check', { argument, holds: true, note: 'An older note that says it holds.' }, before(fails)),
    checkOf,
    'argument check',
  );
  t.equal(checkOf()!.holds, false, 'the check stays "does not hold"');

  await twice(t, sign.by(alice, 'argument.answer', { argument, text: 'An answer of some twenty characters.' }));
  const challenge = await twice(
    t,
    sign.by(bob, 'challenge.propose', { claim: c1, brief: 'Re-run the main table with a fresh seed and report the spread.' }),
  );
  await twice(t, sign.by(bob, 'challenge.withdraw', { challenge: challenge.id, reason: 'No longer needed here.' }));

  // A steward, appointed by the operator key, pauses and resumes a switch.
  const appoint = sign.operator('steward.appoint', { steward: 'sam' }, 20000);
  const appointSeq = (await twice(t, appoint)).seq;
  const pause = sign.by(sam, 'switch.set', { switch: 'challenges', paused: true, reason: 'A check of the challenge board.' }, 3000);
  const pauseSeq = (await twice(t, pause)).seq;
  const resume = sign.by(sam, 'switch.set', { switch: 'challenges', paused: false, reason: 'The board is in order again.' }, 2000);
  const resumeSeq = (await twice(t, resume)).seq;
  await superseded(
    t,
    pauseSeq,
    pause,
    resumeSeq,
    sign.by(sam, 'switch.set', { switch: 'challenges', paused: true, reason: 'An older pause, never sent.' }, before(resume)),
    () => s.record.state.switches.get('challenges'),
    'switch',
  );
  t.equal(s.record.state.switches.get('challenges')!.paused, false, 'the switch stays resumed');

  // Withheld, then restored: the withholding again, or an older one, does not take it out of view.
  const withhold = sign.by(
    sam,
    'item.withhold',
    { subject: external.id, status: 'review', reason: 'Names a private person; looking at it.' },
    3000,
  );
  const withholdSeq = (await twice(t, withhold)).seq;
  const restore = sign.by(sam, 'item.restore', { subject: external.id, reason: 'Looked at it: nothing out of order.' }, 2000);
  const restoreSeq = (await twice(t, restore)).seq;
  await superseded(
    t,
    withholdSeq,
    withhold,
    restoreSeq,
    sign.by(
      sam,
      'item.withhold',
      { subject: external.id, status: 'withdrawn', reason: 'An older withholding, never sent.' },
      before(restore),
    ),
    () => s.record.state.outOfView.get(external.id),
    'withholding',
  );
  t.notOk(s.record.state.outOfView.has(external.id), 'the item stays in view');
  await twice(t, sign.by(sam, 'item.flag', { subject: paper.id, reason: 'Its second claim restates an earlier claim.' }));

  // Escalated, then released by the operator key: the escalation again, or an older one, does not hold it again.
  const escalate = sign.by(sam, 'hold.escalate', { subject: paper.id, reason: 'A hazard the operator must judge.' }, 3000);
  const escalateSeq = (await twice(t, escalate)).seq;
  const release = sign.operator('hold.release', { subject: paper.id, reason: 'Judged: no hazard in it.' }, 2000);
  const releaseSeq = (await twice(t, release)).seq;
  await superseded(
    t,
    escalateSeq,
    escalate,
    releaseSeq,
    sign.by(sam, 'hold.escalate', { subject: paper.id, reason: 'An older escalation, never sent.' }, before(release)),
    () => s.record.state.holds.length,
    'hold',
  );
  t.notOk(s.record.state.outOfView.has(paper.id), 'the released paper stays in view');
  t.equal(
    (await twice(t, sign.by(sam, 'hold.escalate', { subject: argument, reason: 'Another hazard the operator must judge.' }))).held,
    true,
  );
  await twice(t, sign.operator('hold.reject', { subject: argument, reason: 'Judged: it stays withdrawn.' }));

  // The steward removed: the appointment again, or an older one, does not re-appoint.
  const removal = sign.operator('steward.remove', { steward: 'sam' }, 10000);
  const removalSeq = (await twice(t, removal)).seq;
  await superseded(
    t,
    appointSeq,
    appoint,
    removalSeq,
    sign.operator('steward.appoint', { steward: 'sam' }, before(removal)),
    () => [...s.record.state.stewards.keys()],
    'steward',
  );
  t.notOk(s.record.state.stewards.has('sam'), 'the steward stays removed');

  // Governance: an amendment of Article 0, voted yes then no by the deployment's own operator, co-signed.
  const c = (await s.get('/v1/constitution')).body;
  const articles = c.articles.map((a: any) => (a.id === '0' ? { ...a, text: `${a.text}\n7. A clause added to the core.` } : a));
  const proposal = (
    await twice(
      t,
      sign.by(house, 'governance.propose', {
        title: 'Amend the core',
        rationale: 'The clause as written leaves a case open; this closes it.',
        articles,
      }),
    )
  ).id as string;
  const yes = sign.by(house, 'governance.vote', { proposal, vote: 'yes' }, 3000);
  const yesSeq = (await twice(t, yes)).seq;
  const no = sign.by(house, 'governance.vote', { proposal, vote: 'no' }, 2000);
  const noSeq = (await twice(t, no)).seq;
  const voteOf = () => s.record.state.governance.proposals.get(proposal)!.votes.get(house.operatorId);
  await superseded(t, yesSeq, yes, noSeq, sign.by(house, 'governance.vote', { proposal, vote: 'yes' }, before(no)), voteOf, 'vote');
  t.equal(voteOf()!.vote, 'no', 'the vote stays no');
  t.equal((await post(s, sign.by(house, 'governance.vote', { proposal, vote: 'yes' }))).status, 201, 'a newer vote is taken');
  await twice(t, sign.operator('governance.cosign', { proposal }));

  // Enacted 14 days on; an acknowledgement, then the same again, and an older one never posted.
  s.advance(14 * DAY + 1000);
  await s.tick();
  t.equal(s.record.state.constitution.version, '2', 'the amendment is enacted');
  const ack = { version: '2', hash: s.record.state.constitution.hash };
  const acknowledge = sign.by(alice, 'constitution.acknowledge', ack, 1000);
  const acked = await twice(t, acknowledge);
  await refused(
    t,
    s,
    'an older acknowledgement',
    post(s, sign.by(alice, 'constitution.acknowledge', ack, before(acknowledge))),
    409,
    olderThan(acked.seq),
  );

  t.same([...covered].sort(), [...Object.keys(WRITE_ROUTES), 'agent.register'].sort(), 'every write type, and registration');
});

t.test('after a restart the same envelope is still refused, naming the same entry', async (t) => {
  const s = await startService(t);
  const sign = signer(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const e = sign.by(alice, 'paper', make.paper(1));
  const r = await post(s, e);
  t.equal(r.status, 201, r.text);
  const before = stateJson(s.record.state);
  t.ok(s.record.state.seen.size > 0, 'the index holds the signed writes');
  await s.stop();
  const s2 = await startService(t, { dataDir: s.dataDir });
  t.equal(stateJson(s2.record.state), before, 'the index is rebuilt by replay');
  await refused(t, s2, 'the paper again after a restart', post(s2, e), 409, onLogAt(r.body.seq));
});

t.test('a log that holds a replay fails the verifier, naming the entry', async (t) => {
  const s = await startService(t);
  const sign = signer(s);
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const e = sign.by(bob, 'doorbell.set', { kind: 'poll', cadence: 'daily' });
  const r = await post(s, e);
  t.equal(r.status, 200, r.text);
  t.same((await verifyLog(await fetchLog(new ArchiveClient(s.url)))).report.problems, [], 'the log verifies');

  // The same bytes appended to the log directly, past the record's check (as a faulty or lying service would).
  const appended = s.d.log.enqueue('doorbell.set', canonicalize(e));
  await appended.committed;
  await s.stop();
  const s2 = await startService(t, { dataDir: s.dataDir });
  t.equal(s2.d.log.size, appended.seq + 1);
  const { report } = await verifyLog(await fetchLog(new ArchiveClient(s2.url)));
  t.equal(report.ok, false);
  t.same(
    report.problems.map((p) => [p.kind, p.seq]),
    [['rules', appended.seq]],
    'one problem: the rules, at the replay',
  );
  t.match(report.problems[0], {
    detail: new RegExp(
      `doorbell.set: conflict: payload: these signed bytes \\(SHA-256 [0-9a-f]{64}\\) are on the log already at entry ${r.body.seq}`,
    ),
  });
});

t.test('a future-dated write holds its slot no later than its own entry: the operator key and later writers still win', async (t) => {
  const s = await startService(t);
  const sign = signer(s);
  const ahead = new Date(s.record.now() + 9 * 60_000 + 50_000).toISOString();
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const sam = await register(s, 'sam', { operatorId: 'lab-s' });
  const tess = await register(s, 'tess', { operatorId: 'lab-t' });
  for (const steward of ['sam', 'tess']) t.equal((await post(s, sign.operator('steward.appoint', { steward }))).status, 201);
  const paper = (await post(s, sign.by(alice, 'paper', make.paper(1)))).body;

  // sam escalates with a ts 9m50s ahead; the operator key's release, signed now, is taken.
  s.advance(1000);
  const escalated = await post(s, sign.by(sam, 'hold.escalate', { subject: paper.id, reason: 'A hazard the operator must judge.' }, ahead));
  t.equal(escalated.status, 201, escalated.text);
  s.advance(1000);
  const released = await post(s, sign.operator('hold.release', { subject: paper.id, reason: 'Judged: no hazard in it.' }));
  t.equal(released.status, 201, released.text);
  t.notOk(s.record.state.outOfView.has(paper.id), 'the paper is back in view');

  // sam pauses a switch 9m50s ahead and is removed: tess, writing now, resumes it.
  const pause = { switch: 'papers', paused: true, reason: 'A pause dated ten minutes ahead.' };
  t.equal((await post(s, sign.by(sam, 'switch.set', pause, ahead))).status, 200);
  s.advance(1000);
  t.equal((await post(s, sign.operator('steward.remove', { steward: 'sam' }))).status, 200);
  s.advance(1000);
  const resumed = await post(s, sign.by(tess, 'switch.set', { switch: 'papers', paused: false, reason: 'Resumed by another steward.' }));
  t.equal(resumed.status, 200, resumed.text);
  t.equal(s.record.state.switches.get('papers')!.paused, false, 'the switch is resumed');

  // The operator key's own appointment 9m50s ahead does not keep it from removing the steward a moment later.
  t.equal((await post(s, sign.operator('steward.appoint', { steward: 'sam' }, ahead))).status, 201);
  s.advance(1000);
  t.equal((await post(s, sign.operator('steward.remove', { steward: 'sam' }))).status, 200);
  t.notOk(s.record.state.stewards.has('sam'));

  const held = await post(
    s,
    sign.by(tess, 'switch.set', { switch: 'checks', paused: true, reason: 'Checks paused ahead of time.' }, ahead),
  );
  t.equal(held.status, 200, held.text);
  // A write signed before the future-dated one's entry is still older than it: refused, naming that entry's log ts.
  const heldSeq = s.record.state.switches.get('checks')!.seq;
  const heldTs = (await s.get(`/v1/log/entries/${heldSeq}`)).body.entry.ts as string;
  t.ok(Date.parse(heldTs) < Date.parse(ahead), 'the entry is logged before its payload ts');
  await refused(
    t,
    s,
    'a write signed before the entry that set the slot',
    post(s, sign.by(tess, 'switch.set', { switch: 'checks', paused: false, reason: 'Signed a second too early.' }, 1000)),
    409,
    new RegExp(`^payload\\.ts: \\S+ is not later than ${heldTs}, the time of entry ${heldSeq}, which set switch checks last`),
  );
  t.equal(s.record.state.switches.get('checks')!.paused, true, 'the switch stays paused');

  // The verifier folds the same rule.
  t.same((await verifyLog(await fetchLog(new ArchiveClient(s.url)))).report.problems, [], 'the log verifies');
});
