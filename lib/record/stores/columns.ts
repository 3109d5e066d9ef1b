// Compact storage for what the state holds once per entry: growable typed columns, an index of rows, 64-hex ids as 32 bytes,
// interned strings, entry times as numbers (docs/record.md#how-the-state-is-kept).

/** The columns' kinds, over plain ArrayBuffers. */
export type Ints = Int32Array<ArrayBuffer>;
export type Floats = Float64Array<ArrayBuffer>;
export type Bytes = Uint8Array<ArrayBuffer>;
export type Shorts = Uint16Array<ArrayBuffer>;
/** A typed array that `grow` can replace by a larger copy. */
export type Column = Ints | Floats | Bytes | Shorts;

/** Views whose rows never change again: a snapshot's copy of the state shares them (fold/state-copy.ts). */
const stableViews = new WeakSet<ArrayBufferView>();

/**
 * Marks `view` as rows that never change: its store writes only rows after them (an append-only
 * column; when it grows, into a new buffer), or it is a copy of its own. A snapshot shares it
 * rather than copying it (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
 */
export function stable<T extends ArrayBufferView>(view: T): T {
  stableViews.add(view);
  return view;
}

export const isStable = (view: ArrayBufferView): boolean => stableViews.has(view);

/** Lists of strings that only ever grow at their end (refs, ids, titles, interned strings): a snapshot's copy notes their length. */
const growingLists = new WeakSet<object>();

/**
 * Marks `list`, a list of strings, as only growing at its end (no item is ever changed or
 * removed): a snapshot's copy notes its length and reads its first items later, while the fold
 * appends (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
 */
export function growing<T extends readonly string[]>(list: T): T {
  growingLists.add(list);
  return list;
}

export const isGrowing = (list: object): boolean => growingLists.has(list);

/** Lists of numbers that only ever grow at their end: a snapshot's copy notes their length rather than copying them. */
const appendOnlyLists = new WeakSet<object>();
/** Maps and arrays whose every member is such a list (marked once, rather than each of their many lists). */
const appendOnlyHolders = new WeakSet<object>();

/**
 * Marks `list` as numbers that only grow at their end (no item is ever changed or removed), so
 * that a snapshot's copy of the state reads its first items later, while the fold appends
 * (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
 */
export function appendOnly<T extends Rows>(list: T): T {
  appendOnlyLists.add(list);
  return list;
}

export const isAppendOnly = (list: object): boolean => appendOnlyLists.has(list);

/** Marks `lists` (a Map of lists, or a list of lists) as holding only lists of numbers that only grow at their end (`appendOnly`). */
export function appendOnlyEach<T extends Map<unknown, Rows> | Rows[]>(lists: T): T {
  appendOnlyHolders.add(lists);
  return lists;
}

export const holdsAppendOnly = (lists: object): boolean => appendOnlyHolders.has(lists);

/**
 * A list of numbers that only grows at its end (`appendOnly`, or a member of an `appendOnlyEach`
 * holder): an array, or, as a snapshot reads it back, the column it was written as, which nothing
 * writes (`appendTo` makes it an array at its first append). Read it by index, length and
 * iteration only: a column's `map` would give a column.
 */
export type Rows = readonly number[] | Ints | Floats;

/** A list read back as its column: a start makes no array per list (ten million rows each, at ten million reviews). */
export const isColumnRows = (list: Rows): list is Ints | Floats => !Array.isArray(list);

/** `list` as an array with `x` at its end: `list` itself when it is one (marked append-only if it was), else a new array. */
export function appended(list: Rows, x: number): number[] {
  if (!isColumnRows(list)) {
    (list as number[]).push(x);
    return list as number[];
  }
  const a = new Array<number>(list.length + 1);
  for (let i = 0; i < list.length; i++) a[i] = list[i]!;
  a[list.length] = x;
  return appendOnlyLists.has(list as never) ? appendOnly(a) : a;
}

/** Appends `x` to the list of `key` in `lists` (an `appendOnlyEach` holder), made when new. */
export function appendTo<K>(lists: Map<K, Rows>, key: K, x: number): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [x]);
  else if (isColumnRows(list)) lists.set(key, appended(list, x));
  else (list as number[]).push(x);
}

/**
 * Rows a column of `n` rows is given, with room to grow: an eighth more. Not more: at ten million entries the columns hold
 * about two GiB, and their room is memory held too; not less: a column grown by an eighth at a time is copied about eight
 * times its length over its life, a few hundredths of a second for ten million rows.
 */
