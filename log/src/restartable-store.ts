// A LogStore that can be closed and opened again in place (LogStore.restart): a LevelDB that
// failed a write fails every later write until it is reopened, and the service must not
// restart for that (docs/log-format.md, "A failed write"). Holders of this object keep it; the
// store inside is replaced.
import type { CommitBatch, LogSnapshot, LogStore, StoredHead } from './store.js';
import type { TileId } from './tiles.js';

export class RestartableStore implements LogStore {
  /** Set while a restart runs: new reads wait for it. */
  private gate: Promise<void> | null = null;
  /** Reads (and open snapshots) in flight on the store in use; a restart waits for them. */
  private active = 0;
  private idle: (() => void) | null = null;

  private constructor(
    private inner: LogStore,
    private readonly open: () => Promise<LogStore>,
  ) {}

  static async open(open: () => Promise<LogStore>): Promise<RestartableStore> {
    return new RestartableStore(await open(), open);
  }

  /** Closes the store and opens it again. Reads made meanwhile wait, and are then served. */
  async restart(): Promise<void> {
    while (this.gate !== null) await this.gate;
    let done!: () => void;
    this.gate = new Promise((resolve) => (done = resolve));
    try {
      if (this.active > 0) await new Promise<void>((resolve) => (this.idle = resolve));
      this.idle = null;
      await this.inner.close().catch(() => undefined);
      this.inner = await this.open();
    } finally {
      this.gate = null;
      done();
    }
  }

  private async begin(): Promise<LogStore> {
    while (this.gate !== null) await this.gate;
    this.active++;
    return this.inner;
  }

  private end(): void {
    if (--this.active === 0) this.idle?.();
  }

  /** Runs `f` on the store in use; at once (in this same step) unless a restart runs. */
  private use<T>(f: (store: LogStore) => Promise<T>): Promise<T> {
    const run = (store: LogStore): Promise<T> => {
      let p: Promise<T>;
      try {
        p = f(store);
      } catch (err) {
        p = Promise.reject(err);
      }
      return p.finally(() => this.end());
    };
    if (this.gate === null) {
      this.active++;
      return run(this.inner);
    }
    return this.begin().then(run);
  }

  readHead(): Promise<StoredHead | null> {
    return this.use((s) => s.readHead());
  }

  readEntries(from: number, count: number): Promise<Uint8Array[]> {
    return this.use((s) => s.readEntries(from, count));
  }

  getTiles(ids: TileId[]): Promise<(Uint8Array | undefined)[]> {
    return this.use((s) => s.getTiles(ids));
  }

  commit(batch: CommitBatch): Promise<void> {
    return this.use((s) => s.commit(batch));
  }

  /** A snapshot keeps the store in use (a restart waits) until it is closed. */
  async snapshot(): Promise<LogSnapshot> {
    const store = await this.begin();
    let snap: LogSnapshot;
    try {
      snap = await store.snapshot();
    } catch (err) {
      this.end();
      throw err;
    }
    let closed = false;
    return {
      readHead: () => snap.readHead(),
      readEntries: (from, count) => snap.readEntries(from, count),
      getTiles: (ids) => snap.getTiles(ids),
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await snap.close();
        } finally {
          this.end();
        }
      },
    };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
