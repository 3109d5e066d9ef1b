// Indexes the numbers need beyond what the handlers keep: who relies on which claim, each
// operator's claims and reports in log order. Derived from the entries alone, kept as they land.

import type { EvidenceAggregate } from './aggregate.js';
import { ClaimReviews } from './claim-reviews.js';
import { History } from './history.js';
import { ReportPairs } from './report-pairs.js';
import { Scores } from './score-store.js';
import {
  appendOnlyEach,
  ChangingColumn,
  WholeOrDoubles,
  type Bytes,
  type Floats,
  type Ints,
  type Rows,
  type Shorts,
} from '../stores/columns.js';
import type { Claims } from '../stores/claim-store.js';
import type { ShortKeys } from '../stores/short-keys.js';

export type { Score, Status } from './score-store.js';

export interface NumbersIndex {
  /**
   * Every claim's ref in log order (claims of one paper in claim order): a claim's place here is its
   * ordinal, its row in state.claims (stores/claim-store.ts), which holds this very store and finds a ref's row.
   */
  refs: ShortKeys;
  /** Reviews per claim (by its row, its ordinal), in log order: their rows in state.reviews (stores/review-store.ts); claim-reviews.ts. */
  reviewsByClaim: ClaimReviews;
  /** Receipts per claim, in the order of their results (check.result entries). */
  resultsByClaim: Map<string, string[]>;
  /** Foundation ref to the papers relying on it (for `use`). */
  relying: Map<string, string[]>;
  /** Foundation ref to the claims whose prior it enters. */
  dependents: Map<string, string[]>;
  /**
   * An operator's paper claims, their rows in state.claims (ordinals), in log order (for
   * calibration); each list append-only (`appendOnlyEach`).
   */
  claimsByOperator: Map<string, Rows>;
  /** An operator's receipts, reviews and argument checks (for verification by the record). */
  receiptsByOperator: Map<string, string[]>;
  /** An operator's reviews, their rows in state.reviews; each list append-only (`appendOnlyEach`). */
  reviewsByOperator: Map<string, Rows>;
  checksByOperator: Map<string, Set<string>>;
  /**
   * An operator's papers (its `use` of foundations), their rows in state.papers, each list
   * append-only (`appendOnlyEach`); and the receipts it cross-checked.
   */
  papersByOperator: Map<string, Rows>;
  crossCheckedBy: Map<string, string[]>;
  /** Receipts a cross-check disagreed with that no verified operator has cross-checked (the frontier's receipts queue). */
  awaiting: Set<string>;
  /**
   * Arguments and challenges filed, in log order, that may still be open: a reader drops those
   * it finds closed (openOnly), so a walk of the open ones never walks the closed.
   */
  openArguments: Set<string>;
  openChallenges: Set<string>;
  /** How many external claims and how many receipts with a result (the record summary's counts). */
  counts: { external: number; resulted: number };
}

/** The ids of `set` whose item `isOpen` still says is open, in order; those closed are dropped from the set. */
export function* openOnly<T>(set: Set<string>, get: (id: string) => T | undefined, isOpen: (item: T) => boolean): Generator<T> {
  for (const id of set) {
    const item = get(id);
    if (item !== undefined && isOpen(item)) yield item;
    else set.delete(id);
  }
}

export function emptyIndex(refs: ShortKeys): NumbersIndex {
  return {
    refs,
    reviewsByClaim: new ClaimReviews(),
    resultsByClaim: new Map(),
    relying: new Map(),
    dependents: new Map(),
    claimsByOperator: appendOnlyEach(new Map()),
    receiptsByOperator: new Map(),
    reviewsByOperator: appendOnlyEach(new Map()),
    checksByOperator: new Map(),
    papersByOperator: appendOnlyEach(new Map()),
    crossCheckedBy: new Map(),
    awaiting: new Set(),
    openArguments: new Set(),
    openChallenges: new Set(),
    counts: { external: 0, resulted: 0 },
  };
}

/**
 * What the two criteria need of one operator, kept as entries land so that looking at a
 * candidate costs the same whatever its history (docs/credence.md#operators-verified-by-the-record).
 * `receiptsEarned` and `reportsEarned` of verification.ts compute the same from scratch (tests compare them).
 */
export interface OperatorTally {
  /** Per receipt of the operator: what its verified cross-checks say (absent while none do). */
  receipts: Map<string, ReceiptTally>;
  /**
   * Sums over `receipts`: verified cross-checks that disagreed, receipts per lowest verifying round, verified
   * matching cross-checks per checker.
   */
  disputes: number;
  byRound: Map<number, number>;
  sources: Map<string, number>;
  /**
   * The claims it reviewed or checked arguments of (their ordinals, in the order of its first report on
   * each): what each counts is in the report pairs. Append-only (`appendOnly`).
   */
  claims: Rows;
  reports: number;
  right: number;
}

export interface ReceiptTally {
  disputes: number;
  lowest: number;
  checkers: string[];
}

/** The tallies of every operator, and how many operators are verified in each round from 1 on. */
export interface VerificationTallies {
  operators: Map<string, OperatorTally>;
  rounds: Map<number, number>;
  /** Per operator and claim it reported on: its latest review, its checks, what they count (report-pairs.ts). */
  pairs: ReportPairs;
}

