// The state's body in a snapshot as parts and columns, so that a snapshot pauses the fold only for a cheap copy: the columns
// shared or copied at the speed of memory, the objects copied, and every part serialized later, one per turn of the event loop
// (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol). Pure: the caller takes the turns.
import { deserialize, serialize } from 'node:v8';
import {
  columnCopy,
  holdsAppendOnly,
  isAppendOnly,
  isColumnRows,
  isFixedSize,
  isGrowing,
  isStable,
  restored,
  stable,
  type ColumnCopy,
  type Rows,
  withRoom,
} from '../stores/columns.js';

const TYPED = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
} as const;
type TypedName = keyof typeof TYPED;
type Typed = InstanceType<(typeof TYPED)[TypedName]>;

/** A list of numbers at least this long is written as a column, its bytes raw (a structured clone writes it number by number). */
const LIST = 64;
/** In a part's objects, where a column stood: { [COLUMN]: its number }. */
const COLUMN = '\u0000column';

interface Column {
  /** Its bytes: a view of the column, shared or copied; for a list, made from `list` once the state is copied. */
  data?: Typed;
  /** A list of numbers (made a list again when read): its first `length` numbers are made a column after the copy. */
  list?: number[];
  /** How many of the list's numbers are the state's: all of a copy, the length at the copy of an append-only list. */
  length?: number;
  /** A column changed in place, copied on write (columns.ts, `columnCopy`: a row index's slots, say): read into `data` later. */
  later?: ColumnCopy;
  /** An append-only list of numbers (columns.ts, Rows): read back as its column, which nothing writes, not as an array. */
  rows?: boolean;
  /** A column that never grows in place (columns.ts, `fixedSize`): read back with no room to grow. */
  exact?: boolean;
}

/**
 * A part that holds only lists of numbers that only grow (columns.ts, `appendOnlyEach`: each agent's
 * reviews, each key's reports), noted at the copy as its keys and each list's length, with no copy
 * of its lists: their first items are read when the part is serialized, while the fold appends. Its
 * lists are its own (`appendTo` makes each), reached from no other part.
 */
interface Held {
  lists: Map<unknown, Rows> | (Rows | undefined)[];
  /** A Map's keys at the copy, in order; undefined for a list of lists. */
  keys: unknown[] | undefined;
  /** Each list's length at the copy (-1: no list there). */
  lengths: Int32Array;
}

/** A state copied by `copyState`: its parts (the value at each path) and the columns they name. */
export interface StateCopy {
  /**
   * `length`: the part is a list of strings that only grows (columns.ts, `growing`), the state's
   * own: its first `length` items are the copy's. `held`: its value is made from its lists when it
   * is serialized (`Held`).
   */
  parts: { path: string[]; value: unknown; columns: boolean; length?: number; held?: Held }[];
  columns: Column[];
}

/** What the body's first bytes describe. */
interface Manifest {
  /** `pieces`: a list that only grows written in pieces of at most PIECE items, each its own clone (their bytes, in order). */
  parts: { path: string[]; bytes: number; columns: boolean; pieces?: number[] }[];
  columns: { type: TypedName; bytes: number; list: boolean; rows?: true; exact?: true }[];
}

const isPlain = (v: object): boolean => {
  const p = Object.getPrototypeOf(v) as unknown;
  return p === Object.prototype || p === null;
};

const typedName = (v: ArrayBufferView): TypedName => {
  for (const name of Object.keys(TYPED) as TypedName[]) if (v instanceof TYPED[name]) return name;
  throw new Error(`a state cannot hold a ${v.constructor.name}`);
};

/** Copies values as a structured clone would keep them, the columns set aside; objects reached twice stay one object. */
class Copier {
  /** `share`: the columns and lists of numbers are the state's own, not copies (copyState). */
  constructor(private readonly share = false) {}
  readonly columns: Column[] = [];
  private readonly seen = new Map<object, { copy: unknown; part: number }>();
  part = 0;
  /** Whether an object is reached from two parts: written apart, they would be read back as two objects. */
  shared = false;
  /** The parts that name columns. */
  readonly named = new Set<number>();

