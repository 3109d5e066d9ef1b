// Operators verified by the record, in rounds; the fold runs them after every entry. The rule:
// docs/credence.md#operators-verified-by-the-record.
import type { State, VerifiedBy } from '../fold/state.js';
import type { NumbersIndex, OperatorTally, ReceiptTally } from './indexes.js';
import { appended, appendOnly } from '../stores/columns.js';

export type { VerifiedBy };

export const RECEIPTS_NEEDED = 3;
export const REPORTS_NEEDED = 10;
export const RIGHT_SHARE = 0.8;
export const DISPUTES_TO_VOID = 2;

/**
 * The receipts criterion: receipts a verified operator's cross-check matched, none that one
 * disputed. Its round: 1 + the third-lowest round among the rounds of the operators that
 * verified each receipt (each receipt taking its lowest).
 */
export function receiptsEarned(state: State, ix: NumbersIndex, op: string): { receipts: number; sources: number; round: number } | null {
  const rounds: number[] = [];
  const sources = new Set<string>();
  for (const id of ix.receiptsByOperator.get(op) ?? []) {
    const r = state.receipts.get(id)!;
    if (r.disownedSeq !== null) continue;
    let lowest = Infinity;
    for (const c of r.crossCheckedBy) {
      const v = state.verified.get(c.operatorId);
      if (v === undefined) continue;
      if (!c.match) return null;
      lowest = Math.min(lowest, v.round);
      sources.add(c.operatorId);
    }
    if (lowest !== Infinity) rounds.push(lowest);
  }
  if (rounds.length < RECEIPTS_NEEDED) return null;
  rounds.sort((a, b) => a - b);
  return { receipts: rounds.length, sources: sources.size, round: rounds[RECEIPTS_NEEDED - 1]! + 1 };
}

/**
 * The reports criterion: the operator's latest review of each claim and latest check of each
 * argument, on resolved claims of other operators. A review is right when forecast >= 0.5 and
 * the claim resolved 1, or < 0.5 and it resolved 0; a check is right when what it says of the
 * claim (holds on `supports`, fails on `refutes`: for it; the reverse: against it) matches the
 * resolution. Checks of `qualifies` arguments say neither and are not counted.
 */
export function reportsEarned(state: State, ix: NumbersIndex, op: string): { reports: number; right: number } {
  let reports = 0;
  let right = 0;
  const reviews = state.reviews;
  const latest = new Map<string, number>();
  for (const row of ix.reviewsByOperator.get(op) ?? []) {
    const claim = reviews.claimAt(row);
    if (reviews.disownedAt(row) === null) latest.set(claim, row);
    else if (latest.get(claim) === row) latest.delete(claim);
  }
  const resolvedOf = (ref: string) => {
    const c = state.claims.get(ref)!;
    return c.operatorId === op ? null : (state.numbers.scores.resolvedOf(ref) ?? null);
  };
  for (const [claim, row] of latest) {
    const res = resolvedOf(claim);
    if (res === null) continue;
    reports++;
    if (reviews.forecastAt(row) >= 0.5 === (res === 1)) right++;
  }
  for (const argId of ix.checksByOperator.get(op) ?? []) {
    const a = state.argumentsById.get(argId)!;
    if (a.stance === 'qualifies') continue;
    const res = resolvedOf(a.claim);
    if (res === null) continue;
    const forClaim = (a.stance === 'supports') === a.checks.get(op)!.holds;
    reports++;
    if (forClaim === (res === 1)) right++;
  }
  return { reports, right };
}

function tallyOf(state: State, op: string): OperatorTally {
  const all = state.numbers.tallies.operators;
  let t = all.get(op);
  if (t === undefined) {
    t = { receipts: new Map(), disputes: 0, byRound: new Map(), sources: new Map(), claims: appendOnly([]), reports: 0, right: 0 };
    all.set(op, t);
  }
  return t;
}

const bump = <K>(m: Map<K, number>, k: K, by: number): void => {
  const n = (m.get(k) ?? 0) + by;
  if (n === 0) m.delete(k);
  else m.set(k, n);
};

