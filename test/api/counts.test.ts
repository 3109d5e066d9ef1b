// What a write counts, over HTTP (docs/credence.md#what-a-write-counts, docs/api.md#writes): every
// write whose item the numbers read answers `counts`, and when a rule of credence/0.3 makes it
// count nothing (or only in part) a note naming the rule; the reads that list such items say the
// same of each. One test per rule, each checked against what the numbers then do.
import t from 'tap';
import type { Test } from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, register, send, type SendOptions, type TestAgent } from '../helpers/agents.js';
import { WRITE_ROUTES, type WriteType } from '../../lib/record/types/index.js';
import { openApiDocument } from '../../api/openapi.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../helpers/fixtures.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';

const DAY = 24 * 60 * 60 * 1000;
const rationale = (n: number) => `The effect is plausible but the sample is small, reason number ${n}.`;
const credenceOf = async (s: TestService, ref: string) =>
  (await s.get('/v2/credence')).body.claims.find((c: { ref: string }) => c.ref === ref) as { credence: number; credenceVerified: number };

let runs = 0;

/** A commitment and its result (cross-checking what the seal assigned, matching unless `disagree`): both answers. */
async function check(
  t: Test,
  s: TestService,
  a: TestAgent,
  target: string,
  outcome: string,
  opts: { kind?: string; disagree?: boolean; checkKey?: boolean } = {},
) {
  // A bundle of its own each time: a commitment's id is its payload's hash without the ts.
  const bundle = make.bundle({ run: `make run-${++runs}` });
  const commit = await write(t, s, a, 'check.commit', make.commit(target, { kind: opts.kind ?? 'replication', bundle }), {
    checkKey: opts.checkKey,
  });
  let crossCheck = null;
  if (commit.body.crossCheck !== null) {
    const other = s.record.state.receipts.get(commit.body.crossCheck.receipt)!;
    const acc = other.result!.outputs.acc as number;
    crossCheck = { receipt: other.id, outputs: { acc: opts.disagree === true ? acc + 0.5 : acc } };
  }
  const result = await write(t, s, a, 'check.result', { commit: commit.body.id, outcome, outputs: { acc: 0.91 }, crossCheck });
  return { commit, result, id: commit.body.id as string, resultSeq: result.body.seq as number };
}

/** The answer schemas of the writes in the OpenAPI document, compiled by path. */
const ajv = new Ajv2020({ strict: false, allErrors: true });
const doc = openApiDocument() as any;
ajv.addSchema({ $id: 'openapi', components: doc.components });
const answerOf = (path: string): ValidateFunction =>
  ajv.compile(
    JSON.parse(
      JSON.stringify(doc.paths[path].post.responses['201'].content['application/json'].schema).replace(
        /"#\/components/g,
        '"openapi#/components',
      ),
    ),
  );
const COUNTED: WriteType[] = ['paper', 'review', 'check.commit', 'check.result', 'argument.file', 'argument.check'];
const answers = new Map(COUNTED.map((type) => [type, answerOf(WRITE_ROUTES[type].path)] as const));

/** Signs and posts a write that must be taken (201), its answer holding under its schema. */
async function write(t: Test, s: TestService, a: TestAgent, type: WriteType, members: Record<string, unknown>, opts: SendOptions = {}) {
  const r = await send(s, a, type, members, opts);
  t.equal(r.status, 201, r.text);
  const validate = answers.get(type)!;
  t.ok(validate(r.body), `${type}: the answer holds under its schema ${JSON.stringify(validate.errors)}`);
  return r;
}

/** The anchors of docs/credence.md's headings, as GitHub makes them. */
const HEADINGS = new Set(
  [...readFileSync(join(projectRoot, 'docs/credence.md'), 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) =>
    m[1]!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9 _-]/g, '')
      .replace(/ /g, '-'),
  ),
);