  /** A copy of `v`; `appendOnly`: `v` is a member of a Map or array that holds only append-only lists (`holdsAppendOnly`). */
  copy(v: unknown, appendOnly = false): unknown {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function' || typeof v === 'symbol') throw new Error(`a state cannot hold a ${typeof v}`);
      return v;
    }
    const hit = this.seen.get(v);
    if (hit !== undefined) {
      if (hit.part !== this.part) this.shared = true;
      return hit.copy;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto === Object.prototype || proto === null) {
      // A spread copies an object at once; then only its members that are objects are copied.
      const o: Record<string, unknown> = { ...v };
      this.seen.set(v, { copy: o, part: this.part });
      for (const k in o) {
        const x = o[k];
        if (x !== null && typeof x === 'object') o[k] = this.copy(x);
        else if (typeof x === 'function' || typeof x === 'symbol') throw new Error(`a state cannot hold a ${typeof x}`);
      }
      return o;
    }
    let copy: unknown;
    if (Array.isArray(v)) copy = this.array(v, appendOnly || isAppendOnly(v));
    else if (v instanceof Map) {
      const m = new Map<unknown, unknown>();
      this.seen.set(v, { copy: m, part: this.part });
      const each = holdsAppendOnly(v);
      for (const [k, x] of v) m.set(typeof k === 'object' ? this.copy(k) : k, x !== null && typeof x === 'object' ? this.copy(x, each) : x);
      return m;
    } else if (v instanceof Set) {
      const s = new Set<unknown>();
      this.seen.set(v, { copy: s, part: this.part });
      for (const x of v) s.add(this.copy(x));
      return s;
    } else if (ArrayBuffer.isView(v)) {
      typedName(v);
      const later = isStable(v) || this.share ? undefined : columnCopy(v);
      const exact = isFixedSize(v);
      // A column copied on write is not copied now; one shared is taken as it is; any other is copied.
      if (later !== undefined) copy = this.column({ later, exact });
      else {
        const data = isStable(v) || this.share ? (v as Typed) : (v as Typed).slice();
        copy = this.column({ data, rows: appendOnly || isAppendOnly(v), exact });
      }
    } else throw new Error(`a state cannot hold a ${v.constructor.name}`);
    this.seen.set(v, { copy, part: this.part });
    return copy;
  }

  /** `v` is in the copy as the state's own (a list that only grows): reached from another part too, the copy is made whole. */
  reach(v: object): void {
    if (this.seen.has(v)) this.shared = true;
    else this.seen.set(v, { copy: v, part: this.part });
  }

  private column(c: Column): Record<string, number> {
    this.columns.push(c);
    this.named.add(this.part);
    return { [COLUMN]: this.columns.length - 1 };
  }

  /** A long list of numbers as a column (its length now if it is append-only, else a copy; its bytes later), any other array copied. */
  private array(a: unknown[], appendOnly: boolean): unknown {
    if (a.length >= LIST) {
      // Its numbers before its length at the copy never change: read later, they are the state's.
      if (appendOnly) return this.column({ list: a as number[], length: a.length, rows: true });
      let i = 0;
      while (i < a.length && typeof a[i] === 'number') i++;
      if (i === a.length) return this.column({ list: (this.share ? a : a.slice()) as number[], length: a.length });
    }
    // slice keeps holes, and copies a list of strings at the speed of memory.
    const c = a.slice();
    const each = holdsAppendOnly(a);
    for (let i = 0; i < c.length; i++) {
      const x = c[i];
      if (x !== null && typeof x === 'object') c[i] = this.copy(x, each);
    }
    return c;
  }
}

/**
 * A copy of `written` (the state as the codec writes it) that the state moving on does not change:
 * its parts (each member of `written`, and the members of its members down to `depth`) and the
 * columns they name. Columns marked `stable` are shared, those changed in place that their store
 * marked (`columnCopy`: row indexes' slots, say) copied on write, others copied; lists of numbers
 * become columns. The work is the objects' count plus a copy of the other mutable columns: what a
 * snapshot holds the fold for. Its bytes (`copyBytes`, `copyBytesSync`) are to be made once: they
 * release the copies on write. With `share`, its columns and lists of numbers are the state's own (its objects are still copied):
 * for bytes made in the same synchronous step (`copyBytesSync`), before the state can change.
 */
