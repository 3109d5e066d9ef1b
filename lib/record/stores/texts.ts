// Strings by row, held as their UTF-8 bytes in one column and where each ends in another, not as strings in V8's heap: the
// papers' titles, 2.4 million at ten million entries, which a start no longer deserializes one by one nor its collector walks
// (docs/record.md#how-the-state-is-kept).
import { grow, owned, stable, type Bytes, type Floats } from './columns.js';

/** Texts as a snapshot writes them: the bytes, where each row's ends, and the rows held apart with their strings (or null). */
export interface TextsData {
  bytes: Bytes;
  /** Row i's bytes end at ends[i] and start where row i - 1's end (0 for the first). */
  ends: Floats;
  apart: [number, string | null][];
}

/** String.prototype.isWellFormed (Node 20; not in TypeScript's ES2023 lib). */
interface WellFormed {
  isWellFormed(): boolean;
}

/**
 * A string for each row, pushed in row order and never changed: each held as its UTF-8 bytes and
 * spelled again when read. A string its bytes do not spell back exactly (a lone surrogate, which
 * UTF-8 cannot hold) is held apart, as it is, with no bytes; so is a null, the text of an entry
 * served with its texts withheld, which a verifier replays (docs/record.md#what-served-entries-withhold).
 * Both columns only grow at their end, so a snapshot shares them (`stable`).
 */
export class Texts {
  private bytes: Bytes = new Uint8Array(256);
  /** A Buffer over `bytes`' memory, which writes and reads UTF-8; made again whenever `bytes` is (`hold`). */
  private buffer = Buffer.from(this.bytes.buffer);
  private ends: Floats = new Float64Array(16);
  private n = 0;
  private apart = new Map<number, string | null>();

  /** Holds `bytes` (a view from the start of its buffer), and the Buffer over them. */
  private hold(bytes: Bytes): void {
    this.bytes = bytes;
    this.buffer = Buffer.from(bytes.buffer, 0, bytes.length);
  }

  get length(): number {
    return this.n;
  }

  /** Where the bytes of every row end: the length in use of `bytes`. */
  private get end(): number {
    return this.n === 0 ? 0 : this.ends[this.n - 1]!;
  }

  /** Appends `text` as the next row; returns its row. */
  push(text: string | null): number {
    const row = this.n;
    const start = this.end;
    let end = start;
    // A string of whole UTF-16 characters (no lone surrogate) is spelled back exactly by its UTF-8 bytes.
    if (text !== null && (text as unknown as WellFormed).isWellFormed()) {
      // At most three bytes a UTF-16 unit.
      const need = start + text.length * 3;
      if (need > this.bytes.length) this.hold(grow(this.bytes, need));
      end += this.buffer.write(text, start);
    } else this.apart.set(row, text);
    if (row === this.ends.length) this.ends = grow(this.ends, row + 1);
    this.ends[row] = end;
    this.n = row + 1;
    return row;
  }

  /** The string of `row` (null for a text withheld). */
  at(row: number): string | null {
    if (!(row >= 0 && row < this.n)) throw new RangeError(`row ${row} is not of ${this.n} texts`);
    if (this.apart.size > 0 && this.apart.has(row)) return this.apart.get(row)!;
    return this.buffer.toString('utf8', row === 0 ? 0 : this.ends[row - 1]!, this.ends[row]!);
  }

  pack(): TextsData {
    return {
      bytes: stable(this.bytes.subarray(0, this.end)),
      ends: stable(this.ends.subarray(0, this.n)),
      apart: [...this.apart],
    };
  }

  static unpack(d: TextsData): Texts {
    const t = new Texts();
    const n = d.ends.length;
    let last = 0;
    for (let i = 0; i < n; i++) {
      const end = d.ends[i]!;
      if (!(Number.isInteger(end) && end >= last)) throw new Error(`text ${i} ends at ${end}, before ${last}`);
      last = end;
    }
    if (last !== d.bytes.length) throw new Error(`${n} texts end at ${last}, in ${d.bytes.length} bytes`);
    for (const [row] of d.apart) if (!(Number.isInteger(row) && row >= 0 && row < n)) throw new Error(`a text held apart at row ${row}`);
    t.hold(owned(d.bytes, d.bytes.length));
    t.ends = owned(d.ends, n);
    t.n = n;
    t.apart = new Map(d.apart);
    return t;
  }
}
