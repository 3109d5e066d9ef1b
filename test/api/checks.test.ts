// Receipts through HTTP (docs/payloads.md#checks/CheckResult, Part 3, 4.3 behaviours 1 to 3, Part
// 7; docs/record.md#identifiers, docs/record.md#receipts-seeds-and-cross-checks,
// docs/record.md#service-events-and-time): commit and seal, the seed, the cross-check draw,
// results, findings, withheld outputs, lapses and reveals; and, at the state level, a commitment
// logged without its seal.
import t from 'tap';
import { toArchiveError } from '../../api/error-middleware.js';
import type { Test } from 'tap';
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { generateKeyPair, signBytes, signPayload } from '../../lib/protocol/ed25519.js';
import { check, replayEntries, dueEvents } from '../../lib/record/fold/index.js';
import { seedMessage } from '../../lib/protocol/seed.js';
import { signEvent } from '../../lib/protocol/service-event.js';
import { refused } from '../helpers/refused.js';
import { sha256Hex, sortedJson } from '../helpers/by-hand.js';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, payloadOf, register, send, type TestAgent } from '../helpers/agents.js';

const DAY = 24 * 3600 * 1000;
const withoutTs = ({ ts: _ts, ...rest }: Record<string, unknown>) => rest;
/** ARCHIVE_SEED recomputed by hand from a seal (base64url). */
const seedOf = (seal: string) => createHash('sha256').update(Buffer.from(seal, 'base64url')).digest().readUInt32BE(0) & 0x7fffffff;

/** Signs and posts `payload` as is, and returns the envelope sent with the reply. */
async function post(s: TestService, path: string, key: KeyObject, payload: Record<string, unknown>) {
  const envelope = { payload, signature: signPayload(key, payload) };
  return { envelope, reply: await s.post(path, envelope) };
}
const entries = async (s: TestService, from: number, limit = 1) =>
  (await s.get(`/v1/log/entries?from=${from}&limit=${limit}`)).body.entries as any[];
const receipt = async (s: TestService, id: string) => (await s.get(`/v2/receipts/${id}`)).body;

/** A world: a claim author (lab-a) and checkers of other operators. */
async function world(t: Test, claims = 3) {
  const s = await startService(t);
  const author = await register(s, 'author', { operatorId: 'lab-a' });
  const x = await register(s, 'xavier', { operatorId: 'lab-x' });
  const y = await register(s, 'yara', { operatorId: 'lab-y' });
  const z = await register(s, 'zoe', { operatorId: 'lab-z' });
  const paper = (await send(s, author, 'paper', make.paper(claims))).body;
  return { s, author, x, y, z, claims: paper.claims as string[] };
}
const commit = async (s: TestService, a: TestAgent, target: string, extra: Record<string, unknown> = {}) => {
  const r = await send(s, a, 'check.commit', make.commit(target, extra));
  if (r.status !== 201) throw new Error(r.text);
  return r.body;
};
const result = (s: TestService, a: TestAgent, id: string, outputs: object, crossCheck: unknown = null) =>
  send(s, a, 'check.result', { commit: id, outcome: 'confirmed', outputs, crossCheck });

/** Runs `f`; a refusal is rethrown as the API answers it (its code and status). */
const answered = (f: () => unknown) => () => {
  try {
    return f();
  } catch (err) {
    throw toArchiveError(err);
  }
};

