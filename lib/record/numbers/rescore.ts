// The numbers as writes land: after every entry, the claims it touched and, in log order, those whose score depends on one that
// moved are rescored, then the rounds of verification run (docs/credence.md#how-the-service-keeps-them). `rescoreAll` is the
// from-scratch computation that the incremental one must equal (tests compare them).
import type { Receipt, RecordEntry, State } from '../fold/state.js';
import { CHUNK, emptyAggregates, type Numbers } from './indexes.js';
import { keptParts, markStale, resolvedMoved } from './kept.js';
import { Scores, type ScoreHead } from './score-store.js';
import { foundationsOf, scoreClaim, type Score } from './score.js';

/** Minutes of expected compute for a claim with no bundle yet (docs/credence.md). */
export const DEFAULT_MINUTES = 60;
import { noteReceipt, noteResolution, verifyRound, voidIfDisputed } from './verification.js';
import { resettle } from './settlement.js';

/**
 * What an entry touched, as its type says (types/*.ts, `numbers`): claims to rescore, operators
 * whose verification may have changed, and a receipt a cross-check disagreed with (voiding).
 */
export interface Touched {
  claims: string[];
  operators: string[];
  disputed: string | null;
  /**
   * What the entry did to the touched claims' counted evidence (receipts and reviews): `none`
   * (an argument, a paper relying on them), `appended` (a review or a result, after every item
   * they hold: their kept aggregates take it as it comes), or `changed` (anything else: their
   * aggregates are built again, kept.ts).
   */
  evidence: 'none' | 'appended' | 'changed';
}

/** An entry that changed nothing the numbers read. */
export const untouched = (): Touched => ({ claims: [], operators: [], disputed: null, evidence: 'changed' });

/** Whether `ref` is resolved as its score now stands. */
export const resolvedNow = (state: State, ref: string): boolean => (state.numbers.scores.resolvedOf(ref) ?? null) !== null;

/** Whether receipt `id` awaits a verified cross-check after one that disagreed (the frontier's receipts queue). */
export function awaitsVerifiedCheck(state: State, r: Receipt): boolean {
  return (
    r.disownedSeq === null && r.crossCheckedBy.some((c) => !c.match) && !r.crossCheckedBy.some((c) => state.verified.has(c.operatorId))
  );
}

/** Keeps the frontier's queue of receipts awaiting a verified cross-check up to date for receipt `id`. */
export function noteAwaiting(state: State, id: string): void {
  if (awaitsVerifiedCheck(state, state.receipts.get(id)!)) state.numbers.index.awaiting.add(id);
  else state.numbers.index.awaiting.delete(id);
}

/** A min-heap of claim ordinals: claims are rescored in log order, so foundations come first. */
class OrdinalHeap {
  private items: number[] = [];
  private queued = new Set<number>();
  get size(): number {
    return this.items.length;
  }
  push(n: number): void {
    if (this.queued.has(n)) return;
    this.queued.add(n);
    const a = this.items;
    a.push(n);
    for (let i = a.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if (a[up]! <= a[i]!) break;
      [a[up], a[i]] = [a[i]!, a[up]!];
      i = up;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]! < a[m]!) m = l;
        if (r < a.length && a[r]! < a[m]!) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    this.queued.delete(top);
    return top;
  }
}

/** Whether a claim's dependents must be rescored: what they read of it moved. */
function movedForDependents(a: ScoreHead, b: Score): boolean {
  return (
    a.prior !== b.prior ||
    a.credence !== b.credence ||
    a.credenceVerified !== b.credenceVerified ||
    a.status !== b.status ||
    a.hypoCredence !== b.hypoCredence ||
    a.hypoVerified !== b.hypoVerified
  );
}

/** Rescores `refs` and whatever depends on them; returns the claims whose `resolved` changed. */
export function refresh(state: State, refs: Iterable<string>): string[] {
  const { index: ix, scores } = state.numbers;
  state.numbers.version++;
  const heap = new OrdinalHeap();
  const parts = keptParts(state);
  for (const ref of refs) heap.push(state.claims.ordinal(ref));
  const resolvedChanged: string[] = [];
  while (heap.size > 0) {
    const ord = heap.pop();
    const ref = ix.refs.at(ord);
    const claim = state.claims.at(ord);
    const before = scores.headAt(ord);
    const after = scoreClaim(state, ix, claim, scores, parts);
    setScore(state, ref, after);
    if (before !== undefined && before.status !== after.status)
      state.numbers.statusChanges.push({ ...state.numbers.at, ref, from: before.status, to: after.status });
    if (before === undefined || movedForDependents(before, after)) {
      for (const d of ix.dependents.get(ref) ?? []) heap.push(state.claims.ordinal(d));
    }
    if (before?.resolved !== after.resolved) {
      if (before !== undefined) resolvedChanged.push(ref);
      // The author's later claims take this one into their calibration.
      if (!claim.external) {
        resolvedMoved(state, claim);
        const own = ix.claimsByOperator.get(claim.operatorId)!;
        for (let i = own.length - 1; i >= 0; i--) {
          const ord = own[i]!;
          if (state.claims.seqAt(ord) <= claim.seq) break;
          heap.push(ord);
        }
      }
    }
  }
  return resolvedChanged;
}

