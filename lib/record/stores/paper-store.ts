// Every paper on the record, held as columns (columns.ts), one row per paper in log order; reads see each paper as the object it
// always was (docs/record.md#how-the-state-is-kept). A paper is written once, when published, and never changed: a snapshot
// shares every column, its titles' bytes too (texts.ts).
import { grow, Interned, isoMs, isoTs, owned, stable, type Floats, type Ints, RowMap, growing } from './columns.js';
import { ShortKeys, type ShortKeysData } from './short-keys.js';
import { Texts, type TextsData } from './texts.js';

export interface Parent {
  id: string;
  rel: string;
  basis: string | null;
  claims: string[] | null;
  note: string | null;
}

export interface Paper {
  id: string;
  seq: number;
  ts: string;
  agent: string;
  operatorId: string;
  title: string;
  field: string;
  claims: string[];
  buildsOn: Parent[];
  models: string[];
}

/** What a paper's row holds, as the snapshot writes it (fold/state-codec.ts). */
export interface PapersData {
  /** Each row's id, with the index from id to row as it stands (short-keys.ts): read back rather than built again. */
  ids: ShortKeysData;
  seq: Ints;
  /** Its entry's time in ms (columns.ts, isoMs); the ts itself, when not spelled as the log spells it, in `odd`. */
  time: Floats;
  agent: Ints;
  operator: Ints;
  field: Ints;
  /** How many claims it made: its claims are `<id>#C1` to `#C<n>`, as the record names them (types/papers.ts). */
  claimCount: Ints;
  /** Each row's title, as UTF-8 bytes (texts.ts). */
  titles: TextsData;
  agents: string[];
  operators: string[];
  fields: string[];
  odd: [number, string][];
  /** The papers that build on others (their parents), and those that declared models, by row. */
  buildsOn: [number, Parent[]][];
  models: [number, string[]][];
  /** Rows whose claims are not named as the record names them (none the record makes), with their refs. */
  claims: [number, string[]][];
}

