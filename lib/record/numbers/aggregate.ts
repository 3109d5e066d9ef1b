// The evidence part of a claim's score, kept per claim as an aggregate that entries update, so that a write costs the same on a
// claim with ten items as on one with a hundred thousand (docs/credence.md#how-the-service-keeps-them). It equals, bit for bit,
// the same computed from scratch (docs/credence.md#arithmetic).
import { ExactSum } from './exact-sum.js';
import { evidenceStep, familyFactorOf, type ItemKind } from './rules.js';

const NO_FAMILIES: string[] = [];

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

export type SumName = 'vRec' | 'vRev' | 'uRec' | 'uRev' | 's' | 'f' | 'sRep' | 'fRep';

const KINDS: readonly ItemKind[] = ['review', 'rerun', 'replication'];
const FAVOURS = 4;
const VERIFIED = 8;

/**
 * A claim's counted items (one per operator) and the exact sums of their terms, and per direction
 * how many verified items have each family set (the family factors of later items). Each item is
 * a slot of parallel arrays (no object per item: a claim may hold a hundred thousand): its kind
 * and flags, seq, families, and the two terms it added (w * e to its evidence sum, mass * w to
 * s or f, and to sRep or fRep for a replication), which it takes back when replaced.
 */
export class EvidenceAggregate {
  /** Operator to its item's slot. */
  private readonly slots = new Map<string, number>();
  /** Per slot: the kind's index in KINDS, with FAVOURS and VERIFIED set as they apply. */
  private readonly flags: number[] = [];
  private readonly seqs: number[] = [];
  private readonly families: string[][] = [];
  private readonly evidenceTerm: number[] = [];
  private readonly massTerm: number[] = [];
  /** Slots freed by replaced items, used again first. */
  private readonly free: number[] = [];
  private readonly sums: Record<SumName, ExactSum> = {
    vRec: new ExactSum(),
    vRev: new ExactSum(),
    uRec: new ExactSum(),
    uRev: new ExactSum(),
    s: new ExactSum(),
    f: new ExactSum(),
    sRep: new ExactSum(),
    fRep: new ExactSum(),
  };
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
    const cur = this.slots.get(item.operatorId);
    if (cur !== undefined) {
      const f = this.flags[cur]!;
      if (kindRank(item.kind) < kindRank(KINDS[f & 3]!)) return true;
      if (f & VERIFIED && this.families[cur]!.length > 0 && this.lastOperator !== item.operatorId) return false;
      this.drop(item.operatorId, cur);
    }
    this.append(item);
    return true;
  }

  /** Appends `item` as the latest counted item. */
  append(item: Item): void {
    const dir = item.favours ? 1 : 0;
    // No families: a factor of 1 (rules.ts), without walking the sets.
    const w = item.families.length === 0 ? item.t : item.t * familyFactorOf(item.families, this.familySets[dir].values());
    const { e, mass } = evidenceStep(item.kind, item.favours);
    const flags = KINDS.indexOf(item.kind) | (item.favours ? FAVOURS : 0) | (item.verified ? VERIFIED : 0);
    this.terms(flags, w * e, mass * w, 1);
    this.noteSets(item.kind, item.favours, item.verified, item.families, 1);
    const was = this.slots.get(item.operatorId);
    if (was !== undefined) this.release(item.operatorId, was);
    const slot = this.free.pop() ?? this.flags.length;
    this.flags[slot] = flags;
    this.seqs[slot] = item.seq;
    this.families[slot] = item.families;
    this.evidenceTerm[slot] = w * e;
    this.massTerm[slot] = mass * w;
    this.slots.set(item.operatorId, slot);
    this.lastSeq = item.seq;
    this.lastOperator = item.operatorId;
  }

  /**
   * Adds (`by` 1) or takes back (-1) an item's terms: w * e to its evidence sum; if verified, mass * w to s
   * or f, and for a replication to sRep or fRep.
   */
  private terms(flags: number, evidence: number, mass: number, by: 1 | -1): void {
    const kind = KINDS[flags & 3]!;
    const favours = (flags & FAVOURS) !== 0;
    const verified = (flags & VERIFIED) !== 0;
    const sums = this.sums;
    // remove(x) is add(-x) (exact-sum.ts).
    const e = by === 1 ? evidence : -evidence;
    const m = by === 1 ? mass : -mass;
    if (kind === 'review') (verified ? sums.vRev : sums.uRev).add(e);
    else (verified ? sums.vRec : sums.uRec).add(e);
    if (verified) {
      (favours ? sums.s : sums.f).add(m);
      if (kind === 'replication') (favours ? sums.sRep : sums.fRep).add(m);
    }
  }

  /** Removes a counted item whose removal changes no other item's factor. */
  private drop(operatorId: string, slot: number): void {
    const f = this.flags[slot]!;
    this.terms(f, this.evidenceTerm[slot]!, this.massTerm[slot]!, -1);
    this.noteSets(KINDS[f & 3]!, (f & FAVOURS) !== 0, (f & VERIFIED) !== 0, this.families[slot]!, -1);
    this.release(operatorId, slot);
    if (this.lastOperator === operatorId) this.lastOperator = null;
  }

  private release(operatorId: string, slot: number): void {
    this.slots.delete(operatorId);
    this.families[slot] = NO_FAMILIES;
    this.free.push(slot);
  }

  private noteSets(kind: ItemKind, favours: boolean, verified: boolean, families: string[], by: 1 | -1): void {
    if (!verified) return;
    if (families.length > 0) {
      const sets = this.familySets[favours ? 1 : 0];
      const key = families.join('\n');
      const cur = sets.get(key);
      const n = (cur?.[1] ?? 0) + by;
      if (n === 0) sets.delete(key);
      else sets.set(key, [families, n]);
    }
    if (kind === 'replication' && favours) {
      this.confirming += by;
      for (const fam of families) {
        const n = (this.repFamilies.get(fam) ?? 0) + by;
        if (n === 0) this.repFamilies.delete(fam);
        else this.repFamilies.set(fam, n);
      }
    }
  }

  /** The kind, whether verified, and the log-odds term (w * e) of the item `operatorId` counts by, if it has one. */
  itemOf(operatorId: string): { kind: ItemKind; verified: boolean; term: number } | undefined {
    const slot = this.slots.get(operatorId);
    if (slot === undefined) return undefined;
    const f = this.flags[slot]!;
    return { kind: KINDS[f & 3]!, verified: (f & VERIFIED) !== 0, term: this.evidenceTerm[slot]! };
  }

  /** One of the exact sums, rounded once. */
  sum(name: SumName): number {
    return this.sums[name].value();
  }

  evidence(): Evidence {
    const v = (n: SumName) => this.sums[n].value();
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
