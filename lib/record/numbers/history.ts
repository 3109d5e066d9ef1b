// Each claim's credence as it moved (the explorer's charts): [entry seq, credence] at each entry that changed the credence as
// GET /v2/credence served it then (servedProbability: 4 decimals). Held as three columns over every point of every claim in the
// order they were noted, each point naming the claim's point before it (stores/columns.ts): no object per point. Each claim's
// latest point is a column by the claim's row in state.claims (stores/claim-store.ts): no Map entry per claim, nor a second list
// of refs.
import { Ascending, ChangingColumn, grow, owned, stable, type AscendingData, type Ints, type Shorts } from '../stores/columns.js';
import { servedProbability } from './rules.js';

/** What the snapshot writes (fold/state-codec.ts). */
export interface HistoryData {
  seq: AscendingData;
  /** In ten-thousandths (`tenThousandths`). */
  credence: Shorts;
  prev: Ints;
  /** Per claim row: its latest point plus one, 0 for none. */
  last: Ints;
  /** The claims of the latest RECENT_POINTS points, each at its point's index modulo RECENT_POINTS (`History.ring`). */
  ring: (string | undefined)[];
  /** The refs of a history that keeps its own (one of no state): a state's are its claims'. */
  refs?: string[];
}

/** Where a claim's row is read: the claims' store (stores/claim-store.ts). */
interface Rows {
  rowOf(ref: string): number;
  refAt(row: number): string;
  readonly size: number;
}

/** The rows of a history of no state (a chart's, a test's): each ref given the next row when first noted. */
class OwnRows implements Rows {
  private readonly rows = new Map<string, number>();
  constructor(readonly refs: string[] = []) {
    refs.forEach((ref, i) => this.rows.set(ref, i));
  }
  rowOf(ref: string): number {
    return this.rows.get(ref) ?? -1;
  }
  refAt(row: number): string {
    return this.refs[row]!;
  }
  get size(): number {
    return this.refs.length;
  }
  add(ref: string): number {
    this.rows.set(ref, this.refs.length);
    return this.refs.push(ref) - 1;
  }
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

/**
 * A credence as served, in ten-thousandths (1 to 9,999): a point costs 2 bytes rather than a Float64's 8 (110 MiB at ten
 * million entries of the paper-heavy shape), and a move the served number does not show is no point. Read back as
 * `n / 1e4`, the number servedProbability gives.
 */
const tenThousandths = (credence: number): number => Math.round(servedProbability(credence) * 1e4);

export class History {
  /** Each point's entry seq: points are noted in log order (columns.ts, Ascending). */
  private seq = new Ascending();
  private credence = new Uint16Array(16);
  /** The claim's point before this one, or -1. */
  private prev = new Int32Array(16);
  private n = 0;
  /** Each claim's latest point plus one (0: none), by the claim's row; changed in place, so copied on write by a snapshot. */
  private last = new ChangingColumn(new Int32Array(0));
  /**
   * The claim of each of the latest RECENT_POINTS points, at its index modulo RECENT_POINTS: the
   * columns name no claim per point. Kept in the snapshot: made again at start from the claims'
   * chains, it walked every claim (62 ms of a start at ten million entries).
   */
  private ring = new Array<string | undefined>(RECENT_POINTS).fill(undefined);

  /** A history whose claims' rows are `rows` (state.claims), or its own. */
  constructor(private readonly rows: Rows = new OwnRows()) {}

  private lastOf(ref: string): number | undefined {
    const row = this.rows.rowOf(ref);
    const p = row < 0 ? 0 : this.last.at(row);
    return p === 0 ? undefined : p - 1;
  }

  /** Notes the claim's credence after entry `seq`, if its served value moved (a claim's first score is always noted). */
  note(ref: string, seq: number, credence: number): void {
    const last = this.lastOf(ref);
    const served = tenThousandths(credence);
    if (last !== undefined && this.credence[last] === served) return;
    const i = this.n++;
    this.credence = grow(this.credence, this.n);
    this.prev = grow(this.prev, this.n);
    this.seq.push(seq);
    this.credence[i] = served;
    this.prev[i] = last ?? -1;
    let row = this.rows.rowOf(ref);
    if (row < 0) {
      if (!(this.rows instanceof OwnRows)) throw new Error(`no claim ${ref} to note`);
      row = this.rows.add(ref);
    }
    this.last.set(row, i + 1);
    this.ring[i % RECENT_POINTS] = ref;
  }

  /** The latest points noted, newest first, at most RECENT_POINTS of them (the explorer's latest moves). */
  *recent(): Generator<RecentPoint> {
    for (let i = this.n - 1; i >= 0 && i >= this.n - RECENT_POINTS; i--) {
      const prev = this.prev[i]!;
      yield {
        ref: this.ring[i % RECENT_POINTS]!,
        seq: this.seq.at(i),
        credence: this.credence[i]! / 1e4,
        before: prev < 0 ? null : this.credence[prev]! / 1e4,
      };
    }
  }

  /** Where the claim's latest point is held (it changes with each point noted), or undefined for a claim never scored. */
  latest(ref: string): number | undefined {
    return this.lastOf(ref);
  }

  /** The claim's points, oldest first: [entry seq, credence]; undefined for a claim never scored. */
  get(ref: string): [number, number][] | undefined {
    let i = this.lastOf(ref);
    if (i === undefined) return undefined;
    const points: [number, number][] = [];
    for (; i >= 0; i = this.prev[i]!) points.push([this.seq.at(i), this.credence[i]! / 1e4]);
    return points.reverse();
  }

  /** The points' columns are append-only: a point is written once, when noted (a snapshot shares them); `last` is copied on write. */
  pack(): HistoryData {
    return {
      seq: this.seq.pack(),
      credence: stable(this.credence.subarray(0, this.n)),
      prev: stable(this.prev.subarray(0, this.n)),
      last: this.last.pack(),
      ring: this.ring.slice(),
      ...(this.rows instanceof OwnRows ? { refs: this.rows.refs } : {}),
    };
  }

  /** The history `pack` wrote, of the claims `rows` (state.claims; none for a history of no state, which wrote its refs). */
  static unpack(d: HistoryData, rows?: Rows): History {
    const h = new History(rows ?? new OwnRows([...(d.refs ?? [])]));
    h.seq = Ascending.unpack(d.seq);
    h.n = h.seq.length;
    h.credence = owned(d.credence, h.n);
    h.prev = owned(d.prev, h.n);
    h.last = new ChangingColumn(d.last);
    const scored = h.last.length;
    if (scored > h.rows.size) throw new Error(`a history of ${scored} claims for ${h.rows.size}`);
    if (d.ring.length !== RECENT_POINTS) throw new Error(`a ring of ${d.ring.length} claims, not ${RECENT_POINTS}`);
    h.ring = Array.from(d.ring);
    return h;
  }
}
