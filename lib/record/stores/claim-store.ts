// Every claim on the record, held as columns (columns.ts), one row per claim in log order: the row is the claim's ordinal in
// the numbers (numbers/indexes.ts). Reads see each claim as the object it always was, without its statement and test, which
// are read from the entries that carry them (docs/record.md#how-the-state-is-kept).
import {
  Ascending,
  type AscendingData,
  ChangingColumn,
  decimalAt,
  decimalFitting,
  fitting,
  grow,
  setDecimal,
  hashText,
  Interned,
  owned,
  stable,
  type Bytes,
  type Ints,
  type Narrow,
  type Decimals,
  RowMap,
  growing,
  RowTexts,
  type RowTextsData,
  SmallCounts,
  type SmallCountsData,
} from './columns.js';
import { ShortKeys, type ShortKeysData } from './short-keys.js';

export interface Claim {
  ref: string;
  /** The paper id (rec:) or external id (ext:). */
  paper: string;
  external: boolean;
  kind: 'empirical' | 'conceptual';
  /** The author's stated confidence (paper claims); null for external claims. */
  confidence: number | null;
  source: string | null;
  /** The author operator: the paper's, or the one that registered the external claim. */
  operatorId: string;
  agent: string;
  /** The entry that made it, which holds its statement and test (a paper's `claims[i]`, an external claim's quote and test). */
  seq: number;
  /** Its amendment's entry (which holds its test after, when it changed the test) and its kind before. */
  amendment: { seq: number; before: { kind: string } } | null;
  /** Receipts committed, reviews and arguments filed on it: any evidence stops amendment. */
  evidence: number;
}

/** What a claim's row holds, as the snapshot writes it (fold/state-codec.ts). */
export interface ClaimsData {
  /** Each row's ref, with the index from ref to row as it stands (short-keys.ts): read back rather than built again. */
  refs: ShortKeysData;
  /** Bit 0: conceptual (else empirical); bit 1: external; bit 2: its test as it stands is not known (TEST_UNKNOWN). */
  flags: Bytes;
  /** The author's stated confidence; NaN for none (an external claim). */
  confidence: Decimals;
  seq: AscendingData;
  agent: Narrow;
  operator: Narrow;
  evidence: SmallCountsData;
  /** The hash of each claim's test as it stands (`hashText`), for the amendment's "nothing changes". */
  testHash: Ints;
  agents: string[];
  operators: string[];
  /** The external claims' sources, by row. */
  sources: RowTextsData;
  /** The claims amended (few), by row. */
  amendments: [number, NonNullable<Claim['amendment']>][];
  /** Rows whose paper is not their ref's part before `#` (none the record makes), with their paper. */
  papers: [number, string][];
}

const CONCEPTUAL = 1;
const EXTERNAL = 2;
/**
 * Its test as it stands is not known: it was withheld where the entry was read (a verifier replays served entries, whose
 * withheld fields are null: docs/record.md#what-served-entries-withhold), so no test is known to be the same as it.
 */
const TEST_UNKNOWN = 4;

/** The paper a ref names when the record made it: its part before the last `#` (`<paper id>#C<n>`, lib/protocol/ids.ts). */
const paperOfRef = (ref: string): string => ref.slice(0, ref.lastIndexOf('#'));

export class Claims extends RowMap<Claim> {
  /** Each row's ref, held as numbers (short-keys.ts): the numbers' `index.refs` is this very store (the one copy of every ref). */
  readonly refs: ShortKeys;
  /** Changed in place (an amendment, evidence landing): a snapshot copies them on write (ChangingColumn). */
  private flags = new ChangingColumn(new Uint8Array(0));
  /** As its author gave it, in ten-thousandths while it can be (columns.ts, Decimals); NaN for none. */
  private confidence: Decimals = new Uint16Array(16);
  /** Claims land in log order (columns.ts, Ascending). */
  private seq = new Ascending();
  /** Each an interned string's number, as narrow as the numbers let (columns.ts, Narrow). */
  private agent: Narrow = new Uint8Array(16);
  private operator: Narrow = new Uint8Array(16);
  /** A few pieces a claim, a hot claim's many (columns.ts, SmallCounts). */
  private evidence = new SmallCounts();
  private testHash = new ChangingColumn(new Int32Array(0));
  private agents = new Interned();
  private operators = new Interned();
  private sources = new RowTexts();
  private amendments = new Map<number, NonNullable<Claim['amendment']>>();
  private papers = new Map<number, string>();

  /** Claims whose refs are `refs` (of a snapshot; else none yet). */
  private constructor(refs: ShortKeys) {
    super();
    this.refs = refs;
  }

  /** No claims yet. */
  static empty(): Claims {
    return new Claims(new ShortKeys());
  }

  get size(): number {
    return this.refs.length;
  }

  /** Appends a claim (not amended, no evidence yet); returns its row. */
  add(c: Omit<Claim, 'amendment' | 'evidence'>, test: string | null): number {
    if (this.rowOf(c.ref) >= 0) throw new Error(`claim ${c.ref} is on the record already`);
    const row = this.refs.push(c.ref);
    const n = row + 1;
    this.confidence = grow(this.confidence, n);
    this.agent = grow(this.agent, n);
    this.operator = grow(this.operator, n);
    this.flags.set(row, (c.kind === 'conceptual' ? CONCEPTUAL : 0) | (c.external ? EXTERNAL : 0) | (test === null ? TEST_UNKNOWN : 0));
    const confidence = c.confidence ?? NaN;
    setDecimal((this.confidence = decimalFitting(this.confidence, confidence)), row, confidence);
    this.seq.push(c.seq);
    const agent = this.agents.of(c.agent);
    const operator = this.operators.of(c.operatorId);
    (this.agent = fitting(this.agent, agent))[row] = agent;
    (this.operator = fitting(this.operator, operator))[row] = operator;
    this.evidence.set(row, 0);
    this.testHash.set(row, test === null ? 0 : hashText(test));
    if (c.source !== null) this.sources.add(row, c.source);
    if (paperOfRef(c.ref) !== c.paper) this.papers.set(row, c.paper);
    return row;
  }

