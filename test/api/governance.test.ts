// governance/0.1 over HTTP (docs/governance.md, 4.1, 5.8, 7; docs/governance.md):
// proposals carrying the amended articles, votes by operators in the electorate (a later vote
// replacing an earlier one), the close logged as a service event 14 days on, the tally (two
// thirds of those voting, a quorum of a fifth of the electorate), enactment of a new version,
// 428 until an agent acknowledges it, R2 co-signature of Article 0 amendments from the command
// line, refusals that write nothing, replay from zero and the offline verifier.
import t from 'tap';
import type { Test } from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPair, privateKeyFromPem, signPayload } from '../../lib/protocol/ed25519.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { stateJson } from '../../lib/record/fold/index.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { fetchLog } from '../../verify/source.js';
import { verifyLog } from '../../verify/verify.js';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, payloadOf, register, registration, send, type TestAgent } from '../helpers/agents.js';
import { verifiedOperators } from '../helpers/electorate.js';
import { refused } from '../helpers/refused.js';
import { sha256Hex, sortedJson } from '../helpers/by-hand.js';
import { projectRoot } from '../helpers/fixtures.js';

const DAY = 24 * 3600 * 1000;
const run = promisify(execFile);

/** The constitution in force as served, and its articles with `changes` applied (id -> new text). */
async function amended(s: TestService, changes: Record<string, string>) {
  const c = (await s.get('/v1/constitution')).body;
  return c.articles.map((a: any) => (changes[a.id] === undefined ? a : { ...a, text: changes[a.id] }));
}

async function propose(t: Test, s: TestService, a: TestAgent, title: string, changes: Record<string, string>) {
  const payload = payloadOf(s, a, 'governance.propose', {
    title,
    rationale: 'The clause as written leaves a case open; this closes it.',
    articles: await amended(s, changes),
  });
  const r = await s.post('/v2/governance/proposals', { payload, signature: signPayload(a.privateKey, payload) });
  t.equal(r.status, 201, r.text);
  t.equal(r.body.id, sha256Hex(sortedJson(payload)), 'the id: SHA-256 of the canonical JSON of the signed payload');
  return { id: r.body.id as string, payload, reply: r.body };
}

const vote = (s: TestService, a: TestAgent, proposal: string, v: 'yes' | 'no') => send(s, a, 'governance.vote', { proposal, vote: v });
const proposalOf = async (s: TestService, id: string) => (await s.get(`/v2/governance/proposals/${id}`)).body;

/** The operator key's governance.cosign, signed here (the command line is tested below). */
function cosign(s: TestService, proposal: string, key = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'))) {
  const payload = { protocol: PROTOCOL, type: 'governance.cosign', proposal, ts: new Date(s.record.now()).toISOString() };
  return s.post('/v2/governance/cosign', { payload, signature: signPayload(key, payload) });
}

/** Moves time past the window and logs what fell due; returns the entries logged. */
async function closeWindow(s: TestService): Promise<any[]> {
  const from = s.d.log.size;
  s.advance(14 * DAY + 1000);
  await s.tick();
  return (await s.get(`/v1/log/entries?from=${from}&limit=100`)).body.entries;
}

const NEW_V3 =
  '1. This constitution is amended under governance/0.1. Any registered agent may propose an amendment; the proposal carries the full ' +
  'text it would enact and is logged.';

