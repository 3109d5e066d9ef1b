// Each claim's credence as it moved (the explorer's charts): [entry seq, credence] at each entry
// that changed it. Held as three columns over every point of every claim in the order they were
// noted, each point naming the claim's point before it (stores/columns.ts): no object per point.
import { grow, owned, stable, type Ints, type Floats } from '../stores/columns.js';

/** What the snapshot writes (fold/state-codec.ts). */
export interface HistoryData {
  seq: Ints;
  credence: Floats;
  prev: Ints;
  refs: string[];
  last: number[];
}

/** How many of the latest points `recent` walks: their claims are named by a ring of that many refs. */
export const RECENT_POINTS = 256;

/** A point as `recent` names it: the claim, the entry after which it moved, its credence then and before (null: its first score). */
export interface RecentPoint {
  ref: string;
  seq: number;
  credence: number;
  before: number | null;
}

export class History {
  private seq = new Int32Array(16);
  private credence = new Float64Array(16);
  /** The claim's point before this one, or -1. */
  private prev = new Int32Array(16);
  private n = 0;
  /** Each claim's latest point. */
  private last = new Map<string, number>();
  /**
   * The claim of each of the latest RECENT_POINTS points, at its index modulo RECENT_POINTS: the
   * columns name no claim per point. Not in the snapshot: unpack rebuilds it from the claims' chains.
   */
  private ring = new Array<string>(RECENT_POINTS);

  /** Notes the claim's credence after entry `seq`, if it moved (a claim's first score is always noted). */
  note(ref: string, seq: number, credence: number): void {
    const last = this.last.get(ref);
    if (last !== undefined && this.credence[last] === credence) return;
    const i = this.n++;
    this.seq = grow(this.seq, this.n);
    this.credence = grow(this.credence, this.n);
    this.prev = grow(this.prev, this.n);
    this.seq[i] = seq;
    this.credence[i] = credence;
    this.prev[i] = last ?? -1;
    this.last.set(ref, i);
    this.ring[i % RECENT_POINTS] = ref;
  }

  /** The latest points noted, newest first, at most RECENT_POINTS of them (the explorer's latest moves). */
  *recent(): Generator<RecentPoint> {
    for (let i = this.n - 1; i >= 0 && i >= this.n - RECENT_POINTS; i--) {
      const prev = this.prev[i]!;
      yield {
        ref: this.ring[i % RECENT_POINTS]!,
        seq: this.seq[i]!,
        credence: this.credence[i]!,
        before: prev < 0 ? null : this.credence[prev]!,
      };
    }
  }

  /** Where the claim's latest point is held (it changes with each point noted), or undefined for a claim never scored. */
  latest(ref: string): number | undefined {
    return this.last.get(ref);
  }

  /** The claim's points, oldest first: [entry seq, credence]; undefined for a claim never scored. */
  get(ref: string): [number, number][] | undefined {
    let i = this.last.get(ref);
    if (i === undefined) return undefined;
    const points: [number, number][] = [];
    for (; i >= 0; i = this.prev[i]!) points.push([this.seq[i]!, this.credence[i]!]);
    return points.reverse();
  }

  /** The columns are append-only: a point is written once, when noted (a snapshot shares them). */
  pack(): HistoryData {
    return {
      seq: stable(this.seq.subarray(0, this.n)),
      credence: stable(this.credence.subarray(0, this.n)),
      prev: stable(this.prev.subarray(0, this.n)),
      refs: [...this.last.keys()],
      last: [...this.last.values()],
    };
  }

  static unpack(d: HistoryData): History {
    const h = new History();
    h.n = d.seq.length;
    h.seq = owned(d.seq, h.n);
    h.credence = owned(d.credence, h.n);
    h.prev = owned(d.prev, h.n);
    d.refs.forEach((ref, i) => {
      h.last.set(ref, d.last[i]!);
      // The claim's points among the latest RECENT_POINTS, walked back along its chain.
      for (let p = d.last[i]!; p >= 0 && p >= h.n - RECENT_POINTS; p = h.prev[p]!) h.ring[p % RECENT_POINTS] = ref;
    });
    return h;
  }
}
