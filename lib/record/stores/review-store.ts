// Every review on the record, held as columns (columns.ts), one row per review in log order; reads see each review as the object
// it always was. The rationale is read from the log (docs/record.md#how-the-state-is-kept).
import {
  Ascending,
  type AscendingData,
  decimalAt,
  decimalFitting,
  fitting,
  grow,
  setDecimal,
  HexIds,
  stable,
  Interned,
  isoMs,
  isoTs,
  owned,
  type Ints,
  type Floats,
  type Bytes,
  type Narrow,
  type Decimals,
  RowMap,
  growing,
} from './columns.js';

/** A review as the reads see it. */
export interface Review {
  id: string;
  seq: number;
  claim: string;
  agent: string;
  operatorId: string;
  forecast: number;
  models: string[];
  signerKey: string;
  disownedSeq: number | null;
}

/** What a review's row holds, as the snapshot writes it (fold/state-codec.ts). */
export interface ReviewsData {
  ids: Bytes;
  /** The index from id to row as it stands (columns.ts, RowIndex): read back rather than built again from the ids. */
  idIndex: Ints;
  seq: AscendingData;
  /** The claim's row in state.claims (its ordinal). */
  claim: Ints;
  agent: Narrow;
  operator: Narrow;
  key: Narrow;
  models: Narrow;
  forecast: Decimals;
  /** The rows disowned, each with the seq of the key.revoke that disowned it. */
  disowned: [number, number][];
  time: Floats;
  agents: string[];
  operators: string[];
  signerKeys: string[];
  lists: string[][];
  /** Rows whose entry ts is not spelled as the log spells it, with their ts. */
  odd: [number, string][];
}

/** What a new review's row is made of: the review, not yet disowned, and its entry's ts (and isoMs(ts), when the caller has it). */
export type NewReview = Omit<Review, 'disownedSeq'> & { ts: string; isoMs?: number };

const NONE: string[] = [];

/** Where a review's claim is found by its ref, and its ref by its row: the claims' store (claim-store.ts). */
interface ClaimRows {
  ordinal(ref: string): number;
  refAt(row: number): string;
}

export class Reviews extends RowMap<Review> {
  private ids = new HexIds();
  /** Reviews land in log order (columns.ts, Ascending). */
  private seq = new Ascending();
  private claim = new Int32Array(16);
  /** Each an interned string's number, as narrow as the numbers let (columns.ts, Narrow). */
  private agent: Narrow = new Uint8Array(16);
  private operator: Narrow = new Uint8Array(16);
  private key: Narrow = new Uint8Array(16);
  private models: Narrow = new Uint8Array(16);
  /** As its writer gave it, in ten-thousandths while it can be (columns.ts, Decimals). */
  private forecast: Decimals = new Uint16Array(16);
  /** The rows disowned (few), each with the seq of the key.revoke that disowned it. */
  private disowned = new Map<number, number>();
  /** Its entry's time in ms (columns.ts, isoMs); the ts itself when not canonical is in `odd`. */
  private time = new Float64Array(16);
  /** Each column's strings, held once: a table each, so that each lookup is in a small Map. A claim is its row in `claims`. */
  private agents = new Interned();
  private operators = new Interned();
  private signerKeys = new Interned();
  /** Declared model lists, each held once: the same list is the same array (its families are remembered per array). */
  private lists: string[][] = [NONE];
  private listNumbers = new Map<string, number>([['[]', 0]]);
  private odd = new Map<number, string>();

  /** The reviews of the claims `claims` (state.claims), whose rows the claim column holds. */
  constructor(private readonly claims: ClaimRows) {
    super();
  }

  get size(): number {
    return this.ids.count;
  }

  /** Appends a review; returns its row. */
  add(r: NewReview): number {
    const row = this.ids.push(r.id);
    const n = row + 1;
    this.claim = grow(this.claim, n);
    this.agent = grow(this.agent, n);
    this.operator = grow(this.operator, n);
    this.key = grow(this.key, n);
    this.models = grow(this.models, n);
    this.forecast = grow(this.forecast, n);
    this.time = grow(this.time, n);
    this.seq.push(r.seq);
    this.claim[row] = this.claims.ordinal(r.claim);
    const agent = this.agents.of(r.agent);
    const operator = this.operators.of(r.operatorId);
    const key = this.signerKeys.of(r.signerKey);
    const models = this.listOf(r.models);
    (this.agent = fitting(this.agent, agent))[row] = agent;
    (this.operator = fitting(this.operator, operator))[row] = operator;
    (this.key = fitting(this.key, key))[row] = key;
    (this.models = fitting(this.models, models))[row] = models;
    setDecimal((this.forecast = decimalFitting(this.forecast, r.forecast)), row, r.forecast);
    const ms = r.isoMs ?? isoMs(r.ts);
    if (Number.isNaN(ms)) {
      this.time[row] = Date.parse(r.ts);
      this.odd.set(row, r.ts);
    } else this.time[row] = ms;
    return row;
  }

