// A score's parts read from the aggregates the fold keeps (docs/credence.md#how-the-service-keeps-them):
// the claim's evidence aggregate (built from its items when stale, else fed the reviews that
// landed since), its author's calibration as prefix sums, its use as counts per operator. Each
// equals, bit for bit, the part computed from scratch (score.ts, `fromScratch`).
import { tierOf, type Claim, type State } from '../fold/state.js';
import { EvidenceAggregate, type Evidence } from './aggregate.js';
import { firstAtLeast, grow, type Rows } from '../stores/columns.js';
import type { CalibrationPrefix } from './indexes.js';
import { calibration, calibrationTerm, KIND_RANK, TIER_WEIGHT } from './rules.js';
import { countedItems, countingReceipt, countsAsRerun, receiptItem, rerunsOf, reviewItem, type Item, type Parts } from './score.js';

const rank = (k: keyof typeof KIND_RANK) => KIND_RANK[k];

/**
 * A claim with fewer reviews and results than this has its evidence aggregate built from its
 * items each time it is read, and not kept: that costs at most this many items, and an aggregate
 * kept for every claim held about half the heap of a paper- and claim-heavy log (issue 26). A
 * hot claim keeps its aggregate, so that a write on it costs the same however many items it has.
 */
export const KEEP_AGGREGATE_FROM = 32;
/** In the same way, a claim relied on by fewer papers than this counts its use afresh when read. */
export const KEEP_USE_FROM = 16;

/** The claim's evidence aggregate built from its items, kept when `keep`. */
function build(state: State, claim: Claim, keep = true): EvidenceAggregate {
  const { index: ix, aggregates } = state.numbers;
  const agg = new EvidenceAggregate();
  for (const item of countedItems(state, ix, claim)) agg.append(item);
  agg.reruns = rerunsOf(state, claim);
  agg.reviewsRead = ix.reviewsByClaim.countOf(state.claims.ordinal(claim.ref));
  agg.resultsRead = ix.resultsByClaim.get(claim.ref)?.length ?? 0;
  if (keep) aggregates.evidence.set(claim.ref, agg);
  aggregates.stale.delete(claim.ref);
  return agg;
}

/**
 * The claim's evidence aggregate as it now stands: the reviews and results that landed since it
 * was last read are appended, in log order. It is a cache of the fold (in neither the state's
 * digest nor its snapshot), so a read may bring it up to date as a rescore would.
 */
export function keptAggregate(state: State, claim: Claim): EvidenceAggregate {
  const { index: ix, aggregates } = state.numbers;
  const reviews = ix.reviewsByClaim.rowsOf(state.claims.ordinal(claim.ref));
  const results = ix.resultsByClaim.get(claim.ref) ?? [];
  if (reviews.length + results.length < KEEP_AGGREGATE_FROM) return build(state, claim, false);
  let agg = aggregates.evidence.get(claim.ref);
  if (agg === undefined || aggregates.stale.has(claim.ref)) return build(state, claim);
  while (agg.reviewsRead < reviews.length || agg.resultsRead < results.length) {
    const v = agg.reviewsRead < reviews.length ? reviews[agg.reviewsRead]! : -1;
    const r = agg.resultsRead < results.length ? state.receipts.get(results[agg.resultsRead]!)! : undefined;
    let item: Item;
    let rerun = false;
    if (r !== undefined && (v < 0 || r.result!.seq < state.reviews.seqAt(v))) {
      agg.resultsRead++;
      if (!countingReceipt(state, r) || r.operatorId === claim.operatorId) continue;
      item = receiptItem(state, r);
      rerun = countsAsRerun(state, claim, r);
    } else {
      agg.reviewsRead++;
      if (state.reviews.disownedAt(v) !== null || state.reviews.operatorAt(v) === claim.operatorId) continue;
      item = reviewItem(state, v);
    }
    if (item.seq <= agg.lastSeq || !agg.offer(item, rank)) {
      agg = build(state, claim);
      break;
    }
    if (rerun) agg.reruns++;
  }
  return agg;
}

/** The claim's evidence as it now stands (keptAggregate). */
export const keptEvidence = (state: State, claim: Claim): Evidence => keptAggregate(state, claim).evidence();

/** Marks claims whose evidence aggregate must be built again (an entry other than a review touched them, or who is verified changed). */
export function markStale(state: State, refs: Iterable<string>): void {
  const { evidence, stale } = state.numbers.aggregates;
  // A claim with no kept aggregate builds one when read anyway.
  for (const ref of refs) if (evidence.has(ref)) stale.add(ref);
}

