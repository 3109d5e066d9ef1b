// GET /v2/frontier (spec 4.1): five queues, never blended into credence. Each is ranked by the
// record's value of checking, (use + 0.5) p (1 - p) with p the claim's credence (choices.md
// section 6); ties go to the older item. Computed once per change of the record, top 50 each.
import type { State } from '../state.js';
import { claimNumbers, claimValue, inView } from './served.js';
import { round4 } from './rules.js';

export const FRONTIER_MAX = 50;

/** Keeps the `max` best of what is offered: highest key first, then the earlier offer. */
class Top<T> {
  private items: { key: number; order: number; item: () => T }[] = [];
  constructor(private readonly max: number) {}
  offer(key: number, order: number, item: () => T): void {
    const a = this.items;
    if (a.length === this.max && key <= a[a.length - 1]!.key) return;
    let i = a.length;
    while (i > 0 && (a[i - 1]!.key < key || (a[i - 1]!.key === key && a[i - 1]!.order > order))) i--;
    a.splice(i, 0, { key, order, item });
    if (a.length > this.max) a.pop();
  }
  list(): T[] {
    return this.items.map((x) => x.item());
  }
}

export function computeFrontier(state: State) {
  const claims = new Top<unknown>(FRONTIER_MAX);
  const disputes = new Top<unknown>(FRONTIER_MAX);
  const conceptual = new Top<unknown>(FRONTIER_MAX);
  // The fold keeps each claim's value of checking, minutes and dispute worth by ordinal
  // (numbers.ts), so ranking is a scan of arrays.
  const { refs } = state.numbers.index;
  const { value, minutes, worth, conceptual: isConceptual } = state.numbers.ranks;
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i]!;
    if (!inView(state, ref)) continue;
    if (isConceptual[i]) {
      conceptual.offer(value[i]!, i, () => ({ ref, ...claimNumbers(state, ref), arguments: state.numbers.scores.get(ref)!.arguments }));
    } else {
      const perMinute = value[i]! / minutes[i]!;
      claims.offer(perMinute, i, () => ({ ref, ...claimNumbers(state, ref), runtimeMinutes: minutes[i]!, perMinute: Number(perMinute.toPrecision(4)) }));
    }
    // Disputes most worth settling: how much the evidence disagrees, times how much rests on it.
    if (worth[i]! > 0) disputes.offer(worth[i]!, i, () => ({ ref, ...claimNumbers(state, ref), worth: round4(worth[i]!) }));
  }

  // Receipts only operators that are not verified disagreed with: a verified cross-check settles them.
  const receipts = new Top<unknown>(FRONTIER_MAX);
  for (const id of state.numbers.index.disagreed) {
    const r = state.receipts.get(id)!;
    if (r.disownedSeq !== null) continue;
    if (r.crossCheckedBy.some((c) => state.verified.has(c.operatorId))) continue;
    const against = r.crossCheckedBy.filter((c) => !c.match);
    if (against.length === 0 || !inView(state, r.target)) continue;
    receipts.offer(claimValue(state, r.target), r.seq, () => ({
      id: r.id,
      target: r.target,
      kind: r.kind,
      operatorId: r.operatorId,
      disagreedBy: against.map((c) => ({ receipt: c.receipt, operatorId: c.operatorId, seq: c.seq })),
      ...claimNumbers(state, r.target),
    }));
  }

  // Open arguments awaiting checks.
  const args = new Top<unknown>(FRONTIER_MAX);
  for (const a of state.argumentsById.values()) {
    if (a.status !== 'open' || !inView(state, a.claim)) continue;
    let verifiedChecks = 0;
    for (const c of a.checks.values()) if (state.verified.has(c.operatorId)) verifiedChecks++;
    args.offer(claimValue(state, a.claim), a.seq, () => ({
      id: a.id,
      claim: a.claim,
      stance: a.stance,
      grounds: a.grounds,
      operatorId: a.operatorId,
      checks: a.checks.size,
      verifiedChecks,
      value: round4(claimValue(state, a.claim)),
    }));
  }

  return { claims: claims.list(), disputes: disputes.list(), receipts: receipts.list(), conceptual: conceptual.list(), arguments: args.list() };
}

export type Frontier = ReturnType<typeof computeFrontier>;

const cache = new WeakMap<State, { size: number; version: number; frontier: Frontier }>();

/** The frontier, `limit` items a queue (1 to 50), computed once per change of the record. */
export function frontier(state: State, limit: number) {
  let c = cache.get(state);
  if (c === undefined || c.size !== state.size || c.version !== state.numbers.version) {
    c = { size: state.size, version: state.numbers.version, frontier: computeFrontier(state) };
    cache.set(state, c);
  }
  const f = c.frontier;
  return {
    version: 'credence/0.3',
    limit,
    claims: f.claims.slice(0, limit),
    disputes: f.disputes.slice(0, limit),
    receipts: f.receipts.slice(0, limit),
    conceptual: f.conceptual.slice(0, limit),
    arguments: f.arguments.slice(0, limit),
  };
}
