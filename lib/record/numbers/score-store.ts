// Every claim's score as columns by the claim's ordinal rather than an object per claim, read as the object it always was
// (docs/record.md#how-the-state-is-kept).
import { grow, owned, PageSaver, type Bytes, type Floats, type Ints } from '../stores/columns.js';

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
  n: number;
  numbers: Floats;
  bytes: Bytes;
  families: Ints;
  lists: string[][];
  sparse: [number, Partial<Pick<Score, 'arguments' | 'foundations' | 'lift'>>][];
}

/** Where a claim's ordinal is read: the claims' store, whose rows are the ordinals (stores/claim-store.ts). */
interface Ordinals {
  rowOf(ref: string): number;
  refs: string[];
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
const STATUSES: readonly Status[] = ['established', 'supported', 'unchecked', 'contested', 'refuted'];
// Per claim, one byte: set, calibration null, cap null, reproduced, resolved (2 bits: null, 0, 1), status (3 bits) in a second.
const SET = 1;
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

// Columns rather than objects: a score kept as an object held about 880 bytes a claim.
export class Scores {
  private numbers = new Float64Array(16 * W);
  /** Per claim, B bytes: flags, then resolved (0 null, 1 for 0, 2 for 1) and the status's index shifted by 2. */
  private bytes = new Uint8Array(16 * B);
  private families = new Int32Array(16);
  private lists: string[][] = [];
  private listIds = new Map<string, number>();
  /** Per claim that has some: its argument counts (when not all 0), foundations (when any), lift (when not its own alone). */
  private sparse = new Map<number, Partial<Pick<Score, 'arguments' | 'foundations' | 'lift'>>>();
  private n = 0;
  size = 0;
  /** The columns change in place as claims are rescored: a snapshot copies them on write (stores/columns.ts, PageSaver). */
  private readonly saved = { numbers: new PageSaver(), bytes: new PageSaver(), families: new PageSaver() };

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

  set(ref: string, s: Score): this {
    const row = this.ix.rowOf(ref);
    if (row < 0 || s.ref !== ref) throw new Error(`no claim ${ref} to score`);
    if (row >= this.n) {
      this.n = row + 1;
      const { numbers, bytes, families } = this;
      if ((this.numbers = grow(numbers, this.n * W)) !== numbers) this.saved.numbers.moved();
      if ((this.bytes = grow(bytes, this.n * B)) !== bytes) this.saved.bytes.moved();
      if ((this.families = grow(families, this.n)) !== families) this.saved.families.moved();
    }
    const o = row * W;
    // A row's numbers may straddle two pages; its bytes too.
    this.saved.numbers.write(o);
    this.saved.numbers.write(o + W - 1);
    this.saved.bytes.write(row * B);
    this.saved.bytes.write(row * B + B - 1);
    this.saved.families.write(row);
    for (let i = 0; i < W; i++) this.numbers[o + i] = (s[NUMBERS[i]!] as number | null) ?? 0;
    if ((this.bytes[row * B]! & SET) === 0) this.size++;
    const own = s.foundations.length === 0 && sameLift(s.lift, ownLift(ref, s.credence, s.hypoCredence));
    this.bytes[row * B] =
      SET |
      (s.calibration === null ? NO_CALIBRATION : 0) |
      (s.cap === null ? NO_CAP : 0) |
      (s.reproduced ? REPRODUCED : 0) |
      (own ? OWN_LIFT : 0);
    this.bytes[row * B + 1] = (s.resolved === null ? 0 : s.resolved + 1) | (STATUSES.indexOf(s.status) << 2);
    this.families[row] = this.list(s.families);
    const extra: Partial<Pick<Score, 'arguments' | 'foundations' | 'lift'>> = {};
    if (!isZero(s.arguments)) extra.arguments = s.arguments;
    if (s.foundations.length > 0) extra.foundations = s.foundations;
    if (!own && s.lift.length > 0) extra.lift = s.lift;
    if (extra.arguments === undefined && extra.foundations === undefined && extra.lift === undefined) this.sparse.delete(row);
    else this.sparse.set(row, extra);
    return this;
  }

  has(ref: string): boolean {
    const row = this.ix.rowOf(ref);
    return row >= 0 && row < this.n && (this.bytes[row * B]! & SET) !== 0;
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
    if (row < 0 || row >= this.n || (this.bytes[row * B]! & SET) === 0) return undefined;
    const b = this.bytes[row * B + 1]! & 3;
    return b === 0 ? null : ((b - 1) as 0 | 1);
  }

  /** resolvedAt of claim `ref`. */
  resolvedOf(ref: string): Score['resolved'] | undefined {
    return this.resolvedAt(this.ix.rowOf(ref));
  }

  /** What a rescore compares of the claim of ordinal `row`'s score (rescore.ts), read without making the whole Score. */
  headAt(row: number): ScoreHead | undefined {
    if (row >= this.n || (this.bytes[row * B]! & SET) === 0) return undefined;
    const v = this.numbers;
    const o = row * W;
    const b = this.bytes[row * B + 1]!;
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
    if (row >= this.n) return undefined;
    const flags = this.bytes[row * B]!;
    if ((flags & SET) === 0) return undefined;
    const v = this.numbers;
    const o = row * W;
    const ref = this.ix.refs[row]!;
    const b = this.bytes[row * B + 1]!;
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
      families: this.lists[this.families[row]!]!,
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

  pack(): ScoresData {
    const { n } = this;
    return {
      n,
      numbers: this.saved.numbers.mark(this.numbers.subarray(0, n * W)),
      bytes: this.saved.bytes.mark(this.bytes.subarray(0, n * B)),
      families: this.saved.families.mark(this.families.subarray(0, n)),
      lists: this.lists,
      sparse: [...this.sparse],
    };
  }

  static unpack(d: ScoresData, ix: Ordinals): Scores {
    const s = new Scores(ix);
    s.n = d.n;
    s.numbers = owned(d.numbers, d.n * W);
    s.bytes = owned(d.bytes, d.n * B);
    s.families = owned(d.families, d.n);
    s.lists = d.lists;
    d.lists.forEach((l, i) => s.listIds.set(l.join('\n'), i));
    s.sparse = new Map(d.sparse);
    for (let row = 0; row < d.n; row++) if (s.bytes[row * B]! & SET) s.size++;
    return s;
  }
}