/** The refs a paper's claims are given (types/papers.ts, `<paper id>#C<n>`). */
const refsOf = (id: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${id}#C${i + 1}`);

export class Papers extends RowMap<Paper> {
  /** Each row's id, held as numbers (short-keys.ts). */
  private readonly ids: ShortKeys;
  private seq = new Int32Array(16);
  private time = new Float64Array(16);
  private agent = new Int32Array(16);
  private operator = new Int32Array(16);
  private field = new Int32Array(16);
  private claimCount = new Int32Array(16);
  private titles = new Texts();
  private agents = new Interned();
  private operators = new Interned();
  private fields = new Interned();
  private odd = new Map<number, string>();
  private buildsOn = new Map<number, Parent[]>();
  private models = new Map<number, string[]>();
  private claims = new Map<number, string[]>();

  private constructor(ids: ShortKeys) {
    super();
    this.ids = ids;
  }

  /** No papers yet. */
  static empty(): Papers {
    return new Papers(new ShortKeys());
  }

  get size(): number {
    return this.ids.length;
  }

  /** Appends a paper; returns its row. */
  add(p: Paper): number {
    if (this.rowOf(p.id) >= 0) throw new Error(`paper ${p.id} is on the record already`);
    const row = this.ids.push(p.id);
    const n = row + 1;
    this.seq = grow(this.seq, n);
    this.time = grow(this.time, n);
    this.agent = grow(this.agent, n);
    this.operator = grow(this.operator, n);
    this.field = grow(this.field, n);
    this.claimCount = grow(this.claimCount, n);
    this.seq[row] = p.seq;
    const ms = isoMs(p.ts);
    if (Number.isNaN(ms)) this.odd.set(row, p.ts);
    this.time[row] = ms;
    this.agent[row] = this.agents.of(p.agent);
    this.operator[row] = this.operators.of(p.operatorId);
    this.field[row] = this.fields.of(p.field);
    this.titles.push(p.title);
    this.claimCount[row] = p.claims.length;
    if (p.claims.some((ref, i) => ref !== `${p.id}#C${i + 1}`)) this.claims.set(row, [...p.claims]);
    if (p.buildsOn.length > 0) this.buildsOn.set(row, p.buildsOn);
    if (p.models.length > 0) this.models.set(row, p.models);
    return row;
  }

  /** The row of paper `id` (in log order), or -1. */
  rowOf(id: string): number {
    return this.ids.find(id);
  }

  /** The paper at `row`, as an object (its members in the order they always had). */
  at(row: number): Paper {
    const id = this.ids.at(row);
    return {
      id,
      seq: this.seq[row]!,
      ts: this.odd.get(row) ?? isoTs(this.time[row]!),
      agent: this.agents.at(this.agent[row]!),
      operatorId: this.operators.at(this.operator[row]!),
      // Null only in a verifier's replay of a paper served with its texts withheld (texts.ts).
      title: this.titles.at(row) as string,
      field: this.fields.at(this.field[row]!),
      claims: this.claimsAt(row),
      buildsOn: this.buildsOn.get(row) ?? [],
      models: this.models.get(row) ?? [],
    };
  }

  keyAt(row: number): string {
    return this.ids.at(row);
  }
  seqAt(row: number): number {
    return this.seq[row]!;
  }
  agentAt(row: number): string {
    return this.agents.at(this.agent[row]!);
  }
  operatorAt(row: number): string {
    return this.operators.at(this.operator[row]!);
  }
  fieldAt(row: number): string {
    return this.fields.at(this.field[row]!);
  }
  /** The refs of the claims the paper at `row` made. */
  claimsAt(row: number): string[] {
    return this.claims.get(row) ?? refsOf(this.ids.at(row), this.claimCount[row]!);
  }
  /** The papers and external claims the paper at `row` builds on (as its entry names them). */
  buildsOnAt(row: number): readonly Parent[] {
    return this.buildsOn.get(row) ?? [];
  }

  /**
   * Every paper's row by its agent, its operator or its field (`by`), in log order: each of them, in the order of its first
   * paper, with the rows of its papers as a column (the read index made at start, lib/record/views/list-index.ts: 2.4 million
   * papers at ten million entries, three times). Read from the columns by number, with no lookup by name and no id made:
   * counted first, then each row put in its list, so that no list is an array grown one push at a time. The lists are views of
   * one column of every row (20,000 agents at 10M: one buffer, not one each); nothing writes them (`appended` makes an array).
   */
  rowsBy(by: 'agent' | 'operator' | 'field'): [string, Ints][] {
    const column = by === 'agent' ? this.agent : by === 'operator' ? this.operator : this.field;
    const names = (by === 'agent' ? this.agents : by === 'operator' ? this.operators : this.fields).list;
    const n = this.ids.length;
    // next[k]: where the next row of name k goes; its list starts where the lists of the names before it end.
    const next = new Int32Array(names.length + 1);
    for (let row = 0; row < n; row++) next[column[row]! + 1]!++;
    for (let k = 1; k <= names.length; k++) next[k]! += next[k - 1]!;
    const starts = next.slice();
    const all = new Int32Array(n);
    const order: number[] = [];
    for (let row = 0; row < n; row++) {
      const k = column[row]!;
      if (next[k] === starts[k]) order.push(k);
      all[next[k]!++] = row;
    }
    return order.map((k) => [names[k]!, all.subarray(starts[k]!, starts[k + 1]!)]);
  }

  /** The rows of the papers that build on others, in log order, with their parents. */
  rowsBuildingOn(): IterableIterator<[number, Parent[]]> {
    return this.buildsOn.entries();
  }

  /** Every column is written once, when a paper is added: a snapshot shares them (`stable`), and its index's slots are copied on write. */
  pack(): PapersData {
    const n = this.size;
    return {
      ids: this.ids.pack(),
      seq: stable(this.seq.subarray(0, n)),
      time: stable(this.time.subarray(0, n)),
      agent: stable(this.agent.subarray(0, n)),
      operator: stable(this.operator.subarray(0, n)),
      field: stable(this.field.subarray(0, n)),
      claimCount: stable(this.claimCount.subarray(0, n)),
      titles: this.titles.pack(),
      agents: growing(this.agents.list),
      operators: growing(this.operators.list),
      fields: growing(this.fields.list),
      odd: [...this.odd],
      buildsOn: [...this.buildsOn],
      models: [...this.models],
      claims: [...this.claims],
    };
  }

  static unpack(d: PapersData): Papers {
    const ids = ShortKeys.unpack(d.ids);
    const n = ids.length;
    if (d.seq.length !== n || d.titles.ends.length !== n) throw new Error(`${d.seq.length} papers' columns for ${n} ids`);
    const p = new Papers(ids);
    p.seq = owned(d.seq, n);
    p.time = owned(d.time, n);
    p.agent = owned(d.agent, n);
    p.operator = owned(d.operator, n);
    p.field = owned(d.field, n);
    p.claimCount = owned(d.claimCount, n);
    p.titles = Texts.unpack(d.titles);
    p.agents = new Interned([...d.agents]);
    p.operators = new Interned([...d.operators]);
    p.fields = new Interned([...d.fields]);
    p.odd = new Map(d.odd);
    p.buildsOn = new Map(d.buildsOn);
    p.models = new Map(d.models);
    p.claims = new Map(d.claims);
    return p;
  }
}
