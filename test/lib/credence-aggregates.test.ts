// The numbers the fold keeps as aggregates (lib/record/numbers/kept.ts) equal, bit for bit, the
// numbers scored from scratch (score.ts, `fromScratch`), after every entry of random logs that
// hold what moves the aggregates: a hot claim with hundreds of reviews, a prolific operator with
// hundreds of claims and reviews, re-reviews by the same operator (with other models), disowned
// reports (key.revoke with compromisedAt), model families that overlap and change, operators
// verified by the record and voided, and caps that bind and do not (qualifying arguments upheld
// and dismissed). Each of these is counted, so that a generator whose writes were refused cannot
// pass.
import t from 'tap';
import fc from 'fast-check';
import { Fold } from '../helpers/fold.js';
import { scoreClaim, calibrationOf, type Score, operatorCalibration, round4, KEEP_AGGREGATE_FROM } from '../../lib/record/numbers/index.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { isArchiveError } from '../../lib/protocol/errors.js';
import type { State } from '../../lib/record/fold/index.js';

const VERIFIED = ['op_archive', 'v1', 'v2', 'v3'];
/** Three verified operators, a prolific one, accounts and labs: many operators review the hot claim. */
const OPERATORS = ['v1', 'v2', 'v3', 'prolific', ...Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? `op_acct${i}` : `lab-${i}`))];
/** Receipts and argument checks come from a few operators, so that some are verified by the record. */
const CHECKERS = ['v1', 'v2', 'v3', 'lab-2', 'lab-5'];
const MODELS = [undefined, ['claude-3-opus'], ['gpt-4o'], ['claude-3.5-sonnet', 'llama-3-70b'], ['gemini-pro'], ['gpt-4o', 'gemini-pro']];
const GROUNDS = ['counterexample', 'contradiction', 'logical-gap', 'methodological-flaw'];
const any = () => fc.noBias(fc.nat({ max: 1 << 20 }));
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;
const agentOf = (op: string, n: number) => `${op.replace('_', '-')}-${1 + (n % 2)}`;

const action = fc.oneof(
  {
    arbitrary: fc.record({ k: fc.constant('paper' as const), by: any(), q: fc.double({ min: 0, max: 1, noNaN: true }), builds: any() }),
    weight: 10,
  },
  {
    arbitrary: fc.record({
      k: fc.constant('receipt' as const),
      by: any(),
      claim: any(),
      outcome: fc.constantFrom<('confirmed' | 'failed' | 'inconclusive')[]>('confirmed', 'confirmed', 'failed', 'inconclusive'),
      rerun: fc.boolean(),
      models: any(),
      match: fc.constantFrom(true, true, false),
      seed: any(),
    }),
    weight: 15,
  },
  {
    arbitrary: fc.record({
      k: fc.constant('review' as const),
      by: any(),
      hot: fc.nat({ max: 3 }),
      claim: any(),
      forecast: fc.double({ min: 0.2, max: 1, noNaN: true }),
      models: any(),
    }),
    weight: 40,
  },
  { arbitrary: fc.record({ k: fc.constant('argue' as const), by: any(), claim: any(), stance: any(), grounds: any() }), weight: 5 },
  { arbitrary: fc.record({ k: fc.constant('check' as const), by: any(), arg: any(), holds: fc.boolean(), models: any() }), weight: 10 },
  { arbitrary: fc.record({ k: fc.constant('revoke' as const), by: any(), back: fc.integer({ min: 1, max: 60 }) }), weight: 1 },
);
type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

/** Every claim scored from scratch on the same state, in log order, without touching the fold's numbers. */
function fromScratch(state: State): Map<string, Score> {
  const { index: ix } = state.numbers;
  const scores = new Map<string, Score>();
  for (const ref of ix.refs) scores.set(ref, scoreClaim(state, ix, state.claims.get(ref)!, scores));
  return scores;
}

const bits = (state: State, scores: { get(ref: string): Score | undefined }) =>
  canonicalize([...state.numbers.index.refs].map((ref) => ({ ...scores.get(ref)! })));

const seen = {
  hot: 0,
  prolific: 0,
  reReviews: 0,
  familiesChanged: 0,
  disowned: 0,
  verifiedOrVoided: 0,
  capBinds: 0,
  capFree: 0,
  /** Claims resolved (0 or 1) as the fold read it from the score's columns (Scores.resolvedAt), after some entry. */
  resolved: 0,
  compared: 0,
  resultsAppended: 0,
};