export function copyState(written: object, depth = 3, share = false): StateCopy {
  const c = new Copier(share);
  const parts: StateCopy['parts'] = [];
  let held: Held | undefined;
  const split = (path: string[], v: object, d: number) => {
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      const object = x !== null && typeof x === 'object' && !ArrayBuffer.isView(x) && !Array.isArray(x);
      if (d > 1 && object && isPlain(x) && Object.keys(x).length > 0) split([...path, k], x, d - 1);
      else if (Array.isArray(x) && isGrowing(x)) {
        c.part = parts.length;
        c.reach(x);
        parts.push({ path: [...path, k], value: x, columns: false, length: x.length });
      } else if (x !== null && typeof x === 'object' && (held = heldOf(x)) !== undefined) {
        parts.push({ path: [...path, k], value: undefined, columns: false, held });
      } else {
        c.part = parts.length;
        parts.push({ path: [...path, k], value: c.copy(x), columns: false });
      }
    }
  };
  split([], written, depth);
  // An object reached from two parts is rare; written as one part it stays one object.
  if (c.shared) {
    for (const col of c.columns) col.later?.release();
    const whole = new Copier(share);
    return { parts: [{ path: [], value: whole.copy(written), columns: whole.columns.length > 0 }], columns: whole.columns };
  }
  for (const i of c.named) parts[i]!.columns = true;
  return { parts, columns: c.columns };
}

/** `lists`, a Map or list of lists that only grow (`holdsAppendOnly`), noted as `Held`; undefined for anything else. */
function heldOf(lists: object): Held | undefined {
  if (!holdsAppendOnly(lists)) return undefined;
  if (lists instanceof Map) {
    const keys: unknown[] = [];
    const lengths = new Int32Array(lists.size);
    for (const [k, list] of lists as Map<unknown, Rows>) {
      if (k !== null && typeof k === 'object') return undefined;
      lengths[keys.length] = list.length;
      keys.push(k);
    }
    return { lists, keys, lengths };
  }
  if (!Array.isArray(lists)) return undefined;
  const all = lists as (Rows | undefined)[];
  const lengths = new Int32Array(all.length);
  for (let i = 0; i < all.length; i++) lengths[i] = all[i]?.length ?? -1;
  return { lists: all, keys: undefined, lengths };
}

/**
 * A held part's value (`Held`): each list's first items as at the copy, a long one as a column
 * (its numbers read when the columns are made, after the parts), a short one as an array.
 */
function heldValue(copy: StateCopy, p: StateCopy['parts'][number]): unknown {
  const { lists, keys, lengths } = p.held!;
  const cut = (list: Rows | undefined, n: number): unknown => {
    if (list === undefined || n < 0) return undefined;
    if (n < LIST) {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push(list[i]!);
      return out;
    }
    copy.columns.push(isColumnRows(list) ? { data: list.subarray(0, n), rows: true } : { list: list as number[], length: n, rows: true });
    p.columns = true;
    return { [COLUMN]: copy.columns.length - 1 };
  };
  if (keys === undefined) return Array.from(lengths, (n, i) => cut((lists as (Rows | undefined)[])[i], n));
  const m = new Map<unknown, unknown>();
  keys.forEach((k, i) => m.set(k, cut((lists as Map<unknown, Rows>).get(k), lengths[i]!)));
  return m;
}

/** A part's value as the copy holds it: a list that only grows cut at its length at the copy; a held part made now. */
const partValue = (copy: StateCopy, p: StateCopy['parts'][number]): unknown =>
  p.held !== undefined ? heldValue(copy, p) : p.length === undefined ? p.value : packed(p.value as unknown[], 0, p.length);

/**
 * Items `from` to `to` of `list` as an array with no holes, which V8's structured clone writes densely (the items alone).
 * A list read back from a snapshot is an array that may hold holes to V8 (v8.deserialize makes it so), and such an array,
 * or a slice of it, is written sparsely: each item after its index, a fifth more bytes, and slower to read back. So a state
 * started from a snapshot wrote its lists of strings sparsely, and the next start read them slower (at ten million entries,
 * 504 MiB of parts rather than 436).
 */
function packed(list: unknown[], from: number, to: number): unknown[] {
  const out: unknown[] = [];
  for (let i = from; i < to; i++) out.push(list[i]);
  return out;
}

/**
 * Items of a list that only grows serialized per turn: a few milliseconds' work (ten million refs serialized in one call held
 * the event loop three seconds; 65,536 titles a turn, a new 4 MiB, up to half a second at 10M under a large page cache).
 */
const PIECE = 2 ** 14;

const rawBytes = (t: Typed): Uint8Array => new Uint8Array(t.buffer, t.byteOffset, t.byteLength);

