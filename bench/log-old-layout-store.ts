// The commit path of the LevelDB layout before issue 12 (no version key): the partial bundle
// and the partial tile of each level rewritten whole at every commit. Kept for bench:log only,
// to measure the old layout beside the new one in the same run; the service never writes it.
// Reads go to LevelStore, which reads this layout as pieces that start at 0 (docs/log-format.md).
import { BUNDLE_SIZE, LevelStore, levelKeys } from '../log/level-store.js';
import type { CommitBatch, LogSnapshot, LogStore, StoredHead } from '../log/store.js';
import type { TileId } from '../log/tiles.js';

export class OldLayoutStore implements LogStore {
  /** The records of the last, partial bundle, as last committed. */
  private edge: { index: number; records: string[] } = { index: 0, records: [] };

  constructor(private readonly store: LevelStore) {}

  readHead(): Promise<StoredHead | null> {
    return this.store.readHead();
  }

  readEntries(from: number, count: number): Promise<string[]> {
    return this.store.readEntries(from, count);
  }

  getTiles(ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
    return this.store.getTiles(ids);
  }

  snapshot(): Promise<LogSnapshot> {
    return this.store.snapshot();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** As log/level-store.ts committed before issue 12 (for a store this object wrote from empty). */
  async commit(batch: CommitBatch): Promise<void> {
    const b = this.store.raw.batch();
    const utf8 = { valueEncoding: 'utf8' } as const;
    let index = Math.floor(batch.first / BUNDLE_SIZE);
    const kept = batch.first % BUNDLE_SIZE;
    let records = kept === 0 ? [] : this.edge.records.slice(0, kept);
    for (const e of batch.entries) {
      records.push(e);
      if (records.length === BUNDLE_SIZE) {
        b.put(levelKeys.bundle(index), records.join('\n') as never, utf8);
        index++;
        records = [];
      }
    }
    if (records.length > 0) b.put(levelKeys.bundle(index), records.join('\n') as never, utf8);
    for (const t of batch.tiles) b.put(levelKeys.tile(t.id), Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength));
    b.put(levelKeys.head, JSON.stringify(batch.head) as never, utf8);
    this.edge = { index, records };
    await b.write({ sync: true });
  }
}
