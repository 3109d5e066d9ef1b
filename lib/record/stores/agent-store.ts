// Every agent and every operator on the record, held as columns (columns.ts), one row each in log order; reads see each as
// the object it always was (docs/record.md#how-the-state-is-kept). What a registration writes never changes (the handle,
// the main key, the operator, the models, the entry): a snapshot shares it. What changes later is held apart: the
// retirements, check keys and doorbells in small Maps, and each operator's newest agent and count of agents in columns
// copied on write; an operator's agents are a chain, each agent naming the one its operator registered before it.
import { ChangingColumn, grow, growing, Interned, KeyIndex, owned, RowMap, stable, type Ints } from './columns.js';

export interface CheckKey {
  key: string;
  scope: 'reports';
  label: string | null;
  seq: number;
  revokedSeq: number | null;
  compromisedAt: string | null;
}

export interface Doorbell {
  kind: string;
  cadence: string;
  status: 'set' | 'stopped';
  /** Stored, never served. */
  url: string | null;
  seq: number;
}

/** An agent as read: changed only through the store (`retire`, `delegate`, `revokeCheck`, `ring`). */
export interface Agent {
  readonly handle: string;
  readonly operatorId: string;
  readonly mainKey: string;
  readonly models: readonly string[];
  readonly seq: number;
  /** Seq of the key.revoke of the main key: the agent is retired from then on. */
  readonly retiredSeq: number | null;
  readonly checkKeys: ReadonlyMap<string, Readonly<CheckKey>>;
  readonly doorbell: Readonly<Doorbell> | null;
}

/** An operator as read; its agents are `Agents.ofOperator`. */
export interface Operator {
  readonly id: string;
  readonly seq: number;
}

/** Handles are unique regardless of case, so `Alice` cannot pose as `alice`: a handle's key. */
export const handleKey = (handle: string): string => handle.toLowerCase();

/** What the operators' rows hold, as the snapshot writes them (fold/state-codec.ts). */
export interface OperatorsData {
  ids: string[];
  index: Ints;
  seq: Ints;
}

/** Every operator: its id and the entry that first named it (genesis, a pairing, its first agent), by row in log order. */
export class Operators extends RowMap<Operator> {
  private readonly ids: string[];
  private readonly index: KeyIndex;
  private seq = new Int32Array(16);

  constructor(ids: string[] = [], index?: Ints) {
    super();
    this.ids = ids;
    this.index = new KeyIndex((row) => this.ids[row]!);
    if (index !== undefined) this.index.adopt(index, ids.length);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Adds operator `id`, first named at entry `seq`; returns its row. */
  add(id: string, seq: number): number {
    if (this.rowOf(id) >= 0) throw new Error(`operator ${id} is on the record already`);
    const row = this.ids.length;
    this.ids.push(id);
    this.seq = grow(this.seq, row + 1);
    this.seq[row] = seq;
    this.index.insert(row);
    return row;
  }

  rowOf(id: string): number {
    return this.index.find(id);
  }
  keyAt(row: number): string {
    return this.ids[row]!;
  }
  at(row: number): Operator {
    return { id: this.ids[row]!, seq: this.seq[row]! };
  }

  /** Written once, when an operator is added: a snapshot shares the columns, and copies its index's slots on write. */
  pack(): OperatorsData {
    return { ids: growing(this.ids), index: this.index.slotsNow(), seq: stable(this.seq.subarray(0, this.size)) };
  }

  static unpack(d: OperatorsData): Operators {
    if (d.seq.length !== d.ids.length) throw new Error(`${d.seq.length} operators' entries for ${d.ids.length} ids`);
    const o = new Operators(d.ids, d.index);
    o.seq = owned(d.seq, d.ids.length);
    return o;
  }
}

/** What the agents' rows hold, as the snapshot writes them (fold/state-codec.ts). */
export interface AgentsData {
  handles: string[];
  /** The indexes by handle, by handle in lower case, and by main key (columns.ts, KeyIndex). */
  index: Ints;
  folded: Ints;
  keyIndex: Ints;
  mainKeys: string[];
  seq: Ints;
  /** The operator's row (Operators). */
  operator: Ints;
  /** The row, plus one, of the agent its operator registered before it (0: none). */
  before: Ints;
  /** The number of its list of models in `modelLists`, each list as JSON. */
  models: Ints;
  modelLists: string[];
  /** By operator row: its newest agent's row plus one (0: none), and how many agents it has. */
  newest: Ints;
  count: Ints;
  retired: [number, number][];
  checkKeys: [number, CheckKey[]][];
  doorbells: [number, Doorbell][];
}

const NO_KEYS: ReadonlyMap<string, CheckKey> = new Map();

/** Every agent, by handle (a Map's reads), by row in registration order; the owner of any key; each operator's agents. */
export class Agents extends RowMap<Agent> {
  private readonly handles: string[];
  private readonly mainKeys: string[];
  private readonly index: KeyIndex;
  private readonly folded: KeyIndex;
  private readonly keyIndex: KeyIndex;
  private seq = new Int32Array(16);
  private operator = new Int32Array(16);
  private before = new Int32Array(16);
  private models = new Int32Array(16);
  /** Each distinct list of models, as JSON (interned) and as the list read. */
  private modelLists: Interned;
  private lists: string[][];
  private newest = new ChangingColumn(new Int32Array(0));
  private count = new ChangingColumn(new Int32Array(0));
  private retired = new Map<number, number>();
  private checkKeys = new Map<number, Map<string, CheckKey>>();
  /** Every check key, to its agent's row. */
  private checkKeyRows = new Map<string, number>();
  private doorbells = new Map<number, Doorbell>();