export const withRoom = (n: number): number => Math.max(16, n + (n >> 3));

/**
 * A column of an interned string's numbers (an agent's, an operator's, a key's, a list of models'), as narrow as its largest
 * number lets: Uint8, then Uint16, then Int32 (`fitting`). At ten million paper-heavy entries, 7.2 million reviews' agents,
 * operators and keys each took 31 MiB as Int32, for 2,000 agents and 1,000 operators.
 */
export type Narrow = Bytes | Shorts | Ints;

/** `a`, or a copy of it as the next kind wide enough to hold `value` (0 to 2 ** 31 - 1): Uint16, or else Int32. */
export function fitting(a: Narrow, value: number): Narrow {
  if (a instanceof Int32Array || value < (a instanceof Uint8Array ? 2 ** 8 : 2 ** 16)) return a;
  const b = value < 2 ** 16 ? new Uint16Array(a.length) : new Int32Array(a.length);
  b.set(a);
  return b;
}

/**
 * A column of numbers from 0 to 1 as their writers gave them (a review's forecast, a claim's stated confidence): while every
 * number in it is a whole number of ten-thousandths (`k / 10000` is the number itself, the double JSON reads for four decimals),
 * each is held as that k in a Uint16, and NaN (none) as 0xFFFF; from the first number that is not, as the doubles themselves in
 * a Float64 (`decimalFitting`). Reads give back the very double written. At ten million paper-heavy entries, 7.2 million
 * reviews' forecasts and 7.6 million claims' confidences took 127 MiB as Float64, room included.
 */
export type Decimals = Shorts | Floats;

const NO_DECIMAL = 0xffff;

/** The k with `k / 10000 === x` (0 to 10,000; not for -0), NO_DECIMAL for NaN, or -1 when there is none. */
function tenThousandthsOf(x: number): number {
  if (Number.isNaN(x)) return NO_DECIMAL;
  const k = Math.round(x * 10000);
  return k >= 0 && k <= 10000 && k / 10000 === x && !Object.is(x, -0) ? k : -1;
}

/** `a`, or a copy of it as doubles when `x` is not a whole number of ten-thousandths (`Decimals`). */
export function decimalFitting(a: Decimals, x: number): Decimals {
  if (a instanceof Float64Array || tenThousandthsOf(x) >= 0) return a;
  const b = new Float64Array(a.length);
  for (let row = 0; row < a.length; row++) b[row] = decimalAt(a, row);
  return b;
}

/** Writes `x` at `row` of `a`, which `decimalFitting(a, x)` gave. */
export function setDecimal(a: Decimals, row: number, x: number): void {
  a[row] = a instanceof Float64Array ? x : tenThousandthsOf(x);
}

/** The number at `row` of `a`, the double that was written. */
export function decimalAt(a: Decimals, row: number): number {
  if (a instanceof Float64Array) return a[row]!;
  const k = a[row]!;
  return k === NO_DECIMAL ? NaN : k / 10000;
}

/** `a`, or a copy of it with room to grow (`withRoom`), so that index `n - 1` fits. */
export function grow<T extends Column>(a: T, n: number): T {
  if (n <= a.length) return a;
  const b = new (a.constructor as new (length: number) => T)(withRoom(Math.max(n, a.length + 1)));
  b.set(a);
  return b;
}

/**
 * Columns that never grow in place (a row index's slots: it moves to a new table of twice the size), which a snapshot reads back
 * into a buffer of their exact size: the room `withRoom` gives would never be used (28 MiB at ten million entries).
 */
const fixedViews = new WeakSet<ArrayBufferView>();

/** Marks `view` as a column that never grows in place (`fixedViews`). */
export function fixedSize<T extends ArrayBufferView>(view: T): T {
  fixedViews.add(view);
  return view;
}

export const isFixedSize = (view: ArrayBufferView): boolean => fixedViews.has(view);

/** Columns read from a snapshot, each the only view of a buffer of its own, which may be longer than the view (room to grow). */
const restoredViews = new WeakSet<ArrayBufferView>();

/** Marks `view` as a column read from a snapshot into a buffer of its own (fold/state-copy.ts): `owned` takes it as it is. */
export function restored<T extends ArrayBufferView>(view: T): T {
  restoredViews.add(view);
  return view;
}

