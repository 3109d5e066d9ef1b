// One claim's numbers under credence/0.3 (docs/credence.md), from the state and the scores
// of earlier claims (its foundations, its author's earlier claims). Pure: reads the state,
// changes nothing. rescore.ts decides which claims to score when an entry lands.
import { familiesOf } from '../../protocol/families.js';
import { tierOf, type Argument, type Claim, type Receipt, type State } from '../fold/state.js';
import type { NumbersIndex } from './indexes.js';
import type { Evidence, Item } from './aggregate.js';
import { exactSum } from './exact-sum.js';
import {
  anchor,
  argumentStep,
  calibration,
  calibrationTerm,
  capLn3,
  compress,
  dispute,
  establishedAt,
  evidenceStep,
  externalFactor,
  familyFactor,
  KIND_RANK,
  logit,
  priorOf,
  QUALIFIES_CAP,
  sigmoid,
  TIER_WEIGHT,
} from './rules.js';

export type { Score, Status } from './indexes.js';
export type { Item } from './aggregate.js';
import type { Score, Status } from './indexes.js';

/** Families of a declared models list, remembered per list (the same list is read at every rescore). */
const familiesMemo = new WeakMap<readonly string[], string[]>();
const NO_FAMILIES: string[] = [];
export function familiesOfItem(models: readonly string[]): string[] {
  // Most reports declare no models: no memo entry for each of their lists (a WeakMap entry per
  // report is an ephemeron the collector walks).
  if (models.length === 0) return NO_FAMILIES;
  let f = familiesMemo.get(models);
  if (f === undefined) familiesMemo.set(models, (f = familiesOf(models)));
  return f;
}

/** Whether a verified operator's cross-check of `r` disagreed with it (a finding against it by a verified operator). */
export function disputedNow(state: State, r: Receipt): boolean {
  return r.crossCheckedBy.some((c) => !c.match && state.verified.has(c.operatorId));
}

/** A receipt that counts: resulted, conclusive, not disowned, not disputed by a verified operator. */
export function countingReceipt(state: State, r: Receipt): boolean {
  return r.result !== null && r.result.outcome !== 'inconclusive' && r.disownedSeq === null && !disputedNow(state, r);
}

/** The item of the review at `row` in state.reviews (counting unless disowned). */
export function reviewItem(state: State, row: number): Item {
  const v = state.reviews;
  const operatorId = v.operatorAt(row);
  const tier = tierOf(state, operatorId);
  return {
    operatorId,
    kind: 'review',
    favours: v.forecastAt(row) >= 0.5,
    verified: tier === 'verified',
    t: TIER_WEIGHT[tier],
    families: familiesOfItem(v.modelsAt(row)),
    seq: v.seqAt(row),
  };
}

/** A counting receipt's item: its kind, which way its result went, its operator's tier. */
export function receiptItem(state: State, r: Receipt): Item {
  const tier = tierOf(state, r.operatorId);
  return {
    operatorId: r.operatorId,
    kind: r.kind,
    favours: r.result!.outcome === 'confirmed',
    verified: tier === 'verified',
    t: TIER_WEIGHT[tier],
    families: familiesOfItem(r.models),
    seq: r.result!.seq,
  };
}

/**
 * The items that count on `claim`: one per operator other than the author's; with `only`, those
 * of the operators it names alone (the others' items are not even made).
 */
export function countedItems(state: State, ix: NumbersIndex, claim: Claim, only?: ReadonlySet<string>): Item[] {
  const best = new Map<string, Item>();
  const offer = (item: Item) => {
    if (item.operatorId === claim.operatorId) return;
    const cur = best.get(item.operatorId);
    if (cur === undefined || KIND_RANK[item.kind] > KIND_RANK[cur.kind] || (item.kind === cur.kind && item.seq > cur.seq))
      best.set(item.operatorId, item);
  };
  for (const id of state.receiptsByClaim.get(claim.ref) ?? []) {
    const r = state.receipts.get(id)!;
    if ((only === undefined || only.has(r.operatorId)) && countingReceipt(state, r)) offer(receiptItem(state, r));
  }
  for (const row of ix.reviewsByClaim.rowsOf(state.claims.ordinal(claim.ref)))
    if ((only === undefined || only.has(state.reviews.operatorAt(row))) && state.reviews.disownedAt(row) === null)
      offer(reviewItem(state, row));
  return [...best.values()].sort((a, b) => a.seq - b.seq);
}