/** Claims per chunk of the served credence body (served.ts caches it chunk by chunk). */
export const CHUNK = 1024;

/**
 * What the frontier ranks, per claim ordinal, kept as scores change so that a read scans
 * arrays instead of scoring: expected minutes and kind (the value of checking and the dispute
 * worth are read from the claim's score: score-store.ts, `valueAt` and `worthAt`).
 */
export interface Ranks {
  /** Whole minutes in two bytes while they are whole (columns.ts, WholeOrDoubles). */
  minutes: WholeOrDoubles;
  /** 1 for a conceptual claim. */
  conceptual: ChangingColumn<Bytes>;
  /**
   * The ranked queues of the frontier as last computed: the lowest key each keeps (-Infinity
   * while not full) and the claims in them. A claim outside them whose key stays below those
   * cannot change them, so they are recomputed only when `stale`.
   */
  watch: { claims: number; conceptual: number; disputes: number; members: Set<number> } | null;
  stale: boolean;
}

/** No claims ranked yet. */
export const emptyRanks = (): Ranks => ({
  minutes: new WholeOrDoubles(new Uint16Array(0)),
  conceptual: new ChangingColumn(new Uint8Array(0)),
  watch: null,
  stale: true,
});

/** The ranks as a snapshot writes them: their columns. */
export interface RanksData extends Omit<Ranks, 'minutes' | 'conceptual'> {
  minutes: Shorts | Floats;
  conceptual: Bytes;
}

export const packRanks = (r: Ranks): RanksData => ({
  ...r,
  minutes: r.minutes.pack(),
  conceptual: r.conceptual.pack(),
});

export const unpackRanks = (d: RanksData): Ranks => ({
  ...d,
  minutes: new WholeOrDoubles(d.minutes),
  conceptual: new ChangingColumn(d.conceptual),
});

/**
 * An author's calibration kept as prefix sums over its resolved claims in log order (kept.ts), as columns (grown with
 * `grow`): the place of each among the author's claims, and the sums up to it; nothing for a claim not resolved. A sum and
 * a count for every claim took 90 MiB at ten million paper-heavy entries (7.6 million claims, few resolved).
 */
export interface CalibrationPrefix {
  /** at[k]: the place among the author's claims (in log order) of its k-th resolved claim, increasing. */
  at: Ints;
  /** sum[k]: the calibration terms of its first k resolved claims, summed in that order (sum[0] is 0). */
  sum: Floats;
  /** How many resolved claims `at` holds. */
  resolved: number;
  /** `at` and `sum` hold every resolved claim among the author's first `valid` claims. */
  valid: number;
}

/** What rescores read, kept as entries land (kept.ts, docs/credence.md#how-the-service-keeps-them). */
export interface Aggregates {
  evidence: Map<string, EvidenceAggregate>;
  /** Claims whose evidence aggregate is built again from their items when next read. */
  stale: Set<string>;
  /** Per operator, its calibration's prefix sums: built when first read (not in a snapshot). */
  calibration: Map<string, CalibrationPrefix>;
  /** Per claim: how many of its relying papers are read, and relying papers per operator other than the author's. */
  use: Map<string, { read: number; ops: Map<string, number> }>;
}

export const emptyAggregates = (): Aggregates => ({
  evidence: new Map(),
  stale: new Set(),
  calibration: new Map(),
  use: new Map(),
});

/** The numbers the fold keeps: its indexes and every claim's score (rescore.ts). */
export interface Numbers {
  index: NumbersIndex;
  /** Every claim's score, by its ordinal (score-store.ts). */
  scores: Scores;
  aggregates: Aggregates;
  ranks: Ranks;
  /** Bumped whenever any score changes: caches of served numbers key on it. */
  version: number;
  /** Per chunk of CHUNK claims (by ordinal), the version at which a score in it last changed. */
  chunkVersion: number[];
  /** Every change of a claim's status, in log order: the entry that moved it (for the feeds). */
  statusChanges: StatusChange[];
  /** Each claim's credence as it moved: [entry seq, credence] at each entry that changed it (`history.get(ref)`). */
  history: History;
  /** The entry being folded. */
  at: { seq: number; ts: string };
  /** What verification by the record reads of each operator, kept as entries land (verification.ts). */
  tallies: VerificationTallies;
}

export interface StatusChange {
  seq: number;
  ts: string;
  ref: string;
  from: string;
  to: string;
}

/** The numbers of a record whose claims are `claims` (none yet): their refs are the index's `refs`, their rows the ordinals. */
export const emptyNumbers = (claims: Claims): Numbers => {
  const index = emptyIndex(claims.refs);
  return {
    index,
    scores: new Scores(claims),
    aggregates: emptyAggregates(),
    ranks: emptyRanks(),
    version: 0,
    chunkVersion: [],
    statusChanges: [],
    history: new History(claims),
    at: { seq: 0, ts: '' },
    tallies: { operators: new Map(), rounds: new Map(), pairs: new ReportPairs() },
  };
};
