// An in-memory LogStore, for tests and tools. It can inject faults: a commit that fails
// before anything is written, or after it was written (the acknowledgement is lost).
import type { CommitBatch, LogSnapshot, LogStore, StoredHead } from './store.js';
import { TILE_WIDTH, tileKey, type TileId } from './tiles.js';

export type Fault = 'before-write' | 'after-write';

export class MemoryStore implements LogStore {
  /** The stored data, exposed so tests can corrupt it. */
  readonly entries = new Map<number, Uint8Array>();
  readonly tiles = new Map<string, Uint8Array>();
  head: StoredHead | null = null;
  private faults: Fault[] = [];
  private closed = false;

  /** Makes the next commit fail as `fault` says. */
  injectFault(fault: Fault): void {
    this.faults.push(fault);
  }

  /** A new store holding this one's data, as a later process would find it. */
  reopen(): MemoryStore {
    const again = this.copy();
    this.closed = true;
    return again;
  }

  /** A copy of the data as it is now (stored values are never mutated, only replaced). */
  async snapshot(): Promise<LogSnapshot> {
    this.checkOpen();
    return this.copy();
  }

  private copy(): MemoryStore {
    const c = new MemoryStore();
    for (const [k, v] of this.entries) c.entries.set(k, v);
    for (const [k, v] of this.tiles) c.tiles.set(k, v);
    c.head = this.head;
    return c;
  }

  async readHead(): Promise<StoredHead | null> {
    this.checkOpen();
    return this.head === null ? null : { ...this.head };
  }

  async readEntries(from: number, count: number): Promise<Uint8Array[]> {
    this.checkOpen();
    const out: Uint8Array[] = [];
    for (let s = from; s < from + count; s++) {
      const v = this.entries.get(s);
      if (v === undefined) break;
      out.push(v);
    }
    return out;
  }

  async getTiles(ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
    this.checkOpen();
    return ids.map((id) => this.tiles.get(tileKey(id)));
  }

  async commit(batch: CommitBatch): Promise<void> {
    this.checkOpen();
    const fault = this.faults.shift();
    if (fault === 'before-write') throw new Error('injected fault before write');
    // A roll-back (store.ts): what lies beyond its head is dropped, as the other stores do.
    if (batch.entries.length === 0) this.dropBeyond(batch.head.treeSize);
    batch.entries.forEach((e, i) => this.entries.set(batch.first + i, e));
    for (const t of batch.tiles) this.tiles.set(tileKey(t.id), t.bytes);
    this.head = { ...batch.head };
    if (fault === 'after-write') throw new Error('injected fault after write');
  }

  /** Drops the entries from `size` on, and on each tile level the tiles after the one holding the last node at `size`. */
  private dropBeyond(size: number): void {
    for (const seq of this.entries.keys()) if (seq >= size) this.entries.delete(seq);
    for (const key of this.tiles.keys()) {
      const [level, index] = key.split('/').map(Number) as [number, number];
      const nodes = Math.floor(size / 2 ** (8 * level));
      if (index > (nodes === 0 ? -1 : Math.floor((nodes - 1) / TILE_WIDTH))) this.tiles.delete(key);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}
