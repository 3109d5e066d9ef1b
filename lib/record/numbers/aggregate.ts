// The evidence part of a claim's score (docs/credence.md, Evidence), kept per claim as an
// aggregate that entries update, so that a write costs the same on a claim with ten items as on
// one with a hundred thousand (issue 14). The sums are exact sums rounded once and the family
// factors are in their canonical form (docs/credence.md#arithmetic), so the aggregate kept as
// items come and go equals, bit for bit, the same computed from the claim's items from scratch.
import { ExactSum } from './exact-sum.js';
import { evidenceStep, familyFactorOf, type ItemKind } from './rules.js';

/** One counted item: an operator's strongest kind, of that kind its latest. */
export interface Item {
  operatorId: string;
  kind: ItemKind;
  favours: boolean;
  verified: boolean;
  t: number;
  families: string[];
  /** The entry that made it count: a result's seq, a review's seq. */
  seq: number;
}

/** What the score reads of a claim's evidence. */
export interface Evidence {
  vRec: number;
  vRev: number;
  uRec: number;
  uRev: number;
  s: number;
  f: number;
  sRep: number;
  fRep: number;
  /** Operators with a confirming verified replication, and the families of those replications (sorted). */
  confirmingOps: number;
  families: string[];
  /** Counting confirmed reruns by operators other than the author's. */
  reproduced: boolean;
}

const SUMS = ['vRec', 'vRev', 'uRec', 'uRev', 's', 'f', 'sRep', 'fRep'] as const;
type SumName = (typeof SUMS)[number];

/** An item as counted: its weight (tier times family factor) and the terms it adds to the sums. */
interface Counted extends Item {
  terms: [SumName, number][];
}

/**
 * A claim's counted items in seq order (a Map keyed by operator: re-inserting moves an item to
 * the end, and an item that starts counting always has the latest seq), the exact sums of their
 * terms, and per direction how many verified items have each family set (the family factors of
 * later items).
 */
export class EvidenceAggregate {
  readonly items = new Map<string, Counted>();
  private readonly sums = new Map<SumName, ExactSum>(SUMS.map((n) => [n, new ExactSum()]));
  /** Per direction (0 against, 1 for): family-set key to [families, verified items with them]. */
  private readonly familySets: [Map<string, [string[], number]>, Map<string, [string[], number]>] = [new Map(), new Map()];
  /** Families of confirming verified replications, with how many. */
  private readonly repFamilies = new Map<string, number>();
  private confirming = 0;
  /** Counting confirmed reruns by operators other than the author's (kept by the caller). */
  reruns = 0;
  /** How many of the claim's reviews (numbers index, in log order) it has read. */
  reviewsRead = 0;
  /** How many of the claim's results (numbers index, in log order) it has read. */
  resultsRead = 0;
  /** The seq and operator of the latest counted item. */
  lastSeq = -1;
  private lastOperator: string | null = null;

  /**
   * Counts `item`, whose seq is later than any counted: it replaces its operator's item. Returns
   * false when that would move a verified item with families from the middle (the factors of
   * later items change): the caller rebuilds the aggregate instead.
   */
  offer(item: Item, kindRank: (k: ItemKind) => number): boolean {
    const cur = this.items.get(item.operatorId);
    if (cur !== undefined) {
      if (kindRank(item.kind) < kindRank(cur.kind)) return true;
      if (cur.verified && cur.families.length > 0 && this.lastOperator !== cur.operatorId) return false;
      this.drop(cur);
    }
    this.append(item);
    return true;
  }

  /** Appends `item` as the latest counted item. */
  append(item: Item): void {
    const dir = item.favours ? 1 : 0;
    const w = item.t * familyFactorOf(item.families, this.familySets[dir].values());
    const { e, mass } = evidenceStep(item.kind, item.favours);
    const terms: [SumName, number][] = [];
    if (item.kind === 'review') terms.push([item.verified ? 'vRev' : 'uRev', w * e]);
    else terms.push([item.verified ? 'vRec' : 'uRec', w * e]);
    if (item.verified) {
      terms.push([item.favours ? 's' : 'f', mass * w]);
      if (item.kind === 'replication') terms.push([item.favours ? 'sRep' : 'fRep', mass * w]);
    }
    for (const [n, x] of terms) this.sums.get(n)!.add(x);
    this.noteSets(item, 1);
    this.items.delete(item.operatorId);
    this.items.set(item.operatorId, { ...item, terms });
    this.lastSeq = item.seq;
    this.lastOperator = item.operatorId;
  }

  /** Removes a counted item whose removal changes no other item's factor. */
  private drop(c: Counted): void {
    for (const [n, x] of c.terms) this.sums.get(n)!.remove(x);
    this.noteSets(c, -1);
    this.items.delete(c.operatorId);
    if (this.lastOperator === c.operatorId) this.lastOperator = null;
  }

  private noteSets(item: Item, by: 1 | -1): void {
    if (!item.verified) return;
    if (item.families.length > 0) {
      const sets = this.familySets[item.favours ? 1 : 0];
      const key = item.families.join('\n');
      const cur = sets.get(key);
      const n = (cur?.[1] ?? 0) + by;
      if (n === 0) sets.delete(key);
      else sets.set(key, [item.families, n]);
    }
    if (item.kind === 'replication' && item.favours) {
      this.confirming += by;
      for (const fam of item.families) {
        const n = (this.repFamilies.get(fam) ?? 0) + by;
        if (n === 0) this.repFamilies.delete(fam);
        else this.repFamilies.set(fam, n);
      }
    }
  }

  evidence(): Evidence {
    const v = (n: SumName) => this.sums.get(n)!.value();
    return {
      vRec: v('vRec'),
      vRev: v('vRev'),
      uRec: v('uRec'),
      uRev: v('uRev'),
      s: v('s'),
      f: v('f'),
      sRep: v('sRep'),
      fRep: v('fRep'),
      confirmingOps: this.confirming,
      families: [...this.repFamilies.keys()].sort(),
      reproduced: this.reruns > 0,
    };
  }
}