/** Runs the actions, comparing the kept numbers with those from scratch after every entry; false at the first difference. */
function run(actions: Action[]): boolean {
  const f = new Fold(VERIFIED);
  for (const op of OPERATORS) {
    f.agent(agentOf(op, 0), op);
    f.agent(agentOf(op, 1), op);
  }
  const papers: string[] = [];
  const lastModels = new Map<string, string>();
  let capBinds = false;
  let capFree = false;
  // The prolific operator publishes a first batch of papers, then a hot claim opens the log.
  for (let i = 0; i < 100; i++) papers.push(f.paper(agentOf('prolific', i), [{ confidence: (i % 10) / 10 + 0.05 }])[0]!.split('#')[0]!);
  const hot = f.paper(agentOf('lab-1', 0), [{ confidence: 0.6 }])[0]!;
  papers.push(hot.split('#')[0]!);
  for (const a of actions) {
    const claims = [...f.state.numbers.index.refs];
    try {
      switch (a.k) {
        case 'paper': {
          const by = a.by % 3 === 0 ? agentOf('prolific', a.by) : agentOf(pick(OPERATORS, a.by), a.by);
          const parent = a.builds % (papers.length + 1);
          const buildsOn =
            parent === papers.length
              ? []
              : [{ id: papers[parent], rel: 'extends', basis: 'reviewed', note: 'Relied on all of its claims as stated.' }];
          papers.push(f.paper(by, [{ confidence: a.q }], buildsOn)[0]!.split('#')[0]!);
          break;
        }
        case 'receipt': {
          const target = a.claim % 4 !== 0 ? hot : pick(claims.slice(-4), a.claim);
          const before = f.state.numbers.aggregates.evidence.get(target);
          const read = before?.resultsRead ?? 0;
          f.receipt(agentOf(pick(CHECKERS, a.by), a.by), target, a.outcome, {
            kind: a.rerun ? 'rerun' : 'replication',
            models: pick(MODELS, a.models),
            crossMatch: a.match,
            seed: a.seed,
          });
          // The result taken by the claim's kept aggregate as it came, not by building it again.
          const after = f.state.numbers.aggregates.evidence.get(target);
          if (before !== undefined && after === before && after.resultsRead > read) seen.resultsAppended++;
          break;
        }
        case 'review': {
          const op = pick(OPERATORS, a.by);
          const claim = a.hot > 0 ? hot : pick(claims, a.claim);
          const models = pick(MODELS, a.models);
          f.review(agentOf(op, a.by), claim, a.forecast, models);
          const key = `${op} ${claim}`;
          if (lastModels.has(key)) {
            seen.reReviews++;
            if (lastModels.get(key) !== String(models)) seen.familiesChanged++;
          }
          lastModels.set(key, String(models));
          if (claim === hot) seen.hot++;
          if (op === 'prolific') seen.prolific++;
          break;
        }
        case 'argue':
          f.argue(
            agentOf(pick(OPERATORS, a.by), a.by),
            a.claim % 2 === 0 ? hot : pick(claims, a.claim),
            pick(['qualifies', 'qualifies', 'refutes', 'supports'], a.stance),
            pick(GROUNDS, a.grounds),
          );
          break;
        case 'check': {
          const open = [...f.state.argumentsById.values()].filter((x) => x.status === 'open').slice(-2);
          if (open.length > 0) f.checkArg(agentOf(pick(CHECKERS, a.by), a.by), pick(open, a.arg).id, a.holds, pick(MODELS, a.models));
          break;
        }
        case 'revoke': {
          const handle = agentOf(pick(OPERATORS.slice(4), a.by), a.by);
          const compromisedAt = new Date(f.now - a.back * 1000).toISOString();
          const out = f.admit('key.revoke', f.signed(handle, 'key.revoke', { key: `key-of-${handle}`, compromisedAt }));
          seen.disowned += (out as { disowned: unknown[] }).disowned.length;
          break;
        }
      }
    } catch (err) {
      if (!isArchiveError(err)) throw err;
    }
    seen.compared++;
    if (bits(f.state, f.state.numbers.scores) !== bits(f.state, fromScratch(f.state))) return false;
    const kept = operatorCalibration(f.state, 'prolific');
    const scratch = calibrationOf(f.state, f.state.numbers.index, 'prolific', Infinity, f.state.numbers.scores);
    if (kept.resolved !== scratch.resolved || kept.rho !== round4(scratch.rho)) return false;
    // Its prefix sums hold its resolved claims, and nothing for the others.
    if (f.state.numbers.aggregates.calibration.get('prolific')?.resolved !== kept.resolved) return false;
    for (const s of f.state.numbers.scores.values()) {
      if (s.cap !== null && s.credence === s.cap) capBinds = true;
      if (s.cap !== null && s.credence < s.cap) capFree = true;
    }
    // What the fold reads of a score without making it (Scores.resolvedAt, resolvedOf, headAt) is the score's.
    const scores = f.state.numbers.scores;
    for (const [row, ref] of [...f.state.numbers.index.refs].entries()) {
      const s = scores.get(ref);
      const head = scores.headAt(row);
      if (scores.resolvedAt(row) !== s?.resolved || scores.resolvedOf(ref) !== s?.resolved) return false;
      if ((head === undefined) !== (s === undefined)) return false;
      if (head !== undefined && Object.entries(head).some(([k, v]) => !Object.is(v, s![k as keyof typeof head]))) return false;
      if (s?.resolved === 0 || s?.resolved === 1) seen.resolved++;
    }
  }
  seen.prolific += f.state.numbers.index.claimsByOperator.get('prolific')?.length ?? 0;
  seen.verifiedOrVoided += f.state.verified.size - VERIFIED.length + f.state.voided.size;
  if (capBinds) seen.capBinds++;
  if (capFree) seen.capFree++;
  return true;
}