t.test('commit: 201 {id, seed, crossCheck, deadline, seq, sealSeq}, the seal, refusals', async (t) => {
  const { s, author, x, claims } = await world(t, 1);
  const author2 = await register(s, 'author-two', { operatorId: 'lab-a', sponsor: author });
  const conceptual = (
    await send(
      s,
      author,
      'paper',
      make.paper(1, {
        claims: [{ text: 'A definition of the term', confidence: 0.7, test: 'An argument that shows it incoherent', kind: 'conceptual' }],
      }),
    )
  ).body.claims[0];
  const [claim] = claims as [string];
  await refused(
    t,
    s,
    "own operator's claim",
    send(s, author, 'check.commit', make.commit(claim)),
    403,
    /^payload\.target: .* your own operator \(lab-a\)/,
  );
  await refused(t, s, "own operator's claim, another agent", send(s, author2, 'check.commit', make.commit(claim)), 403, /own operator/);
  await refused(
    t,
    s,
    'an unknown target',
    send(s, x, 'check.commit', make.commit('rec:00000000000000ff#C1')),
    404,
    /^payload\.target: no claim rec:00000000000000ff#C1/,
  );
  await refused(
    t,
    s,
    'a conceptual claim',
    send(s, x, 'check.commit', make.commit(conceptual)),
    400,
    /^payload\.target: .* conceptual claim/,
  );

  const payload = payloadOf(s, x, 'check.commit', make.commit(claim, { models: ['gpt-4o'] }));
  const { envelope, reply: r } = await post(s, '/v2/checks', x.privateKey, payload);
  t.equal(r.status, 201, r.text);
  t.same(Object.keys(r.body).sort(), ['counts', 'crossCheck', 'deadline', 'id', 'note', 'sealSeq', 'seed', 'seq']);
  t.match(
    r.body,
    { counts: false, note: { rule: 'no-result' } },
    'a receipt counts nothing until its result (docs/credence.md#what-a-write-counts)',
  );
  t.equal(r.body.id, sha256Hex(sortedJson(withoutTs(payload))), 'id: SHA-256 of the canonical payload without ts');
  t.not(r.body.id, sha256Hex(sortedJson(payload)));
  t.equal(r.body.crossCheck, null, 'nothing to cross-check yet');
  t.equal(r.body.sealSeq, r.body.seq + 1, 'the seal follows the commitment');
  const [ce, se] = await entries(s, r.body.seq, 2);
  t.match(ce, { seq: r.body.seq, type: 'check.commit' });
  t.same(ce.payload, envelope, 'logged exactly as signed');
  t.equal(r.body.deadline, new Date(Date.parse(ce.ts) + 7 * DAY).toISOString(), '7 days from the commitment');
  t.match(se, {
    seq: r.body.sealSeq,
    type: 'check.seal',
    payload: { event: { protocol: 'archive/0.2', type: 'check.seal', commit: r.body.id, seed: r.body.seed, crossCheck: null } },
  });
  const seal: string = se.payload.event.seal;
  const logKey = createPublicKey({ key: Buffer.from((await s.get('/v1/log/key')).body.key, 'base64url'), format: 'der', type: 'spki' });
  t.ok(
    verify(null, Buffer.from(`archive/0.2 seed ${r.body.id}`, 'utf8'), logKey, Buffer.from(seal, 'base64url')),
    'the seal: the log key over "archive/0.2 seed <id>"',
  );
  t.notOk(verify(null, Buffer.from(`archive/0.2 seed ${'0'.repeat(64)}`), logKey, Buffer.from(seal, 'base64url')), 'and over nothing else');
  t.ok(
    verify(null, Buffer.from(sortedJson(se.payload.event)), logKey, Buffer.from(se.payload.signature, 'base64url')),
    'the event itself is signed by the log key',
  );
  t.equal(r.body.seed, seedOf(seal), 'seed: first 4 bytes of SHA-256 of the seal, big-endian, & 0x7fffffff');
  t.match(await receipt(s, r.body.id), {
    id: r.body.id,
    target: claim,
    kind: 'replication',
    agent: 'xavier',
    operatorId: 'lab-x',
    stage: 'sealed',
    seed: r.body.seed,
    sealSeq: r.body.sealSeq,
    crossCheck: null,
    outcome: null,
    outputs: null,
    models: ['gpt-4o'],
  });
  t.match((await s.get('/v2/heartbeat?agent=xavier')).body.owed, [
    { commit: r.body.id, target: claim, stage: 'sealed', deadline: r.body.deadline },
  ]);

  s.advance(1000);
  await refused(
    t,
    s,
    'the same commitment, a new ts',
    post(s, '/v2/checks', x.privateKey, { ...payload, ts: new Date(s.record.now()).toISOString() }).then((p) => p.reply),
    409,
    new RegExp(`this exact commitment was made already: ${r.body.id}`),
  );
  // The same bytes again: on the log already (docs/record.md, "Replays and last-writer-wins").
  await refused(
    t,
    s,
    'the same envelope again',
    s.post('/v2/checks', envelope),
    409,
    new RegExp(`^payload: these signed bytes \\(SHA-256 [0-9a-f]{64}\\) are on the log already at entry ${r.body.seq};`),
  );

  const ck = generateKeyPair();
  t.equal((await send(s, x, 'key.delegate', { key: ck.publicKey, scope: 'reports' })).status, 201);
  x.checkKey = ck;
  const byKey = await send(s, x, 'check.commit', make.commit(claim), { checkKey: true });
  t.equal(byKey.status, 201, `a check key may commit (${byKey.text})`);
  t.equal((await result(s, x, byKey.body.id, { acc: 0.5 })).status, 201, 'and its agent files the result with the main key');
});

