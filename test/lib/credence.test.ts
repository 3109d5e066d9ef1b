// credence/0.3 (docs/credence.md), rule by rule, with the numbers worked by hand in the
// comments: logit(p) = ln(p / (1 - p)), sigmoid(x) = 1 / (1 + e^-x). The claims are scored by the
// real fold (test/helpers/fold.ts): entries checked and applied as the live record does.
import t, { type Test } from 'tap';
import { Fold } from '../helpers/fold.js';
import {
  anchor,
  calibration,
  calibrationTerm,
  compress,
  dispute,
  establishedAt,
  evidenceStep,
  familyFactor,
  priorOf,
  valueOfChecking,
  claimScore,
  rescoreAll,
} from '../../lib/record/numbers/index.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';

const LN4 = Math.log(4);
const LN6 = Math.log(6);
const LN3 = Math.log(3);
const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
/** Equal to within the rounding of the last digit served (4 decimals). */
const near = (t: Test, got: number, want: number, what: string) => t.ok(Math.abs(got - want) < 5e-5, `${what}: ${got} ~ ${want}`);

/** Operators v1, v2, v3 are verified from the start (as the deployment's own is by genesis). */
function world(): Fold {
  const f = new Fold(['op_archive', 'v1', 'v2', 'v3']);
  f.agent('author', 'lab-a');
  f.agent('ver-one', 'v1');
  f.agent('ver-two', 'v2');
  f.agent('ver-three', 'v3');
  f.agent('un-one', 'lab-u');
  f.agent('un-two', 'lab-w');
  f.agent('un-three', 'lab-z');
  f.agent('acct', 'op_acct');
  f.agent('author-too', 'lab-a');
  f.agent('house', 'op_archive');
  return f;
}

/** Every claim rescored from nothing gives the numbers the fold kept as entries landed. */
function sameFromScratch(t: Test, f: Fold): void {
  const served = () => canonicalize([...f.state.numbers.index.refs].map((ref) => claimScore(f.state, ref)));
  const kept = served();
  const keptRaw = canonicalize([...f.state.numbers.scores.values()].map((s) => ({ ...s })));
  rescoreAll(f.state);
  t.equal(served(), kept, 'incremental numbers equal the numbers from scratch');
  t.equal(canonicalize([...f.state.numbers.scores.values()].map((s) => ({ ...s }))), keptRaw, 'to the last bit, unrounded');
}