/**
 * The first `n` items of `a` in a column of their own with room to grow, so that a restored state
 * keeps no view of the snapshot's bytes: `a` itself, over the whole of its buffer, when it is a
 * column read from a snapshot into a buffer of its own (`restored`, taken once); else a copy.
 */
export function owned<T extends Column>(a: T, n: number): T {
  const make = a.constructor as { new (length: number): T; new (buffer: ArrayBuffer): T };
  if (restoredViews.delete(a) && a.length === n && a.byteOffset === 0) return new make(a.buffer);
  const b = new make(withRoom(n));
  b.set(a.subarray(0, n));
  return b;
}

/** A page is 2 ** PAGE rows (4 KiB of Int32): what a write saves for a copy of its column taken before it. */
const PAGE = 10;

/**
 * A column changed in place as it stood when copied (`columnCopy`), read later while its store
 * moves on: the column itself, each page saved by its store before its first write after the copy
 * (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
 */
export interface ColumnCopy {
  readonly length: number;
  /** A column of the copy's length and type, not filled yet. */
  empty(): Column;
  /** Puts the copy's rows `from` to `to` at the same places in `out`. */
  read(out: Column, from: number, to: number): void;
  /** Tells the store that the copy is read: its pages are no longer saved. */
  release(): void;
}

class PagedCopy implements ColumnCopy {
  /** The pages written since the copy, by number, as they stood at the copy. */
  readonly saved = new Map<number, Column>();
  constructor(
    readonly view: Column,
    private saver: PageSaver | undefined,
  ) {}

  get length(): number {
    return this.view.length;
  }

  empty(): Column {
    return new (this.view.constructor as new (n: number) => Column)(this.view.length);
  }

  read(out: Column, from: number, to: number): void {
    out.set(this.view.subarray(from, to), from);
    if (this.saved.size === 0) return;
    for (let p = from >> PAGE; p << PAGE < to; p++) {
      const page = this.saved.get(p);
      if (page === undefined) continue;
      const start = p << PAGE;
      const lo = Math.max(from, start);
      out.set(page.subarray(lo - start, Math.min(to, start + page.length) - start), lo);
    }
  }

  release(): void {
    this.saver?.forget(this);
    this.saver = undefined;
  }
}

/** The views marked changing (`PageSaver.mark`): their store's saver, and its column's generation then. */
const changingViews = new WeakMap<ArrayBufferView, { saver: PageSaver; moves: number }>();

/**
 * A copy of `view` as it stands, if its store marked it (`PageSaver.mark`), which costs no copy of
 * its rows now: the store saves each page before its first write to it until the copy is released.
 * Undefined for any other column.
 */
export function columnCopy(view: ArrayBufferView): ColumnCopy | undefined {
  const m = changingViews.get(view);
  return m === undefined ? undefined : m.saver.copy(view as Column, m.moves);
}

/**
 * The copy-on-write of a column its store changes in place (a row index's slots, the report pairs'
 * counts): the store marks the view of its rows that a snapshot reads (`mark`), says before each
 * write to a row (`write`), and says when it writes a new column from then on (`moved`: the copies
 * keep the one before, never written again).
 */
export class PageSaver {
  /** The copies not yet released: a write saves its page for them first. */
  private copies: PagedCopy[] = [];
  /** Per page, 1 while some copy has not saved it; undefined while there is no copy. */
  private unsaved: Uint8Array | undefined;
  private moves = 0;

  /** Marks `view`, the first rows of the column its store writes now (from its start), as copied on write. */
  mark<T extends Column>(view: T): T {
    changingViews.set(view, { saver: this, moves: this.moves });
    return view;
  }

  /** Before row `i` of the column is written: its page saved for the copies that have not saved it. */
  write(i: number): void {
    const unsaved = this.unsaved;
    if (unsaved !== undefined && unsaved[i >> PAGE] === 1) this.save(i >> PAGE);
  }

  /** The store writes a new column from now on: the copies keep the one before as it is. */
  moved(): void {
    this.moves++;
    for (const c of this.copies) c.release();
  }

  /** A copy of `view` (`columnCopy`), of the column written now unless it moved since `view` was marked. */
  copy(view: Column, moves: number): ColumnCopy {
    if (moves !== this.moves) return new PagedCopy(view, undefined);
    const c = new PagedCopy(view, this);
    this.copies.push(c);
    const pages = Math.max(...this.copies.map((x) => ((x.view.length - 1) >> PAGE) + 1));
    this.unsaved = new Uint8Array(pages).fill(1);
    return c;
  }