t.test('the kept numbers equal those from scratch, bit for bit, after every entry', async (t) => {
  t.setTimeout(600_000);
  fc.assert(fc.property(fc.array(action, { minLength: 300, maxLength: 400, size: 'max' }), run), {
    numRuns: Number(process.env.FC_RUNS) || 8,
    seed: Number(process.env.FC_SEED) || 20261123,
  });
  t.pass('held after every entry of every random log');
  t.comment(JSON.stringify(seen));
  t.ok(seen.hot / 8 >= 100, 'a hot claim gathers hundreds of reviews');
  t.ok(seen.prolific / 8 >= 100, 'a prolific operator has hundreds of claims and reviews');
  t.ok(seen.reReviews > 50 && seen.familiesChanged > 20, 're-reviews by the same operator, some with other models');
  t.ok(seen.disowned > 5, 'reports disowned');
  t.ok(seen.verifiedOrVoided > 0, 'operators verified by the record or voided');
  t.ok(seen.capBinds > 0 && seen.capFree > 0, 'caps that bind and caps that do not');
  t.ok(seen.resolved > 0, 'claims resolved, read from the columns as the score has it');
  t.ok(seen.resultsAppended > 20, 'results appended to a kept aggregate, not built again');
});

t.test('only a claim with many reviews and results keeps its evidence aggregate; the numbers are the same', async (t) => {
  const f = new Fold(VERIFIED);
  for (const op of OPERATORS) f.agent(agentOf(op, 0), op);
  const claims = Array.from({ length: 5 }, (_, i) => f.paper(agentOf('prolific', 0), [{ confidence: 0.1 + i / 10 }])[0]!);
  const [hot, ...cold] = claims as [string, ...string[]];
  for (let i = 0; i < KEEP_AGGREGATE_FROM + 8; i++) f.review(agentOf(pick(OPERATORS.slice(4), i), 0), hot, 0.5 + (i % 5) / 10);
  cold.forEach((ref, i) => f.review(agentOf(pick(OPERATORS.slice(4), i), 0), ref, 0.8));
  const kept = f.state.numbers.aggregates.evidence;
  t.same([...kept.keys()], [hot], 'the hot claim alone keeps one');
  t.equal(f.state.numbers.index.reviewsByClaim.countOf(f.state.claims.rowOf(hot)), KEEP_AGGREGATE_FROM + 8);
  t.equal(bits(f.state, f.state.numbers.scores), bits(f.state, fromScratch(f.state)), 'every score as from scratch, bit for bit');
  t.ok(
    cold.every((ref) => f.state.numbers.index.reviewsByClaim.countOf(f.state.claims.rowOf(ref)) === 1),
    'the other claims have their review',
  );
});