t.test('the rules as arithmetic', async (t) => {
  // Steps and masses.
  t.same(evidenceStep('replication', true), { e: LN4, mass: 1 });
  t.same(evidenceStep('replication', false), { e: -LN6, mass: 1 });
  t.same(evidenceStep('rerun', true), { e: LN4 / 4, mass: 0.5 });
  t.same(evidenceStep('rerun', false), { e: -LN6 / 2, mass: 0.5 });
  t.same(evidenceStep('review', true), { e: LN4 / 4, mass: 0.25 });
  t.same(evidenceStep('review', false), { e: -LN4 / 4, mass: 0.25 });
  // Compression: unchanged up to 8; 10 -> 8 + 4 tanh(0.5) = 9.8485; never past 12.
  t.equal(compress(8), 8);
  t.equal(compress(-3.5), -3.5);
  near(t, compress(10), 9.8485, 'compress(10)');
  near(t, compress(-10), -9.8485, 'compress(-10)');
  t.ok(compress(1e6) <= 12 && compress(1e6) > 11.99, 'bounded by 12 (and sigmoid(12) = 0.999994 < 1)');
  // Calibration: a newcomer 0.5; one claim at 0.8 that resolved established: (2 + 1 - 2 (0.2)^2) / 5 = 0.584.
  t.equal(calibration(0, 0), 0.5);
  near(t, calibration(calibrationTerm(0.8, 1), 1), 0.584, 'rho after one good call');
  // One at 0.9 that was refuted: (2 + 1 - 2 (0.9)^2) / 5 = 0.276; four such: (2 + 4 (1 - 1.62)) / 8 = -0.06 -> clamped to 0.
  near(t, calibration(calibrationTerm(0.9, 0), 1), 0.276, 'rho after one bad call');
  t.equal(calibration(4 * calibrationTerm(0.9, 0), 4), 0, 'clamped at 0');
  // a and the prior: rho 0.5, q 0.8 -> a 0.65 -> prior 0.1 + 0.9 * 0.65 = 0.685.
  t.equal(anchor(0.5, 0.8), 0.65);
  near(t, priorOf(0.65, 1), 0.685, 'prior');
  t.equal(anchor(0.9, null), 0.5, 'external claims: a = 0.5');
  t.equal(priorOf(0, 0), 0.1, 'no less than 0.1 from a');
  // Family factor: S = {anthropic}, one earlier same-way item {anthropic, openai}: 1 - 0.5 * 1/1 = 0.5;
  // S = {anthropic, google}: 1 - 0.5 * 1/2 = 0.75; two such earlier items: 0.75^2.
  t.equal(familyFactor(['anthropic'], [['anthropic', 'openai']]), 0.5);
  t.equal(familyFactor(['anthropic', 'google'], [['anthropic']]), 0.75);
  t.equal(familyFactor(['anthropic', 'google'], [['anthropic'], ['google']]), 0.5625);
  t.equal(familyFactor([], [['anthropic']]), 1, 'undeclared: not discounted');
  t.equal(familyFactor(['meta'], [[]]), 1, 'an undeclared earlier item shares no family');
  // Dispute 4sf/(s+f): s = f = 1 -> 2; s = 1, f = 0.25 -> 0.8; nothing -> 0.
  t.equal(dispute(1, 1), 2);
  t.equal(dispute(1, 0.25), 0.8);
  t.equal(dispute(0, 0), 0);
  // Established threshold 1 - 0.1 e^(-use/5): use 0 -> 0.9; use 5 -> 1 - 0.1/e = 0.96321.
  t.equal(establishedAt(0), 0.9);
  near(t, establishedAt(5), 0.96321, 'use 5');
  // Value of checking (use + 0.5) p (1 - p): use 0, p 0.5 -> 0.125.
  t.equal(valueOfChecking(0, 0.5), 0.125);
});

t.test('the worked example of docs/credence.md', async (t) => {
  const f = world();
  const [c] = f.paper('author', [{ confidence: 0.8 }]);
  // A new operator at 0.8: rho 0.5, a 0.65, prior 0.685, credence 0.685, unchecked.
  let s = claimScore(f.state, c!);
  t.match(s, {
    calibration: 0.5,
    prior: 0.685,
    credence: 0.685,
    credenceVerified: 0.685,
    status: 'unchecked',
    dispute: 0,
    use: 0,
    cap: null,
    resolved: null,
  });
  // A verified operator files a confirmed replication: L = logit(0.685) + ln 4 = 2.1631 -> 0.8969, supported.
  f.receipt('ver-one', c!, 'confirmed');
  s = claimScore(f.state, c!);
  t.match(s, { credence: 0.8969, credenceVerified: 0.8969, status: 'supported' });
  // An unverified operator files a failed replication: w = 1/4, L adds -(1/4) ln 6 -> 0.8475;
  // credenceVerified stays 0.8969; dispute 0 (only verified items count in s and f).
  f.receipt('un-one', c!, 'failed');
  s = claimScore(f.state, c!);
  t.match(s, { credence: 0.8475, credenceVerified: 0.8969, dispute: 0, status: 'supported' });
  // A third, unverified operator reviews at 0.3: L adds -(1/4)(1/4) ln 4 -> 0.8360.
  f.review('un-two', c!, 0.3);
  s = claimScore(f.state, c!);
  t.match(s, { credence: 0.836, credenceVerified: 0.8969, status: 'supported' });
  near(t, f.score(c!).credence, sigmoid(logit(0.685) + LN4 - LN6 / 4 - LN4 / 16), 'unrounded');
  sameFromScratch(t, f);
});