/** The claims a claim's paper relies on: builds_on with rel extends or method (docs/credence.md, Foundations). */
export function foundationsOf(state: State, claim: Claim): string[] {
  if (claim.external) return [];
  // The paper's columns are read rather than its whole object (docs/record.md#how-the-state-is-kept): the fold asks this of
  // every claim it scores.
  const { papers } = state;
  const buildsOn = papers.buildsOnAt(papers.rowOf(claim.paper));
  if (buildsOn.length === 0) return [];
  const refs = new Set<string>();
  for (const p of buildsOn) {
    if (p.rel !== 'extends' && p.rel !== 'method') continue;
    if (p.id.startsWith('ext:')) refs.add(`${p.id}#C1`);
    else if (p.id.startsWith('rec:')) {
      let named = p.claims?.map((c) => `${p.id}#${c}`);
      if (named === undefined) {
        const row = papers.rowOf(p.id);
        named = row < 0 ? [] : papers.claimsAt(row);
      }
      for (const r of named) refs.add(r);
    }
  }
  return [...refs];
}

/** A foundation's factor in a prior: its credence; for an external one min(1, credenceVerified / prior). */
function factorOf(state: State, f: Score, credence = f.credence, verified = f.credenceVerified): number {
  return state.claims.get(f.ref)!.external ? externalFactor(verified, f.prior) : credence;
}

/**
 * Calibration of an operator over its resolved paper claims published before entry `before`:
 * rho and how many claims it rests on.
 */
/** Where earlier claims' scores are read: the fold's (score-store.ts), or a Map of scores made from scratch. */
export interface ScoreReader {
  get(ref: string): Score | undefined;
}

export function calibrationOf(
  state: State,
  ix: NumbersIndex,
  operatorId: string,
  before: number,
  scores: ScoreReader,
): { rho: number; resolved: number } {
  let sum = 0;
  let n = 0;
  for (const row of ix.claimsByOperator.get(operatorId) ?? []) {
    const c = state.claims.at(row);
    if (c.seq >= before) break;
    const r = scores.get(c.ref)?.resolved;
    if (r === 0 || r === 1) {
      sum += calibrationTerm(c.confidence!, r);
      n++;
    }
  }
  return { rho: calibration(sum, n), resolved: n };
}

/** `use`: over later papers relying on the claim, one per operator other than the author's, the sum of their tier weights. */
export function useOf(state: State, ix: NumbersIndex, claim: Claim): number {
  const ops = new Set<string>();
  for (const paper of ix.relying.get(claim.ref) ?? []) {
    const op = state.papers.operatorAt(state.papers.rowOf(paper));
    if (op !== claim.operatorId) ops.add(op);
  }
  let use = 0;
  for (const op of [...ops].sort()) use += TIER_WEIGHT[tierOf(state, op)];
  return use;
}

const emptyCounts = () => ({ open: 0, upheld: 0, dismissed: 0 });

/**
 * The evidence of `claim` from scratch: its counted items in seq order, each weighed by its tier
 * and its family factor over the earlier verified items pointing the same way; every sum the
 * exact sum of its terms rounded once (docs/credence.md#arithmetic).
 */