/** The first `n` numbers of a list, as Int32 when each fits, else as Float64 (a loop: `new Float64Array(list)` is slow). */
function listColumn(list: number[], n: number): Typed {
  const f = new Float64Array(n);
  let ints = true;
  for (let i = 0; i < n; i++) {
    const x = list[i]!;
    f[i] = x;
    if ((x | 0) !== x || (x === 0 && 1 / x < 0)) ints = false;
  }
  return ints ? new Int32Array(f) : f;
}

/** Numbers made columns per turn. */
const NUMBERS = 2 ** 18;
/**
 * Rows of a column copied on write read per turn (1 MiB of Int32): each turn fills new memory, which this machine gives slowly
 * under a large page cache (4 MiB a turn held the event loop 300 to 400 ms at 10M; docs/benchmarks-history.md).
 */
const ROWS = 2 ** 18;

/** The columns copied on write, each read into a column of its own, ROWS a turn (`turn`, first), then released. */
async function readLater(copy: StateCopy, turn: () => Promise<unknown>): Promise<void> {
  try {
    for (const c of copy.columns)
      if (c.later !== undefined) {
        const data = c.later.empty();
        for (let from = 0; from < data.length; from += ROWS) {
          await turn();
          c.later.read(data, from, Math.min(data.length, from + ROWS));
        }
        c.data = data;
        c.later.release();
      }
  } finally {
    for (const c of copy.columns) c.later?.release();
  }
}

/** The body's chunks: the manifest, each part's structured clone (or its pieces' clones), then each column's raw bytes. */
function chunksOf(copy: StateCopy, parts: Uint8Array[][]): Uint8Array[] {
  const data = copy.columns.map((c) => c.data ?? listColumn(c.list!, c.length!));
  const m: Manifest = {
    parts: copy.parts.map((p, i) => {
      const pieces = parts[i]!;
      const bytes = pieces.reduce((n, x) => n + x.length, 0);
      return { path: p.path, bytes, columns: p.columns, ...(pieces.length > 1 ? { pieces: pieces.map((x) => x.length) } : {}) };
    }),
    columns: data.map((d, i) => {
      const c = copy.columns[i]!;
      // An append-only list is a list whether the state held it as an array or as the column it was read back as.
      const list = c.list !== undefined || c.rows === true;
      return {
        type: typedName(d),
        bytes: d.byteLength,
        list,
        ...(c.rows === true ? { rows: true as const } : {}),
        ...(c.exact === true ? { exact: true as const } : {}),
      };
    }),
  };
  const manifest = serialize(m);
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, manifest.length, true);
  return [length, manifest, ...parts.flat(), ...data.map(rawBytes)];
}

/** The body of `copy`, in chunks, in one synchronous step. */
export function copyBytesSync(copy: StateCopy): Uint8Array[] {
  for (const c of copy.columns)
    if (c.later !== undefined) {
      const data = c.later.empty();
      c.later.read(data, 0, data.length);
      c.later.release();
      c.data = data;
    }
  return chunksOf(
    copy,
    copy.parts.map((p) => [serialize(partValue(copy, p))]),
  );
}

/**
 * The body of `copy`, in chunks: the columns copied on write read first, ROWS rows a turn (the sooner
 * they are read, the fewer pages their stores save), each part serialized in a turn of its own (`turn`
 * waits for the next), a list that only grows longer than PIECE in pieces of PIECE items a turn, the
 * lists made columns a quarter of a million numbers a turn, the columns as they are.
 */
export async function copyBytes(copy: StateCopy, turn: () => Promise<unknown>): Promise<Uint8Array[]> {
  await readLater(copy, turn);
  const parts: Uint8Array[][] = [];
  for (const p of copy.parts) {
    const pieces: Uint8Array[] = [];
    if (p.length === undefined || p.length <= PIECE) {
      await turn();
      pieces.push(serialize(partValue(copy, p)));
    } else
      for (let from = 0; from < p.length; from += PIECE) {
        await turn();
        pieces.push(serialize(packed(p.value as unknown[], from, Math.min(p.length, from + PIECE))));
      }
    parts.push(pieces);
  }
  let numbers = 0;
  for (const c of copy.columns)
    if (c.list !== undefined) {
      c.data = listColumn(c.list, c.length!);
      if ((numbers += c.length!) >= NUMBERS) {
        numbers = 0;
        await turn();
      }
    }
  return chunksOf(copy, parts);
}

/** How many numbers a column of the manifest holds; throws when its bytes are not a whole number of them. */
function numbersOf(c: Manifest['columns'][number]): number {
  const size = TYPED[c.type].BYTES_PER_ELEMENT;
  if (c.bytes % size !== 0) throw new Error(`a column of ${c.bytes} bytes is no ${c.type}`);
  return c.bytes / size;
}