t.test('the cross-check draw: other operators, resulted, held inputs, seed mod count', async (t) => {
  const { s, x, y, z, claims } = await world(t, 3);
  const [c1, c2, c3] = claims as [string, string, string];
  const x2 = await register(s, 'xavier-two', { operatorId: 'lab-x', sponsor: x });
  const a = await commit(s, x, c1);
  const pending = await commit(s, z, c1);
  t.equal((await commit(s, y, c1)).crossCheck, null, 'sealed receipts are not drawn, only resulted ones');
  t.equal((await result(s, x, a.id, { acc: 0.9 })).status, 201);
  const drawn = await commit(s, y, c1, { kind: 'rerun' });
  t.same(
    drawn.crossCheck,
    { receipt: a.id, bundle: make.bundle(), seed: a.seed },
    'a pool of one: receipt A, with its bundle and seed to re-run',
  );
  t.not(drawn.crossCheck.receipt, pending.id);
  t.equal((await commit(s, x2, c1)).crossCheck, null, "never a receipt of the committer's own operator (another agent of it)");
  t.equal((await commit(s, x, c1, { kind: 'rerun' })).crossCheck, null, 'nor its own');
  t.equal((await commit(s, z, c2)).crossCheck, null, 'only receipts on the same claim');

  // A bundle with a non-open input is drawn only for those who hold it.
  const restricted = { name: 'cohort', url: 'https://data.example.org/cohort', sha256: 'c'.repeat(64), bytes: 1024, access: 'restricted' };
  const open = { name: 'vocab', url: 'https://data.example.org/vocab', sha256: 'e'.repeat(64), bytes: 10, access: 'open' };
  const r = await commit(s, x, c2, { bundle: make.bundle({ inputs: [open, restricted] }) });
  t.equal((await result(s, x, r.id, { acc: 0.7 })).status, 201);
  t.equal((await commit(s, y, c2)).crossCheck, null, 'not held: not drawn');
  t.equal((await commit(s, y, c2, { holds: ['d'.repeat(64)] })).crossCheck, null, 'holding something else: not drawn');
  t.equal(
    (await commit(s, y, c2, { holds: ['d'.repeat(64), 'c'.repeat(64)] })).crossCheck?.receipt,
    r.id,
    'holding its sha256: drawn (open inputs need no holding)',
  );

  // Two candidates, in seq order: the index is seed mod 2.
  const a1 = await commit(s, x, c3);
  const a2 = await commit(s, z, c3);
  t.equal((await result(s, x, a1.id, { acc: 0.9 })).status, 201);
  t.equal((await result(s, z, a2.id, { acc: 0.8 })).status, 201);
  const seen = new Set<number>();
  for (let i = 1; i <= 24 && seen.size < 2; i++) {
    const c = await commit(s, y, c3, { bundle: make.bundle({ runtimeMinutes: i }) });
    const seal = (await entries(s, c.seq + 1))[0].payload.event.seal;
    t.equal(c.seed, seedOf(seal));
    t.equal(c.crossCheck.receipt, [a1.id, a2.id][seedOf(seal) % 2], `seed ${c.seed}: index ${c.seed % 2}`);
    seen.add(c.seed % 2);
  }
  t.equal(seen.size, 2, 'both indexes were drawn');
});

