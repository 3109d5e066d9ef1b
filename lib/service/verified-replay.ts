// Replay with every signature re-verified: pages of entries are checked by worker threads (one
// per CPU) while the main thread folds the pages already checked into the state, in order.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LoggedEntry, RecordReader } from '../protocol/log-entry.js';
import { readGenesis } from '../protocol/genesis.js';
import { applyEntry, recordEntry, emptyState, type State } from '../record/fold/index.js';

const PAGE = 2048;

export interface VerifiedReplay {
  state: State;
  /** The first entry whose signature fails, or null. Replay stops before it. */
  problem: { seq: number; detail: string } | null;
}

type Problem = VerifiedReplay['problem'];

class Pool {
  private readonly workers: Worker[];
  private readonly waiting = new Map<number, { resolve(p: Problem): void; reject(e: unknown): void }>();
  private next = 0;

  constructor(n: number, keys: { logKey: string; operatorKey: string }) {
    this.workers = Array.from({ length: n }, () => {
      const w = new Worker(new URL('./signature-worker.js', import.meta.url), { workerData: keys });
      w.on('message', (m: { id: number; problem: Problem }) => {
        this.waiting.get(m.id)?.resolve(m.problem);
        this.waiting.delete(m.id);
      });
      w.on('error', (err) => {
        for (const p of this.waiting.values()) p.reject(err);
        this.waiting.clear();
      });
      return w;
    });
  }

  check(from: number, records: LoggedEntry[]): Promise<Problem> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.workers[id % this.workers.length]!.postMessage({ id, from, records });
    });
  }

  close(): Promise<unknown> {
    return Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Replays the first `size` entries of `log`, verifying each signature first. */
export async function replayVerified(log: RecordReader, size: number, opts: { workers?: number } = {}): Promise<VerifiedReplay> {
  const state = emptyState();
  if (size === 0) return { state, problem: null };
  let genesis;
  try {
    genesis = await readGenesis(log);
  } catch (err) {
    return { state, problem: { seq: 0, detail: (err as Error).message } };
  }
  const pool = new Pool(opts.workers ?? availableParallelism(), { logKey: genesis.logKey, operatorKey: genesis.operatorKey });
  try {
    // Read ahead and keep every worker busy; fold pages in order as their checks come back.
    const ahead: { from: number; records: LoggedEntry[]; checked: Promise<Problem> }[] = [];
    let from = 0;
    const readMore = async () => {
      if (from >= size) return;
      const records = await log.records(from, Math.min(PAGE, size - from));
      if (records.length === 0) throw new Error(`entry ${from} is missing from the store`);
      ahead.push({ from, records, checked: pool.check(from, records) });
      from += records.length;
    };
    for (let i = 0; i < 4; i++) await readMore();
    while (ahead.length > 0) {
      const page = ahead.shift()!;
      const reading = readMore();
      const problem = await page.checked;
      const end = problem === null ? page.records.length : problem.seq - page.from;
      for (let i = 0; i < end; i++) applyEntry(state, recordEntry(page.records[i]!));
      if (problem !== null) return { state, problem };
      await reading;
    }
    return { state, problem: null };
  } finally {
    await pool.close();
  }
}