/**
 * A column's bytes as the manifest says, in a buffer of its own, not filled yet: with room to grow (`withRoom`) unless it is a
 * list or never grows in place (`exact`).
 */
function columnBuffer(c: Manifest['columns'][number]): Uint8Array<ArrayBuffer> {
  const n = numbersOf(c);
  const exact = c.list || c.rows === true || c.exact === true;
  return new Uint8Array(new ArrayBuffer(exact ? c.bytes : withRoom(n) * TYPED[c.type].BYTES_PER_ELEMENT), 0, c.bytes);
}

/**
 * The column whose bytes `columnBuffer` gave, filled: an append-only list as its column, which
 * nothing writes (`stable`: an array made of each of ten million rows at start cost a second of
 * collections); any other list an array again; else marked restored (its store keeps it: `owned`).
 */
function columnOf(c: Manifest['columns'][number], own: Uint8Array<ArrayBuffer>): unknown {
  const n = numbersOf(c);
  const data = new TYPED[c.type](own.buffer, own.byteOffset, n);
  if (c.rows === true) return stable(data);
  if (!c.list) return restored(data);
  // A loop: Array.from of a typed array goes through its iterator, ten times slower (thousands of lists).
  const list = new Array<number>(n);
  const numbers = data as ArrayLike<number>;
  for (let i = 0; i < n; i++) list[i] = numbers[i]!;
  return list;
}

/** The value written as `copyBytes`' chunks joined (`body`), its columns in place again; throws when the body is not one. */
export function readCopy(body: Uint8Array): Record<string, unknown> {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const mLength = view.getUint32(0, true);
  let at = 4 + mLength;
  const m = deserialize(body.subarray(4, at)) as Manifest;
  const take = (n: number) => {
    if (at + n > body.length) throw new Error('the body is shorter than its manifest says');
    return body.subarray(at, (at += n));
  };
  const values = m.parts.map((p) => {
    const pieces = piecesOf(p).map((n) => deserialize(take(n)) as unknown);
    return p.pieces === undefined ? pieces[0] : joined(pieces);
  });
  // Each column copied once, into a buffer of its own, which the store that reads it keeps (`owned`).
  const columns = m.columns.map((c) => {
    const own = columnBuffer(c);
    own.set(take(c.bytes));
    return columnOf(c, own);
  });
  if (at !== body.length) throw new Error('the body is longer than its manifest says');
  return assemble(m, values, columns);
}

/** A body read in order, a piece at a time (the engine's SnapshotBody). */
export interface BodySource {
  readonly left: number;
  readInto(into: Uint8Array): Promise<void>;
  read(n: number): Promise<Uint8Array>;
}

/** `readCopy` of a body read a piece at a time: each column read straight into its own buffer, the body never whole. */
export async function readCopyFrom(body: BodySource): Promise<Record<string, unknown>> {
  const length = await body.read(4);
  const mLength = new DataView(length.buffer, length.byteOffset, 4).getUint32(0, true);
  if (mLength > body.left) throw new Error('the body is shorter than its manifest says');
  const m = deserialize(await body.read(mLength)) as Manifest;
  const size = m.parts.reduce((n, p) => n + p.bytes, 0) + m.columns.reduce((n, c) => n + c.bytes, 0);
  if (size > body.left) throw new Error('the body is shorter than its manifest says');
  // The columns' buffers are made first, while the heap holds little: a large allocation may start a collection, which
  // then has little to walk (made after the parts, each walked the whole state read so far).
  const { owns, reads } = columnBuffers(m.columns);
  // Each part read into the same buffer, the largest part's size, and deserialized from it (which copies what it reads): a
  // buffer a part would be memory touched afresh, 500 MiB at ten million entries, held until a collection frees it.
  const scratch = new Uint8Array(m.parts.reduce((n, p) => Math.max(n, ...piecesOf(p)), 0));
  const values: unknown[] = [];
  for (const p of m.parts) {
    const pieces: unknown[] = [];
    for (const n of piecesOf(p)) {
      const bytes = scratch.subarray(0, n);
      await body.readInto(bytes);
      pieces.push(deserialize(bytes));
    }
    values.push(p.pieces === undefined ? pieces[0] : joined(pieces));
  }
  for (const into of reads) await body.readInto(into);
  const columns = m.columns.map((c, i) => columnOf(c, owns[i]!));
  if (body.left !== 0) throw new Error('the body is longer than its manifest says');
  return assemble(m, values, columns);
}