t.test('who counts: one item per operator, its strongest kind and of that its latest; never the author', async (t) => {
  const f = world();
  const [c] = f.paper('author');
  const base = f.score(c!).credence;
  // The author's own operator: another of its agents reviews; nothing moves.
  f.review('author-too', c!, 0.99);
  t.equal(f.score(c!).credence, base, 'the author operator counts 0');
  // A verified review at 0.9, then the same operator's replication: the replication replaces it.
  f.review('ver-one', c!, 0.9);
  near(t, f.score(c!).credence, sigmoid(logit(0.685) + LN4 / 4), 'a verified review: +(1/4) ln 4');
  f.receipt('ver-one', c!, 'confirmed');
  near(t, f.score(c!).credence, sigmoid(logit(0.685) + LN4), 'its replication is its one item: +ln 4, not +1.25 ln 4');
  // A later review by it changes nothing: the replication is the stronger kind.
  f.review('ver-one', c!, 0.1);
  near(t, f.score(c!).credence, sigmoid(logit(0.685) + LN4), 'a weaker kind does not replace a stronger one');
  // Of two reviews by one operator, the latest counts: 0.9 then 0.2 -> -(1/4) ln 4 only.
  f.review('ver-two', c!, 0.9);
  f.review('ver-two', c!, 0.2);
  near(t, f.score(c!).credence, sigmoid(logit(0.685) + LN4 - LN4 / 4), 'the latest review of an operator');
  // An inconclusive replication counts 0.
  f.receipt('ver-three', c!, 'inconclusive');
  near(t, f.score(c!).credence, sigmoid(logit(0.685) + LN4 - LN4 / 4), 'inconclusive: nothing');
  sameFromScratch(t, f);
});

t.test('reruns, tier weights and the caps on reviews and on operators that are not verified', async (t) => {
  const f = world();
  const [c1, c2, c3] = f.paper('author', [{}, {}, {}]);
  // A verified rerun confirmed: +(1/4) ln 4, reproduced; not `supported` (no replication).
  f.receipt('ver-one', c1!, 'confirmed', { kind: 'rerun' });
  t.match(claimScore(f.state, c1!), { reproduced: true, status: 'unchecked' });
  near(t, f.score(c1!).credence, sigmoid(logit(0.685) + LN4 / 4), 'rerun confirmed');
  // A verified rerun failed: -(1/2) ln 6, mass 1/2 against.
  f.receipt('ver-two', c1!, 'failed', { kind: 'rerun' });
  near(t, f.score(c1!).credence, sigmoid(logit(0.685) + LN4 / 4 - LN6 / 2), 'rerun failed');
  near(t, f.score(c1!).dispute, (4 * 0.5 * 0.5) / 1, 'dispute: s = f = 1/2 -> 1');
  // An account operator's (op_) confirmed replication weighs 1/2: +(1/2) ln 4.
  f.receipt('acct', c2!, 'confirmed');
  near(t, f.score(c2!).credence, sigmoid(logit(0.685) + LN4 / 2), 'tier account: 1/2');
  // Three unverified confirmed replications would add 3 (1/4) ln 4 = 1.04; with the account one
  // (0.69) that is 1.73 > ln 3 = 1.0986: capped at ln 3.
  f.receipt('un-one', c2!, 'confirmed');
  f.receipt('un-two', c2!, 'confirmed');
  f.receipt('un-three', c2!, 'confirmed');
  near(t, f.score(c2!).credence, sigmoid(logit(0.685) + LN3), 'operators not verified: within ln 3');
  t.equal(claimScore(f.state, c2!).status, 'unchecked', 'and never a status');
  near(t, f.score(c2!).credenceVerified, 0.685, 'credenceVerified: verified items alone');
  // Verified reviews: four at +(1/4) ln 4 = 1.386 -> capped at ln 3 = 1.0986; the unverified
  // reviews then have no room under the cap on all reviews.
  for (const h of ['ver-one', 'ver-two', 'ver-three', 'house']) f.review(h, c3!, 0.9);
  near(t, f.score(c3!).credence, sigmoid(logit(0.685) + LN3), 'four verified reviews: 1.386 -> ln 3');
  f.review('un-one', c3!, 0.9);
  near(t, f.score(c3!).credence, sigmoid(logit(0.685) + LN3), 'all reviews together: within ln 3');
  // A negative unverified review may still pull the total back: 1.0986 - 0.0866.
  f.review('un-two', c3!, 0.1);
  f.review('un-one', c3!, 0.1);
  near(t, f.score(c3!).credence, sigmoid(logit(0.685) + LN3 - LN4 / 8), 'reviews sum then cap: ln 3 + (1/16 - 1/16 - 1/16) ln 4');
  sameFromScratch(t, f);
});

