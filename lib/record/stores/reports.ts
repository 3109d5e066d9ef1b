// Reports (check.commit, check.result, review) per signing key, in log order, for disowning
// (docs/record.md, types/agents.ts key.revoke). A review is named by its row in the reviews
// (review-store.ts), which holds its id, seq and time already; the few other reports are kept
// whole. What the state's digest reads is the list of {type, id, seq, ts} of each key.
import { appendOnlyEach, appendTo, type Rows } from './columns.js';
import type { Reviews } from './review-store.js';

export interface Report {
  type: string;
  id: string;
  seq: number;
  ts: string;
}

/** What the snapshot writes (fold/state-codec.ts). */
export interface ReportsData {
  keys: string[];
  refs: Rows[];
  others: Report[];
}

export class Reports {
  /** Per key, its reports in log order: a review's row (>= 0), or -(1 + n) for others[n]. */
  private byKey = appendOnlyEach(new Map<string, Rows>());
  private others: Report[] = [];

  /** Notes the review at `row` under the key that signed it. */
  noteReview(key: string, row: number): void {
    this.push(key, row);
  }

  /** Notes a report other than a review under the key that signed it. */
  note(key: string, report: Report): void {
    // The report pushed is others[length - 1], named -(1 + length - 1).
    this.push(key, -this.others.push(report));
  }

  /** The reports of `key`, as references `report` reads. */
  refs(key: string): Rows {
    return this.byKey.get(key) ?? [];
  }

  /** The report a reference names. */
  report(ref: number, reviews: Reviews): Report {
    if (ref < 0) return this.others[-1 - ref]!;
    return { type: 'review', id: reviews.keyAt(ref), seq: reviews.seqAt(ref), ts: reviews.tsAt(ref) };
  }

  /** Its entry's time, as Date.parse reads the report's ts. */
  time(ref: number, reviews: Reviews): number {
    return ref < 0 ? Date.parse(this.others[-1 - ref]!.ts) : reviews.timeAt(ref);
  }

  /** Every key's reports, as the state once held them (for the state's digest). */
  asMap(reviews: Reviews): Map<string, Report[]> {
    return new Map([...this.byKey].map(([key, refs]) => [key, Array.from(refs, (r) => this.report(r, reviews))]));
  }

  private push(key: string, ref: number): void {
    appendTo(this.byKey, key, ref);
  }

  pack(): ReportsData {
    return { keys: [...this.byKey.keys()], refs: appendOnlyEach([...this.byKey.values()]), others: this.others };
  }

  static unpack(d: ReportsData): Reports {
    const r = new Reports();
    d.keys.forEach((k, i) => r.byKey.set(k, d.refs[i]!));
    r.others = d.others;
    return r;
  }
}