  /** The row of claim `ref` (its ordinal), or -1. */
  rowOf(ref: string): number {
    return this.refs.find(ref);
  }

  /** The row of claim `ref`, which the record holds. */
  ordinal(ref: string): number {
    const row = this.rowOf(ref);
    if (row < 0) throw new Error(`no claim ${ref}`);
    return row;
  }

  refAt(row: number): string {
    return this.refs.at(row);
  }
  kindAt(row: number): Claim['kind'] {
    return this.flags.at(row) & CONCEPTUAL ? 'conceptual' : 'empirical';
  }
  externalAt(row: number): boolean {
    return (this.flags.at(row) & EXTERNAL) !== 0;
  }
  seqAt(row: number): number {
    return this.seq.at(row);
  }
  /** The author's stated confidence, or null (an external claim). */
  confidenceAt(row: number): number | null {
    const c = decimalAt(this.confidence, row);
    return Number.isNaN(c) ? null : c;
  }
  operatorAt(row: number): string {
    return this.operators.at(this.operator[row]!);
  }
  evidenceAt(row: number): number {
    return this.evidence.at(row);
  }
  /**
   * Whether `test` may be the test of the claim at `row` as it stands: false when it is not, or when either was withheld
   * (null, TEST_UNKNOWN); true when it is, or (a chance of one in 2 ** 32) another test of the same hash. The texts stay on
   * the log.
   */
  testMayBe(row: number, test: string | null): boolean {
    if (test === null || (this.flags.at(row) & TEST_UNKNOWN) !== 0) return false;
    return this.testHash.at(row) === hashText(test);
  }

  /** Counts one more piece of evidence on claim `ref` (a receipt committed, a review or an argument filed): it stops amendment. */
  addEvidence(ref: string): void {
    const row = this.ordinal(ref);
    this.evidence.set(row, this.evidence.at(row) + 1);
  }

  /** Amends claim `ref` at entry `seq` (claim.amend): its kind, and its test when given; the kind before kept. */
  amend(ref: string, seq: number, kind: Claim['kind'], test: string | null | undefined): void {
    const row = this.ordinal(ref);
    this.amendments.set(row, { seq, before: { kind: this.kindAt(row) } });
    const flags = (this.flags.at(row) & ~CONCEPTUAL) | (kind === 'conceptual' ? CONCEPTUAL : 0);
    if (test === null) this.flags.set(row, flags | TEST_UNKNOWN);
    else if (test !== undefined) {
      this.flags.set(row, flags & ~TEST_UNKNOWN);
      this.testHash.set(row, hashText(test));
    } else this.flags.set(row, flags);
  }

  /** The claim at `row`, as an object (its members in the order they always had). */
  at(row: number): Claim {
    const ref = this.refs.at(row);
    const confidence = this.confidenceAt(row);
    return {
      ref,
      paper: (this.papers.size > 0 ? this.papers.get(row) : undefined) ?? paperOfRef(ref),
      external: this.externalAt(row),
      kind: this.kindAt(row),
      confidence,
      source: this.sources.size > 0 ? (this.sources.get(row) ?? null) : null,
      operatorId: this.operatorAt(row),
      agent: this.agents.at(this.agent[row]!),
      seq: this.seq.at(row),
      amendment: (this.amendments.size > 0 ? this.amendments.get(row) : undefined) ?? null,
      evidence: this.evidence.at(row),
    };
  }

  keyAt(row: number): string {
    return this.refs.at(row);
  }

  /**
   * The columns written once, when a claim is added, are shared by a snapshot (`stable`); a claim's kind (in its flags) and
   * test's hash change when it is amended and its evidence count as evidence lands, so those are copied on write.
   */
  pack(): ClaimsData {
    const n = this.size;
    return {
      refs: this.refs.pack(),
      flags: this.flags.pack(),
      confidence: stable(this.confidence.subarray(0, n)),
      seq: this.seq.pack(),
      agent: stable(this.agent.subarray(0, n)),
      operator: stable(this.operator.subarray(0, n)),
      evidence: this.evidence.pack(),
      testHash: this.testHash.pack(),
      agents: growing(this.agents.list),
      operators: growing(this.operators.list),
      sources: this.sources.pack(),
      amendments: [...this.amendments],
      papers: [...this.papers],
    };
  }

  /** The claims `pack` wrote. */
  static unpack(d: ClaimsData): Claims {
    const refs = ShortKeys.unpack(d.refs);
    const n = refs.length;
    for (const column of [d.flags, d.seq.offset, d.evidence.bytes, d.testHash])
      if (column.length !== n) throw new Error(`${column.length} claims' rows in a column for ${n} refs`);
    const c = new Claims(refs);
    c.flags = new ChangingColumn(d.flags);
    c.confidence = owned(d.confidence, n);
    c.seq = Ascending.unpack(d.seq);
    c.agent = owned(d.agent, n);
    c.operator = owned(d.operator, n);
    c.evidence = new SmallCounts(d.evidence);
    c.testHash = new ChangingColumn(d.testHash);
    c.agents = new Interned([...d.agents]);
    c.operators = new Interned([...d.operators]);
    c.sources = RowTexts.unpack(d.sources);
    c.amendments = new Map(d.amendments);
    c.papers = new Map(d.papers);
    return c;
  }
}
