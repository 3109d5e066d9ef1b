// Operators verified by the record (docs/credence.md#operators-verified-by-the-record), in rounds: round k verifies operators
// that, counting only evidence from operators verified by round k-1, have 3 receipts verified by
// a cross-check match and none disputed, or 10 reports (reviews or argument checks) on resolved
// claims with at least 80 % right. A verified operator whose receipt two verified operators
// dispute loses the status from that entry on. The fold runs this after every entry.
import type { State, VerifiedBy } from '../state.js';
import type { NumbersIndex } from './index.js';

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
  const latest = new Map<string, string>();
  for (const id of ix.reviewsByOperator.get(op) ?? []) {
    const v = state.reviews.get(id)!;
    if (v.disownedSeq === null) latest.set(v.claim, id);
    else if (latest.get(v.claim) === id) latest.delete(v.claim);
  }
  const resolvedOf = (ref: string) => {
    const c = state.claims.get(ref)!;
    return c.operatorId === op ? null : (state.numbers.scores.get(ref)?.resolved ?? null);
  };
  for (const [claim, id] of latest) {
    const res = resolvedOf(claim);
    if (res === null) continue;
    reports++;
    if (state.reviews.get(id)!.forecast >= 0.5 === (res === 1)) right++;
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

/** What would verify `op` now, or null. */
export function qualification(state: State, ix: NumbersIndex, op: string, seq: number): VerifiedBy | null {
  const rec = receiptsEarned(state, ix, op);
  const rep = reportsEarned(state, ix, op);
  const byReports = rep.reports >= REPORTS_NEEDED && rep.right >= RIGHT_SHARE * rep.reports;
  if (rec === null && !byReports) return null;
  // Resolutions rest on everyone verified so far: the reports criterion is one round after the last.
  let lastRound = 0;
  for (const v of state.verified.values()) lastRound = Math.max(lastRound, v.round);
  const round = Math.min(rec?.round ?? Infinity, byReports ? lastRound + 1 : Infinity);
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
  for (const [op, q] of newly) state.verified.set(op, q);
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
  state.verified.delete(r.operatorId);
  state.voided.set(r.operatorId, { seq, receipt });
  return r.operatorId;
}
