// Small helpers for benchmark figures.
import { availableParallelism, cpus, totalmem } from 'node:os';
import { Worker } from 'node:worker_threads';

/** The q-quantile (0..1) of `xs`, by nearest rank. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** One line naming the machine, for docs/benchmarks.md. */
export function machine(): string {
  const c = cpus();
  return `${c.length} x ${c[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** mulberry32: a small seeded generator, so every run of a benchmark builds the same record. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** node:crypto Ed25519 verifications per second on all cores: one worker per core verifying one signature for `seconds`. */
export async function signatureFloor(seconds: number): Promise<number> {
  const code = `
    const { generateKeyPairSync, sign, verify } = require('node:crypto');
    const { parentPort, workerData } = require('node:worker_threads');
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const data = Buffer.from('x'.repeat(300));
    const sig = sign(null, data, privateKey);
    const end = Date.now() + workerData * 1000;
    let n = 0;
    const t0 = performance.now();
    while (Date.now() < end) for (let i = 0; i < 100; i++) n += verify(null, data, publicKey, sig) ? 1 : 0;
    parentPort.postMessage(n / ((performance.now() - t0) / 1000));
  `;
  const rates = await Promise.all(
    Array.from(
      { length: availableParallelism() },
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(code, { eval: true, workerData: seconds });
          w.once('message', (m: number) => {
            resolve(m);
            void w.terminate();
          });
          w.once('error', reject);
        }),
    ),
  );
  return rates.reduce((a, b) => a + b, 0);
}