t.test('an amendment is proposed, voted, closed by a logged event, enacted; 428 until acknowledged', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const author = await register(s, 'author', { operatorId: 'lab-author' });
  const [vera, vic] = (await verifiedOperators(t, s, house, author, ['vera', 'vic'])) as [TestAgent, TestAgent];
  const olga = await register(s, 'olga', { operatorId: 'lab-olga' });
  const vera2 = await register(s, 'vera-two', { operatorId: 'lab-vera', sponsor: vera });
  olga.checkKey = generateKeyPair();
  t.equal((await send(s, olga, 'key.delegate', { key: olga.checkKey.publicKey, scope: 'reports' })).status, 201);

  const g = (await s.get('/v2/governance')).body;
  t.match(
    g,
    { version: 'governance/0.1', constitution: { version: '1' }, electorate: 3, proposals: [] },
    'the electorate: op_archive, lab-vera, lab-vic',
  );
  const v1 = (await s.get('/v1/constitution')).body;
  const article5 = v1.articles.find((a: any) => a.id === 'V').text as string;
  const newV = article5.replace(/^1\..*$/m, NEW_V3);
  t.not(newV, article5);

  // Any registered agent proposes, here one whose operator is not in the electorate.
  const p = await propose(t, s, olga, 'Proposals carry their full text', { V: newV });
  t.same(p.reply.changes, ['V']);
  t.equal(p.reply.entrenched, false);
  t.equal(
    p.reply.closesAt,
    new Date(Date.parse((await proposalOf(s, p.id)).ts) + 14 * DAY).toISOString(),
    'votes are taken for 14 days after the proposal is logged',
  );

  await refused(
    t,
    s,
    'an operator outside the electorate',
    vote(s, olga, p.id, 'yes'),
    403,
    /^payload\.agent: operator lab-olga is not in the electorate/,
  );
  await refused(t, s, 'an unknown proposal', vote(s, vera, 'ab'.repeat(32), 'yes'), 404, /^payload\.proposal: no proposal a?b/);
  await refused(t, s, 'a malformed vote', vote(s, vera, p.id, 'maybe' as 'yes'), 400, /^payload\.vote: must be one of "yes", "no"/);
  await refused(
    t,
    s,
    'a proposal that changes nothing',
    send(s, olga, 'governance.propose', {
      title: 'Nothing at all changes here',
      rationale: 'This proposal repeats the text in force word for word.',
      articles: v1.articles,
    }),
    409,
    /^payload\.articles: the same text as version 1/,
  );
  await refused(
    t,
    s,
    'a proposal missing an article',
    send(s, olga, 'governance.propose', {
      title: 'Six articles only here',
      rationale: 'This proposal leaves Article VI out of the text.',
      articles: v1.articles.slice(0, 6),
    }),
    400,
    /^payload\.articles: must have 7 to 7 items \(has 6\)/,
  );

  // Votes: one per operator, a later vote (by any agent of the operator) replacing the earlier.
  let r = await vote(s, vera, p.id, 'no');
  t.equal(r.status, 201, r.text);
  t.match(r.body, {
    proposal: p.id,
    vote: 'no',
    operatorId: 'lab-vera',
    replaced: null,
    standing: { yes: 0, no: 1, voters: 1, electorate: 3, quorum: 1, quorumMet: true, passing: false },
  });
  r = await vote(s, vera2, p.id, 'yes');
  t.equal(r.status, 201, r.text);
  t.match(
    r.body,
    { operatorId: 'lab-vera', replaced: 'no', standing: { yes: 1, no: 0, voters: 1, passing: true } },
    "vera-two's vote replaces vera's: one operator, one vote",
  );
  const size = s.d.log.size;
  r = await vote(s, vera, p.id, 'yes');
  t.equal(r.status, 200, 'the same vote again: already so');
  t.equal(s.d.log.size, size, 'nothing written');
  t.equal((await vote(s, vic, p.id, 'no')).status, 201);
  t.equal((await vote(s, house, p.id, 'yes')).status, 201);
  t.equal((await vote(s, vic, p.id, 'yes')).status, 201);
  let view = await proposalOf(s, p.id);
  t.match(view, {
    id: p.id,
    status: 'open',
    yes: 3,
    no: 0,
    voters: 3,
    electorate: 3,
    quorumMet: true,
    passing: true,
    outcome: null,
    enactedIn: null,
    proposer: 'olga',
    amends: { version: '1', hash: v1.hash },
  });
  t.same(
    view.votes.map((v: any) => [v.operatorId, v.vote, v.agent]),
    [
      ['lab-vera', 'yes', 'vera-two'],
      ['op_archive', 'yes', 'house'],
      ['lab-vic', 'yes', 'vic'],
    ],
  );
  t.equal(view.articles.find((a: any) => a.id === 'V').text, newV);
  t.equal(view.rationale, p.payload.rationale);

  // Not closed before the window ends; then one governance.close event, signed by the log key.
  s.advance(13 * DAY);
  await s.tick();
  t.equal((await proposalOf(s, p.id)).status, 'open', 'still open after 13 days');
  const logged = await closeWindow(s);
  t.same(
    logged.map((e) => [e.type, e.payload.event.proposal]),
    [['governance.close', p.id]],
    'the close is a logged service event',
  );
  view = await proposalOf(s, p.id);
  t.match(view, {
    status: 'closed',
    outcome: 'adopted',
    enactedIn: '2',
    closedSeq: logged[0].seq,
    yes: 3,
    no: 0,
    voters: 3,
    electorate: 3,
  });

  // The new version, its text and hash recomputed from the proposal.
  const v2 = (await s.get('/v1/constitution')).body;
  const hash2 = sha256Hex(sortedJson({ version: '2', articles: p.payload.articles }));
  t.same(v2, { version: '2', hash: hash2, articles: p.payload.articles }, 'GET /v1/constitution serves version 2 in full');
  t.same(view.enacted, { version: '2', hash: hash2 });
  t.same((await s.get('/v2/record')).body.constitution, { version: '2', hash: hash2 });
  t.match((await s.get('/v2/governance')).body, {
    constitution: { version: '2', hash: hash2 },
    electorate: 3,
    proposals: [{ id: p.id, outcome: 'adopted', enactedIn: '2' }],
  });
  t.match((await s.get('/constitution.md')).text, new RegExp(`Version 2\\. Hash \`${hash2}\``));

  // 428 for every write of an agent that has not acknowledged version 2, naming it.
  const ack428 = new RegExp(
    `^constitution: version 2 \\(hash ${hash2}\\) was enacted at entry ${logged[0].seq}; olga has not acknowledged it`,
  );
  t.same(
    (await s.get('/v2/heartbeat?agent=olga')).body.acknowledge,
    { version: '2', hash: hash2, seq: logged[0].seq },
    'the heartbeat says what to acknowledge',
  );
  await refused(t, s, 'a paper before acknowledging', send(s, olga, 'paper', make.paper(1)), 428, ack428);
  await refused(
    t,
    s,
    'a report by check key before acknowledging',
    send(
      s,
      olga,
      'review',
      { claim: 'rec:0000000000000000#C1', forecast: 0.5, rationale: 'A review signed by the check key.' },
      { checkKey: true },
    ),
    428,
    ack428,
  );
  await refused(
    t,
    s,
    'acknowledging the old version',
    send(s, olga, 'constitution.acknowledge', { version: '1', hash: v1.hash }),
    428,
    new RegExp(`^constitution: not the one in force; acknowledge the constitution in force, version 2 hash ${hash2}`),
  );
  const revoke = await send(s, olga, 'key.revoke', { key: olga.checkKey.publicKey });
  t.equal(revoke.status, 200, `key.revoke needs no acknowledgement: ${revoke.text}`);
  r = await send(s, olga, 'constitution.acknowledge', { version: '2', hash: hash2 });
  t.equal(r.status, 201, r.text);
  t.match(r.body, { version: '2', hash: hash2 });
  t.equal((await send(s, olga, 'constitution.acknowledge', { version: '2', hash: hash2 })).status, 200, 'acknowledged already');
  t.equal((await s.get('/v2/heartbeat?agent=olga')).body.acknowledge, null, 'nothing owed once acknowledged');
  t.equal((await send(s, olga, 'paper', make.paper(1))).status, 201, 'after acknowledging, the write is taken');
  t.equal((await send(s, vic, 'constitution.acknowledge', { version: '2', hash: hash2 })).status, 201);
  await refused(
    t,
    s,
    'a vote after the close',
    vote(s, vic, p.id, 'no'),
    409,
    /^payload\.proposal: proposal [0-9a-f]{64} closed at entry \d+ \(adopted\)/,
  );

  // Registering acknowledges the version in force: the old one is refused, the new one writes at once.
  const k = generateKeyPair();
  const late = await s.post('/v2/agents/register', {
    ...registration(s, 'late', k.publicKey, { operatorId: 'lab-late' }),
    constitution: { version: '1', hash: v1.hash },
  });
  t.equal(late.status, 428);
  t.match(late.body.detail, new RegExp(`version 2 hash ${hash2}`));
  const newcomer = await register(s, 'newcomer', { operatorId: 'lab-new' });
  t.equal((await send(s, newcomer, 'paper', make.paper(1))).status, 201, 'registered under version 2: nothing to acknowledge');

  // Replay from zero: the same governance state and constitution in force.
  const before = stateJson(s.record.state);
  const governance = (await s.get('/v2/governance')).body;
  await s.stop();
  // The same clock, 27 days on: a payload ts is checked against its entry's (docs/record.md), and entry times never go backwards.
  const s2 = await startService(t, { dataDir: s.dataDir, clock: () => s.record.now() });
  t.equal(stateJson(s2.record.state), before, 'the same state after a restart');
  t.same((await s2.get('/v2/governance')).body, governance);
  t.same((await s2.get('/v1/constitution')).body, v2);
  await refused(
    t,
    s2,
    'still 428 after a restart',
    send(s2, vera, 'paper', make.paper(1)),
    428,
    /version 2 .* vera has not acknowledged it/,
  );

  // The offline verifier replays the governance entries with the record's own rules.
  const { report } = await verifyLog(await fetchLog(new ArchiveClient(s2.url)), { client: new ArchiveClient(s2.url) });
  t.same(report.problems, [], 'archive verify passes on a log with governance entries');
  t.equal(report.ok, true);
  t.ok(report.compared.includes('governance'), 'and the served governance reads match its replay');
});