t.test('model families: same-family evidence is discounted; `established` needs two families and two operators', async (t) => {
  const f = world();
  const [c1, c2] = f.paper('author', [{}, {}]);
  // Two verified confirming replications of one family: the second weighs 1 - 0.5 * 1/1 = 0.5.
  f.receipt('ver-one', c1!, 'confirmed', { models: ['claude-3-opus'] });
  f.receipt('ver-two', c1!, 'confirmed', { models: ['claude-3.5-sonnet'] });
  near(t, f.score(c1!).credence, sigmoid(logit(0.685) + 1.5 * LN4), 'second same-family item at half weight: 0.9456');
  t.match(claimScore(f.state, c1!), { families: ['anthropic'], status: 'supported', resolved: null }, 'one family: not established');
  // Two families, two operators: L = logit(0.685) + 2 ln 4 = 3.55 -> 0.9721 >= 0.9 at use 0: established.
  f.receipt('ver-one', c2!, 'confirmed', { models: ['claude-3-opus'] });
  f.receipt('ver-two', c2!, 'confirmed', { models: ['gpt-4o'] });
  t.match(claimScore(f.state, c2!), { credence: 0.9721, families: ['anthropic', 'openai'], status: 'established', resolved: 1 });
  near(t, f.score(c2!).s, 2, 's: two replications of mass 1');
  sameFromScratch(t, f);
});

t.test('statuses: refuted, contested; a verified failure is what refutes', async (t) => {
  const f = world();
  const [c1, c2] = f.paper('author', [{}, {}]);
  // One confirming and one failed verified replication: r = 1/2, 4 r (1 - r) = 1 >= 0.5: contested.
  // L = logit(0.685) + ln 4 - ln 6 = 0.3714 -> 0.5918; dispute 4 * 1 * 1 / 2 = 2.
  f.receipt('ver-one', c1!, 'confirmed');
  f.receipt('ver-two', c1!, 'failed');
  t.match(claimScore(f.state, c1!), { credence: 0.5918, status: 'contested', dispute: 2, resolved: null });
  // Two verified failed replications: L = 0.7768 - 2 ln 6 = -2.807 -> 0.0570 <= 0.35: refuted, resolved 0.
  f.receipt('ver-one', c2!, 'failed');
  f.receipt('ver-two', c2!, 'failed');
  t.match(claimScore(f.state, c2!), { credence: 0.057, status: 'refuted', resolved: 0 });
  sameFromScratch(t, f);
});

t.test('arguments: settled ones that hold move credence as their grounds say; qualifies caps it', async (t) => {
  const f = world();
  const [c1, c2, c3, c4] = f.paper('author', [{}, {}, {}, {}]);
  const uphold = (a: string) => {
    f.checkArg('ver-two', a, true, ['claude-3']);
    f.checkArg('ver-three', a, true, ['gpt-4']);
  };
  // Refutes on a counterexample: -ln 6 -> logit(0.685) - ln 6 = -1.015 -> 0.2660; refuted
  // (credenceVerified <= 0.35 with a settled refutation).
  uphold(f.argue('un-one', c1!, 'refutes', 'counterexample'));
  t.match(claimScore(f.state, c1!), {
    credence: 0.266,
    status: 'refuted',
    resolved: 0,
    arguments: { refutes: { upheld: 1, open: 0, dismissed: 0 } },
  });
  // Refutes on other grounds: -ln 3 -> 0.4202: not low enough to be refuted.
  uphold(f.argue('un-one', c2!, 'refutes', 'methodological-flaw'));
  t.match(claimScore(f.state, c2!), { credence: 0.4202, status: 'unchecked' });
  // A second upheld refutation by the same operator counts once (its strongest).
  uphold(f.argue('un-one', c2!, 'refutes', 'counterexample'));
  near(t, f.score(c2!).credence, sigmoid(logit(0.685) - LN6), 'one argument per operator: the strongest');
  // Supports: +(1/4) ln 4.
  uphold(f.argue('un-two', c3!, 'supports', 'logical-gap'));
  near(t, f.score(c3!).credence, sigmoid(logit(0.685) + LN4 / 4), 'supports');
  // Qualifies caps at 0.8: two verified replications would give 0.9721; capped, cap served.
  f.receipt('ver-one', c4!, 'confirmed', { models: ['claude-3'] });
  f.receipt('ver-two', c4!, 'confirmed', { models: ['gpt-4'] });
  const q = f.argue('un-one', c4!, 'qualifies', 'statistical-insufficiency');
  f.checkArg('ver-one', q, true, ['claude-3']);
  f.checkArg('ver-three', q, true, ['gemini-pro']);
  t.match(claimScore(f.state, c4!), { credence: 0.8, credenceVerified: 0.8, cap: 0.8, status: 'supported' }, 'capped below established');
  // A dismissed attack moves nothing.
  const before = f.score(c3!).credence;
  const d = f.argue('un-three', c3!, 'refutes', 'counterexample');
  f.checkArg('ver-one', d, false);
  f.checkArg('ver-two', d, false);
  t.equal(f.score(c3!).credence, before, 'dismissed: no step');
  t.match(claimScore(f.state, c3!).arguments, { refutes: { dismissed: 1 }, supports: { upheld: 1 } });
  sameFromScratch(t, f);
});

