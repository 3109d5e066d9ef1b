// The verifier's entry checks on worker threads (up to one per CPU, kept between runs), in batches: while they hash and
// verify signatures, the main thread replays the log (verify.ts).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LogKeys } from '../lib/record/admission/index.js';
import type { BatchResult } from './entry-worker.js';
import type { ServedEntry } from './source.js';

/** Entries in a batch: the replay consumes the workers' results batch by batch, in order. */
export const BATCH = 2048;
/** Batches queued on each worker at once: about a second and a half of its work at this machine's signature rate. */
const AHEAD = 4;

export interface EntryChecks {
  leaves: Uint8Array[];
  problems: BatchResult['problems'];
  withheld: number;
  /** CPU time in the workers, summed. */
  hashMs: number;
  signatureMs: number;
}

/**
 * Checks the hashes and signature of every entry from `first` on, on workers; `onDispatched`
 * runs on the main thread meanwhile (the replay), given `batch(id)`: the result of batch `id`
 * (entries first + id*BATCH onward) when its worker is done with it. The leaves returned are
 * those of the entries checked. `lines`, when given, are the entries' lines as read (an export
 * file's): the workers get them as they are, since writing each entry's JSON again took the main
 * thread about 11 µs an entry; an entry without one is written from the entry.
 */
export async function checkEntriesOnWorkers(
  entries: ServedEntry[],
  keys: LogKeys | null,
  onDispatched?: (batch: (id: number) => Promise<BatchResult>) => unknown,
  workers = availableParallelism(),
  first = 0,
  lines?: readonly string[],
): Promise<EntryChecks> {
  const total = Math.ceil((entries.length - first) / BATCH);
  // No more workers than batches: a short log is one batch.
  const pool = workersFor(workersOf(entries.length - first, workers));
  const run = ++runs;
  const settle: { resolve: (r: BatchResult) => void; reject: (e: unknown) => void }[] = [];
  // The batches go out in order, AHEAD queued on each worker at a time, the next to the worker that answered: a message
  // queued holds a copy of its lines, so queueing every batch at once held a second copy of the whole log.
  let next = 0;
  const post = (w: Worker) => {
    if (next >= total) return;
    const id = next++;
    const from = first + id * BATCH;
    const batch = entries.slice(from, from + BATCH).map((e, i) => lines?.[from + i] ?? JSON.stringify(e));
    w.postMessage({ run, id, from, lines: batch, keys });
  };
  const onMessage = pool.map((w) => (r: BatchResult) => {
    if (r.run !== run) return;
    settle[r.id]!.resolve(r);
    post(w);
  });
  const onError = (err: unknown) => settle.forEach((x) => x.reject(err));
  try {
    const batches = Array.from(
      { length: total },
      (_, id) => new Promise<BatchResult>((resolve, reject) => (settle[id] = { resolve, reject })),
    );
    // A batch nobody awaits yet must not count as an unhandled rejection; `finished` reports it.
    for (const b of batches) b.catch(() => undefined);
    pool.forEach((w, i) => w.on('message', onMessage[i]!).on('error', onError));
    const finished = Promise.all(batches);
    // Each worker has work queued for a while (AHEAD batches): the main thread replays meanwhile, and feeds them when it
    // waits for a batch's result.
    for (let k = 0; k < AHEAD; k++) for (const w of pool) post(w);
    await onDispatched?.((id) => batches[id]!);
    const results = await finished;
    const leaves: Uint8Array[] = [];
    const out: EntryChecks = { leaves, problems: [], withheld: 0, hashMs: 0, signatureMs: 0 };
    for (const r of results) {
      for (let i = 0; i < r.leaves.length; i += 32) leaves.push(r.leaves.subarray(i, i + 32));
      out.problems.push(...r.problems);
      out.withheld += r.withheld;
      out.hashMs += r.hashMs;
      out.signatureMs += r.signatureMs;
    }
    return out;
  } finally {
    pool.forEach((w, i) => {
      w.off('message', onMessage[i]!).off('error', onError);
      release(w);
    });
  }
}

/**
 * The workers, kept from one run to the next: each loads the record's code (about half a second of CPU), which a process
 * that verifies many logs (a test, segments) would otherwise pay on every run. A worker is started when a run first needs
 * it, and keeps the process alive only while a run uses it.
 */
const kept: Worker[] = [];
const using = new Map<Worker, number>();
let runs = 0;

/** The workers a run checking `entries` entries uses: one per CPU (or `workers`), no more than its batches. */
const workersOf = (entries: number, workers: number): number => Math.max(1, Math.min(workers, Math.ceil(entries / BATCH)));

/**
 * Starts ahead of a run the workers it will use to check `entries` entries, not keeping the process alive: each loads the
 * record's code while this thread does other work (an incremental run loads its saved replay meanwhile, bin/verify.ts).
 */
export function startWorkers(entries: number, workers = availableParallelism()): void {
  if (entries > 0) for (const w of workersFor(workersOf(entries, workers))) release(w);
}

function workersFor(n: number): Worker[] {
  while (kept.length < n) {
    const w = new Worker(new URL('./entry-worker.js', import.meta.url));
    // A worker that failed is gone: the run using it is told by its 'error', the next starts another.
    w.on('error', () => undefined).on('exit', () => {
      if (kept.includes(w)) kept.splice(kept.indexOf(w), 1);
    });
    kept.push(w);
  }
  const pool = kept.slice(0, n);
  for (const w of pool) {
    using.set(w, (using.get(w) ?? 0) + 1);
    w.ref();
  }
  return pool;
}

function release(w: Worker): void {
  const n = using.get(w)! - 1;
  if (n > 0) return void using.set(w, n);
  using.delete(w);
  w.unref();
}
