// A real LevelDB store whose disk can be made "full": while `full`, every commit fails with
// ENOSPC, as LevelDB's own writes do on a full disk. `land` makes the first failing commit
// reach the store all the same (LevelDB may keep a write whose sync failed), so tests can
// check that nothing refused stays on the log.
import { openLevelStore, restartable, type CommitBatch, type LogSnapshot, type LogStore, type StoredHead, type TileId } from 'tlog-engine';

export class FullDiskStore implements LogStore {
  full = false;
  land = false;
  /** Entries that still fit before the disk fills by itself (null: no limit). */
  room: number | null = null;
  restarts = 0;

  private constructor(private readonly inner: LogStore & { restart(): Promise<void> }) {}

  static async open(dir: string): Promise<FullDiskStore> {
    return new FullDiskStore(await restartable(() => openLevelStore(dir)));
  }

  async commit(batch: CommitBatch): Promise<void> {
    if (this.room !== null) {
      this.room -= batch.entries.length;
      if (this.room < 0) {
        this.room = null;
        this.full = true;
      }
    }
    if (this.full) {
      if (this.land) {
        this.land = false;
        await this.inner.commit(batch);
      }
      const err = new Error('IO error: /data/db/000005.log: No space left on device') as NodeJS.ErrnoException;
      err.code = 'ENOSPC';
      throw err;
    }
    return this.inner.commit(batch);
  }

  async restart(): Promise<void> {
    this.restarts++;
    await this.inner.restart();
  }

  readHead(): Promise<StoredHead | null> {
    return this.inner.readHead();
  }

  readEntries(from: number, count: number): Promise<Uint8Array[]> {
    return this.inner.readEntries(from, count);
  }

  getTiles(ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
    return this.inner.getTiles(ids);
  }

  snapshot(): Promise<LogSnapshot> {
    return this.inner.snapshot();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