export function evidenceFromScratch(state: State, ix: NumbersIndex, claim: Claim): Evidence {
  const items = countedItems(state, ix, claim);
  const terms = { vRec: [] as number[], vRev: [] as number[], uRec: [] as number[], uRev: [] as number[] };
  const sTerms: number[] = [];
  const fTerms: number[] = [];
  const sRepTerms: number[] = [];
  const fRepTerms: number[] = [];
  const counted: Item[] = [];
  const confirmingOps = new Set<string>();
  const families = new Set<string>();
  for (const item of items) {
    const { e, mass } = evidenceStep(item.kind, item.favours);
    const earlier = counted.filter((c) => c.verified && c.favours === item.favours).map((c) => c.families);
    const w = item.t * familyFactor(item.families, earlier);
    counted.push(item);
    if (item.kind === 'review') (item.verified ? terms.vRev : terms.uRev).push(w * e);
    else (item.verified ? terms.vRec : terms.uRec).push(w * e);
    if (!item.verified) continue;
    (item.favours ? sTerms : fTerms).push(mass * w);
    if (item.kind === 'replication') {
      if (item.favours) {
        sRepTerms.push(mass * w);
        confirmingOps.add(item.operatorId);
        for (const fam of item.families) families.add(fam);
      } else fRepTerms.push(mass * w);
    }
  }
  return {
    vRec: exactSum(terms.vRec),
    vRev: exactSum(terms.vRev),
    uRec: exactSum(terms.uRec),
    uRev: exactSum(terms.uRev),
    s: exactSum(sTerms),
    f: exactSum(fTerms),
    sRep: exactSum(sRepTerms),
    fRep: exactSum(fRepTerms),
    confirmingOps: confirmingOps.size,
    families: [...families].sort(),
    reproduced: rerunsOf(state, claim) > 0,
  };
}

/** Counting confirmed reruns of `claim` by operators other than the author's (`reproduced`). */
export function rerunsOf(state: State, claim: Claim): number {
  let n = 0;
  for (const id of state.receiptsByClaim.get(claim.ref) ?? []) if (countsAsRerun(state, claim, state.receipts.get(id)!)) n++;
  return n;
}

/** Whether receipt `r` is a counting confirmed rerun of `claim` by an operator other than the author's. */
export function countsAsRerun(state: State, claim: Claim, r: Receipt): boolean {
  return r.kind === 'rerun' && countingReceipt(state, r) && r.result!.outcome === 'confirmed' && r.operatorId !== claim.operatorId;
}

/**
 * Where a score reads its claim's evidence, its author's calibration and its use: computed
 * from scratch (the reference, `fromScratch`) or from the aggregates the fold keeps (rescore.ts).
 */
export interface Parts {
  evidence(claim: Claim): Evidence;
  calibration(claim: Claim): number;
  use(claim: Claim): number;
}

/** The parts of a score computed from scratch. */
export const fromScratch = (state: State, ix: NumbersIndex, scores: ScoreReader): Parts => ({
  evidence: (claim) => evidenceFromScratch(state, ix, claim),
  calibration: (claim) => calibrationOf(state, ix, claim.operatorId, claim.seq, scores).rho,
  use: (claim) => useOf(state, ix, claim),
});

