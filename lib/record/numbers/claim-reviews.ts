// Each claim's reviews, their rows in state.reviews in log order, as columns rather than a Map entry and an array per claim
// (docs/record.md#how-the-state-is-kept): a snapshot's copy of the state walked one entry per claim (issue 26).
import {
  appendOnlyEach,
  appendTo,
  ChangingColumn,
  grow,
  owned,
  SmallCounts,
  stable,
  type Ints,
  type Rows,
  type SmallCountsData,
} from '../stores/columns.js';

/**
 * A claim with this many reviews keeps them as a list as well, so that its page reads any of them
 * by place and its kept aggregate reads the new ones at once; a claim with fewer is read by its
 * back-links, at most this many steps. A list of 64 numbers or more is a column in a snapshot
 * (fold/state-copy.ts): so is every such list, noted with its length rather than copied.
 */
export const HOT_FROM = 64;

/** What the snapshot writes (fold/state-codec.ts). */
export interface ClaimReviewsData {
  count: SmallCountsData;
  last: Ints;
  before: Ints;
  hot: Map<number, Rows>;
}

/**
 * Per claim (its row in state.claims, its ordinal) how many reviews it has and its latest (a review
 * row plus one, 0 for none), changed in place as reviews land (copied on write for a snapshot:
 * ChangingColumn, stores/columns.ts); per review row the row of the same claim's review before it,
 * or -1, written once when the review lands (append-only: a snapshot shares it); and the lists of
 * the hot claims (HOT_FROM), each append-only.
 */
export class ClaimReviews {
  /**
   * Both cover the claims up to the highest reviewed (a claim never reviewed past them reads 0); the count is a byte a claim,
   * a hot claim's apart (columns.ts, SmallCounts).
   */
  private count = new SmallCounts();
  private last = new ChangingColumn(new Int32Array(0));
  private before = new Int32Array(16);
  /** How many review rows `before` covers. */
  private noted = 0;
  /** The review rows of each claim with HOT_FROM reviews or more, by the claim's row. */
  private hot = appendOnlyEach(new Map<number, Rows>());

  /** How many reviews claim `claim` (its row; -1 for none) has. */
  countOf(claim: number): number {
    return claim >= 0 ? this.count.at(claim) : 0;
  }

  /**
   * The rows of claim `claim`'s reviews in log order: a hot claim's list as it stands (read it,
   * never change it), else a list made from the back-links (fewer than HOT_FROM).
   */
  rowsOf(claim: number): Rows {
    const n = this.countOf(claim);
    if (n === 0) return [];
    const kept = this.hot.get(claim);
    if (kept !== undefined) return kept;
    const rows = new Array<number>(n);
    for (let i = n - 1, r = this.last.at(claim) - 1; i >= 0; i--, r = this.before[r]!) rows[i] = r;
    return rows;
  }

  /** Review `review` (the next row of the reviews) is of claim `claim`. */
  add(claim: number, review: number): void {
    this.noted = Math.max(this.noted, review + 1);
    this.before = grow(this.before, this.noted);
    this.before[review] = this.last.at(claim) - 1;
    const n = this.count.at(claim) + 1;
    if (n > HOT_FROM) appendTo(this.hot, claim, review);
    this.last.set(claim, review + 1);
    this.count.set(claim, n);
    if (n === HOT_FROM) this.hot.set(claim, this.rowsOf(claim));
  }

  /** `before` and the hot lists only grow at their end (a snapshot shares them); `count` and `last` change in place (copied on write). */
  pack(): ClaimReviewsData {
    return {
      count: this.count.pack(),
      last: this.last.pack(),
      before: stable(this.before.subarray(0, this.noted)),
      hot: this.hot,
    };
  }

  static unpack(d: ClaimReviewsData): ClaimReviews {
    const c = new ClaimReviews();
    c.count = new SmallCounts(d.count);
    c.last = new ChangingColumn(d.last);
    c.noted = d.before.length;
    c.before = owned(d.before, c.noted);
    c.hot = appendOnlyEach(d.hot);
    return c;
  }
}