/** Asserts a counting answer or item: `counts`, and the note's rule (or no note at all). */
function counts(t: Test, body: any, expected: boolean, rule: string | null, what: string) {
  t.equal(body.counts, expected, `${what}: counts ${expected}`);
  if (rule === null) t.notOk('note' in body, `${what}: no note`);
  else {
    t.equal(body.note?.rule, rule, `${what}: note ${rule}`);
    const anchor = /\(docs\/credence\.md#([a-z-]+)\)\.$/.exec(body.note?.detail)?.[1];
    t.ok(
      anchor !== undefined && HEADINGS.has(anchor),
      `${what}: the detail ends with its docs link, a heading of docs/credence.md (${anchor})`,
    );
  }
}

async function world(t: Test, claims: number) {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const alice2 = await register(s, 'alice-two', { operatorId: 'lab-a', sponsor: alice });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const paper = await send(s, alice, 'paper', make.paper(claims));
  t.equal(paper.status, 201, paper.text);
  return { s, house, alice, alice2, bob, carol, claims: paper.body.claims as string[] };
}

t.test('reviews: the own operator, a counting one, not verified, a repeat, a replacement, outranked', async (t) => {
  const { s, house, alice2, bob, claims } = await world(t, 1);
  const [c1] = claims as [string];
  const review = (a: TestAgent, forecast: number, n = 1) => write(t, s, a, 'review', { claim: c1, forecast, rationale: rationale(n) });

  const before = await credenceOf(s, c1);
  const own = await review(alice2, 0.9);
  t.equal(own.status, 201, 'on the log all the same');
  counts(t, own.body, false, 'own-operator', "a review of its own operator's claim");
  t.match(own.body.note.detail, /claim of operator lab-a, whose agent filed this: the author operator's own evidence never counts/);
  t.same(await credenceOf(s, c1), before, 'and it moves nothing');

  const first = await review(house, 0.7);
  counts(t, first.body, true, null, "a verified operator's first review");

  const bob1 = await review(bob, 0.7);
  counts(t, bob1.body, true, 'not-verified', 'a review by an operator that is not verified');
  t.match(bob1.body.note.detail, /credence only, at weight 0\.25 \(operator lab-b's tier is unverified\)/);

  // The same review again (a later ts): it counts in the first one's place and changes no number.
  const moved = await credenceOf(s, c1);
  s.advance(1000);
  const bob2 = await review(bob, 0.7);
  counts(t, bob2.body, true, 'repeat', 'an identical review again');
  t.same(bob2.body.note.item, { kind: 'review', id: bob1.body.id, seq: bob1.body.seq }, 'naming the review it repeats');
  t.same(await credenceOf(s, c1), moved, 'the numbers are as they were');

  const bob3 = await review(bob, 0.2, 2);
  counts(t, bob3.body, true, 'replaces', 'a review the other way');
  t.same(bob3.body.note.item, { kind: 'review', id: bob2.body.id, seq: bob2.body.seq }, 'naming the review it replaces');

  // house replicates: its result replaces its review; a later review of house is outranked by the receipt.
  const rep = await check(t, s, house, c1, 'confirmed');
  counts(t, rep.commit.body, false, 'no-result', 'a commitment');
  t.match(rep.commit.body.note.detail, new RegExp(`file check\\.result before ${rep.commit.body.deadline.replace(/\./g, '\\.')}`));
  counts(t, rep.result.body, true, 'replaces', "a result after its operator's review");
  t.same(rep.result.body.note.item, { kind: 'review', id: first.body.id, seq: first.body.seq });
  const afterReceipt = await credenceOf(s, c1);
  const late = await review(house, 0.1, 3);
  counts(t, late.body, false, 'outranked', 'a review after its operator counts by a replication');
  t.same(late.body.note.item, { kind: 'receipt', id: rep.id, seq: rep.resultSeq }, 'naming the receipt that counts instead');
  t.same(await credenceOf(s, c1), afterReceipt, 'it moves nothing');

  // The lists say the same of each item, as it stands now.
  const bobs = (await s.get('/v2/agents/bob/reviews')).body.items;
  t.same(
    bobs.map((v: any) => [v.id, v.counts, v.note?.rule ?? null, v.note?.item?.id ?? null]),
    [
      [bob3.body.id, true, 'not-verified', null],
      [bob2.body.id, false, 'replaced', bob3.body.id],
      [bob1.body.id, false, 'replaced', bob3.body.id],
    ],
    "bob's reviews: the latest counts, the earlier ones were replaced by it",
  );
  const houses = (await s.get('/v2/agents/house')).body.reviews.items;
  t.same(
    houses.map((v: any) => [v.counts, v.note?.rule, v.note?.item?.id]),
    [
      [false, 'outranked', rep.id],
      [false, 'outranked', rep.id],
    ],
    "house's reviews: its replication counts instead",
  );
  const receipts = (await s.get('/v2/agents/house/receipts')).body.items;
  counts(t, receipts[0], true, null, "house's receipt in its list");
  counts(t, (await s.get('/v2/operators/lab-a')).body.reviews.items[0], false, 'own-operator', "the author operator's review in its list");
});

t.test('receipts: inconclusive, not verified, an outranked rerun, disowned, disputed', async (t) => {
  const { s, house, bob, carol, claims } = await world(t, 2);
  const [c1, c2] = claims as [string, string];

  const inconclusive = await check(t, s, bob, c1, 'inconclusive');
  counts(t, inconclusive.result.body, false, 'inconclusive', 'an inconclusive result');
  counts(t, (await s.get(`/v2/receipts/${inconclusive.id}`)).body, false, 'inconclusive', 'its read');

  const failed = await check(t, s, carol, c1, 'failed');
  counts(t, failed.result.body, true, 'not-verified', "an unverified operator's result");

  const replication = await check(t, s, house, c1, 'confirmed');
  counts(t, replication.result.body, true, null, "a verified operator's replication");
  const moved = await credenceOf(s, c1);
  const rerun = await check(t, s, house, c1, 'failed', { kind: 'rerun' });
  counts(t, rerun.result.body, false, 'outranked', 'a rerun after its operator replicated');
  t.same(rerun.result.body.note.item, { kind: 'receipt', id: replication.id, seq: replication.resultSeq });
  t.same(await credenceOf(s, c1), moved, 'the rerun moves nothing');
  // A confirmed rerun, outranked all the same, still makes the claim reproduced.
  const confirmed = await check(t, s, house, c1, 'confirmed', { kind: 'rerun' });
  counts(t, confirmed.result.body, true, 'outranked', 'a confirmed rerun after its operator replicated');
  t.match(
    confirmed.result.body.note.detail,
    /it moves no credence, but a confirmed rerun still counts towards reproduced \(docs\/credence\.md#dispute-use-reproduced-families\)\.$/,
  );
  t.same(await credenceOf(s, c1), { ...moved, reproduced: true }, 'it moves nothing but reproduced');
  counts(t, (await s.get(`/v2/receipts/${rerun.id}`)).body, false, 'outranked', 'the failed rerun read');

  // A commitment signed by a key revoked as compromised is disowned: its result counts 0.
  const dave: TestAgent = await register(s, 'dave', { operatorId: 'lab-d' });
  dave.checkKey = generateKeyPair();
  t.equal((await send(s, dave, 'key.delegate', { key: dave.checkKey.publicKey, scope: 'reports' })).status, 201);
  const compromisedAt = new Date(s.record.now()).toISOString();
  s.advance(1000);
  const review = await write(t, s, dave, 'review', { claim: c2, forecast: 0.8, rationale: rationale(1) }, { checkKey: true });
  counts(t, review.body, true, 'not-verified', 'a review before the key is revoked');
  const commit = await write(t, s, dave, 'check.commit', make.commit(c2), { checkKey: true });
  t.equal(commit.status, 201, commit.text);
  const revoked = await send(s, dave, 'key.revoke', { key: dave.checkKey.publicKey, compromisedAt });
  t.equal(revoked.body.disowned.length, 2, revoked.text);
  const result = await write(t, s, dave, 'check.result', {
    commit: commit.body.id,
    outcome: 'confirmed',
    outputs: { acc: 0.9 },
    crossCheck: null,
  });
  t.equal(result.status, 201, result.text);
  counts(t, result.body, false, 'disowned', 'the result of a disowned commitment');
  counts(t, (await s.get('/v2/agents/dave')).body.reviews.items[0], false, 'disowned', 'the disowned review in its list');

  // A verified operator's cross-check disagrees: the receipt it re-ran is disputed.
  const erin = await register(s, 'erin', { operatorId: 'lab-e' });
  const erins = await check(t, s, erin, c2, 'confirmed');
  counts(t, erins.result.body, true, 'not-verified', "erin's result");
  const disputing = await check(t, s, house, c2, 'confirmed', { disagree: true });
  t.equal(disputing.result.body.crossMatch, false);
  const read = (await s.get(`/v2/receipts/${erins.id}`)).body;
  counts(t, read, false, 'disputed', 'a receipt a verified cross-check disagreed with');
  t.same(read.note.item, { kind: 'receipt', id: disputing.id, seq: disputing.resultSeq });
});

t.test('a receipt that lapsed counts nothing, and its read says so', async (t) => {
  const { s, bob, claims } = await world(t, 1);
  const commit = await write(t, s, bob, 'check.commit', make.commit(claims[0]!));
  counts(t, commit.body, false, 'no-result', 'a commitment');
  s.advance(7 * DAY + 1000);
  await s.tick();
  const read = (await s.get(`/v2/receipts/${commit.body.id}`)).body;
  t.equal(read.stage, 'lapsed');
  counts(t, read, false, 'lapsed', 'a lapsed receipt');
});

t.test('capped: past the cap on operators that are not verified, an item moves no credence', async (t) => {
  const { s, claims } = await world(t, 1);
  const [c1] = claims as [string];
  // Three failed replications at weight 1/4: 3 * -(1/4) ln 6 = -1.344, past -ln 3.
  const ops = await Promise.all(['u1', 'u2', 'u3', 'u4', 'u5'].map((h) => register(s, h, { operatorId: `lab-${h}` })));
  await check(t, s, ops[0]!, c1, 'failed');
  await check(t, s, ops[1]!, c1, 'failed');
  const before = await credenceOf(s, c1);
  const third = await check(t, s, ops[2]!, c1, 'failed');
  counts(t, third.result.body, true, 'not-verified', 'the third, which the cap cuts short but which still moves credence');
  const atCap = await credenceOf(s, c1);
  t.ok(atCap.credence < before.credence, 'it moved credence');
  const fourth = await check(t, s, ops[3]!, c1, 'failed');
  counts(t, fourth.result.body, true, 'capped', 'a fourth');
  t.match(
    fourth.result.body.note.detail,
    /everything from operators that are not verified is held within \[-ln 3, \+ln 3\], and on .* that sum is at the cap/,
  );
  const review = await write(t, s, ops[4]!, 'review', { claim: c1, forecast: 0.2, rationale: rationale(1) });
  counts(t, review.body, true, 'capped', 'a review against it');
  t.same(await credenceOf(s, c1), atCap, 'neither moved credence');
});

t.test(
  'arguments and their checks: own operator, open, not verified, qualifies, repeat, replaces, shared voice, outranked, dismissed',
  async (t) => {
    const { s, house, alice, alice2, bob, carol, claims } = await world(t, 5);
    const [v1, v2, v3, c4, c5] = claims as [string, string, string, string, string];
    // A second verified operator: three receipts of lab-v matched by the cross-checks of the house's.
    const vera = await register(s, 'vera', { operatorId: 'lab-v' });
    for (const c of [v1, v2, v3]) {
      await check(t, s, vera, c, 'confirmed');
      t.equal((await check(t, s, house, c, 'confirmed')).result.body.crossMatch, true);
    }
    t.ok(s.record.state.verified.has('lab-v'), 'lab-v is verified by the record');

    const argue = async (a: TestAgent, claim: string, extra: Record<string, unknown>) => {
      const r = await write(t, s, a, 'argument.file', make.argument(claim, extra));
      return r;
    };
    const checkArg = async (a: TestAgent, argument: string, holds: boolean, models?: string[]) => {
      s.advance(1000);
      const r = await write(t, s, a, 'argument.check', {
        argument,
        holds,
        note: 'Re-read the premises and the data.',
        ...(models ? { models } : {}),
      });
      return r;
    };

    const a1 = await argue(bob, c4, {});
    counts(t, a1.body, false, 'open', 'an argument filed');
    const own = await argue(alice2, c4, { stance: 'supports' });
    counts(t, own.body, false, 'own-operator', "an argument on its own operator's claim");

    counts(t, (await checkArg(carol, a1.body.id, true)).body, false, 'not-verified', 'a check by an operator not verified');
    counts(t, (await checkArg(alice, a1.body.id, true)).body, false, 'own-operator', "a check by the claim's author operator");
    const q = await argue(carol, c5, { stance: 'qualifies' });
    counts(t, (await checkArg(bob, q.body.id, true)).body, false, 'qualifies', 'an unverified check of a qualifies argument');

    const h1 = await checkArg(house, a1.body.id, true);
    counts(t, h1.body, true, null, "a verified operator's check");
    t.equal(h1.body.replaced, null);
    const h2 = await checkArg(house, a1.body.id, true);
    counts(t, h2.body, true, 'repeat', 'the same check again');
    t.same(h2.body.note.item, { kind: 'check', seq: h1.body.seq });
    t.same(h2.body.replaced, { holds: true, models: [], seq: h1.body.seq }, 'the answer names the check it replaced');
    const h3 = await checkArg(house, a1.body.id, false);
    counts(t, h3.body, true, 'replaces', 'a check the other way');
    t.same(h3.body.note.item, { kind: 'check', seq: h2.body.seq });
    await checkArg(house, a1.body.id, true);
    const upheld = await checkArg(vera, a1.body.id, true);
    counts(t, upheld.body, true, null, 'the check that settles it');
    t.equal(upheld.body.status, 'upheld');

    // Two verified operators of the same model family have one voice between them.
    const a2 = await argue(bob, c4, { grounds: 'counterexample', instance: { text: 'n = 3 gives 7, not 8' } });
    await checkArg(house, a2.body.id, true, ['gpt-4o']);
    const shared = await checkArg(vera, a2.body.id, true, ['gpt-4o']);
    counts(t, shared.body, true, 'shared-voice', 'a check sharing its family set');
    t.equal(shared.body.status, 'open', 'one voice does not settle it');
    t.equal(shared.body.note.item.kind, 'check');
    const own2 = await checkArg(vera, a2.body.id, true);
    counts(t, own2.body, true, 'replaces', 'a check declaring no models: a voice of its own');
    t.equal(own2.body.status, 'upheld');

    // bob's two upheld refutations: the stronger counts (-ln 6 from prior 0.685: 0.2660), the other is outranked.
    t.match(await credenceOf(s, c4), { credence: 0.266 });
    const listed = (await s.get(`/v2/arguments?claim=${encodeURIComponent(c4)}`)).body.arguments;
    const byId = new Map<string, any>(listed.map((a: any) => [a.id, a]));
    counts(t, byId.get(a1.body.id), false, 'outranked', 'the weaker upheld refutation');
    t.same(byId.get(a1.body.id).note.item, { kind: 'argument', id: a2.body.id, seq: a2.body.seq });
    counts(t, byId.get(a2.body.id), true, null, 'the stronger');
    counts(t, byId.get(own.body.id), false, 'own-operator', "the author operator's argument");
    const checks = new Map<string, any>(byId.get(a1.body.id).checks.map((c: any) => [c.operatorId, c]));
    t.same(
      ['lab-c', 'lab-a', 'op_archive', 'lab-v'].map((op) => [checks.get(op).counts, checks.get(op).countsNote?.rule ?? null]),
      [
        [false, 'not-verified'],
        [false, 'own-operator'],
        [true, null],
        [true, null],
      ],
      "each check of the list: whether it has a voice, and the rule when not (its `note` is the check's text)",
    );
    t.equal(checks.get('lab-c').note, 'Re-read the premises and the data.');
    counts(t, (await s.get(`/v2/arguments/${q.body.id}`)).body, false, 'open', 'an open argument read alone');
    t.equal((await s.get(`/v2/arguments/${q.body.id}`)).body.checks[0].countsNote.rule, 'qualifies');

    // Dismissed on an empirical claim: it moves nothing.
    const a3 = await argue(carol, c5, { grounds: 'unsupported-premise' });
    await checkArg(house, a3.body.id, false);
    t.equal((await checkArg(vera, a3.body.id, false)).body.status, 'dismissed');
    counts(t, (await s.get(`/v2/arguments/${a3.body.id}`)).body, false, 'dismissed', 'a dismissed argument');
    counts(t, (await s.get('/v2/agents/carol/arguments')).body.items[0], false, 'dismissed', 'in its list');
  },
);

t.test('papers: what each adds to the use of the claims it builds on', async (t) => {
  const { s, house, alice, bob, claims } = await world(t, 1);
  const [c1] = claims as [string];
  const [paper] = c1.split('#') as [string];
  const extending = {
    builds_on: [
      { id: paper, rel: 'extends', basis: 'reviewed', claims: ['C1'], note: 'We extend the first claim of it to larger models.' },
    ],
  };
  const useOf = async () => ((await s.get('/v2/credence')).body.claims.find((c: any) => c.ref === c1) as { use: number }).use;

  const own = await write(t, s, alice, 'paper', make.paper(1, extending));
  t.equal(own.body.foundations.length, 1);
  t.equal(own.body.foundations[0].ref, c1);
  counts(t, own.body.foundations[0], false, 'own-operator', "a paper building on its own operator's claim");
  t.equal(await useOf(), 0, 'no use');

  const first = await write(t, s, bob, 'paper', make.paper(1, extending));
  counts(t, first.body.foundations[0], true, 'not-verified', "an unverified operator's paper");
  t.match(first.body.foundations[0].note.detail, /adds 0\.25 to the use/);
  t.equal(await useOf(), 0.25);
  const again = await write(t, s, bob, 'paper', make.paper(1, extending));
  counts(t, again.body.foundations[0], false, 'relied-on-already', 'a second paper of the same operator');
  t.same(again.body.foundations[0].note.item, { kind: 'paper', id: first.body.id, seq: first.body.seq });
  t.equal(await useOf(), 0.25, 'use is as it was');

  const verified = await write(t, s, house, 'paper', make.paper(1, extending));
  counts(t, verified.body.foundations[0], true, null, "a verified operator's paper");
  t.equal(await useOf(), 1.25);
  t.same((await write(t, s, house, 'paper', make.paper(1))).body.foundations, [], 'a paper building on nothing: no foundations');
});

t.test('/skill.md says which writes count nothing and what their answers carry', async (t) => {
  const s = await startService(t);
  const skill = (await s.get('/skill.md')).text;
  t.match(skill, /\*\*Writes that count nothing\.\*\* A write can be taken \(201, on the log\) and yet count nothing/);
  t.match(skill, /`counts` \(true or false\) and, when a rule applies, `note: \{rule, detail, item\?\}`/);
  t.match(skill, /a paper answers `foundations`/);
});

t.test('the explorer marks the reviews and receipts it lists with what each counts, as the reads say', async (t) => {
  const { s, alice2, bob, claims } = await world(t, 1);
  const [c1] = claims as [string];
  const html = async (path: string) => {
    const r = await fetch(`${s.url}${path}`, { headers: { accept: 'text/html' } });
    t.equal(r.status, 200, path);
    return r.text();
  };
  const review = (a: TestAgent) => write(t, s, a, 'review', { claim: c1, forecast: 0.7, rationale: rationale(1) });
  await review(alice2);
  const first = await review(bob);
  s.advance(1000);
  const second = await review(bob);
  const receipt = await check(t, s, bob, c1, 'inconclusive');

  const mark = (rule: string, counts: boolean) =>
    `<small class="${counts ? 'counts' : 'uncounted'}" data-rule="${rule}">${counts ? 'counts' : 'counts nothing'}, ${rule}: `;
  const own = await html('/explore/agents/alice-two');
  t.match(own, mark('own-operator', false), "a review of its own operator's claim: counts nothing");
  const bobs = /<ul class="items" id="reviews-list">(.*?)<\/ul>/s.exec(await html('/explore/agents/bob'))![1]!.split('</li>');
  t.match(bobs[0], new RegExp(`${second.body.seq}.*${mark('not-verified', true).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 's'));
  t.match(bobs[1], new RegExp(`${first.body.seq}.*${mark('replaced', false)}Operator lab-b&#39;s later review ${second.body.id}`, 's'));
  t.match(await html(`/explore/agents/bob`), mark('inconclusive', false), 'its inconclusive receipt');
  const claimPage = await html(`/explore/claims/${encodeURIComponent(c1)}`);
  t.match(claimPage, mark('own-operator', false), "the claim's page marks the same");
  t.match(claimPage, mark('replaced', false));
  t.match(await html(`/explore/receipts/${receipt.id}`), `On its claim: ${mark('inconclusive', false)}`);
});
