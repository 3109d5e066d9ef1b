// The ids of the papers and the refs of the claims, by row, held as numbers rather than as strings (docs/record.md#how-the-state-is-kept).
import { fitting, grow, NIBBLE, owned, RowIndex, stable, growing, type Bytes, type Ints, type Narrow } from './columns.js';

/** ShortKeys as a snapshot writes them (fold/state-codec.ts). */
export interface ShortKeysData {
  /** Each row's prefix, its number in `prefixes`; APART for a key held as its string. */
  prefix: Bytes;
  /** The 16 hex digits after the colon, as two halves of 32 bits. */
  hi: Ints;
  lo: Ints;
  /** The n of `#C<n>` after them; 0 for none. As narrow as the greatest n lets (columns.ts, Narrow). */
  n: Narrow;
  prefixes: string[];
  /** The keys held as their strings (none the record makes), by row. */
  apart: [number, string][];
  /** The index from key to row as it stands (RowIndex's slots). */
  index: Ints;
}

/** The prefix number of a key held as its string. */
const APART = 255;
/** The greatest n of `#C<n>` held as a number. */
const MAX_N = 2 ** 31 - 1;

/** The char code of each hex digit. */
const DIGIT = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** `hi` and `lo` as 16 lowercase hex digits, in one string made at once (a tenth of the time of two toString(16)). */
const hex16 = (hi: number, lo: number): string =>
  String.fromCharCode(
    DIGIT[(hi >>> 28) & 15]!,
    DIGIT[(hi >>> 24) & 15]!,
    DIGIT[(hi >>> 20) & 15]!,
    DIGIT[(hi >>> 16) & 15]!,
    DIGIT[(hi >>> 12) & 15]!,
    DIGIT[(hi >>> 8) & 15]!,
    DIGIT[(hi >>> 4) & 15]!,
    DIGIT[hi & 15]!,
    DIGIT[(lo >>> 28) & 15]!,
    DIGIT[(lo >>> 24) & 15]!,
    DIGIT[(lo >>> 20) & 15]!,
    DIGIT[(lo >>> 16) & 15]!,
    DIGIT[(lo >>> 12) & 15]!,
    DIGIT[(lo >>> 8) & 15]!,
    DIGIT[(lo >>> 4) & 15]!,
    DIGIT[lo & 15]!,
  );

/** How many keys `at` keeps spelled, by row (a power of 2): the fold reads the same claims' refs again and again. */
const SPELLED = 4096;

/**
 * Keys by row, each of the form the record gives a paper's id (`rec:<16 hex>`), an external claim's (`ext:<16 hex>`) or a
 * paper's claim's ref (`rec:<16 hex>#C<n>`: lib/protocol/ids.ts), held as numbers: the number of its prefix (the part before
 * the colon), its 16 hex digits as two Int32 and its n (0 for none; a byte while every n fits), 10 bytes a key against about
 * 48 for a string and the slot of a list. A key of any other form, or that these would not spell again the same, is held as
 * its string apart (the record makes none). An index finds a key's row; `at` spells a row's key again. Rows are only ever
 * appended.
 */
export class ShortKeys implements Iterable<string> {
  private prefix = new Uint8Array(16);
  private hi = new Int32Array(16);
  private lo = new Int32Array(16);
  /** A claim's n is 1 to 3 or so, a paper's none: a byte a row until one needs more (columns.ts, Narrow). */
  private n: Narrow = new Uint8Array(16);
  private prefixes: string[] = [];
  private apart = new Map<number, string>();
  private apartRows = new Map<string, number>();
  private count = 0;
  private readonly index = new RowIndex((row) => hashOf(this.prefix[row]!, this.lo[row]!, this.n[row]!));
  /** The key being looked for, parsed (`parse`); the test of a row it probes, made once: no closure per lookup. */
  private pPrefix = 0;
  private pHi = 0;
  private pLo = 0;
  private pN = 0;
  /** The keys `at` spelled last, each in the slot of its row modulo SPELLED (a key never changes: they stay right). */
  private readonly spelledRow = new Int32Array(SPELLED).fill(-1);
  private readonly spelled = new Array<string>(SPELLED);
  /** The key `find` looked up last, and what it found (no key yet: undefined). */
  private lastKey: string | undefined = undefined;
  private lastRow = -1;
  private readonly isProbe = (row: number): boolean =>
    this.lo[row] === this.pLo && this.hi[row] === this.pHi && this.n[row] === this.pN && this.prefix[row] === this.pPrefix;

  get length(): number {
    return this.count;
  }

  /** The row of `key`, or -1. */
  find(key: string): number {
    // Most lookups in a fold are of the key looked up just before (three in four, in a paper-heavy log).
    if (key === this.lastKey) return this.lastRow;
    let row: number;
    if (this.parse(key) && this.pPrefix !== APART) row = this.index.find(hashOf(this.pPrefix, this.pLo, this.pN), this.isProbe);
    else row = this.apart.size === 0 ? -1 : (this.apartRows.get(key) ?? -1);
    this.lastKey = key;
    this.lastRow = row;
    return row;
  }

