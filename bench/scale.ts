// `npm run bench:scale`: the figures of a deployment past one machine (docs/benchmarks.md).
//   1. durable appends/s on PostgreSQL beside LevelDB, same entries, same writers, same run:
//      4,000 concurrent writers, each appending a 561-byte entry and waiting for its
//      acknowledgement, through a deployment (openDeployment) on each store in turn, twice.
// The PostgreSQL server is a new cluster in a temporary directory (test/helpers/postgres.ts),
// with PostgreSQL's defaults for durability (fsync on, synchronous_commit on).
// Options: BENCH_ENTRIES (default 300000), BENCH_ROUNDS (default 2).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDeployment, type Deployment } from '../lib/service/deployment.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { fmt, machine } from './stats.js';

const N = Number(process.env.BENCH_ENTRIES ?? 300_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WRITERS = 4000;

/** A signed review's envelope as logged: 561 bytes for i of 6 digits. */
const payload = (i: number) =>
  `{"payload":{"agent":{"handle":"bench-agent","publicKey":"MCowBQYDK2VwAyEA${'A'.repeat(43)}"},"claim":"rec:${(i % 65536).toString(16).padStart(16, '0')}#C1","forecast":0.7,"protocol":"archive/0.2","rationale":"${'r'.repeat(200)} ${i}","ts":"2026-11-22T10:00:00Z","type":"review"},"signature":"${'s'.repeat(86)}"}`;

/** Appends `n` entries from WRITERS concurrent writers; the seconds it took. */
async function appendAll(d: Deployment, n: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const writer = async () => {
    while (next < n) {
      const i = next++;
      await d.log.append('review', payload(i));
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return (performance.now() - t0) / 1000;
}

console.log(`bench:scale on ${machine()}; ${fmt(N)} entries of ${payload(N).length} bytes, ${fmt(WRITERS)} writers, ${ROUNDS} rounds`);
const server = await startPostgres();
const rates: { leveldb: number[]; postgres: number[] } = { leveldb: [], postgres: [] };
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of ['leveldb', 'postgres'] as const) {
      const dataDir = mkdtempSync(join(tmpdir(), 'archive-bench-'));
      const storeUrl = kind === 'postgres' ? await server.createDatabase() : undefined;
      const d = await openDeployment({ dataDir, storeUrl });
      const s = await appendAll(d, N);
      await d.close();
      rmSync(dataDir, { recursive: true, force: true });
      rates[kind].push(N / s);
      console.log(`  round ${round}, ${kind}: ${fmt(N / s)} durable appends/s (${fmt(s, 1)} s)`);
    }
  }
} finally {
  await server.remove();
}
const best = (xs: number[]) => Math.max(...xs);
const pgBest = best(rates.postgres);
const levelBest = best(rates.leveldb);
console.log(
  `1. durable appends/s, best of ${ROUNDS}: PostgreSQL ${fmt(pgBest)} /s (goal >= 20,000 /s: ${pgBest >= 20_000 ? 'met' : 'not met'}) ` +
    `vs LevelDB ${fmt(levelBest)} /s in the same run; ratio PostgreSQL / LevelDB ${fmt(pgBest / levelBest, 2)}`,
);