t.test('the tally at the close: quorum of a fifth, two thirds of those voting, superseded by an earlier enactment', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const author = await register(s, 'author', { operatorId: 'lab-author' });
  const [a, b, c] = (await verifiedOperators(t, s, house, author, ['ann', 'ben', 'cat', 'dan', 'eve'])) as [
    TestAgent,
    TestAgent,
    TestAgent,
  ];
  t.equal((await s.get('/v2/governance')).body.electorate, 6, 'op_archive and five operators verified by the record');
  const text = (n: number) => `1. Nothing on the record binds an agent to act, draft ${n}.\n2. A second clause.`;

  // In the order they close: no quorum, rejected, adopted, then one the adoption supersedes.
  const noQuorum = await propose(t, s, author, 'One voter of six is no quorum', { VI: text(1) });
  const rejected = await propose(t, s, author, 'Half of those voting is not two thirds', { VI: text(2) });
  const adopted = await propose(t, s, author, 'Exactly two thirds of those voting pass it', { VI: text(3) });
  const superseded = await propose(t, s, author, 'Passes, but amends a version no longer in force', { IV: text(4) });

  t.equal((await vote(s, house, noQuorum.id, 'yes')).status, 201);
  for (const [agent, v] of [
    [house, 'yes'],
    [a, 'no'],
  ] as const)
    t.equal((await vote(s, agent, rejected.id, v)).status, 201);
  for (const [agent, v] of [
    [house, 'yes'],
    [a, 'yes'],
    [b, 'no'],
  ] as const)
    t.equal((await vote(s, agent, adopted.id, v)).status, 201);
  for (const [agent, v] of [
    [house, 'yes'],
    [b, 'yes'],
    [c, 'yes'],
  ] as const)
    t.equal((await vote(s, agent, superseded.id, v)).status, 201);
  t.match(
    await proposalOf(s, noQuorum.id),
    { status: 'open', voters: 1, electorate: 6, quorum: 2, quorumMet: false, passing: true },
    'standing while open',
  );

  // A steward makes the archive read-only: agents' votes are paused, the closes are not.
  const key = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'));
  const appoint = { protocol: PROTOCOL, type: 'steward.appoint', steward: 'author', ts: new Date(s.record.now()).toISOString() };
  t.equal((await s.post('/v2/stewards', { payload: appoint, signature: signPayload(key, appoint) })).status, 201);
  const readOnly = (paused: boolean) =>
    send(s, author, 'switch.set', { switch: 'writes', paused, reason: 'Read-only while the closes fall due.' });
  t.equal((await readOnly(true)).status, 200);
  await refused(t, s, 'a vote while read-only', vote(s, c, noQuorum.id, 'no'), 503, /^switch writes: every write is paused/);

  const logged = await closeWindow(s);
  t.same(
    logged.map((e) => [e.type, e.payload.event.proposal]),
    [noQuorum, rejected, adopted, superseded].map((p) => ['governance.close', p.id]),
    'four closes, logged in the order they fall due',
  );
  t.match(await proposalOf(s, noQuorum.id), {
    status: 'closed',
    outcome: 'no_quorum',
    enactedIn: null,
    yes: 1,
    no: 0,
    voters: 1,
    electorate: 6,
    quorumMet: false,
  });
  t.match(await proposalOf(s, rejected.id), {
    outcome: 'rejected',
    enactedIn: null,
    yes: 1,
    no: 1,
    voters: 2,
    quorumMet: true,
    passing: false,
  });
  t.match(await proposalOf(s, adopted.id), {
    outcome: 'adopted',
    enactedIn: '2',
    yes: 2,
    no: 1,
    voters: 3,
    quorumMet: true,
    passing: true,
  });
  t.match(await proposalOf(s, superseded.id), {
    outcome: 'superseded',
    enactedIn: null,
    yes: 3,
    no: 0,
    passing: true,
    amends: { version: '1' },
  });
  const served = (await s.get('/v1/constitution')).body;
  t.equal(served.version, '2');
  t.equal(served.articles.find((x: any) => x.id === 'VI').text, text(3), 'only the adopted text is in force');

  // The steward, registered under version 1, acknowledges version 2 while all writes are paused
  // (an acknowledgement is never paused), then lifts the pause.
  await refused(t, s, 'lifting the pause before acknowledging', readOnly(false), 428, /author has not acknowledged it/);
  t.equal(
    (await send(s, author, 'constitution.acknowledge', { version: '2', hash: served.hash })).status,
    201,
    'acknowledged while read-only',
  );
  t.equal((await readOnly(false)).status, 200, 'then the pause is lifted');
  t.not(served.articles.find((x: any) => x.id === 'IV').text, text(4));
  t.same(
    (await s.get('/v2/governance')).body.proposals.map((p: any) => p.outcome),
    ['superseded', 'adopted', 'rejected', 'no_quorum'],
    'newest first',
  );
});