  /** `c` is read (its `release`): its pages are no longer saved. */
  forget(c: PagedCopy): void {
    this.copies = this.copies.filter((x) => x !== c);
    if (this.copies.length === 0) this.unsaved = undefined;
  }

  private save(p: number): void {
    for (const c of this.copies) if (!c.saved.has(p) && p << PAGE < c.view.length) c.saved.set(p, c.view.slice(p << PAGE, (p + 1) << PAGE));
    this.unsaved![p] = 0;
  }
}

/**
 * A column of numbers by row that changes in place (what the frontier ranks each claim by, say):
 * grown as rows come (a row never set reads 0), its rows copied on write by a snapshot (PageSaver),
 * so that a copy of the state costs no copy of them.
 */
export class ChangingColumn<T extends Column> {
  private data: T;
  private n: number;
  private readonly saver = new PageSaver();

  /** A column of `data`'s rows (a column of the kind wanted, empty, or read from a snapshot: taken as `owned` takes it). */
  constructor(data: T) {
    this.n = data.length;
    this.data = owned(data, data.length);
  }

  get length(): number {
    return this.n;
  }

  /** The rows as they stand, to scan (never to write): row i is `rows[i]` for i below `length`. */
  get rows(): T {
    return this.data;
  }

  at(i: number): number {
    return i < this.n ? this.data[i]! : 0;
  }

  set(i: number, x: number): void {
    if (i >= this.n) {
      this.n = i + 1;
      const d = grow(this.data, this.n);
      if (d !== this.data) {
        this.data = d;
        this.saver.moved();
      }
    }
    this.saver.write(i);
    this.data[i] = x;
  }

  /** The rows as they stand, for a snapshot: copied on write from now on. */
  pack(): T {
    return this.saver.mark(this.data.subarray(0, this.n) as T);
  }

  /** Its rows from now on in `wider`, filled with them (a copy taken before keeps the column it had, never written again). */
  protected widen(wider: T): void {
    wider.set(this.data);
    this.data = wider;
    this.saver.moved();
  }
}

/**
 * A ChangingColumn of whole numbers from 0 to 65,535, two bytes a row, while every number set is one; of doubles from the first
 * that is not. A claim's expected minutes: the default 60, or its latest bundle's `runtimeMinutes` (at most 10,080). At ten
 * million paper-heavy entries, 8.5 million rows took 65 MiB as doubles.
 */
export class WholeOrDoubles extends ChangingColumn<Shorts | Floats> {
  override set(i: number, x: number): void {
    if (this.rows instanceof Uint16Array && !(Number.isInteger(x) && x >= 0 && x < 2 ** 16 && !Object.is(x, -0)))
      this.widen(new Float64Array(this.rows.length));
    super.set(i, x);
  }
}

/** Rows a block of an Ascending column: its first row's number is held whole, the others as their distance above it. */
const BLOCK = 256;
/** An Ascending row whose number is in its Map. */
const FAR = 0xffff;

/** Ascending as a snapshot writes it: each block's first number, each row's distance above it, and the rows held apart. */
export interface AscendingData {
  first: Ints;
  offset: Shorts;
  far: [number, number][];
}

/**
 * An append-only column of whole numbers (-2 ** 31 to 2 ** 31 - 1) that grow slowly from row to row: the seqs of rows appended
 * in log order (a review's, a claim's, a credence point's). Each block of 256 rows holds its first row's number as an Int32,
 * and each row its distance above that in a Uint16; a row 65,535 or more above its block's first, or below it, holds 0xFFFF
 * and its number in a Map apart. At ten million paper-heavy entries, the seqs of 7.2 million reviews, 7.6 million claims and
 * 16 million credence points took 125 MiB as Int32.
 */
export class Ascending {
  private first = new Int32Array(16);
  private offset = new Uint16Array(16);
  private far = new Map<number, number>();
  private n = 0;

  get length(): number {
    return this.n;
  }