t.test('results: refusals, cross-check matches, findings, who verified or disputed', async (t) => {
  const { s, x, y, z, claims } = await world(t, 3);
  const [c1, c2, c3] = claims as [string, string, string];
  const outputs = [{ name: 'acc', tolerance: 0.01 }, { name: 'loss', tolerance: 0.05, relative: true }, { name: 'label' }];
  const a = await commit(s, x, c1, { bundle: make.bundle({ outputs }) });
  const res = (outputs: object, crossCheck: unknown = null) => ({ commit: a.id, outcome: 'confirmed', outputs, crossCheck });
  const good = { acc: 0.9, loss: 2, label: 'cat' };
  await refused(
    t,
    s,
    'by another agent',
    send(s, y, 'check.result', res(good)),
    403,
    /^payload\.commit: committed by xavier; only that agent/,
  );
  await refused(
    t,
    s,
    'an unknown commitment',
    send(s, x, 'check.result', { ...res(good), commit: 'f'.repeat(64) }),
    404,
    /^payload\.commit: no commitment/,
  );
  await refused(
    t,
    s,
    'an undeclared output',
    send(s, x, 'check.result', res({ ...good, f1: 0.5 })),
    422,
    /^payload\.outputs\.f1: not an output the bundle declares/,
  );
  await refused(
    t,
    s,
    'a declared output missing',
    send(s, x, 'check.result', res({ acc: 0.9, loss: 2 })),
    422,
    /^payload\.outputs\.label: .*missing/,
  );
  await refused(
    t,
    s,
    'a string for an output with a tolerance',
    send(s, x, 'check.result', res({ ...good, loss: 'low' })),
    422,
    /^payload\.outputs\.loss: must be a number \(the output declares a tolerance\)/,
  );
  await refused(
    t,
    s,
    'a cross-check none was assigned',
    send(s, x, 'check.result', res(good, { receipt: a.id, outputs: good })),
    422,
    /^payload\.crossCheck: no cross-check was assigned/,
  );
  const ra = await send(s, x, 'check.result', res(good));
  t.equal(ra.status, 201, ra.text);
  const resultTs = (await entries(s, ra.body.seq))[0].ts;
  t.same(ra.body, {
    id: a.id,
    outcome: 'confirmed',
    crossMatch: null,
    finding: null,
    revealAt: new Date(Date.parse(resultTs) + 30 * DAY).toISOString(),
    challengesCompleted: [],
    counts: true,
    note: ra.body.note,
    seq: ra.body.seq,
  });
  t.equal(ra.body.note.rule, 'not-verified', "x's operator is not verified (docs/credence.md#what-a-write-counts)");
  await refused(
    t,
    s,
    'twice',
    send(s, x, 'check.result', res({ ...good, acc: 0.91 })),
    409,
    new RegExp(`^payload\\.commit: ${a.id} has its result already \\(entry ${ra.body.seq}\\)`),
  );

  // Numbers only where the bundle reads an input that is not open.
  const cohort = { name: 'cohort', url: 'https://data.example.org/cohort', sha256: 'c'.repeat(64), bytes: 1024, access: 'registered' };
  const r = await commit(s, x, c2, { bundle: make.bundle({ inputs: [cohort], outputs: [{ name: 'n' }, { name: 'label' }] }) });
  await refused(
    t,
    s,
    'a string from a registered input',
    result(s, x, r.id, { n: 3, label: 'cat' }),
    422,
    /^payload\.outputs\.label: must be a number: the bundle reads inputs that are not open/,
  );
  t.equal((await result(s, x, r.id, { n: 3, label: 7 })).status, 201);

  // Y re-runs A: refusals, then a match at the edge of both tolerances.
  const b = await commit(s, y, c1, { bundle: make.bundle({ outputs }) });
  t.equal(b.crossCheck.receipt, a.id);
  const rb = (crossCheck: unknown) =>
    send(s, y, 'check.result', { commit: b.id, outcome: 'confirmed', outputs: { acc: 0.92, loss: 2, label: 'cat' }, crossCheck });
  await refused(
    t,
    s,
    'crossCheck null when one was assigned',
    rb(null),
    422,
    new RegExp(`^payload\\.crossCheck: the seal assigned receipt ${a.id}`),
  );
  await refused(
    t,
    s,
    'the wrong receipt',
    rb({ receipt: r.id, outputs: { n: 3, label: 7 } }),
    422,
    new RegExp(`^payload\\.crossCheck\\.receipt: the seal assigned ${a.id}`),
  );
  await refused(
    t,
    s,
    "cross-check outputs not as A's bundle declares",
    rb({ receipt: a.id, outputs: { acc: 0.9, loss: 2 } }),
    422,
    /^payload\.crossCheck\.outputs\.label/,
  );
  const matched = await rb({ receipt: a.id, outputs: { acc: 0.91, loss: 2.1, label: 'cat' } });
  t.equal(matched.status, 201, matched.text);
  t.match(matched.body, { id: b.id, crossMatch: true, finding: null }, 'within 0.01 absolute and 5% relative');
  let viewA = await receipt(s, a.id);
  t.same([viewA.verifiedBy, viewA.disputedBy, viewA.findings], [[], [], []]);
  t.match(viewA.unverifiedReruns, [{ receipt: b.id, operatorId: 'lab-y', match: true }], 'an unverified operator: listed apart');
  t.match(await receipt(s, b.id), { crossCheck: { receipt: a.id, match: true } });

  // Z draws A or B; it disagrees with either: a finding against the one drawn, not a verdict.
  const c = await commit(s, z, c1, { bundle: make.bundle({ outputs }) });
  const drawn = c.crossCheck.receipt;
  t.ok([a.id, b.id].includes(drawn));
  const mismatch = await send(s, z, 'check.result', {
    commit: c.id,
    outcome: 'failed',
    outputs: { acc: 0.5, loss: 2, label: 'cat' },
    crossCheck: { receipt: drawn, outputs: { acc: 0.5, loss: 2, label: 'cat' } },
  });
  t.equal(mismatch.status, 201, mismatch.text);
  t.match(mismatch.body, { crossMatch: false, finding: 1 });
  const viewDrawn = await receipt(s, drawn);
  t.match(viewDrawn.findings, [{ id: 1, receipt: drawn, by: c.id, seq: mismatch.body.seq }]);
  t.match(viewDrawn.unverifiedReruns.at(-1), { receipt: c.id, operatorId: 'lab-z', match: false });
  t.same([viewDrawn.verifiedBy, viewDrawn.disputedBy], [[], []], 'an unverified re-run neither verifies nor disputes');
  t.match((await receipt(s, c.id)).findings, [{ id: 1, by: c.id }]);
  t.equal((await s.get('/v2/record')).body.findings, 1);

  // Agents of op_archive (verified at genesis): their cross-checks verify or dispute.
  const v1 = await houseAgent(s, 'vera');
  const v2 = await houseAgent(s, 'victor');
  const two = [
    { name: 'acc', tolerance: 0.01 },
    { name: 'loss', tolerance: 0.05, relative: true },
  ];
  const a3 = await commit(s, x, c3, { bundle: make.bundle({ outputs: two }) });
  t.equal((await result(s, x, a3.id, { acc: 0.9, loss: 2 })).status, 201);
  const w1 = await commit(s, v1, c3);
  t.equal(w1.crossCheck.receipt, a3.id);
  const ok = await result(s, v1, w1.id, { acc: 0.9 }, { receipt: a3.id, outputs: { acc: 0.895, loss: 1.9 } });
  t.match(ok.body, { crossMatch: true, finding: null });
  const w2 = await commit(s, v2, c3);
  t.equal(w2.crossCheck.receipt, a3.id, "vera's receipt is of victor's own operator: not drawn");
  const no = await result(s, v2, w2.id, { acc: 0.9 }, { receipt: a3.id, outputs: { acc: 0.9, loss: 2.11 } });
  t.match(no.body, { crossMatch: false, finding: 2 }, 'beyond 5% relative');
  viewA = await receipt(s, a3.id);
  t.match(viewA, {
    verifiedBy: [{ receipt: w1.id, operatorId: 'op_archive', seq: ok.body.seq }],
    disputedBy: [{ receipt: w2.id, operatorId: 'op_archive', seq: no.body.seq }],
    unverifiedReruns: [],
    findings: [{ id: 2, by: w2.id }],
  });
  t.equal(viewA.verifiedBy.length + viewA.disputedBy.length, 2);
});