/**
 * A run of short append-only lists (`rows`, each under SHORT bytes) of one type, read back as views of one buffer: at most
 * SHARED bytes, more than the engine's piece (8 MiB, log/src/snapshot.ts), so that a run is read straight into its buffer.
 */
const SHORT = 2 ** 20;
const SHARED = 2 ** 24;

/**
 * The buffers `readCopyFrom` reads the columns into (`owns`, each as `columnBuffer` makes it), and what it reads into, in
 * order (`reads`): each column, except that a run of short append-only lists of one type, which nothing writes (`appendTo`
 * makes an array at a list's first append), is read in one piece into one buffer, each list a view of it. At ten million
 * entries the lists of each agent's reviews and each key's reports were 44,001 columns: a buffer and a read each, and as
 * many collections started by the memory they held outside the heap.
 */
function columnBuffers(columns: Manifest['columns']): { owns: Uint8Array<ArrayBuffer>[]; reads: Uint8Array<ArrayBuffer>[] } {
  const owns: Uint8Array<ArrayBuffer>[] = [];
  const reads: Uint8Array<ArrayBuffer>[] = [];
  const short = (c: Manifest['columns'][number], type: TypedName) => c.rows === true && c.bytes < SHORT && c.type === type;
  for (let i = 0; i < columns.length;) {
    let j = i;
    let bytes = 0;
    while (j < columns.length && short(columns[j]!, columns[i]!.type) && bytes + columns[j]!.bytes <= SHARED) bytes += columns[j++]!.bytes;
    if (j - i < 2) {
      const own = columnBuffer(columns[i]!);
      owns.push(own);
      reads.push(own);
      i++;
      continue;
    }
    const shared = new Uint8Array(bytes);
    reads.push(shared);
    // Each view's bytes are checked to be a whole number of its type when it is made a column (`columnOf`).
    for (let at = 0; i < j; at += columns[i++]!.bytes) owns.push(shared.subarray(at, at + columns[i]!.bytes));
  }
  return { owns, reads };
}

/** The bytes of each piece of part `p`: its own bytes, unless it was written in pieces; throws when they are not its bytes. */
function piecesOf(p: Manifest['parts'][number]): number[] {
  if (p.pieces === undefined) return [p.bytes];
  if (p.pieces.reduce((n, x) => n + x, 0) !== p.bytes) throw new Error(`a part's pieces are not its ${p.bytes} bytes`);
  return p.pieces;
}

/**
 * A list written in pieces (`copyBytes`), one list again, in one `concat`, which copies each
 * piece's items at once: pushed one by one, ten million short strings took three times as long.
 */
function joined(pieces: unknown[]): unknown[] {
  if (!pieces.every((piece) => Array.isArray(piece))) throw new Error('a piece of a list is no list');
  const [first, ...rest] = pieces as unknown[][];
  return rest.length === 0 ? first! : first!.concat(...rest);
}

/** The whole value from its parts' values and its columns, each column put where its part names it. */
function assemble(m: Manifest, values: unknown[], columns: unknown[]): Record<string, unknown> {
  const seen = new Set<object>();
  const put = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || seen.has(v)) return v;
    if (!Array.isArray(v) && !(v instanceof Map) && !(v instanceof Set) && COLUMN in v) {
      const col = columns[(v as Record<string, number>)[COLUMN]!];
      if (col === undefined) throw new Error('a column the body does not hold');
      return col;
    }
    seen.add(v);
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) v[i] = put(v[i]);
    else if (v instanceof Map) for (const [k, x] of v) v.set(k, put(x));
    else if (v instanceof Set) {
      const xs = [...v];
      if (xs.some((x) => x !== null && typeof x === 'object' && COLUMN in x)) {
        v.clear();
        for (const x of xs) v.add(put(x));
      } else for (const x of xs) put(x);
    } else for (const k of Object.keys(v)) (v as Record<string, unknown>)[k] = put((v as Record<string, unknown>)[k]);
    return v;
  };
  const whole: Record<string, unknown> = {};
  m.parts.forEach((p, i) => {
    const v = p.columns ? put(values[i]) : values[i];
    if (p.path.length === 0) Object.assign(whole, v);
    let o = whole;
    for (const k of p.path.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
    if (p.path.length > 0) o[p.path.at(-1)!] = v;
  });
  return whole;
}