  /** Appends `x` as the next row. */
  push(x: number): void {
    const row = this.n++;
    this.offset = grow(this.offset, this.n);
    const block = Math.floor(row / BLOCK);
    if (row % BLOCK === 0) {
      this.first = grow(this.first, block + 1);
      this.first[block] = x;
    }
    const d = x - this.first[block]!;
    if (d >= 0 && d < FAR) this.offset[row] = d;
    else {
      this.offset[row] = FAR;
      this.far.set(row, x);
    }
  }

  at(row: number): number {
    const d = this.offset[row]!;
    return d === FAR ? this.far.get(row)! : this.first[Math.floor(row / BLOCK)]! + d;
  }

  /** Rows are written once, when pushed, and a block's first with its first row: a snapshot shares both columns. */
  pack(): AscendingData {
    return {
      first: stable(this.first.subarray(0, Math.ceil(this.n / BLOCK))),
      offset: stable(this.offset.subarray(0, this.n)),
      far: [...this.far],
    };
  }

  static unpack(d: AscendingData): Ascending {
    if (d.first.length !== Math.ceil(d.offset.length / BLOCK))
      throw new Error(`${d.first.length} blocks for ${d.offset.length} rows of an ascending column`);
    const a = new Ascending();
    a.n = d.offset.length;
    a.offset = owned(d.offset, a.n);
    a.first = owned(d.first, d.first.length);
    a.far = new Map(d.far);
    return a;
  }
}

/** A count held in a byte: OVER or more is in SmallCounts' Map. */
const OVER = 255;

/** SmallCounts as a snapshot writes it: the bytes, and the rows of OVER or more with their counts. */
export interface SmallCountsData {
  bytes: Bytes;
  over: [number, number][];
}

/**
 * A count by row that changes in place and is small for nearly every row (a claim's reviews, its evidence): a byte a row, and
 * the few rows of 255 or more (a hot claim's) in a Map, their byte 255. The bytes are copied on write by a snapshot
 * (ChangingColumn), the Map copied whole (it holds a few rows). At ten million paper-heavy entries, two such counts of 7.6
 * million claims took 65 MiB as Int32, though one hot claim counts 100,000 reviews.
 */
export class SmallCounts {
  private readonly bytes: ChangingColumn<Bytes>;
  private readonly over: Map<number, number>;

  /** Counts of none, or as `pack` wrote them. */
  constructor(d?: SmallCountsData) {
    this.bytes = new ChangingColumn(d?.bytes ?? new Uint8Array(0));
    this.over = new Map(d?.over);
  }

  /** The rows covered (a row past them counts 0). */
  get length(): number {
    return this.bytes.length;
  }

  at(i: number): number {
    const b = this.bytes.at(i);
    return b === OVER ? this.over.get(i)! : b;
  }

  /** Sets row `i`'s count to `x`, a whole number of 0 or more. */
  set(i: number, x: number): void {
    if (x < OVER) {
      if (this.bytes.at(i) === OVER) this.over.delete(i);
      this.bytes.set(i, x);
    } else {
      this.over.set(i, x);
      this.bytes.set(i, OVER);
    }
  }

  pack(): SmallCountsData {
    return { bytes: this.bytes.pack(), over: [...this.over] };
  }
}

/**
 * An open-addressing index of rows (linear probing, at most half full): the caller says where a
 * row hashes and which row it is looking for, so the index holds nothing but row numbers.
 */
export class RowIndex {
  /** Row + 1 per slot; 0 is an empty slot. */
  private slots = new Int32Array(16);
  private mask = 15;
  size = 0;
  /** The slots change in place: a snapshot copies them on write. */
  private readonly saver = new PageSaver();

  constructor(private readonly hashOf: (row: number) => number) {}