/** Scores `claim`, reading earlier claims' scores from `scores` and its evidence, calibration and use from `parts`. */
export function scoreClaim(
  state: State,
  ix: NumbersIndex,
  claim: Claim,
  scores: ScoreReader,
  parts: Parts = fromScratch(state, ix, scores),
): Score {
  // Prior.
  const rho = claim.external ? null : parts.calibration(claim);
  const a = anchor(rho ?? 0.5, claim.confidence);
  const foundations = foundationsOf(state, claim);
  let product = 1;
  for (const ref of foundations) product *= factorOf(state, scores.get(ref)!);
  const prior = priorOf(a, product);

  const { vRec, vRev, uRec, uRev, s, f, sRep, fRep, confirmingOps, families: familyList, reproduced } = parts.evidence(claim);

  // Arguments: settled ones that hold, by an operator independent of the author; one per operator.
  const counts = { refutes: emptyCounts(), qualifies: emptyCounts(), supports: emptyCounts() };
  const strongest = new Map<string, Argument>();
  let cap: number | null = null;
  let refutingArgument = false;
  let refutingCounterexample = false;
  const dismissedBy = new Set<string>();
  let dismissedAttacks = 0;
  for (const id of state.argumentsByClaim.get(claim.ref) ?? []) {
    const arg = state.argumentsById.get(id)!;
    if (arg.operatorId === claim.operatorId) continue;
    counts[arg.stance][arg.status]++;
    if (arg.status === 'dismissed' && arg.stance !== 'supports') {
      dismissedAttacks++;
      for (const c of arg.checks.values()) if (!c.holds && state.verified.has(c.operatorId)) dismissedBy.add(c.operatorId);
    }
    if (arg.status !== 'upheld') continue;
    if (arg.stance === 'qualifies') cap = QUALIFIES_CAP;
    if (arg.stance === 'refutes') {
      refutingArgument = true;
      if (arg.grounds === 'counterexample' || arg.grounds === 'contradiction') refutingCounterexample = true;
    }
    const cur = strongest.get(arg.operatorId);
    const step = Math.abs(argumentStep(arg.stance, arg.grounds));
    if (cur === undefined || step >= Math.abs(argumentStep(cur.stance, cur.grounds))) strongest.set(arg.operatorId, arg);
  }
  let args = 0;
  for (const arg of strongest.values()) args += argumentStep(arg.stance, arg.grounds);

  // Caps: verified reviews, all reviews, and everything from operators that are not verified, each within +-ln 3.
  const vRevC = capLn3(vRev);
  const allRev = capLn3(vRevC + uRev);
  const unverified = capLn3(uRec + (allRev - vRevC));
  const evidenceVerified = vRec + vRevC + args;
  const evidence = evidenceVerified + unverified;

  const lp = logit(prior);
  const credenceAt = (p: number, ev: number) => Math.min(cap ?? 1, sigmoid(compress(logit(p) + ev)));
  const credence = Math.min(cap ?? 1, sigmoid(compress(lp + evidence)));
  const credenceVerified = Math.min(cap ?? 1, sigmoid(compress(lp + evidenceVerified)));
  // One confirming verified replication of a new family: tier weight 1, no family discount, +ln 4.
  const hypoCredence = credenceAt(prior, evidence + Math.log(4));
  const hypoVerified = credenceAt(prior, evidenceVerified + Math.log(4));

  const use = parts.use(claim);
  const established = (u: number) => credenceVerified >= establishedAt(u) && confirmingOps >= 2 && familyList.length >= 2;
  let status: Status;
  let resolved: 0 | 1 | null = null;
  if (claim.kind === 'conceptual') {
    if (refutingCounterexample) status = 'refuted';
    else if (cap !== null) status = 'contested';
    else if (dismissedAttacks >= 2 && dismissedBy.size >= 2 && credenceVerified >= 0.6) status = 'supported';
    else status = 'unchecked';
    if (status === 'refuted') resolved = 0;
  } else {
    const contested = sRep + fRep > 0 && 4 * (sRep / (sRep + fRep)) * (fRep / (sRep + fRep)) >= 0.5;
    if (credenceVerified <= 0.35 && (fRep > 0 || refutingArgument)) status = 'refuted';
    else if (contested) status = 'contested';
    else if (established(use)) status = 'established';
    else if (credenceVerified >= 0.6 && sRep > 0) status = 'supported';
    else status = 'unchecked';
    if (status === 'refuted') resolved = 0;
    else if (!contested && established(0)) resolved = 1;
  }

  // Lift: for the claim itself and each foundation, its credence if that claim gained one confirming verified replication of a new family.
  const lift: Score['lift'] = [];
  if (claim.kind === 'empirical') lift.push({ ref: claim.ref, from: credence, to: hypoCredence, gain: hypoCredence - credence });
  for (const ref of foundations) {
    const fs = scores.get(ref)!;
    let changed = 1;
    for (const other of foundations)
      changed *= other === ref ? factorOf(state, fs, fs.hypoCredence, fs.hypoVerified) : factorOf(state, scores.get(other)!);
    const p = priorOf(a, changed);
    const to = credenceAt(p, evidence);
    lift.push({ ref, from: credence, to, gain: to - credence });
  }
  lift.sort((x, y) => y.gain - x.gain || (x.ref < y.ref ? -1 : x.ref > y.ref ? 1 : 0));

  return {
    ref: claim.ref,
    calibration: rho,
    prior,
    credence,
    credenceVerified,
    cap,
    status,
    resolved,
    use,
    s,
    f,
    dispute: dispute(s, f),
    reproduced,
    families: familyList,
    arguments: counts,
    foundations,
    evidence,
    evidenceVerified,
    hypoCredence,
    hypoVerified,
    lift,
  };
}
