// An in-memory LogStore, for tests and tools. It can inject faults: a commit that fails
// before anything is written, or after it was written (the acknowledgement is lost).
import type { CommitBatch, LogStore, StoredHead } from './store.js';

export type Fault = 'before-write' | 'after-write';

export class MemoryStore implements LogStore {
  /** The stored data, exposed so tests can corrupt it. */
  readonly entries = new Map<number, Uint8Array>();
  readonly groups = new Map<number, Uint8Array>();
  head: StoredHead | null = null;
  private faults: Fault[] = [];
  private closed = false;

  /** Makes the next commit fail as `fault` says. */
  injectFault(fault: Fault): void {
    this.faults.push(fault);
  }

  async readHead(): Promise<StoredHead | null> {
    this.checkOpen();
    return this.head === null ? null : { ...this.head };
  }

  async readEntries(from: number, count: number): Promise<Uint8Array[]> {
    return this.range(this.entries, from, count);
  }

  async readGroups(from: number, count: number): Promise<Uint8Array[]> {
    return this.range(this.groups, from, count);
  }

  async getGroups(seqs: number[]): Promise<(Uint8Array | undefined)[]> {
    this.checkOpen();
    return seqs.map((s) => this.groups.get(s));
  }

  async commit(batch: CommitBatch): Promise<void> {
    this.checkOpen();
    const fault = this.faults.shift();
    if (fault === 'before-write') throw new Error('injected fault before write');
    batch.entries.forEach((e, i) => this.entries.set(batch.first + i, e));
    batch.groups.forEach((g, i) => this.groups.set(batch.first + i, g));
    this.head = { ...batch.head };
    if (fault === 'after-write') throw new Error('injected fault after write');
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private range(map: Map<number, Uint8Array>, from: number, count: number): Uint8Array[] {
    this.checkOpen();
    const out: Uint8Array[] = [];
    for (let s = from; s < from + count; s++) {
      const v = map.get(s);
      if (v === undefined) break;
      out.push(v);
    }
    return out;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}