t.test('withheld outputs: in the receipt and the served entry, until a cross-check or 30 days', async (t) => {
  const { s, x, y, claims } = await world(t, 1);
  const [claim] = claims as [string];
  const a = await commit(s, x, claim);
  const { envelope: envA, reply: ra } = await post(
    s,
    '/v2/checks/result',
    x.privateKey,
    payloadOf(s, x, 'check.result', { commit: a.id, outcome: 'confirmed', outputs: { acc: 0.8765 }, crossCheck: null }),
  );
  t.equal(ra.status, 201, ra.text);
  t.match(await receipt(s, a.id), {
    stage: 'resulted',
    outcome: 'confirmed',
    resultSeq: ra.body.seq,
    outputs: null,
    withheld: ['outputs'],
    revealedSeq: null,
  });
  const served = async (seq: number) => {
    const r = await s.get(`/v1/log/entries?from=${seq}&limit=1`);
    return { entry: r.body.entries[0], text: r.text };
  };
  let e = await served(ra.body.seq);
  t.equal(e.entry.payload.payload.outputs, null);
  t.same(e.entry.withheld, ['payload.outputs']);
  t.notOk(e.text.includes('8765'), 'the value is nowhere in the served entry');
  t.equal(e.entry.payloadHash, sha256Hex(sortedJson(envA)), 'payloadHash: SHA-256 of the full envelope that was signed');
  const leaf = sortedJson({
    payloadHash: e.entry.payloadHash,
    prevHash: e.entry.prevHash,
    seq: e.entry.seq,
    ts: e.entry.ts,
    type: e.entry.type,
  });
  t.equal(e.entry.entryHash, sha256Hex(Buffer.concat([Buffer.from([0]), Buffer.from(leaf)])), 'and the entry keeps its hash');

  // Y cross-checks A: A's outputs are shown, and so is what Y measured of A; Y's own are withheld.
  const b = await commit(s, y, claim);
  t.equal(b.crossCheck.receipt, a.id);
  const { envelope: envB, reply: rb } = await post(
    s,
    '/v2/checks/result',
    y.privateKey,
    payloadOf(s, y, 'check.result', {
      commit: b.id,
      outcome: 'confirmed',
      outputs: { acc: 0.8712 },
      crossCheck: { receipt: a.id, outputs: { acc: 0.8766 } },
    }),
  );
  t.match(rb.body, { crossMatch: true });
  t.match(await receipt(s, a.id), { outputs: { acc: 0.8765 }, withheld: [], revealedSeq: rb.body.seq });
  e = await served(ra.body.seq);
  t.same(e.entry.payload, envA, "A's entry is served whole");
  t.notOk('withheld' in e.entry);
  t.match(await receipt(s, b.id), {
    outputs: null,
    withheld: ['outputs'],
    crossCheck: { receipt: a.id, match: true, outputs: { acc: 0.8766 } },
  });
  e = await served(rb.body.seq);
  t.match(e.entry.payload.payload, { outputs: null, crossCheck: { receipt: a.id, outputs: { acc: 0.8766 } } });
  t.same(e.entry.withheld, ['payload.outputs']);
  t.notOk(e.text.includes('8712'), "Y's own output is not served");
  t.equal(e.entry.payloadHash, sha256Hex(sortedJson(envB)));

  // 30 days on: the scheduler reveals B.
  s.advance(30 * DAY);
  const size = s.record.state.size;
  await s.tick();
  const logged = await entries(s, size, 10);
  t.match(logged, [{ type: 'check.reveal', payload: { event: { type: 'check.reveal', commit: b.id } } }], 'one check.reveal, for B only');
  t.equal(logged.length, 1);
  t.match(await receipt(s, b.id), { outputs: { acc: 0.8712 }, withheld: [], crossCheck: { outputs: { acc: 0.8766 } }, revealedSeq: size });
  e = await served(rb.body.seq);
  t.same(e.entry.payload, envB, "B's entry is served whole");
  await s.tick();
  t.equal(s.record.state.size, size + 1, 'nothing falls due twice');
});