t.test('conceptual claims: refuted, contested while capped, supported after two dismissed attacks', async (t) => {
  const f = world();
  const [c1, c2, c3] = f.paper('author', [{ kind: 'conceptual' }, { kind: 'conceptual' }, { kind: 'conceptual' }]);
  const settle = (a: string, holds: boolean) => {
    f.checkArg('ver-one', a, holds);
    f.checkArg('ver-two', a, holds);
  };
  settle(f.argue('un-one', c1!, 'refutes', 'contradiction'), true);
  t.match(claimScore(f.state, c1!), { status: 'refuted', resolved: 0 });
  t.same(claimScore(f.state, c1!).lift, [], 'a conceptual claim gains nothing from a replication');
  settle(f.argue('un-one', c2!, 'qualifies', 'logical-gap'), true);
  t.match(claimScore(f.state, c2!), { status: 'contested', cap: 0.8 });
  settle(f.argue('un-one', c3!, 'refutes', 'logical-gap'), false);
  t.equal(claimScore(f.state, c3!).status, 'unchecked', 'one dismissed attack');
  settle(f.argue('un-two', c3!, 'qualifies', 'logical-gap'), false);
  // credenceVerified = prior 0.685 >= 0.6; two attacks dismissed by verified operators v1 and v2.
  t.match(claimScore(f.state, c3!), { status: 'supported', resolved: null });
  sameFromScratch(t, f);
});

