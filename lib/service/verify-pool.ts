// Ed25519 verification off the main thread: the service's one writer (the record) runs on the
// main thread, so signatures of incoming writes are checked by worker threads, in batches of
// whatever arrived in the same turn of the event loop. The workers call the same
// verifySignature as everything else (lib/protocol/ed25519.ts).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

interface Job {
  key: string;
  message: string;
  signature: string;
  resolve(ok: boolean): void;
  reject(err: unknown): void;
}

export class VerifyPool {
  /** Started at the first signature to check: a node that is only read (or a test's service that takes no write) never loads them. */
  private workers: Worker[] | null = null;
  private readonly waiting = new Map<number, Job[]>();
  private queue: Job[] = [];
  private scheduled = false;
  private nextBatch = 0;
  private failure: unknown = null;

  constructor(private readonly size = Math.max(1, availableParallelism() - 1)) {}

  private started(): Worker[] {
    return (this.workers ??= Array.from({ length: this.size }, () => {
      const w = new Worker(new URL('./verify-worker.js', import.meta.url));
      // The pool never keeps a process alive on its own.
      w.unref();
      w.on('message', ({ batch, results }: { batch: number; results: boolean[] }) => {
        const jobs = this.waiting.get(batch)!;
        this.waiting.delete(batch);
        jobs.forEach((j, i) => j.resolve(results[i]!));
      });
      w.on('error', (err) => this.fail(err));
      return w;
    }));
  }

  /** Whether `signature` verifies over the UTF-8 bytes of `message` under `key`. */
  verify(key: string, message: string, signature: string): Promise<boolean> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ key, message, signature, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const jobs = this.queue;
    this.queue = [];
    // Split what arrived across the workers.
    const workers = this.started();
    const per = Math.ceil(jobs.length / workers.length);
    for (let i = 0; i < jobs.length; i += per) {
      const part = jobs.slice(i, i + per);
      const batch = this.nextBatch++;
      this.waiting.set(batch, part);
      workers[batch % workers.length]!.postMessage({ batch, jobs: part.map((j) => [j.key, j.message, j.signature]) });
    }
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    for (const jobs of this.waiting.values()) for (const j of jobs) j.reject(err);
    this.waiting.clear();
  }

  close(): Promise<unknown> {
    return Promise.all((this.workers ?? []).map((w) => w.terminate()));
  }
}