  /** The row whose hash is `hash` and for which `is` says yes, or -1. */
  find(hash: number, is: (row: number) => boolean): number {
    const { slots, mask } = this;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const r = slots[i]!;
      if (r === 0) return -1;
      if (is(r - 1)) return r - 1;
    }
  }

  /** Indexes `row` (not indexed yet). */
  insert(row: number): void {
    if ((this.size + 1) * 2 > this.slots.length) this.resize(this.slots.length * 2);
    this.place(row);
    this.size++;
  }

  /** Takes `row` (indexed) out of the index, moving back the rows probed past it (no tombstones). */
  remove(row: number): void {
    const { slots, mask } = this;
    let i = this.hashOf(row) & mask;
    while (slots[i] !== row + 1) i = (i + 1) & mask;
    for (let j = (i + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const home = this.hashOf(slots[j]! - 1) & mask;
      // The row at j may move to i if its home slot is not cyclically within (i, j].
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        this.saver.write(i);
        slots[i] = slots[j]!;
        i = j;
      }
    }
    this.saver.write(i);
    slots[i] = 0;
    this.size--;
  }

  /** Indexes exactly `rows` (`count` of them), afresh; with no `rows`, the rows 0 to `count` - 1. */
  rebuild(rows: Iterable<number> | undefined, count: number): void {
    let cap = 16;
    while (cap < count * 2) cap *= 2;
    this.own(new Int32Array(cap));
    this.size = 0;
    if (rows === undefined) {
      for (let row = 0; row < count; row++) this.place(row);
      this.size = count;
      return;
    }
    for (const row of rows) {
      this.place(row);
      this.size++;
    }
  }

  /** The slots as they stand (the index's own, changed as rows are indexed: copied on write), for a snapshot that `adopt` reads back. */
  slotsNow(): Ints {
    return fixedSize(this.saver.mark(this.slots));
  }

  /**
   * Takes `slots` (`slotsNow` of an index of `size` rows, read from a snapshot: the state's own
   * bytes, checked by its digest) as this index's, rather than indexing every row again.
   */
  adopt(slots: Ints, size: number): void {
    const cap = slots.length;
    if (cap < 16 || (cap & (cap - 1)) !== 0 || size * 2 > cap) throw new Error(`an index of ${size} rows cannot have ${cap} slots`);
    this.own(slots);
    this.size = size;
  }

  /** Makes `slots` this index's: the copies keep the slots before, never written again. */
  private own(slots: Ints): void {
    this.saver.moved();
    this.slots = slots;
    this.mask = slots.length - 1;
  }

  private resize(cap: number): void {
    const old = this.slots;
    this.own(new Int32Array(cap));
    for (const r of old) if (r !== 0) this.place(r - 1);
  }

  private place(row: number): void {
    const { slots, mask } = this;
    let i = this.hashOf(row) & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    this.saver.write(i);
    slots[i] = row + 1;
  }
}

const HEX = '0123456789abcdef';
/** The value of a lowercase hex digit's char code, or -1. */
export const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) NIBBLE[HEX.charCodeAt(i)] = i;

/** A string's hash for the indexes of keys and a claim's test's (FNV-1a over its UTF-16 code units). */
export function hashText(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 15);
}

/**
 * An index from a string key to its row: a RowIndex over the keys' hashes (`hashText`), `keyOf` giving a row's key (an
 * agent's handle or main key, an operator's id; the papers' ids and the claims' refs are ShortKeys). It holds nothing but
 * row numbers; a snapshot keeps its slots (`slotsNow`).
 */
export class KeyIndex {
  private readonly index: RowIndex;
  /** The key `find` looks for, and the test of a row it probes (made once: no closure per lookup). */
  private probe = '';
  private readonly isProbe = (row: number): boolean => this.keyOf(row) === this.probe;

  constructor(private readonly keyOf: (row: number) => string) {
    this.index = new RowIndex((row) => hashText(keyOf(row)));
  }

  /** The row of `key`, or -1. */
  find(key: string): number {
    this.probe = key;
    return this.index.find(hashText(key), this.isProbe);
  }
  /** Indexes `row` (not indexed yet). */
  insert(row: number): void {
    this.index.insert(row);
  }
  slotsNow(): Ints {
    return this.index.slotsNow();
  }
  adopt(slots: Ints, size: number): void {
    this.index.adopt(slots, size);
  }
}

/**
 * SHA-256 ids (64 lowercase hex) by row, each held as its 32 bytes, with an index from id to row.
 * Only the canonical spelling is an id: a lookup of anything else finds nothing, as a Map keyed
 * by the hex string would.
 */
export class HexIds {
  private bytes = new Uint8Array(16 * 32);
  count = 0;
  private readonly probe = new Uint8Array(32);
  private readonly index = new RowIndex((row) => this.hashAt(row));

  /** The row of `hex`, or -1. */
  find(hex: string): number {
    if (!this.parse(hex)) return -1;
    const p = this.probe;
    const b = this.bytes;
    return this.index.find(hashOf(p, 0), (row) => {
      const o = row * 32;
      for (let k = 0; k < 32; k++) if (b[o + k] !== p[k]) return false;
      return true;
    });
  }

