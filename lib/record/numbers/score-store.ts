// Every claim's score as columns by the claim's ordinal rather than an object per claim, read as the object it always was
// (docs/record.md#how-the-state-is-kept).
import { grow, owned, PageSaver, RowIndex, type Bytes, type Floats, type Ints } from '../stores/columns.js';
import { valueOfChecking } from './rules.js';

export type Status = 'established' | 'supported' | 'unchecked' | 'contested' | 'refuted';

/** A claim's numbers, unrounded (served.ts rounds what it serves). */
export interface Score {
  ref: string;
  /** Calibration rho of the author operator (null for an external claim: a = 0.5). */
  calibration: number | null;
  prior: number;
  credence: number;
  credenceVerified: number;
  /** The lowest cap on credence (a qualifying argument that holds), or null. */
  cap: number | null;
  status: Status;
  resolved: 0 | 1 | null;
  use: number;
  s: number;
  f: number;
  dispute: number;
  reproduced: boolean;
  families: string[];
  /** Arguments by independent operators, by stance and status. */
  arguments: Record<'refutes' | 'qualifies' | 'supports', Record<'open' | 'upheld' | 'dismissed', number>>;
  foundations: string[];
  /** Log-odds of the evidence (everything after the prior), all and verified-only. */
  evidence: number;
  evidenceVerified: number;
  /** Credence and credenceVerified if it gained one confirming verified replication of a new family (for lift). */
  hypoCredence: number;
  hypoVerified: number;
  lift: { ref: string; from: number; to: number; gain: number }[];
}

/** What a rescore compares of a score before and after (rescore.ts, Scores.headAt). */
export type ScoreHead = Pick<Score, 'prior' | 'credence' | 'credenceVerified' | 'status' | 'resolved' | 'hypoCredence' | 'hypoVerified'>;

/** What the snapshot writes (fold/state-codec.ts). */
export interface ScoresData {
  /** Claims (rows) with a place in `vector`. */
  n: number;
  /** Per claim, its score's number in the table plus one (0: not scored). */
  vector: Ints;
  /** The table of distinct scores: W numbers, B bytes and a list of families each; `count` of them, some free. */
  count: number;
  numbers: Floats;
  bytes: Bytes;
  families: Ints;
  /** The index from a score's contents to its number (columns.ts, RowIndex). */
  index: Ints;
  lists: string[][];
  sparse: [number, Partial<Pick<Score, 'arguments' | 'foundations' | 'lift'>>][];
}

/** Where a claim's ordinal is read: the claims' store, whose rows are the ordinals (stores/claim-store.ts). */
interface Ordinals {
  rowOf(ref: string): number;
  refAt(row: number): string;
}

const NUMBERS = [
  'calibration',
  'prior',
  'credence',
  'credenceVerified',
  'cap',
  'use',
  's',
  'f',
  'dispute',
  'evidence',
  'evidenceVerified',
  'hypoCredence',
  'hypoVerified',
] as const;
const W = NUMBERS.length;
const CREDENCE = NUMBERS.indexOf('credence');
const USE = NUMBERS.indexOf('use');
const DISPUTE = NUMBERS.indexOf('dispute');
const STATUSES: readonly Status[] = ['established', 'supported', 'unchecked', 'contested', 'refuted'];
// Per score, one byte: calibration null, cap null, reproduced, its lift its own; resolved (2 bits: null, 0, 1) and status (3 bits)
// in a second.
const NO_CALIBRATION = 2;
const NO_CAP = 4;
const REPRODUCED = 8;
/** Its lift is its own alone (an empirical claim without foundations), made again when read. */
const OWN_LIFT = 16;
const B = 2;

const zeroCounts = () => ({ open: 0, upheld: 0, dismissed: 0 });
const noArguments = (): Score['arguments'] => ({ refutes: zeroCounts(), qualifies: zeroCounts(), supports: zeroCounts() });
const isZero = (a: Score['arguments']) =>
  Object.values(a).every((c) => c.open === 0 && c.upheld === 0 && c.dismissed === 0) &&
  Object.keys(a).length === 3 &&
  Object.values(a).every((c) => Object.keys(c).length === 3);

/** The lift a claim with no foundations has: its own, for an empirical claim (score.ts). */
const ownLift = (ref: string, credence: number, hypo: number): Score['lift'] => [{ ref, from: credence, to: hypo, gain: hypo - credence }];
const sameLift = (a: Score['lift'], b: Score['lift']) =>
  a.length === b.length &&
  a.every((x, i) => {
    const y = b[i]!;
    return (
      Object.keys(x).length === 4 && x.ref === y.ref && Object.is(x.from, y.from) && Object.is(x.to, y.to) && Object.is(x.gain, y.gain)
    );
  });