t.test('lapse: 7 days without a result', async (t) => {
  const { s, x, y, claims } = await world(t, 1);
  const [claim] = claims as [string];
  const l = await commit(s, x, claim);
  s.advance(DAY);
  const m = await commit(s, x, claim, { kind: 'rerun' });
  s.advance(6 * DAY + 1000);
  const size = s.record.state.size;
  const late = await result(s, x, l.id, { acc: 0.9 });
  t.equal(late.status, 409);
  t.equal(late.body.error, 'conflict');
  t.match(late.body.detail, new RegExp(`^payload\\.commit: ${l.id} lapsed at ${l.deadline.replace(/\./g, '\\.')}`));
  t.equal(s.record.state.size, size + 1, 'the lapse is written, the result is not');
  const [lapse] = await entries(s, size);
  t.match(
    lapse,
    { seq: size, type: 'check.lapse', payload: { event: { type: 'check.lapse', commit: l.id } } },
    'logged before the refusal',
  );
  t.match(await receipt(s, l.id), { stage: 'lapsed', lapsedSeq: size, outcome: null });
  let hb = (await s.get('/v2/heartbeat?agent=xavier')).body;
  t.match(hb.standing, { commitments: 2, results: 0, lapsed: 1 });
  t.match(hb.owed, [{ commit: m.id }]);
  t.equal(hb.owed.length, 1);
  t.equal((await commit(s, y, claim)).crossCheck, null, 'a lapsed receipt is never drawn');

  // The scheduler alone lapses M when its day comes.
  s.advance(DAY);
  const before = s.record.state.size;
  await s.tick();
  t.match(await entries(s, before, 10), [{ type: 'check.lapse', payload: { event: { commit: m.id } } }]);
  t.equal(s.record.state.size, before + 1);
  hb = (await s.get('/v2/heartbeat?agent=xavier')).body;
  t.match(hb.standing, { lapsed: 2 });
  t.same(hb.owed, []);
  await s.tick();
  t.equal(s.record.state.size, before + 1, 'nothing falls due twice');
  await refused(t, s, 'a result after the lapse', result(s, x, m.id, { acc: 0.9 }), 409, /lapsed at/);
});