t.test('foundations, use and lift', async (t) => {
  const f = world();
  f.agent('builder', 'lab-b');
  const [p1] = f.paper('author', [{}]);
  f.receipt('ver-one', p1!, 'confirmed');
  const parent = p1!.split('#')[0]!;
  // A paper extending claim C1: prior = 0.1 + 0.9 * 0.65 * credence(parent) = 0.1 + 0.585 * 0.8969 = 0.6247.
  const [child] = f.paper(
    'builder',
    [{ confidence: 0.8 }],
    [{ id: parent, rel: 'extends', basis: 'reproduced', claims: ['C1'], note: 'Relied on the measured effect as the baseline.' }],
  );
  t.match(claimScore(f.state, child!), {
    prior: 0.6247,
    credence: 0.6247,
    foundations: [{ ref: p1, credence: 0.8969, status: 'supported' }],
  });
  // use of the parent: one later paper of an unverified operator: 1/4.
  t.equal(claimScore(f.state, p1!).use, 0.25);
  // A background parent is not a foundation, and the author's own later papers add no use.
  f.paper(
    'author',
    [{}],
    [{ id: parent, rel: 'extends', basis: 'reviewed', claims: ['C1'], note: 'The same operator builds on it again here.' }],
  );
  f.paper('un-one', [{}], [{ id: parent, rel: 'background' }]);
  t.equal(claimScore(f.state, p1!).use, 0.25, 'own and background papers: no use');
  // Lift: the parent gaining a verified replication of a new family: 0.9721, child prior
  // 0.1 + 0.585 * 0.9721 = 0.6687; the child itself gaining one: logit(0.6247) + ln 4 -> 0.8694.
  const lift = claimScore(f.state, child!).lift;
  t.match(lift, [
    { ref: child, from: 0.6247, to: 0.8694 },
    { ref: p1, from: 0.6247, to: 0.6687 },
  ]);
  // The parent moves: the child's prior moves with it (incrementally).
  f.receipt('ver-two', p1!, 'failed');
  const pc = f.score(p1!).credence;
  near(t, f.score(child!).prior, 0.1 + 0.585 * pc, 'child prior follows the parent');
  // An external foundation weighs 1 until verified evidence counts against it.
  const ext = f.external('un-two', 'Larger models are always better at everything.');
  const [grand] = f.paper(
    'builder',
    [{}],
    [{ id: ext.split('#')[0], rel: 'method', basis: 'reviewed', claims: ['C1'], note: 'Used its method as described in the paper.' }],
  );
  near(t, f.score(grand!).prior, 0.685, 'external foundation: factor 1');
  f.receipt('ver-one', ext, 'failed');
  // ext: prior 0.55 (a = 0.5), credenceVerified sigmoid(logit(0.55) - ln 6) = 0.1692; factor 0.1692 / 0.55 = 0.3077.
  const factor = sigmoid(logit(0.55) - LN6) / 0.55;
  near(t, f.score(grand!).prior, 0.1 + 0.585 * factor, 'external foundation: credenceVerified / prior');
  sameFromScratch(t, f);
});

t.test("calibration: the author operator's earlier resolved claims set its later priors", async (t) => {
  const f = world();
  const [first] = f.paper('author', [{ confidence: 0.8 }]);
  const [second] = f.paper('author', [{ confidence: 0.8 }]);
  t.equal(claimScore(f.state, second!).calibration, 0.5);
  // The first is established (resolved 1): rho = (2 + 1 - 2 (0.8 - 1)^2) / 5 = 0.584;
  // a = 0.5 + 0.584 * 0.3 = 0.6752; prior 0.1 + 0.9 * 0.6752 = 0.7077.
  f.receipt('ver-one', first!, 'confirmed', { models: ['claude-3'] });
  f.receipt('ver-two', first!, 'confirmed', { models: ['gpt-4'] });
  t.equal(claimScore(f.state, first!).resolved, 1);
  t.match(claimScore(f.state, second!), { calibration: 0.584, prior: 0.7077 });
  t.equal(claimScore(f.state, first!).calibration, 0.5, 'only claims published earlier count');
  // Later it fails twice more (contested): unresolved again, and the second's prior falls back.
  f.receipt('ver-three', first!, 'failed');
  t.equal(claimScore(f.state, first!).resolved, null);
  t.match(claimScore(f.state, second!), { calibration: 0.5, prior: 0.685 });
  sameFromScratch(t, f);
});