/**
 * Columns rather than objects (a score kept as an object held about 880 bytes a claim), and each distinct score held once: a
 * claim names its score's number in a table of the scores claims hold, so that the many claims no review has touched, whose
 * scores are the same for the same author, confidence and kind, share one (at ten million entries, 7.6 million claims held 104
 * bytes of numbers each). A score no claim holds any more is taken out of the table, its number given to the next new one.
 */
export class Scores {
  /** Per claim: its score's number plus one (0: not scored). */
  private vector = new Int32Array(16);
  /** Per score in the table: W numbers, B bytes (flags, then resolved and status), its list of families. */
  private numbers = new Float64Array(16 * W);
  /** The numbers' bits, to hash and compare them exactly (a view of the same buffer). */
  private bits = new Uint32Array(this.numbers.buffer);
  private bytes = new Uint8Array(16 * B);
  private families = new Int32Array(16);
  /** Per score: how many claims hold it (made again from `vector` when a snapshot is read). */
  private holders = new Int32Array(16);
  /** Scores in the table, free ones among them. */
  private count = 0;
  /**
   * The free numbers, least first (a binary heap): the next new score takes the least, so that a state read from a snapshot
   * numbers its scores as the state it was written from does, whatever order their numbers were freed in.
   */
  private free: number[] = [];
  private readonly index = new RowIndex((v) =>
    this.hashAt(this.bits, v * W * 2, this.bytes[v * B]!, this.bytes[v * B + 1]!, this.families[v]!),
  );
  /** The score `set` looks for, as the table would hold it. */
  private readonly probe = new Float64Array(W);
  private readonly probeBits = new Uint32Array(this.probe.buffer);
  private probeFlags = 0;
  private probeState = 0;
  private probeFamilies = 0;
  private readonly isProbe = (v: number): boolean => {
    const o = v * W * 2;
    for (let i = 0; i < W * 2; i++) if (this.bits[o + i] !== this.probeBits[i]) return false;
    return this.bytes[v * B] === this.probeFlags && this.bytes[v * B + 1] === this.probeState && this.families[v] === this.probeFamilies;
  };
  private lists: string[][] = [];
  private listIds = new Map<string, number>();
  /** Per claim that has some: its argument counts (when not all 0), foundations (when any), lift (when not its own alone). */
  private sparse = new Map<number, Partial<Pick<Score, 'arguments' | 'foundations' | 'lift'>>>();
  private n = 0;
  size = 0;
  /** The columns change in place as claims are rescored: a snapshot copies them on write (stores/columns.ts, PageSaver). */
  private readonly saved = { vector: new PageSaver(), numbers: new PageSaver(), bytes: new PageSaver(), families: new PageSaver() };

  constructor(private readonly ix: Ordinals) {}

  private list(families: string[]): number {
    const key = families.join('\n');
    let id = this.listIds.get(key);
    if (id === undefined) {
      id = this.lists.length;
      this.lists.push(families);
      this.listIds.set(key, id);
    }
    return id;
  }