/**
 * Receipt `id` changed (a cross-check, disowned) or one of its cross-checkers was verified or voided: its
 * operator's receipts tally anew.
 */
export function noteReceipt(state: State, id: string): void {
  const r = state.receipts.get(id)!;
  const t = tallyOf(state, r.operatorId);
  const old = t.receipts.get(id);
  if (old !== undefined) {
    t.disputes -= old.disputes;
    if (old.lowest !== Infinity) bump(t.byRound, old.lowest, -1);
    for (const c of old.checkers) bump(t.sources, c, -1);
    t.receipts.delete(id);
  }
  if (r.disownedSeq !== null) return;
  const now: ReceiptTally = { disputes: 0, lowest: Infinity, checkers: [] };
  for (const c of r.crossCheckedBy) {
    const v = state.verified.get(c.operatorId);
    if (v === undefined) continue;
    if (!c.match) now.disputes++;
    else {
      now.lowest = Math.min(now.lowest, v.round);
      now.checkers.push(c.operatorId);
    }
  }
  if (now.disputes === 0 && now.checkers.length === 0) return;
  t.disputes += now.disputes;
  if (now.lowest !== Infinity) bump(t.byRound, now.lowest, 1);
  for (const c of now.checkers) bump(t.sources, c, 1);
  t.receipts.set(id, now);
}

/** A review by `op` was filed (`row`, its row in state.reviews): it becomes its latest of the claim. */
export function noteReview(state: State, op: string, row: number): void {
  const claim = state.reviews.claimAt(row);
  state.numbers.tallies.pairs.noteReview(pairOf(state, op, claim), row);
  noteReports(state, op, claim);
}

/** A check by `op` of argument `id` was filed (the first or one replacing its earlier one). */
export function noteArgumentCheck(state: State, op: string, id: string): void {
  const claim = state.argumentsById.get(id)!.claim;
  state.numbers.tallies.pairs.noteCheck(pairOf(state, op, claim), id);
  noteReports(state, op, claim);
}

/** The report pair of `op` and `claim` (report-pairs.ts), made when new: the claim joins the operator's claims. */
function pairOf(state: State, op: string, claim: string): number {
  const ord = state.claims.ordinal(claim);
  return state.numbers.tallies.pairs.rowOf(op, ord, () => {
    const tally = tallyOf(state, op);
    tally.claims = appended(tally.claims, ord);
  });
}

/**
 * What `op`'s reports on `claim` count now (its latest review not disowned, its checks of the
 * claim's arguments), as `reportsEarned` counts them: after a report, a review disowned, or the
 * claim's resolution moved.
 */
export function noteReports(state: State, op: string, claim: string): void {
  const pairs = state.numbers.tallies.pairs;
  const row = pairs.find(op, state.claims.ordinal(claim));
  if (row < 0) return;
  const t = tallyOf(state, op);
  const was = pairs.counted(row);
  t.reports -= was.reports;
  t.right -= was.right;
  let reports = 0;
  let right = 0;
  const ord = state.claims.ordinal(claim);
  const res = state.claims.operatorAt(ord) === op ? null : (state.numbers.scores.resolvedAt(ord) ?? null);
  if (res !== null) {
    for (const r of pairs.reviews(row)) {
      if (state.reviews.disownedAt(r) !== null) continue;
      reports++;
      if (state.reviews.forecastAt(r) >= 0.5 === (res === 1)) right++;
      break;
    }
    for (const argId of pairs.checked(row)) {
      const a = state.argumentsById.get(argId)!;
      if (a.stance === 'qualifies') continue;
      const forClaim = (a.stance === 'supports') === a.checks.get(op)!.holds;
      reports++;
      if (forClaim === (res === 1)) right++;
    }
  }
  pairs.setCounted(row, reports, right);
  t.reports += reports;
  t.right += right;
}

/**
 * The operators with reports on `claim` (its reviewers, the checkers of its arguments): after its resolution
 * moved, their reports count anew.
 */