t.test('operators verified by the record: three receipts a verified operator matched, in rounds; voided when two dispute', async (t) => {
  const f = world();
  f.agent('rook', 'lab-r');
  f.agent('knight', 'lab-k');
  const claims = f.paper('author', [{}, {}, {}, {}, {}]);
  // lab-r files confirmed replications on three claims; unverified, each weighs 1/4.
  for (const c of claims.slice(0, 3)) f.receipt('rook', c, 'confirmed');
  near(t, f.score(claims[0]!).credence, sigmoid(logit(0.685) + LN4 / 4), 'lab-r not verified: 1/4');
  t.notOk(f.state.verified.has('lab-r'));
  // ver-one (v1, round 0) re-runs each as its cross-check, and they match.
  f.receipt('ver-one', claims[0]!, 'confirmed');
  f.receipt('ver-one', claims[1]!, 'confirmed');
  t.notOk(f.state.verified.has('lab-r'), 'two verified receipts are not enough');
  f.receipt('ver-one', claims[2]!, 'confirmed');
  t.match(f.state.verified.get('lab-r'), { round: 1, receipts: 3, sources: 1 });
  // Its receipts now weigh 1: logit(0.685) + ln 4 + ln 4 (lab-r and v1 on the same claim, no models).
  near(t, f.score(claims[0]!).credence, sigmoid(logit(0.685) + 2 * LN4), 'verified: its earlier receipts weigh 1 from now on');
  // lab-k, cross-checked by lab-r (round 1): round 2.
  for (const c of claims.slice(0, 3)) f.receipt('knight', c, 'confirmed');
  // The seed that draws lab-k's receipt among the candidates (resulted, not lab-r's own, by seq).
  const pick = (c: string) =>
    f.state.receiptsByClaim
      .get(c)!
      .map((id) => f.state.receipts.get(id)!)
      .filter((r) => r.result !== null && r.operatorId !== 'lab-r')
      .findIndex((r) => r.operatorId === 'lab-k');
  for (const c of claims.slice(0, 3)) f.receipt('rook', c, 'confirmed', { seed: pick(c) });
  t.match(f.state.verified.get('lab-k'), { round: 2, receipts: 3 });
  // A receipt of lab-r that two verified operators dispute: lab-r is voided from that entry on.
  const bad = f.receipt('rook', claims[3]!, 'confirmed');
  f.receipt('ver-one', claims[3]!, 'confirmed', { crossMatch: false });
  t.ok(f.state.verified.has('lab-r'), 'one dispute is a finding, not a voiding');
  f.receipt('ver-two', claims[3]!, 'confirmed', { crossMatch: false, seed: 0 });
  t.notOk(f.state.verified.has('lab-r'), 'two verified disputes void it');
  t.equal(f.state.voided.get('lab-r')?.receipt, bad);
  t.ok(f.state.verified.has('lab-k'), 'whom it verified stays verified');
  // A receipt a verified operator disputed counts 0: only v1's and v2's +ln 4 each remain
  // (counted, lab-r's would add (1/4) ln 4 more now that it is not verified).
  near(t, f.score(claims[3]!).credence, sigmoid(logit(0.685) + 2 * LN4), 'the disputed receipt counts 0');
  t.equal(f.state.findings.length, 2, 'each disagreement opened a finding');
  sameFromScratch(t, f);
});

t.test('operators verified by the record: ten reports on resolved claims, 80 % right', async (t) => {
  const f = world();
  f.agent('oracle', 'lab-q');
  const claims = f.paper('author', [{}, {}, {}, {}, {}]).concat(f.paper('author', [{}, {}, {}, {}, {}]));
  // lab-q forecasts all ten at 0.9; then each is established (resolved 1) by two verified families.
  for (const c of claims) f.review('oracle', c, 0.9);
  for (const [i, c] of claims.entries()) {
    f.receipt('ver-one', c, 'confirmed', { models: ['claude-3'] });
    f.receipt('ver-two', c, 'confirmed', { models: ['gpt-4'] });
    if (i < 9) t.notOk(f.state.verified.has('lab-q'), `${i + 1} resolved`);
  }
  t.match(f.state.verified.get('lab-q'), { round: 1, reports: 10, right: 10 });
  sameFromScratch(t, f);
});

t.test('an operator verified by the record gives its earlier argument checks a voice: open arguments settle then', async (t) => {
  const f = world();
  f.agent('rook', 'lab-r');
  const claims = f.paper('author', [{}, {}, {}, {}]);
  const a = f.argue('un-one', claims[3]!, 'refutes', 'counterexample');
  f.checkArg('rook', a, true, ['gpt-4']);
  f.checkArg('ver-one', a, true, ['claude-3']);
  t.equal(f.state.argumentsById.get(a)!.status, 'open', 'one verified voice');
  for (const c of claims.slice(0, 3)) f.receipt('rook', c, 'confirmed');
  for (const c of claims.slice(0, 3)) f.receipt('ver-two', c, 'confirmed');
  t.ok(f.state.verified.has('lab-r'));
  t.match(
    f.state.argumentsById.get(a),
    { status: 'upheld', settledSeq: f.state.verified.get('lab-r')!.seq },
    'settled at the entry that verified lab-r',
  );
  t.match(claimScore(f.state, claims[3]!), { credence: 0.266, status: 'refuted' }, 'and the claim moved with it');
  sameFromScratch(t, f);
});