/** Every claim scored from nothing, in log order (the aggregates are built again as claims are next rescored). */
export function rescoreAll(state: State): void {
  state.numbers.scores = new Scores(state.claims);
  state.numbers.aggregates = emptyAggregates();
  const { index: ix, scores } = state.numbers;
  state.numbers.version++;
  for (const ref of ix.refs) setScore(state, ref, scoreClaim(state, ix, state.claims.get(ref)!, scores));
}

/** Keeps a claim's new score, what the frontier ranks it by, and marks its chunk of the served body. */
function setScore(state: State, ref: string, s: Score): void {
  const n = state.numbers;
  const ord = state.claims.ordinal(ref);
  n.scores.set(ref, s);
  n.history.note(ref, n.at.seq, s.credence);
  n.ranks.conceptual.set(ord, state.claims.kindAt(ord) === 'conceptual' ? 1 : 0);
  watchFrontier(n, ord);
  n.chunkVersion[Math.floor(ord / CHUNK)] = n.version;
}

/** Marks the frontier's ranked queues stale when claim `ord`, as it now ranks, may belong in them. */
export function watchFrontier(n: Pick<Numbers, 'ranks' | 'scores'>, ord: number): void {
  const r = n.ranks;
  const w = r.watch;
  if (r.stale || w === null) return;
  const conceptual = r.conceptual.at(ord) === 1;
  const value = n.scores.valueAt(ord);
  const worth = n.scores.worthAt(ord);
  const key = conceptual ? value : value / r.minutes.at(ord);
  if (w.members.has(ord) || key >= (conceptual ? w.conceptual : w.claims) || (worth > 0 && worth >= w.disputes)) r.stale = true;
}

/**
 * The claims whose numbers read whether `op` is verified: those it filed receipts or reviews
 * on, those whose receipts it cross-checked (verified or disputed), those its papers rely on
 * (use). Its argument checks count through the arguments they settle (resettle).
 */
function claimsReading(state: State, op: string): string[] {
  const ix = state.numbers.index;
  const refs: string[] = [];
  for (const id of ix.receiptsByOperator.get(op) ?? []) refs.push(state.receipts.get(id)!.target);
  for (const id of ix.crossCheckedBy.get(op) ?? []) refs.push(state.receipts.get(id)!.target);
  // The claims it reviewed (or checked arguments of), once each however many reports it filed on them.
  for (const ord of state.numbers.tallies.operators.get(op)?.claims ?? []) refs.push(ix.refs.at(ord));
  for (const row of ix.papersByOperator.get(op) ?? []) {
    for (const ref of state.papers.at(row).claims) refs.push(...foundationsOf(state, state.claims.get(ref)!));
  }
  // Conceptual claims count the verified operators that dismissed attacks on them.
  for (const id of ix.checksByOperator.get(op) ?? []) refs.push(state.argumentsById.get(id)!.claim);
  return refs;
}

/** Operators whose receipts `op` cross-checked: its verification may verify them. */
function crossCheckedOperators(state: State, op: string): string[] {
  return (state.numbers.index.crossCheckedBy.get(op) ?? []).map((id) => state.receipts.get(id)!.operatorId);
}

/**
 * The numbers after entry `e` (applied already; `t` is what its type said it touched). The
 * consequences phase of the fold (docs/entry-types.md): rescores what the entry touched, then
 * runs rounds of verification by the record until nothing changes; each change of who is
 * verified settles the arguments it gives voices to and rescores the claims that read it.
 */
export function updateNumbers(state: State, e: RecordEntry, t: Touched): void {
  state.numbers.at = { seq: e.seq, ts: e.ts };
  let claims = t.claims;
  let candidates = t.operators;
  let changed: string[] = [];
  // A review or a result appends to its claim's evidence aggregate; other entries that may change items build it again.
  if (t.evidence === 'changed') markStale(state, claims);
  if (t.disputed !== null) {
    const voided = voidIfDisputed(state, t.disputed, e.seq);
    if (voided !== null) changed = [voided];
  }
  for (;;) {
    if (changed.length > 0) {
      claims = [...claims, ...resettle(state, e.seq, e.ts)];
      for (const op of changed) {
        const reading = claimsReading(state, op);
        markStale(state, reading);
        claims.push(...reading);
        candidates.push(...crossCheckedOperators(state, op));
        for (const id of state.numbers.index.crossCheckedBy.get(op) ?? []) {
          noteAwaiting(state, id);
          noteReceipt(state, id);
        }
      }
    }
    if (claims.length > 0) for (const ref of refresh(state, claims)) candidates.push(...noteResolution(state, ref));
    changed = verifyRound(state, state.numbers.index, candidates, e.seq);
    if (changed.length === 0) return;
    claims = [];
    candidates = [];
  }
}

/**
 * An item left or came back into view: its claims' chunks of the served body are made again,
 * and the frontier ranks anew. The numbers themselves do not change (they never read text).
 */
export function markViewChanged(state: State, claims: readonly string[]): void {
  const n = state.numbers;
  n.version++;
  n.ranks.stale = true;
  for (const ref of claims) {
    const ord = state.claims.rowOf(ref);
    if (ord >= 0) n.chunkVersion[Math.floor(ord / CHUNK)] = n.version;
  }
}