t.test('Article 0: not enacted without the operator key co-signing (R2); enacted with it, co-signed from the command line', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const olga = await register(s, 'olga', { operatorId: 'lab-olga' });
  const core = (await s.get('/v1/constitution')).body.articles[0].text as string;
  const unsigned = await propose(t, s, olga, 'Amend the core, without R2', { '0': `${core}\n7. A clause added to the core, one.` });
  const signed = await propose(t, s, olga, 'Amend the core, with R2', { '0': `${core}\n7. A clause added to the core, two.` });
  const plain = await propose(t, s, olga, 'Amend Article V only', { V: '1. Amendments are proposed and voted on.' });
  t.equal(signed.reply.entrenched, true);
  t.same(signed.reply.changes, ['0']);

  const operatorKey = join(s.dataDir, 'keys', 'operator.key');
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [join(projectRoot, 'bin', 'archive'), 'operator', 'cosign', ...args], {
        env: { PATH: process.env.PATH ?? '' },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const done = await cli(signed.id, '--key', operatorKey, '--url', s.url);
  t.equal(done.code, 0, done.stderr);
  t.match(JSON.parse(done.stdout), { proposal: signed.id, cosigned: true });
  const again = await cli(signed.id, '--key', operatorKey, '--url', s.url);
  t.equal(again.code, 1, 'co-signed twice: the command fails');
  t.match(again.stderr, /HTTP 409[\s\S]*co-signed already at entry \d+/);

  await refused(t, s, 'co-signing twice', cosign(s, signed.id), 409, /^payload\.proposal: co-signed already at entry \d+/);
  await refused(
    t,
    s,
    'co-signing what does not amend Article 0',
    cosign(s, plain.id),
    409,
    /^payload\.proposal: proposal [0-9a-f]{64} does not amend Article 0 \(it changes V\)/,
  );
  await refused(t, s, 'co-signing an unknown proposal', cosign(s, 'cd'.repeat(32)), 404, /^payload\.proposal: no proposal c?d/);
  await refused(t, s, 'a malformed proposal id', cosign(s, 'not-an-id'), 400, /^payload\.proposal: must match/);
  await refused(t, s, 'not the operator key', cosign(s, unsigned.id, generateKeyPair().privateKey), 401, /signature/);
  t.match(await proposalOf(s, signed.id), { cosigned: { seq: Number } });
  t.equal((await proposalOf(s, unsigned.id)).cosigned, null);

  for (const p of [unsigned, signed]) t.equal((await vote(s, house, p.id, 'yes')).status, 201);
  await closeWindow(s);
  t.match(
    await proposalOf(s, unsigned.id),
    { outcome: 'not_cosigned', enactedIn: null, yes: 1, voters: 1, electorate: 1, quorumMet: true, passing: true },
    'passing, but Article 0 needs R2',
  );
  t.match(await proposalOf(s, signed.id), { outcome: 'adopted', enactedIn: '2' });
  t.match(await proposalOf(s, plain.id), { outcome: 'superseded' });
  const served = (await s.get('/v1/constitution')).body;
  t.equal(served.version, '2');
  t.equal(served.articles[0].text, `${core}\n7. A clause added to the core, two.`);
  await refused(
    t,
    s,
    'co-signing after the close',
    cosign(s, unsigned.id),
    409,
    /^payload\.proposal: proposal [0-9a-f]{64} closed at entry \d+ \(not_cosigned\)/,
  );

  // Bad parameters of the reads: 400 naming them; an unknown proposal: 404.
  t.match(await s.get('/v2/governance/proposals/XYZ'), {
    status: 400,
    body: { error: 'bad_request', detail: /^path: expected a proposal id \(64 lowercase hex\)/ },
  });
  t.match(await s.get(`/v2/governance/proposals/${'ef'.repeat(32)}`), {
    status: 404,
    body: { error: 'not_found', detail: /^no proposal ef/ },
  });
  t.match(await s.get('/v2/governance?all=1'), { status: 400, body: { error: 'bad_request', detail: /all/ } });

  // The verifier checks the co-signature with the operator key the genesis names.
  const { report } = await verifyLog(await fetchLog(new ArchiveClient(s.url)), { client: new ArchiveClient(s.url) });
  t.same(report.problems, [], 'archive verify passes with a co-signature on the log');
});
