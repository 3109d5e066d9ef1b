// The replay index (docs/record.md, "Replays and last-writer-wins"; its rules are in admission/replay-window.ts),
// held as columns (columns.ts).
import { grow, HexIds, isoMs, isoTs, owned, stable, type Bytes, type Floats, type Ints } from './columns.js';

/** What the snapshot writes of the replay index (fold/state-codec.ts): its rows in log order. */
export interface SeenData {
  hashes: Bytes;
  seq: Ints;
  time: Floats;
  odd: [number, string][];
}

/**
 * The replay index (docs/record.md, "Replays and last-writer-wins"): the signed writes of the last
 * 2 windows of log time, by the SHA-256 of their signed bytes, in log order. Rows are appended in
 * log order and pruned from the front (a queue), each hash held as its 32 bytes with an index
 * from hash to row (columns.ts); a row pruned or noted again later is dead (seq -1).
 */
export class SeenIndex {
  private hashes = new HexIds();
  private seq = new Int32Array(16);
  /** Each row's entry time, as Date.parse reads its ts. */
  private time = new Float64Array(16);
  /** The ts of rows whose ts is not spelled as the log spells it, by seq. */
  private odd = new Map<number, string>();
  private head = 0;
  private live = 0;

  get size(): number {
    return this.live;
  }

  /** The entry that logged these signed bytes, while in the index. */
  get(hash: string): { seq: number; ts: string } | undefined {
    const row = this.hashes.find(hash);
    return row < 0 ? undefined : this.entry(row);
  }

  /** Notes the signed write of entry `seq` at `ts` (`ms`: isoMs(ts), when the caller has it), last in log order. */
  note(hash: string, seq: number, ts: string, ms = isoMs(ts)): void {
    const was = this.hashes.find(hash);
    if (was >= 0) this.drop(was);
    const row = this.hashes.push(hash);
    this.seq = grow(this.seq, row + 1);
    this.time = grow(this.time, row + 1);
    this.seq[row] = seq;
    if (Number.isNaN(ms)) {
      this.time[row] = Date.parse(ts);
      this.odd.set(seq, ts);
    } else this.time[row] = ms;
    this.live++;
  }

  /** Drops the writes logged before `cutoff` (ms), from the front, stopping at the first that is not. */
  prune(cutoff: number): void {
    let h = this.head;
    for (; h < this.hashes.count && this.time[h]! < cutoff; h++) if (this.seq[h]! >= 0) this.drop(h);
    this.head = h;
    // The front's rows are dropped for good once they are most of the rows.
    if (h > 1024 && h * 2 > this.hashes.count) {
      const n = this.hashes.count - h;
      this.seq.copyWithin(0, h, h + n);
      this.time.copyWithin(0, h, h + n);
      this.hashes.shift(h, (row) => this.seq[row]! >= 0);
      this.head = 0;
    }
  }

  /** The writes in the index, in log order. */
  *values(): Generator<{ seq: number; ts: string }> {
    for (let row = this.head; row < this.hashes.count; row++) if (this.seq[row]! >= 0) yield this.entry(row);
  }

  /** The index as the state once held it (for the state's digest). */
  asMap(): Map<string, { seq: number; ts: string }> {
    const m = new Map<string, { seq: number; ts: string }>();
    for (let row = this.head; row < this.hashes.count; row++) if (this.seq[row]! >= 0) m.set(this.hashes.hex(row), this.entry(row));
    return m;
  }

  private entry(row: number): { seq: number; ts: string } {
    const seq = this.seq[row]!;
    return { seq, ts: this.odd.get(seq) ?? isoTs(this.time[row]!) };
  }

  private drop(row: number): void {
    this.hashes.unindex(row);
    this.odd.delete(this.seq[row]!);
    this.seq[row] = -1;
    this.live--;
  }

  /** The live rows, in log order: runs of consecutive live rows are copied at once (rows die only when pruned or noted again). */
  pack(): SeenData {
    const all = this.hashes.pack();
    const hashes = new Uint8Array(this.live * 32);
    const seq = new Int32Array(this.live);
    const time = new Float64Array(this.live);
    let n = 0;
    for (let row = this.head; row < this.hashes.count;) {
      if (this.seq[row]! < 0) {
        row++;
        continue;
      }
      let end = row + 1;
      while (end < this.hashes.count && this.seq[end]! >= 0) end++;
      hashes.set(all.subarray(row * 32, end * 32), n * 32);
      seq.set(this.seq.subarray(row, end), n);
      time.set(this.time.subarray(row, end), n);
      n += end - row;
      row = end;
    }
    return { hashes: stable(hashes), seq: stable(seq), time: stable(time), odd: [...this.odd] };
  }

  static unpack(d: SeenData): SeenIndex {
    const s = new SeenIndex();
    const n = d.seq.length;
    s.hashes = HexIds.unpack(d.hashes);
    s.seq = owned(d.seq, n);
    s.time = owned(d.time, n);
    s.odd = new Map(d.odd);
    s.live = n;
    return s;
  }
}