/** The operator's calibration prefix sums and its claims. */
function prefixOf(state: State, operatorId: string): { c: CalibrationPrefix; own: Rows } {
  const { index: ix, aggregates } = state.numbers;
  const own = ix.claimsByOperator.get(operatorId) ?? [];
  let c = aggregates.calibration.get(operatorId);
  if (c === undefined)
    aggregates.calibration.set(operatorId, (c = { at: new Int32Array(16), sum: new Float64Array(16), resolved: 0, valid: 0 }));
  return { c, own };
}

/** The place of claim `row` among its author's claims `own` (rows, increasing): found by halving. */
function placeOf(own: Rows, row: number): number {
  const i = firstAtLeast(own, row);
  if (own[i] !== row) throw new Error(`claim ${row} is not among its author's claims`);
  return i;
}

/** Calibration over the first `p` claims of the author, in log order (as calibrationOf sums it). */
function prefix(state: State, c: CalibrationPrefix, own: Rows, p: number): { rho: number; resolved: number } {
  for (; c.valid < p; c.valid++) {
    const row = own[c.valid]!;
    const r = state.numbers.scores.resolvedAt(row);
    if (r !== 0 && r !== 1) continue;
    const k = c.resolved++;
    c.at = grow(c.at, k + 1);
    c.sum = grow(c.sum, k + 2);
    c.at[k] = c.valid;
    c.sum[k + 1] = c.sum[k]! + calibrationTerm(state.claims.confidenceAt(row)!, r);
  }
  // The resolved claims among the first p: those placed before p.
  const k = firstAtLeast(c.at, p, c.resolved);
  return { rho: calibration(c.sum[k]!, k), resolved: k };
}

/** The author's calibration over its claims published before `claim`'s paper. */
export function keptCalibration(state: State, claim: Claim): number {
  const { c, own } = prefixOf(state, claim.operatorId);
  // Its author's claims before its paper's: they are in log order, and a paper's claims share its entry's seq.
  let p = placeOf(own, state.claims.ordinal(claim.ref));
  const seq = state.claims.seqAt(own[p]!);
  while (p > 0 && state.claims.seqAt(own[p - 1]!) === seq) p--;
  return prefix(state, c, own, p).rho;
}

/** An operator's calibration over all its resolved claims. */
export function keptOperatorCalibration(state: State, operatorId: string): { rho: number; resolved: number } {
  const { c, own } = prefixOf(state, operatorId);
  return prefix(state, c, own, own.length);
}

/** Claims a step of keptCalibrations: a few milliseconds' work. */
const CALIBRATION_STEP = 16_384;

/**
 * Builds every operator's calibration prefix sums over all its claims, `step` claims a step (yielding after each): a state
 * read from a snapshot holds none (state-codec.ts), and otherwise the first reader of an operator's calibration (its agents'
 * and its own pages) builds them (at 10M, 2.3 s for the prolific operator's 2.5 million claims). The same sums as when read.
 */
export function* keptCalibrations(state: State, step = CALIBRATION_STEP): Generator<void> {
  for (const operatorId of [...state.numbers.index.claimsByOperator.keys()])
    for (;;) {
      const { c, own } = prefixOf(state, operatorId);
      if (c.valid >= own.length) break;
      prefix(state, c, own, Math.min(own.length, c.valid + step));
      yield;
    }
}

/** A paper claim's `resolved` changed: its author's prefix sums from it on are recomputed when next read. */
export function resolvedMoved(state: State, claim: Claim): void {
  const { c, own } = prefixOf(state, claim.operatorId);
  c.valid = Math.min(c.valid, placeOf(own, state.claims.ordinal(claim.ref)));
  while (c.resolved > 0 && c.at[c.resolved - 1]! >= c.valid) c.resolved--;
}

/** `use`: the tier weights of the operators other than the author's whose papers rely on the claim. */
export function keptUse(state: State, claim: Claim): number {
  const { index: ix, aggregates } = state.numbers;
  const relying = ix.relying.get(claim.ref) ?? [];
  let u = aggregates.use.get(claim.ref);
  if (u === undefined) {
    u = { read: 0, ops: new Map() };
    if (relying.length >= KEEP_USE_FROM) aggregates.use.set(claim.ref, u);
  }
  for (; u.read < relying.length; u.read++) {
    const op = state.papers.operatorAt(state.papers.rowOf(relying[u.read]!));
    if (op !== claim.operatorId) u.ops.set(op, (u.ops.get(op) ?? 0) + 1);
  }
  // Sums of 1, 0.5 and 0.25 are exact in any order (docs/credence.md#arithmetic).
  let use = 0;
  for (const op of u.ops.keys()) use += TIER_WEIGHT[tierOf(state, op)];
  return use;
}

/** The parts of a score as the fold keeps them. */
export const keptParts = (state: State): Parts => ({
  evidence: (claim) => keptEvidence(state, claim),
  calibration: (claim) => keptCalibration(state, claim),
  use: (claim) => keptUse(state, claim),
});