  constructor(
    readonly operators: Operators,
    d?: AgentsData,
  ) {
    super();
    this.handles = d?.handles ?? [];
    this.mainKeys = d?.mainKeys ?? [];
    this.modelLists = new Interned(d === undefined ? [] : [...d.modelLists]);
    this.lists = this.modelLists.list.map((json) => JSON.parse(json) as string[]);
    this.index = new KeyIndex((row) => this.handles[row]!);
    this.folded = new KeyIndex((row) => handleKey(this.handles[row]!));
    this.keyIndex = new KeyIndex((row) => this.mainKeys[row]!);
    if (d === undefined) return;
    const n = d.handles.length;
    for (const c of [d.mainKeys, d.seq, d.operator, d.before, d.models])
      if (c.length !== n) throw new Error(`an agents' column of ${c.length} rows for ${n} handles`);
    this.index.adopt(d.index, n);
    this.folded.adopt(d.folded, n);
    this.keyIndex.adopt(d.keyIndex, n);
    this.seq = owned(d.seq, n);
    this.operator = owned(d.operator, n);
    this.before = owned(d.before, n);
    this.models = owned(d.models, n);
    this.newest = new ChangingColumn(d.newest);
    this.count = new ChangingColumn(d.count);
    this.retired = new Map(d.retired);
    for (const [row, keys] of d.checkKeys) {
      this.checkKeys.set(row, new Map(keys.map((k) => [k.key, k])));
      for (const k of keys) this.checkKeyRows.set(k.key, row);
    }
    this.doorbells = new Map(d.doorbells);
  }

  get size(): number {
    return this.handles.length;
  }

  /** Registers an agent of an operator on the record (`operators`); returns its row. */
  add(a: { handle: string; operatorId: string; mainKey: string; models: readonly string[]; seq: number }): number {
    if (this.spelling(a.handle) !== undefined) throw new Error(`handle ${a.handle} is taken`);
    if (this.ownerOf(a.mainKey) !== undefined) throw new Error('the key belongs to an agent already');
    const op = this.operators.rowOf(a.operatorId);
    if (op < 0) throw new Error(`operator ${a.operatorId} is not on the record`);
    const row = this.handles.length;
    const n = row + 1;
    this.handles.push(a.handle);
    this.mainKeys.push(a.mainKey);
    this.seq = grow(this.seq, n);
    this.operator = grow(this.operator, n);
    this.before = grow(this.before, n);
    this.models = grow(this.models, n);
    this.seq[row] = a.seq;
    this.operator[row] = op;
    this.before[row] = this.newest.at(op);
    const models = this.modelLists.of(JSON.stringify(a.models));
    if (models === this.lists.length) this.lists.push([...a.models]);
    this.models[row] = models;
    this.newest.set(op, row + 1);
    this.count.set(op, this.count.at(op) + 1);
    this.index.insert(row);
    this.folded.insert(row);
    this.keyIndex.insert(row);
    return row;
  }

