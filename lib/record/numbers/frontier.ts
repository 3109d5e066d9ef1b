// GET /v2/frontier: five queues ranked by the record's value of checking, never blended into credence
// (docs/credence.md#the-frontier-get-v2frontierlimit).
import type { Argument, State } from '../fold/state.js';
import { claimNumbers, claimValue, inView } from './served.js';
import { argumentInView } from '../views/in-view.js';
import { round4 } from './rules.js';
import { awaitsVerifiedCheck } from './rescore.js';
import { openOnly } from './indexes.js';

export const FRONTIER_MAX = 50;

/** Keeps the `max` best of what is offered: highest key first, then the earlier offer. */
class Top<T> {
  private items: { key: number; order: number; item: () => T }[] = [];
  constructor(private readonly max: number) {}
  /** Whether an item of `key` and `order` offered now would be kept. */
  takes(key: number, order: number): boolean {
    const a = this.items;
    if (a.length < this.max) return true;
    const last = a[a.length - 1]!;
    return key > last.key || (key === last.key && order < last.order);
  }
  offer(key: number, order: number, item: () => T): void {
    const a = this.items;
    if (!this.takes(key, order)) return;
    let i = a.length;
    while (i > 0 && (a[i - 1]!.key < key || (a[i - 1]!.key === key && a[i - 1]!.order > order))) i--;
    a.splice(i, 0, { key, order, item });
    if (a.length > this.max) a.pop();
  }
  list(): T[] {
    return this.items.map((x) => x.item());
  }
  /** The lowest key kept once full; -Infinity before (anything would be kept). */
  lowest(): number {
    return this.items.length < this.max ? -Infinity : this.items[this.items.length - 1]!.key;
  }
  orders(): number[] {
    return this.items.map((x) => x.order);
  }
}

/** A claim in a queue: its ref, its numbers and what ranks it there. */
export type ClaimRow = { ref: string } & Record<string, unknown>;

/** The queues of claims (by ordinal scan), and what to watch to know when they go stale. */
function claimQueues(state: State) {
  const claims = new Top<ClaimRow>(FRONTIER_MAX);
  const disputes = new Top<ClaimRow>(FRONTIER_MAX);
  const conceptual = new Top<ClaimRow>(FRONTIER_MAX);
  // The fold keeps each claim's minutes and kind by ordinal (rescore.ts), and its value of checking and dispute worth are
  // read from its score (score-store.ts, a number of the claim's and a row of the table of scores): ranking is a scan of arrays.
  const { refs } = state.numbers.index;
  const { ranks, scores } = state.numbers;
  const [minutes, isConceptual] = [ranks.minutes.rows, ranks.conceptual.rows];
  for (let i = 0; i < refs.length; i++) {
    const ref = refs.at(i);
    if (!inView(state, ref)) continue;
    const value = scores.valueAt(i);
    if (isConceptual[i]) {
      if (conceptual.takes(value, i))
        conceptual.offer(value, i, () => ({ ref, ...claimNumbers(state, ref), arguments: state.numbers.scores.get(ref)!.arguments }));
    } else {
      const perMinute = value / minutes[i]!;
      if (claims.takes(perMinute, i))
        claims.offer(perMinute, i, () => ({
          ref,
          ...claimNumbers(state, ref),
          runtimeMinutes: minutes[i]!,
          perMinute: Number(perMinute.toPrecision(4)),
        }));
    }
    // Disputes most worth settling: how much the evidence disagrees, times how much rests on it.
    const w = scores.worthAt(i);
    if (w > 0 && disputes.takes(w, i)) disputes.offer(w, i, () => ({ ref, ...claimNumbers(state, ref), worth: round4(w) }));
  }
  const watch = {
    claims: claims.lowest(),
    conceptual: conceptual.lowest(),
    disputes: disputes.lowest(),
    members: new Set([...claims.orders(), ...conceptual.orders(), ...disputes.orders()]),
  };
  return { queues: { claims: claims.list(), disputes: disputes.list(), conceptual: conceptual.list() }, watch };
}

/**
 * The queues of receipts and arguments; `awaiting` lists the receipts that await a verified cross-check,
 * `open` the open arguments in log order.
 */
function otherQueues(state: State, awaiting: Iterable<string>, open: Iterable<Argument>) {
  // Receipts only operators that are not verified disagreed with: a verified cross-check settles them.
  const receipts = new Top<unknown>(FRONTIER_MAX);
  for (const id of awaiting) {
    const r = state.receipts.get(id)!;
    if (!inView(state, r.target)) continue;
    const against = r.crossCheckedBy.filter((c) => !c.match);
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
  for (const a of open) {
    if (!argumentInView(state, a)) continue;
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

  return { receipts: receipts.list(), arguments: args.list() };
}

type ClaimQueues = ReturnType<typeof claimQueues>['queues'];
type OtherQueues = ReturnType<typeof otherQueues>;

/** Every queue, top 50, from nothing (the cached frontier must always equal it). */
export function computeFrontier(state: State): ClaimQueues & OtherQueues {
  const awaiting = [...state.receipts.values()].filter((r) => awaitsVerifiedCheck(state, r)).map((r) => r.id);
  const open = [...state.argumentsById.values()].filter((a) => a.status === 'open');
  return { ...claimQueues(state).queues, ...otherQueues(state, awaiting, open) };
}

// Kept by the state's numbers, which a rebuild of the state replaces (lib/service/live-record.ts).
const cache = new WeakMap<State['numbers'], { claims: ClaimQueues | null; others: OtherQueues | null; version: number }>();

/** The frontier, `limit` items a queue (1 to 50). */
export function frontier(state: State, limit: number) {
  let c = cache.get(state.numbers);
  if (c === undefined) cache.set(state.numbers, (c = { claims: null, others: null, version: -1 }));
  const ranks = state.numbers.ranks;
  // The queues of claims are made again only when a claim changed that is in them or may now belong in them (rescore.ts sets
  // `stale` from `watch`); the receipts and arguments queues at each change of the numbers.
  if (c.claims === null || ranks.stale || ranks.watch === null) {
    const made = claimQueues(state);
    c.claims = made.queues;
    ranks.watch = made.watch;
    ranks.stale = false;
  }
  if (c.others === null || c.version !== state.numbers.version) {
    const open = openOnly(
      state.numbers.index.openArguments,
      (id) => state.argumentsById.get(id),
      (a) => a.status === 'open',
    );
    c.others = otherQueues(state, state.numbers.index.awaiting, open);
    c.version = state.numbers.version;
  }
  const f = { ...c.claims, ...c.others };
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