  /** Appends `key` (not held yet) as the next row; returns its row. */
  push(key: string): number {
    this.lastKey = undefined;
    const row = this.count++;
    const n = this.count;
    this.prefix = grow(this.prefix, n);
    this.hi = grow(this.hi, n);
    this.lo = grow(this.lo, n);
    this.n = grow(this.n, n);
    if (this.parse(key, true) && this.pPrefix !== APART) {
      this.prefix[row] = this.pPrefix;
      this.hi[row] = this.pHi;
      this.lo[row] = this.pLo;
      (this.n = fitting(this.n, this.pN))[row] = this.pN;
      this.index.insert(row);
    } else {
      this.prefix[row] = APART;
      this.apart.set(row, key);
      this.apartRows.set(key, row);
    }
    return row;
  }

  /** The key of `row` (a row held), spelled as it was pushed. */
  at(row: number): string {
    const slot = row & (SPELLED - 1);
    if (this.spelledRow[slot] === row) return this.spelled[slot]!;
    const p = this.prefix[row]!;
    if (p === APART) return this.apart.get(row)!;
    const n = this.n[row]!;
    const id = `${this.prefixes[p]!}:${hex16(this.hi[row]!, this.lo[row]!)}`;
    const key = n === 0 ? id : `${id}#C${n}`;
    this.spelledRow[slot] = row;
    this.spelled[slot] = key;
    return key;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let row = 0; row < this.count; row++) yield this.at(row);
  }

  /** The columns are written once, when a key is pushed: a snapshot shares them (`stable`); the index's slots are copied on write. */
  pack(): ShortKeysData {
    const c = this.count;
    return {
      prefix: stable(this.prefix.subarray(0, c)),
      hi: stable(this.hi.subarray(0, c)),
      lo: stable(this.lo.subarray(0, c)),
      n: stable(this.n.subarray(0, c)),
      prefixes: growing(this.prefixes),
      apart: [...this.apart],
      index: this.index.slotsNow(),
    };
  }

  static unpack(d: ShortKeysData): ShortKeys {
    const c = d.prefix.length;
    if (d.hi.length !== c || d.lo.length !== c || d.n.length !== c)
      throw new Error(`short keys' columns of ${c}, ${d.hi.length}, ${d.lo.length} and ${d.n.length} rows`);
    const k = new ShortKeys();
    k.count = c;
    k.prefix = owned(d.prefix, c);
    k.hi = owned(d.hi, c);
    k.lo = owned(d.lo, c);
    k.n = owned(d.n, c);
    k.prefixes = [...d.prefixes];
    k.apart = new Map(d.apart);
    for (const [row, key] of d.apart) k.apartRows.set(key, row);
    k.index.adopt(d.index, c - d.apart.length);
    return k;
  }

  /**
   * Parses `key` into the probe; false unless it is `<prefix>:<16 lowercase hex>`, with `#C<n>` after it or not (n from 1 to
   * 2 ** 31 - 1, spelled with no leading zero), its prefix 1 to 8 lowercase letters. A prefix not seen yet is given a number
   * when `add` (while fewer than APART are known), else the probe's prefix is APART.
   */
  private parse(key: string, add = false): boolean {
    const colon = key.indexOf(':');
    if (colon < 1 || colon > 8 || key.length < colon + 17) return false;
    for (let i = 0; i < colon; i++) {
      const c = key.charCodeAt(i);
      if (c < 97 || c > 122) return false;
    }
    let hi = 0;
    let lo = 0;
    for (let i = 0; i < 16; i++) {
      const c = key.charCodeAt(colon + 1 + i);
      const v = c < 128 ? NIBBLE[c]! : -1;
      if (v < 0) return false;
      if (i < 8) hi = (hi << 4) | v;
      else lo = (lo << 4) | v;
    }
    let n = 0;
    const rest = colon + 17;
    if (key.length > rest) {
      if (key.length < rest + 3 || key.length > rest + 12 || key.charCodeAt(rest) !== 35 || key.charCodeAt(rest + 1) !== 67) return false;
      if (key.charCodeAt(rest + 2) === 48) return false;
      for (let i = rest + 2; i < key.length; i++) {
        const d = key.charCodeAt(i) - 48;
        if (d < 0 || d > 9) return false;
        n = n * 10 + d;
      }
      if (n > MAX_N) return false;
    }
    let p = -1;
    for (let i = 0; i < this.prefixes.length && p < 0; i++)
      if (this.prefixes[i]!.length === colon && key.startsWith(this.prefixes[i]!)) p = i;
    if (p < 0) p = add && this.prefixes.length < APART ? this.prefixes.push(key.slice(0, colon)) - 1 : APART;
    this.pPrefix = p;
    this.pHi = hi;
    this.pLo = lo;
    this.pN = n;
    return true;
  }
}

/** A key's hash for the index: its hex is a SHA-256's, uniform already, mixed with its n and prefix. */
const hashOf = (prefix: number, lo: number, n: number): number => lo ^ Math.imul(n, 0x9e3779b1) ^ Math.imul(prefix, 0x85ebca6b);
