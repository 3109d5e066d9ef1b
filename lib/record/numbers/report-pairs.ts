// What the reports criterion of verification by the record keeps per operator and claim, as columns
// (docs/record.md#how-the-state-is-kept; the criterion: docs/credence.md#operators-verified-by-the-record).
import { fitting, grow, Interned, stable, owned, PageSaver, RowIndex, type Ints, type Narrow } from '../stores/columns.js';

/** What the snapshot writes (fold/state-codec.ts). */
export interface ReportPairsData {
  ops: string[];
  op: Narrow;
  claim: Ints;
  latest: Ints;
  reports: Narrow;
  right: Narrow;
  checks: [number, string[]][];
  before: Ints;
  /** The index from a pair to its row as it stands (RowIndex's slots): read back rather than built again. */
  index: Ints;
}

/** A pair's hash: its operator's and claim's numbers mixed (Knuth's multiplicative hashing). */
const mix = (op: number, claim: number): number => Math.imul(op, 0x9e3779b1) ^ Math.imul(claim, 0x85ebca77);

export class ReportPairs {
  /** Operators by number. */
  private ops = new Interned();
  /** The operator's number, as narrow as the numbers let (columns.ts, Narrow). */
  private op: Narrow = new Uint8Array(16);
  /** The claim's ordinal (numbers index). */
  private claim = new Int32Array(16);
  /** The operator's latest review of the claim (its row in the reviews), or -1. */
  private latest = new Int32Array(16);
  /** What its reports on the claim count now, and how many of them are right: a few, a byte each until one needs more. */
  private reports: Narrow = new Uint8Array(16);
  private right: Narrow = new Uint8Array(16);
  /** `latest`, `reports` and `right` change in place: a snapshot copies them on write (columns.ts, PageSaver). */
  private readonly saved = { latest: new PageSaver(), reports: new PageSaver(), right: new PageSaver() };
  private n = 0;
  /** The arguments of the claim the operator checked, per row (few rows have any). */
  private checks = new Map<number, Set<string>>();
  /** Per review row: the same operator's review of the same claim before it, or -1. */
  private before = new Int32Array(16);
  /** How many review rows `before` covers. */
  private noted = 0;
  private index = new RowIndex((row) => mix(this.op[row]!, this.claim[row]!));

  /** The row of operator `op` and claim ordinal `claim`, or -1. */
  find(op: string, claim: number): number {
    const o = this.ops.find(op);
    if (o < 0) return -1;
    return this.index.find(mix(o, claim), (row) => this.op[row] === o && this.claim[row] === claim);
  }

  /** The row of `op` and `claim`, made when new (`made` says it was). */
  rowOf(op: string, claim: number, made?: () => void): number {
    const found = this.find(op, claim);
    if (found >= 0) return found;
    const row = this.n++;
    this.op = grow(this.op, this.n);
    this.claim = grow(this.claim, this.n);
    const { latest, reports, right } = this;
    if ((this.latest = grow(latest, this.n)) !== latest) this.saved.latest.moved();
    if ((this.reports = grow(reports, this.n)) !== reports) this.saved.reports.moved();
    if ((this.right = grow(right, this.n)) !== right) this.saved.right.moved();
    const o = this.ops.of(op);
    (this.op = fitting(this.op, o))[row] = o;
    this.claim[row] = claim;
    this.saved.latest.write(row);
    this.latest[row] = -1;
    this.index.insert(row);
    made?.();
    return row;
  }

  /** Review `review` (its row) is the latest of the pair at `row`. */
  noteReview(row: number, review: number): void {
    this.noted = Math.max(this.noted, review + 1);
    this.before = grow(this.before, this.noted);
    this.before[review] = this.latest[row]!;
    this.saved.latest.write(row);
    this.latest[row] = review;
  }

  /** The pair's reviews, latest first (rows in the reviews). */
  *reviews(row: number): Generator<number> {
    for (let r = this.latest[row]!; r >= 0; r = this.before[r]!) yield r;
  }

  /** The arguments of the claim the pair's operator checked. */
  checked(row: number): Iterable<string> {
    return this.checks.get(row) ?? [];
  }

  noteCheck(row: number, argument: string): void {
    let set = this.checks.get(row);
    if (set === undefined) this.checks.set(row, (set = new Set()));
    set.add(argument);
  }

  counted(row: number): { reports: number; right: number } {
    return { reports: this.reports[row]!, right: this.right[row]! };
  }

  setCounted(row: number, reports: number, right: number): void {
    const { reports: reportsWere, right: rightWas } = this;
    if ((this.reports = fitting(reportsWere, reports)) !== reportsWere) this.saved.reports.moved();
    if ((this.right = fitting(rightWas, right)) !== rightWas) this.saved.right.moved();
    this.saved.reports.write(row);
    this.reports[row] = reports;
    this.saved.right.write(row);
    this.right[row] = right;
  }

  /**
   * `op` and `claim` are append-only, written once when a pair is made, and `before` once when its
   * review lands (a snapshot shares them); `latest`, `reports` and `right` change in place (a
   * snapshot copies them on write); the rest change.
   */
  pack(): ReportPairsData {
    const n = this.n;
    return {
      ops: this.ops.list,
      op: stable(this.op.subarray(0, n)),
      claim: stable(this.claim.subarray(0, n)),
      latest: this.saved.latest.mark(this.latest.subarray(0, n)),
      reports: this.saved.reports.mark(this.reports.subarray(0, n)),
      right: this.saved.right.mark(this.right.subarray(0, n)),
      checks: [...this.checks].map(([row, set]) => [row, [...set]]),
      before: stable(this.before.subarray(0, this.noted)),
      index: this.index.slotsNow(),
    };
  }

  static unpack(d: ReportPairsData): ReportPairs {
    const p = new ReportPairs();
    const n = (p.n = d.op.length);
    p.ops = new Interned([...d.ops]);
    p.op = owned(d.op, n);
    p.claim = owned(d.claim, n);
    p.latest = owned(d.latest, n);
    p.reports = owned(d.reports, n);
    p.right = owned(d.right, n);
    p.checks = new Map(d.checks.map(([row, list]) => [row, new Set(list)]));
    p.noted = d.before.length;
    p.before = owned(d.before, p.noted);
    p.index.adopt(d.index, n);
    return p;
  }
}