  /** Appends `hex` (a SHA-256 in lowercase hex) as the next row and indexes it; returns its row. */
  push(hex: string): number {
    if (!this.parse(hex)) throw new Error(`expected 64 lowercase hex digits, got ${JSON.stringify(hex)}`);
    const row = this.count++;
    this.bytes = grow(this.bytes, this.count * 32);
    this.bytes.set(this.probe, row * 32);
    this.index.insert(row);
    return row;
  }

  /** Takes `row` out of the index (its bytes stay until `shift`). */
  unindex(row: number): void {
    this.index.remove(row);
  }

  /** Drops the first `n` rows (row n becomes row 0) and indexes the rows `live` keeps. */
  shift(n: number, live: (row: number) => boolean): void {
    this.bytes.copyWithin(0, n * 32, this.count * 32);
    this.count -= n;
    const rows: number[] = [];
    for (let r = 0; r < this.count; r++) if (live(r)) rows.push(r);
    this.index.rebuild(rows, rows.length);
  }

  /** The id of `row`, as 64 lowercase hex. */
  hex(row: number): string {
    const b = this.bytes;
    let s = '';
    for (let k = row * 32, end = k + 32; k < end; k++) s += HEX[b[k]! >> 4]! + HEX[b[k]! & 15]!;
    return s;
  }

  /** The bytes of the first `count` rows, and the ids restored from them (every row indexed unless `live` says otherwise). */
  pack(): Bytes {
    return this.bytes.subarray(0, this.count * 32);
  }

  /** The index's slots as they stand, for `unpack` to take back when every row is indexed (they change as ids are pushed). */
  packIndex(): Ints {
    return this.index.slotsNow();
  }

  /**
   * The ids of `bytes`: indexed by `index` (`packIndex` of the ids that packed `bytes`, every row
   * indexed), or else afresh, every row unless `live` says otherwise.
   */
  static unpack(bytes: Bytes, live?: (row: number) => boolean, index?: Ints): HexIds {
    const ids = new HexIds();
    ids.count = bytes.length / 32;
    ids.bytes = owned(bytes, bytes.length);
    if (index !== undefined) {
      ids.index.adopt(index, ids.count);
      return ids;
    }
    if (live === undefined) {
      ids.index.rebuild(undefined, ids.count);
      return ids;
    }
    const rows: number[] = [];
    for (let r = 0; r < ids.count; r++) if (live(r)) rows.push(r);
    ids.index.rebuild(rows, rows.length);
    return ids;
  }

  private hashAt(row: number): number {
    return hashOf(this.bytes, row * 32);
  }

  /** Parses `hex` into the probe; false unless it is exactly 64 lowercase hex digits. */
  private parse(hex: string): boolean {
    if (hex.length !== 64) return false;
    const p = this.probe;
    for (let k = 0; k < 32; k++) {
      const hi = hex.charCodeAt(2 * k);
      const lo = hex.charCodeAt(2 * k + 1);
      const h = hi < 128 ? NIBBLE[hi]! : -1;
      const l = lo < 128 ? NIBBLE[lo]! : -1;
      if (h < 0 || l < 0) return false;
      p[k] = (h << 4) | l;
    }
    return true;
  }
}

