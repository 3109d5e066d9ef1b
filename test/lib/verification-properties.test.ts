// Verification by the record kept as entries land (lib/record/numbers/verification.ts): over
// random logs with prolific operators, reviews that change, claims that resolve and unresolve,
// disowned reports and voiding, what the tallies say of every operator after every entry equals
// what the from-scratch functions (receiptsEarned, reportsEarned) say: who would be verified,
// in which round, on what evidence, and the highest round.
import t from 'tap';
import fc from 'fast-check';
import { Fold } from '../helpers/fold.js';
import {
  lastRound,
  qualification,
  receiptsEarned,
  receiptsTallied,
  reportsEarned,
  reportsTallied,
} from '../../lib/record/numbers/index.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { isArchiveError } from '../../lib/protocol/errors.js';

const VERIFIED = ['op_archive', 'v1', 'v2', 'v3'];
/** Three verified operators; four that may be verified by the record on the way, one of them prolific. */
const OPERATORS = ['v1', 'v2', 'v3', 'lab-a', 'lab-b', 'lab-c', 'lab-d'];
const MODELS = [['claude-3-opus'], ['gpt-4o'], ['gemini-pro'], ['llama-3-70b']];
const agentsOf = (op: string) => [`${op}-1`, `${op}-2`];

const any = () => fc.noBias(fc.nat({ max: 1 << 20 }));
const action = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('paper' as const), by: any(), q: fc.double({ min: 0.05, max: 0.4, noNaN: true }) }), weight: 8 },
  {
    arbitrary: fc.record({
      k: fc.constant('receipt' as const),
      by: any(),
      claim: any(),
      outcome: fc.constantFrom<('confirmed' | 'failed')[]>('confirmed', 'failed'),
      match: fc.constantFrom(true, true, true, false),
      seed: any(),
    }),
    weight: 24,
  },
  // Reviews come mostly from lab-a's agents (a prolific reviewer), often on the same claims again.
  {
    arbitrary: fc.record({
      k: fc.constant('review' as const),
      by: any(),
      prolific: fc.boolean(),
      claim: any(),
      forecast: fc.constantFrom(0.05, 0.3, 0.5, 0.7, 0.95),
    }),
    weight: 30,
  },
  {
    arbitrary: fc.record({
      k: fc.constant('argue' as const),
      by: any(),
      claim: any(),
      stance: fc.constantFrom('refutes', 'qualifies', 'supports'),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ k: fc.constant('check' as const), by: any(), arg: any(), holds: fc.boolean() }), weight: 6 },
  // A main key revoked as compromised from some entries back: the reports it signed since are disowned.
  { arbitrary: fc.record({ k: fc.constant('revoke' as const), by: any(), back: fc.integer({ min: 1, max: 60 }) }), weight: 1 },
);
type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

/** What verification reads of every operator (both criteria's counts) and would say of it, from the tallies or from scratch. */
function verdicts(f: Fold, fromScratch: boolean): string {
  const { state } = f;
  const ix = state.numbers.index;
  const ops = [...state.operators.keys()].sort();
  return canonicalize(
    ops.map((op) => [
      op,
      fromScratch ? receiptsEarned(state, ix, op) : receiptsTallied(state, op),
      fromScratch ? reportsEarned(state, ix, op) : reportsTallied(state, op),
      qualification(state, ix, op, state.size, fromScratch),
    ]),
  );
}

function lastRoundFromScratch(f: Fold): number {
  let last = 0;
  for (const v of f.state.verified.values()) last = Math.max(last, v.round);
  return last;
}

const seen = { byRecord: 0, byReports: 0, voided: 0, disowned: 0, unresolved: 0, reviews: 0 };

function run(actions: Action[]): boolean {
  const f = new Fold(VERIFIED);
  for (const op of OPERATORS) for (const a of agentsOf(op)) f.agent(a, op);
  const agents = OPERATORS.flatMap(agentsOf);
  const claims = (): string[] => [...f.state.numbers.index.refs];
  const resolved = new Map<string, 0 | 1 | null>();
  for (const a of actions) {
    const by = pick(agents, a.by);
    try {
      switch (a.k) {
        case 'paper':
          f.paper(by, [{ confidence: a.q }]);
          break;
        case 'receipt':
          if (claims().length > 0)
            f.receipt(by, pick(claims().slice(-8), a.claim), a.outcome, {
              models: pick(MODELS, a.seed),
              crossMatch: a.match,
              seed: a.seed,
            });
          break;
        case 'review':
          if (claims().length > 0) {
            // The prolific reviewer forecasts what the record says of resolved claims, so that it is verified on its reports.
            const settled = claims().filter((ref) => f.state.numbers.scores.get(ref)?.resolved !== null);
            const claim = pick(a.prolific && settled.length > 0 ? settled : claims(), a.claim);
            const res = f.state.numbers.scores.get(claim)?.resolved ?? null;
            const forecast = a.prolific && res !== null ? (res === 1 ? 0.95 : 0.05) : a.forecast;
            f.review(a.prolific ? pick(agentsOf('lab-a'), a.by) : by, claim, forecast);
          }
          break;
        case 'argue':
          if (claims().length > 0) f.argue(by, pick(claims().slice(-4), a.claim), a.stance);
          break;
        case 'check': {
          const open = [...f.state.argumentsById.values()].filter((x) => x.status === 'open').slice(-3);
          if (open.length > 0) f.checkArg(by, pick(open, a.arg).id, a.holds);
          break;
        }
        case 'revoke': {
          const from = new Date(f.now - a.back * 1000).toISOString();
          const out = f.admit('key.revoke', f.signed(by, 'key.revoke', { key: `key-of-${by}`, compromisedAt: from }));
          seen.disowned += out.disowned.length;
          break;
        }
      }
    } catch (err) {
      if (!isArchiveError(err)) throw err;
    }
    for (const [ref, s] of f.state.numbers.scores) {
      if (resolved.get(ref) !== undefined && resolved.get(ref) !== null && s.resolved === null) seen.unresolved++;
      resolved.set(ref, s.resolved);
    }
    if (verdicts(f, false) !== verdicts(f, true)) return false;
    if (lastRound(f.state) !== lastRoundFromScratch(f)) return false;
  }
  seen.reviews += f.state.reviews.size;
  seen.voided += f.state.voided.size;
  for (const [op, v] of f.state.verified) {
    if (VERIFIED.includes(op)) continue;
    seen.byRecord++;
    if (v.reports !== undefined) seen.byReports++;
  }
  return true;
}

const RUNS = { numRuns: 120, seed: Number(process.env.FC_SEED) || 20261123 };

t.test('the tallies of verification by the record equal the from-scratch criteria after every entry', async (t) => {
  fc.assert(fc.property(fc.array(action, { minLength: 100, maxLength: 400, size: 'max' }), run), RUNS);
  t.pass('held for every random log');
  t.ok(
    seen.byRecord > 10 && seen.byReports > 3 && seen.voided > 0 && seen.disowned > 20 && seen.unresolved > 0,
    `the logs held ${seen.reviews} reviews, ${seen.byRecord} operators verified by the record (${seen.byReports} on reports), ` +
      `${seen.voided} voided, ${seen.disowned} reports disowned, ${seen.unresolved} claims unresolved`,
  );
});