t.test('not sealed: refused at the state level, and sealed when the service starts', async (t) => {
  const { s, x, claims } = await world(t, 1);
  const [claim] = claims as [string];
  const c = await commit(s, x, claim);
  const all = (await entries(s, 0, 100)).map((e) => ({ seq: e.seq, ts: e.ts, type: e.type, logged: e.payload }));
  t.equal(all[c.sealSeq]!.type, 'check.seal');
  const unsealed = replayEntries(all.slice(0, c.sealSeq));
  const payload = payloadOf(s, x, 'check.result', { commit: c.id, outcome: 'confirmed', outputs: { acc: 0.9 }, crossCheck: null });
  const resultEntry = (seq: number) => ({
    seq,
    ts: payload.ts,
    type: 'check.result',
    logged: { payload, signature: signPayload(x.privateKey, payload) },
  });
  t.throws(
    answered(() => check(unsealed, resultEntry(unsealed.size))),
    { code: 'conflict', detail: new RegExp(`^payload\\.commit: ${c.id} is not sealed`) },
  );
  t.same(dueEvents(unsealed, s.record.now()), [{ type: 'check.seal', commit: c.id }], 'the scheduler seals it');
  const sealed = replayEntries(all);
  t.equal(check(sealed, resultEntry(sealed.size)), undefined, 'with its seal the same result passes');

  // The seal event is checked: the log key's signature of the seed message, and its seed.
  const sealEntry = all[c.sealSeq]!;
  t.equal(check(unsealed, sealEntry), undefined, 'the real seal passes');
  const forge = (members: Record<string, unknown>) => ({
    ...sealEntry,
    logged: signEvent(s.d.logKey, { ...sealEntry.logged.event, ...members }),
  });
  const other = Buffer.from(signBytes(generateKeyPair().privateKey, seedMessage(c.id))).toString('base64url');
  t.throws(
    answered(() => check(unsealed, forge({ seal: other, seed: seedOf(other) }))),
    { code: 'bad_request', detail: /^event\.seal: not the log key's signature/ },
    'a seal by another key',
  );
  const wrongId = Buffer.from(signBytes(s.d.logKey, seedMessage('0'.repeat(64)))).toString('base64url');
  t.throws(
    answered(() => check(unsealed, forge({ seal: wrongId, seed: seedOf(wrongId) }))),
    { code: 'bad_request', detail: /^event\.seal/ },
    "the log key's seal of another commitment",
  );
  t.throws(
    answered(() => check(unsealed, forge({ seed: (c.seed + 1) & 0x7fffffff }))),
    { code: 'bad_request', detail: /^event\.seed/ },
    'a seed that does not derive from the seal',
  );

  // A crash between the two entries: the commitment alone is on the log; the restart seals it.
  const p = payloadOf(s, x, 'check.commit', make.commit(claim, { kind: 'rerun' }));
  const admitted = s.record.admit('check.commit', { payload: p, signature: signPayload(x.privateKey, p) });
  if ('already' in admitted) throw new Error('not admitted');
  await admitted.committed;
  const id = admitted.outcome.id!;
  t.equal(s.record.state.receipts.get(id)!.stage, 'committed');
  await s.stop();
  const again = await startService(t, { dataDir: s.dataDir });
  const [last] = await entries(again, again.record.state.size - 1);
  t.match(last, { seq: admitted.seq + 1, type: 'check.seal', payload: { event: { commit: id } } }, 'sealed at start');
  t.equal(last.payload.event.seed, seedOf(last.payload.event.seal));
  t.match(await receipt(again, id), { stage: 'sealed', sealSeq: admitted.seq + 1, seed: last.payload.event.seed });
  t.equal((await result(again, x, id, { acc: 0.9 })).status, 201, 'and its result is taken');
});