/** A SHA-256's first four bytes: uniform already, so they are the index's hash. */
const hashOf = (b: Uint8Array, o: number): number => (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;

/**
 * A store of rows read as a Map from each row's key to its value as an object: the store says how
 * many rows it holds, the row of a key, and a row's key and value; the rest of the Map follows.
 */
export abstract class RowMap<V> implements ReadonlyMap<string, V> {
  abstract get size(): number;
  /** The row of `key`, or -1. */
  abstract rowOf(key: string): number;
  abstract keyAt(row: number): string;
  /** The value at `row`, as an object. */
  abstract at(row: number): V;

  get(key: string): V | undefined {
    const row = this.rowOf(key);
    return row < 0 ? undefined : this.at(row);
  }
  has(key: string): boolean {
    return this.rowOf(key) >= 0;
  }
  *entries(): MapIterator<[string, V]> {
    for (let row = 0; row < this.size; row++) yield [this.keyAt(row), this.at(row)];
  }
  *keys(): MapIterator<string> {
    for (let row = 0; row < this.size; row++) yield this.keyAt(row);
  }
  *values(): MapIterator<V> {
    for (let row = 0; row < this.size; row++) yield this.at(row);
  }
  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
  forEach(f: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (let row = 0; row < this.size; row++) f(this.at(row), this.keyAt(row), this);
  }
}

/**
 * The place of the first number of `rows` (increasing) before `end` that is at least `x`, found by halving; `end` when none is
 * (a column with room: `end` is its length in use).
 */
export function firstAtLeast(rows: Rows, x: number, end = rows.length): number {
  let lo = 0;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** RowTexts as a snapshot writes them: the rows (increasing) and their strings, both lists that only grow. */
export interface RowTextsData {
  rows: Rows;
  texts: string[];
}

/**
 * A string for some rows (an external claim's source, say), each set once, in row order: two
 * lists that only grow, which a snapshot's copy notes rather than copies (no pair made per row);
 * a row's string is found by halving.
 */
export class RowTexts {
  private rows: Rows = appendOnly([]);
  private texts: string[] = [];

  get size(): number {
    return this.texts.length;
  }

  /** Sets the string of `row`, a row after every row set so far. */
  add(row: number, text: string): void {
    const n = this.rows.length;
    if (n > 0 && this.rows[n - 1]! >= row) throw new Error(`row ${row} is not after row ${this.rows[n - 1]}`);
    this.rows = appended(this.rows, row);
    this.texts.push(text);
  }

  /** The string of `row`, or undefined. */
  get(row: number): string | undefined {
    const i = firstAtLeast(this.rows, row);
    return this.rows[i] === row ? this.texts[i] : undefined;
  }

  pack(): RowTextsData {
    return { rows: appendOnly(this.rows), texts: growing(this.texts) };
  }

  static unpack(d: RowTextsData): RowTexts {
    if (d.rows.length !== d.texts.length) throw new Error(`${d.rows.length} rows for ${d.texts.length} strings`);
    const r = new RowTexts();
    r.rows = appendOnly(d.rows);
    r.texts = d.texts;
    return r;
  }
}

/** Strings by number: each distinct string held once, and the number it was given. */
export class Interned {
  private readonly numbers = new Map<string, number>();
  constructor(readonly list: string[] = []) {
    list.forEach((s, i) => this.numbers.set(s, i));
  }
  /** The number of `s`, given it if new. */
  of(s: string): number {
    let n = this.numbers.get(s);
    if (n === undefined) {
      n = this.list.length;
      this.list.push(s);
      this.numbers.set(s, n);
    }
    return n;
  }
  /** The number of `s`, or -1 when it has none. */
  find(s: string): number {
    return this.numbers.get(s) ?? -1;
  }
  at(n: number): string {
    return this.list[n]!;
  }
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The time of a ts spelled as the log spells it (`YYYY-MM-DDTHH:MM:SS.mmmZ`, docs/log-format.md;
 * years 1000 to 9999), which `new Date(ms).toISOString()` spells back exactly: milliseconds since
 * the epoch, read without Date.parse. NaN for any other spelling, whose string the state keeps.
 */
export function isoMs(ts: string): number {
  if (ts.length !== 24) return NaN;
  const d = (i: number): number => {
    const c = ts.charCodeAt(i) - 48;
    return c >= 0 && c <= 9 ? c : NaN;
  };
  const sep = (i: number, c: string) => ts[i] === c;
  if (!(sep(4, '-') && sep(7, '-') && sep(10, 'T') && sep(13, ':') && sep(16, ':') && sep(19, '.') && sep(23, 'Z'))) return NaN;
  const year = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
  const month = d(5) * 10 + d(6);
  const day = d(8) * 10 + d(9);
  const hour = d(11) * 10 + d(12);
  const minute = d(14) * 10 + d(15);
  const second = d(17) * 10 + d(18);
  const milli = d(20) * 100 + d(21) * 10 + d(22);
  if (!(year >= 1000 && month >= 1 && month <= 12 && hour <= 23 && minute <= 59 && second <= 59 && milli >= 0)) return NaN;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (!(day >= 1 && day <= (month === 2 && leap ? 29 : DAYS[month - 1]!))) return NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

/** Date.parse(ts), read without it when the ts is spelled as the log spells it. */
export function tsMs(ts: string): number {
  const ms = isoMs(ts);
  return Number.isNaN(ms) ? Date.parse(ts) : ms;
}

/** The ts of a time that `isoMs` read. */
export const isoTs = (ms: number): string => new Date(ms).toISOString();