export function noteResolution(state: State, claim: string): string[] {
  const ops = new Set<string>();
  for (const row of state.numbers.index.reviewsByClaim.rowsOf(state.claims.rowOf(claim))) ops.add(state.reviews.operatorAt(row));
  for (const id of state.argumentsByClaim.get(claim) ?? []) {
    for (const c of state.argumentsById.get(id)!.checks.values()) ops.add(c.operatorId);
  }
  for (const op of ops) noteReports(state, op, claim);
  return [...ops];
}

/** The receipts criterion as the tallies have it: the same as `receiptsEarned`. */
export function receiptsTallied(state: State, op: string): { receipts: number; sources: number; round: number } | null {
  const t = state.numbers.tallies.operators.get(op);
  if (t === undefined || t.disputes > 0) return null;
  let receipts = 0;
  for (const n of t.byRound.values()) receipts += n;
  if (receipts < RECEIPTS_NEEDED) return null;
  let seen = 0;
  let round = 0;
  for (const r of [...t.byRound.keys()].sort((a, b) => a - b)) {
    seen += t.byRound.get(r)!;
    if (seen >= RECEIPTS_NEEDED) {
      round = r;
      break;
    }
  }
  return { receipts, sources: t.sources.size, round: round + 1 };
}

/** The reports criterion as the tallies have it: the same as `reportsEarned`. */
export function reportsTallied(state: State, op: string): { reports: number; right: number } {
  const t = state.numbers.tallies.operators.get(op);
  return { reports: t?.reports ?? 0, right: t?.right ?? 0 };
}

/** The highest round of any operator verified (0 when none beyond genesis). */
export function lastRound(state: State): number {
  let last = 0;
  for (const [r, n] of state.numbers.tallies.rounds) if (n > 0) last = Math.max(last, r);
  return last;
}

/** What would verify `op` now, or null. */
export function qualification(state: State, ix: NumbersIndex, op: string, seq: number, fromScratch = false): VerifiedBy | null {
  const rec = fromScratch ? receiptsEarned(state, ix, op) : receiptsTallied(state, op);
  const rep = fromScratch ? reportsEarned(state, ix, op) : reportsTallied(state, op);
  const byReports = rep.reports >= REPORTS_NEEDED && rep.right >= RIGHT_SHARE * rep.reports;
  if (rec === null && !byReports) return null;
  // Resolutions rest on everyone verified so far: the reports criterion is one round after the last.
  let last = 0;
  if (fromScratch) for (const v of state.verified.values()) last = Math.max(last, v.round);
  else last = lastRound(state);
  const round = Math.min(rec?.round ?? Infinity, byReports ? last + 1 : Infinity);
  return { round, seq, ...(rec ?? {}), ...(byReports ? rep : {}) };
}

/**
 * One round over `candidates`: every operator that qualifies against the verified set as it
 * stands, added together. Returns the operators it added.
 */
export function verifyRound(state: State, ix: NumbersIndex, candidates: Iterable<string>, seq: number): string[] {
  const newly: [string, VerifiedBy][] = [];
  for (const op of [...new Set(candidates)].sort()) {
    if (state.verified.has(op) || state.voided.has(op) || !state.operators.has(op)) continue;
    const q = qualification(state, ix, op, seq);
    if (q !== null) newly.push([op, q]);
  }
  for (const [op, q] of newly) {
    state.verified.set(op, q);
    if (q.round > 0) bump(state.numbers.tallies.rounds, q.round, 1);
  }
  return newly.map(([op]) => op);
}

/**
 * After a cross-check of `receipt` disagreed: its operator loses verification once two verified
 * operators dispute it (the deployment's own operator, verified at genesis, is not voided).
 */
export function voidIfDisputed(state: State, receipt: string, seq: number): string | null {
  const r = state.receipts.get(receipt)!;
  if (!state.verified.has(r.operatorId) || r.operatorId === state.operator) return null;
  const disputers = new Set(r.crossCheckedBy.filter((c) => !c.match && state.verified.has(c.operatorId)).map((c) => c.operatorId));
  if (disputers.size < DISPUTES_TO_VOID) return null;
  const round = state.verified.get(r.operatorId)!.round;
  if (round > 0) bump(state.numbers.tallies.rounds, round, -1);
  state.verified.delete(r.operatorId);
  state.voided.set(r.operatorId, { seq, receipt });
  return r.operatorId;
}