  /** A score's hash: FNV-1a over its numbers' bits, its two bytes and its list of families. */
  private hashAt(bits: Uint32Array, o: number, flags: number, state: number, families: number): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < W * 2; i++) h = Math.imul(h ^ bits[o + i]!, 0x01000193);
    h = Math.imul(h ^ flags ^ (state << 8), 0x01000193);
    h = Math.imul(h ^ families, 0x01000193);
    return h ^ (h >>> 15);
  }

  /** The number of the score in `probe`, put in the table when no claim holds it yet. */
  private intern(): number {
    const found = this.index.find(this.hashAt(this.probeBits, 0, this.probeFlags, this.probeState, this.probeFamilies), this.isProbe);
    if (found >= 0) return found;
    let v = this.takeFree();
    if (v === undefined) {
      v = this.count++;
      const { numbers, bytes, families } = this;
      if ((this.numbers = grow(numbers, this.count * W)) !== numbers) {
        this.bits = new Uint32Array(this.numbers.buffer);
        this.saved.numbers.moved();
      }
      if ((this.bytes = grow(bytes, this.count * B)) !== bytes) this.saved.bytes.moved();
      if ((this.families = grow(families, this.count)) !== families) this.saved.families.moved();
      this.holders = grow(this.holders, this.count);
    }
    const o = v * W;
    // A score's numbers may straddle two pages; its bytes too.
    this.saved.numbers.write(o);
    this.saved.numbers.write(o + W - 1);
    this.saved.bytes.write(v * B);
    this.saved.bytes.write(v * B + B - 1);
    this.saved.families.write(v);
    this.numbers.set(this.probe, o);
    this.bytes[v * B] = this.probeFlags;
    this.bytes[v * B + 1] = this.probeState;
    this.families[v] = this.probeFamilies;
    this.index.insert(v);
    return v;
  }

  set(ref: string, s: Score): this {
    const row = this.ix.rowOf(ref);
    if (row < 0 || s.ref !== ref) throw new Error(`no claim ${ref} to score`);
    if (row >= this.n) {
      this.n = row + 1;
      const vector = this.vector;
      if ((this.vector = grow(vector, this.n)) !== vector) this.saved.vector.moved();
    }
    for (let i = 0; i < W; i++) this.probe[i] = (s[NUMBERS[i]!] as number | null) ?? 0;
    const own = s.foundations.length === 0 && sameLift(s.lift, ownLift(ref, s.credence, s.hypoCredence));
    this.probeFlags =
      (s.calibration === null ? NO_CALIBRATION : 0) |
      (s.cap === null ? NO_CAP : 0) |
      (s.reproduced ? REPRODUCED : 0) |
      (own ? OWN_LIFT : 0);
    this.probeState = (s.resolved === null ? 0 : s.resolved + 1) | (STATUSES.indexOf(s.status) << 2);
    this.probeFamilies = this.list(s.families);
    const was = this.vector[row]! - 1;
    const v = this.intern();
    if (v !== was) {
      this.holders[v]!++;
      if (was < 0) this.size++;
      else if (--this.holders[was]! === 0) {
        this.index.remove(was);
        this.putFree(was);
      }
      this.saved.vector.write(row);
      this.vector[row] = v + 1;
    }
    const extra: Partial<Pick<Score, 'arguments' | 'foundations' | 'lift'>> = {};
    if (!isZero(s.arguments)) extra.arguments = s.arguments;
    if (s.foundations.length > 0) extra.foundations = s.foundations;
    if (!own && s.lift.length > 0) extra.lift = s.lift;
    if (extra.arguments === undefined && extra.foundations === undefined && extra.lift === undefined) this.sparse.delete(row);
    else this.sparse.set(row, extra);
    return this;
  }

  /** The least free number, taken from the heap, or undefined. */
  private takeFree(): number | undefined {
    const h = this.free;
    if (h.length === 0) return undefined;
    const least = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const c = l + 1 < h.length && h[l + 1]! < h[l]! ? l + 1 : l;
        if (h[c]! >= last) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return least;
  }

  private putFree(v: number): void {
    const h = this.free;
    let i = h.length;
    h.push(v);
    while (i > 0 && h[(i - 1) >> 1]! > v) {
      h[i] = h[(i - 1) >> 1]!;
      i = (i - 1) >> 1;
    }
    h[i] = v;
  }

  /** The scores in the table that claims hold (for the tests and benches: how far they are shared). */
  get distinct(): number {
    return this.count - this.free.length;
  }

  /** The number of the score of the claim of ordinal `row`, or -1 when it has none. */
  private scoreOf(row: number): number {
    return row < 0 || row >= this.n ? -1 : this.vector[row]! - 1;
  }

  has(ref: string): boolean {
    return this.scoreOf(this.ix.rowOf(ref)) >= 0;
  }

  get(ref: string): Score | undefined {
    const row = this.ix.rowOf(ref);
    return row < 0 ? undefined : this.at(row);
  }

  /**
   * The `resolved` of the claim of ordinal `row` (undefined when it has no score), read without
   * making its Score: the fold reads it for every review, the Score would be made and dropped.
   */
  resolvedAt(row: number): Score['resolved'] | undefined {
    const v = this.scoreOf(row);
    if (v < 0) return undefined;
    const b = this.bytes[v * B + 1]! & 3;
    return b === 0 ? null : ((b - 1) as 0 | 1);
  }

  /** resolvedAt of claim `ref`. */
  resolvedOf(ref: string): Score['resolved'] | undefined {
    return this.resolvedAt(this.ix.rowOf(ref));
  }

  /**
   * The value of checking the claim of ordinal `row` (rules.ts, `valueOfChecking`, of its use and credence) and the worth of
   * settling its dispute (its dispute times its use plus a half, when it has one): what the frontier ranks it by, read from
   * its score (0 when it has none).
   */
  valueAt(row: number): number {
    const v = this.scoreOf(row);
    return v < 0 ? 0 : valueOfChecking(this.numbers[v * W + USE]!, this.numbers[v * W + CREDENCE]!);
  }
  worthAt(row: number): number {
    const v = this.scoreOf(row);
    if (v < 0) return 0;
    const dispute = this.numbers[v * W + DISPUTE]!;
    return dispute > 0 ? dispute * (this.numbers[v * W + USE]! + 0.5) : 0;
  }

  /** What a rescore compares of the claim of ordinal `row`'s score (rescore.ts), read without making the whole Score. */
  headAt(row: number): ScoreHead | undefined {
    const n = this.scoreOf(row);
    if (n < 0) return undefined;
    const v = this.numbers;
    const o = n * W;
    const b = this.bytes[n * B + 1]!;
    return {
      prior: v[o + 1]!,
      credence: v[o + 2]!,
      credenceVerified: v[o + 3]!,
      status: STATUSES[b >> 2]!,
      resolved: (b & 3) === 0 ? null : (((b & 3) - 1) as 0 | 1),
      hypoCredence: v[o + 11]!,
      hypoVerified: v[o + 12]!,
    };
  }

  /** The score of the claim of ordinal `row`, if it has one. */
  at(row: number): Score | undefined {
    const n = this.scoreOf(row);
    if (n < 0) return undefined;
    const flags = this.bytes[n * B]!;
    const v = this.numbers;
    const o = n * W;
    const ref = this.ix.refAt(row);
    const b = this.bytes[n * B + 1]!;
    const extra = this.sparse.get(row);
    const credence = v[o + 2]!;
    const hypoCredence = v[o + 11]!;
    return {
      ref,
      calibration: flags & NO_CALIBRATION ? null : v[o]!,
      prior: v[o + 1]!,
      credence,
      credenceVerified: v[o + 3]!,
      cap: flags & NO_CAP ? null : v[o + 4]!,
      status: STATUSES[b >> 2]!,
      resolved: (b & 3) === 0 ? null : (((b & 3) - 1) as 0 | 1),
      use: v[o + 5]!,
      s: v[o + 6]!,
      f: v[o + 7]!,
      dispute: v[o + 8]!,
      reproduced: (flags & REPRODUCED) !== 0,
      families: this.lists[this.families[n]!]!,
      arguments: extra?.arguments ?? noArguments(),
      foundations: extra?.foundations ?? [],
      evidence: v[o + 9]!,
      evidenceVerified: v[o + 10]!,
      hypoCredence,
      hypoVerified: v[o + 12]!,
      lift: extra?.lift ?? (flags & OWN_LIFT ? ownLift(ref, credence, hypoCredence) : []),
    };
  }

  *entries(): Generator<[string, Score]> {
    for (let row = 0; row < this.n; row++) {
      const s = this.at(row);
      if (s !== undefined) yield [s.ref, s];
    }
  }

  *values(): Generator<Score> {
    for (const [, s] of this.entries()) yield s;
  }

  *keys(): Generator<string> {
    for (const [ref] of this.entries()) yield ref;
  }

  [Symbol.iterator](): Generator<[string, Score]> {
    return this.entries();
  }

  /** Every column changes in place: a snapshot copies them and the index's slots on write. The holders are counted again. */
  pack(): ScoresData {
    const { n, count } = this;
    return {
      n,
      vector: this.saved.vector.mark(this.vector.subarray(0, n)),
      count,
      numbers: this.saved.numbers.mark(this.numbers.subarray(0, count * W)),
      bytes: this.saved.bytes.mark(this.bytes.subarray(0, count * B)),
      families: this.saved.families.mark(this.families.subarray(0, count)),
      index: this.index.slotsNow(),
      lists: this.lists,
      sparse: [...this.sparse],
    };
  }

  static unpack(d: ScoresData, ix: Ordinals): Scores {
    const s = new Scores(ix);
    if (d.vector.length !== d.n || d.numbers.length !== d.count * W || d.bytes.length !== d.count * B || d.families.length !== d.count)
      throw new Error(`the scores' columns do not hold ${d.n} claims and ${d.count} scores`);
    s.n = d.n;
    s.count = d.count;
    s.vector = owned(d.vector, d.n);
    s.numbers = owned(d.numbers, d.count * W);
    s.bits = new Uint32Array(s.numbers.buffer);
    s.bytes = owned(d.bytes, d.count * B);
    s.families = owned(d.families, d.count);
    s.holders = new Int32Array(Math.max(16, d.count));
    for (let row = 0; row < d.n; row++) {
      const v = s.vector[row]! - 1;
      if (v < 0) continue;
      if (v >= d.count) throw new Error(`claim ${row} holds score ${v} of ${d.count}`);
      s.holders[v]!++;
      s.size++;
    }
    // In increasing order: a heap as it is.
    for (let v = 0; v < d.count; v++) if (s.holders[v] === 0) s.free.push(v);
    s.index.adopt(d.index, d.count - s.free.length);
    s.lists = d.lists;
    d.lists.forEach((l, i) => s.listIds.set(l.join('\n'), i));
    s.sparse = new Map(d.sparse);
    return s;
  }
}