  /** The row of review `id`, or -1. */
  rowOf(id: string): number {
    return this.ids.find(id);
  }

  keyAt(row: number): string {
    return this.ids.hex(row);
  }
  seqAt(row: number): number {
    return this.seq.at(row);
  }
  claimAt(row: number): string {
    return this.claims.refAt(this.claim[row]!);
  }
  /** The row of a review's claim in state.claims (its ordinal), as the column holds it: no ref spelled and looked up again. */
  claimRowAt(row: number): number {
    return this.claim[row]!;
  }
  agentAt(row: number): string {
    return this.agents.at(this.agent[row]!);
  }
  operatorAt(row: number): string {
    return this.operators.at(this.operator[row]!);
  }
  /** The number of a row's agent (and operator) among the store's, and the name of a number: for walks of every row. */
  agentNumberAt(row: number): number {
    return this.agent[row]!;
  }
  operatorNumberAt(row: number): number {
    return this.operator[row]!;
  }
  agentNamed(n: number): string {
    return this.agents.at(n);
  }
  operatorNamed(n: number): string {
    return this.operators.at(n);
  }
  signerKeyAt(row: number): string {
    return this.signerKeys.at(this.key[row]!);
  }
  modelsAt(row: number): string[] {
    return this.lists[this.models[row]!]!;
  }
  forecastAt(row: number): number {
    return decimalAt(this.forecast, row);
  }
  disownedAt(row: number): number | null {
    return this.disowned.get(row) ?? null;
  }
  /** Its entry's time, as Date.parse reads its ts. */
  timeAt(row: number): number {
    return this.time[row]!;
  }
  /** Its entry's ts. */
  tsAt(row: number): string {
    return this.odd.get(row) ?? isoTs(this.time[row]!);
  }

  /** Disowns the review at `row` from entry `seq` on (types/agents.ts, key.revoke). */
  disown(row: number, seq: number): void {
    this.disowned.set(row, seq);
  }

  /** The review at `row`, as an object. */
  at(row: number): Review {
    return {
      id: this.keyAt(row),
      seq: this.seqAt(row),
      claim: this.claimAt(row),
      agent: this.agentAt(row),
      operatorId: this.operatorAt(row),
      forecast: this.forecastAt(row),
      models: this.modelsAt(row),
      signerKey: this.signerKeyAt(row),
      disownedSeq: this.disownedAt(row),
    };
  }

  private listOf(models: string[]): number {
    if (models.length === 0) return 0;
    const k = JSON.stringify(models);
    let n = this.listNumbers.get(k);
    if (n === undefined) {
      n = this.lists.length;
      this.lists.push([...models]);
      this.listNumbers.set(k, n);
    }
    return n;
  }

  /** Every column is append-only: rows are written once, when pushed (a snapshot shares them). */
  pack(): ReviewsData {
    const n = this.size;
    return {
      ids: stable(this.ids.pack()),
      idIndex: this.ids.packIndex(),
      seq: this.seq.pack(),
      claim: stable(this.claim.subarray(0, n)),
      agent: stable(this.agent.subarray(0, n)),
      operator: stable(this.operator.subarray(0, n)),
      key: stable(this.key.subarray(0, n)),
      models: stable(this.models.subarray(0, n)),
      forecast: stable(this.forecast.subarray(0, n)),
      disowned: [...this.disowned],
      time: stable(this.time.subarray(0, n)),
      agents: growing(this.agents.list),
      operators: growing(this.operators.list),
      signerKeys: growing(this.signerKeys.list),
      lists: this.lists,
      odd: [...this.odd],
    };
  }

  /** The reviews `pack` wrote, of the claims `claims`. */
  static unpack(d: ReviewsData, claims: ClaimRows): Reviews {
    const r = new Reviews(claims);
    const n = d.seq.offset.length;
    r.ids = HexIds.unpack(d.ids, undefined, d.idIndex);
    r.seq = Ascending.unpack(d.seq);
    r.claim = owned(d.claim, n);
    r.agent = owned(d.agent, n);
    r.operator = owned(d.operator, n);
    r.key = owned(d.key, n);
    r.models = owned(d.models, n);
    r.forecast = owned(d.forecast, n);
    r.disowned = new Map(d.disowned);
    r.time = owned(d.time, n);
    r.agents = new Interned([...d.agents]);
    r.operators = new Interned([...d.operators]);
    r.signerKeys = new Interned([...d.signerKeys]);
    r.lists = d.lists.length > 0 && d.lists[0]!.length === 0 ? [NONE, ...d.lists.slice(1)] : [NONE];
    r.listNumbers = new Map(r.lists.map((l, i) => [JSON.stringify(l), i]));
    r.odd = new Map(d.odd);
    return r;
  }
}