  rowOf(handle: string): number {
    return this.index.find(handle);
  }
  keyAt(row: number): string {
    return this.handles[row]!;
  }
  at(row: number): Agent {
    return {
      handle: this.handles[row]!,
      operatorId: this.operators.keyAt(this.operator[row]!),
      mainKey: this.mainKeys[row]!,
      models: this.lists[this.models[row]!]!,
      seq: this.seq[row]!,
      retiredSeq: this.retired.get(row) ?? null,
      checkKeys: this.checkKeys.get(row) ?? NO_KEYS,
      doorbell: this.doorbells.get(row) ?? null,
    };
  }

  /** The handle taken as `handle` is spelled on the record, regardless of case, or undefined. */
  spelling(handle: string): string | undefined {
    const row = this.folded.find(handleKey(handle));
    return row < 0 ? undefined : this.handles[row];
  }

  /** The handle of the agent whose key (main or check, revoked or not) `key` is, or undefined. */
  ownerOf(key: string): string | undefined {
    const row = this.keyIndex.find(key);
    if (row >= 0) return this.handles[row];
    const check = this.checkKeyRows.get(key);
    return check === undefined ? undefined : this.handles[check];
  }

  /** The handles of operator `id`'s agents, in registration order. */
  ofOperator(id: string): string[] {
    const op = this.operators.rowOf(id);
    if (op < 0) return [];
    const out: string[] = new Array(this.count.at(op));
    for (let r = this.newest.at(op), i = out.length - 1; r !== 0; r = this.before[r - 1]!, i--) out[i] = this.handles[r - 1]!;
    return out;
  }

  /** How many agents operator `id` has (0 when it is not on the record). */
  countOf(id: string): number {
    const op = this.operators.rowOf(id);
    return op < 0 ? 0 : this.count.at(op);
  }

  /** The agent `handle` retires at entry `seq` (its main key revoked). */
  retire(handle: string, seq: number): void {
    this.retired.set(this.must(handle), seq);
  }

  /** Gives agent `handle` check key `k` (not yet any agent's). */
  delegate(handle: string, k: CheckKey): void {
    const row = this.must(handle);
    if (this.ownerOf(k.key) !== undefined) throw new Error('the key belongs to an agent already');
    let keys = this.checkKeys.get(row);
    if (keys === undefined) this.checkKeys.set(row, (keys = new Map()));
    keys.set(k.key, { ...k });
    this.checkKeyRows.set(k.key, row);
  }

  /** Revokes agent `handle`'s check key `key` at entry `seq`, disowning what it signed from `compromisedAt` when given. */
  revokeCheck(handle: string, key: string, seq: number, compromisedAt: string | null): void {
    const k = this.checkKeys.get(this.must(handle))?.get(key);
    if (k === undefined) throw new Error(`${key} is not a check key of ${handle}`);
    k.revokedSeq = seq;
    k.compromisedAt = compromisedAt;
  }

  /** Agent `handle`'s doorbell from now on. */
  ring(handle: string, bell: Doorbell): void {
    this.doorbells.set(this.must(handle), { ...bell });
  }

  private must(handle: string): number {
    const row = this.rowOf(handle);
    if (row < 0) throw new Error(`agent ${handle} is not on the record`);
    return row;
  }

  /**
   * What a registration writes is written once: a snapshot shares those columns and copies the
   * indexes' slots and the operators' columns on write; the rest (retirements, check keys,
   * doorbells: few) is copied whole.
   */
  pack(): AgentsData {
    const n = this.size;
    return {
      handles: growing(this.handles),
      index: this.index.slotsNow(),
      folded: this.folded.slotsNow(),
      keyIndex: this.keyIndex.slotsNow(),
      mainKeys: growing(this.mainKeys),
      seq: stable(this.seq.subarray(0, n)),
      operator: stable(this.operator.subarray(0, n)),
      before: stable(this.before.subarray(0, n)),
      models: stable(this.models.subarray(0, n)),
      modelLists: growing(this.modelLists.list),
      newest: this.newest.pack(),
      count: this.count.pack(),
      retired: [...this.retired],
      checkKeys: [...this.checkKeys].map(([row, keys]) => [row, [...keys.values()]]),
      doorbells: [...this.doorbells],
    };
  }
}
