// `npm run bench:log`: the figures of the log (docs/benchmarks.md).
//   1. durable appends into LevelDB in batches of 1,000 (entries/s)
//   2. inclusion and consistency proof generation at tree size 1,000,000, in process (median)
//   3. GET /v1/log/inclusion over HTTP on loopback (requests/s, p99), server in a child process
//   4. audit of 1,000,000 entries (s)
//   5. hashing work against the machine's raw SHA-256 speed, measured in the same run
// Options: BENCH_ENTRIES (default 1000000), BENCH_HTTP_SECONDS (default 10).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { openDeployment } from '../lib/deployment.js';
import { fmt, machine, quantile } from './stats.js';

const N = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
const BATCH = 1000;
const dataDir = mkdtempSync(join(tmpdir(), 'archive-bench-'));
const rand = (n: number) => Math.floor(Math.random() * n);

// A payload of a typical signed write's size (about 400 bytes of canonical JSON).
const payload = (i: number) =>
  `{"payload":{"agent":{"handle":"bench-agent","publicKey":"MCowBQYDK2VwAyEA${'A'.repeat(43)}"},"claim":"rec:${(i % 65536).toString(16).padStart(16, '0')}#C1","forecast":0.7,"protocol":"archive/0.2","rationale":"${'r'.repeat(120)} ${i}","ts":"2026-11-22T10:00:00Z","type":"review"},"signature":"${'s'.repeat(86)}"}`;

/** Raw SHA-256 speed: one-shot hashes of `size`-byte inputs per second. */
function rawShaPerSecond(size: number): number {
  const buf = Buffer.alloc(size, 7);
  const n = 300_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) createHash('sha256').update(buf).digest();
  return n / ((performance.now() - t0) / 1000);
}

console.log(`machine: ${machine()}`);
console.log(`data: ${dataDir}`);

// 1. Appends.
const d = await openDeployment({ dataDir });
const sample = payload(0);
let appendSeconds = 0;
{
  // Appends arrive in waves of 10 batches, as many concurrent writers would send them.
  const wave = 10 * BATCH;
  const t0 = performance.now();
  for (let sent = 1; sent < N; sent += wave) {
    const n = Math.min(wave, N - sent);
    await Promise.all(Array.from({ length: n }, (_, i) => d.log.append('review', payload(sent + i))));
  }
  appendSeconds = (performance.now() - t0) / 1000;
  console.log(`appends: ${fmt(N - 1)} entries (${sample.length} B payloads) in ${fmt(appendSeconds, 2)} s = ${fmt((N - 1) / appendSeconds)} entries/s, batches of ${BATCH}, fsync per batch`);
}

// 5a. Hashing work per entry: payload hash, leaf hash, and on average one interior node.
const shaPayload = rawShaPerSecond(sample.length);
const shaLeaf = rawShaPerSecond(1 + 220);
const shaNode = rawShaPerSecond(65);
const hashSecondsPerEntry = 1 / shaPayload + 1 / shaLeaf + 1 / shaNode;
console.log(`raw SHA-256 on this machine: ${fmt(shaPayload)} /s at ${sample.length} B, ${fmt(shaLeaf)} /s at 221 B, ${fmt(shaNode)} /s at 65 B`);
console.log(`appends: hashing alone would allow ${fmt(1 / hashSecondsPerEntry)} entries/s; the log reaches ${fmt((100 * (N - 1)) / appendSeconds * hashSecondsPerEntry, 1)} % of that`);

// 2. Proofs in process at the full size.
{
  const size = d.log.size;
  const samples = 20_000;
  const incl: number[] = [];
  const cons: number[] = [];
  for (let i = 0; i < 1000; i++) await d.log.inclusionProof(rand(size), size); // warm up
  for (let i = 0; i < samples; i++) {
    const seq = rand(size);
    const t0 = performance.now();
    await d.log.inclusionProof(seq, size);
    incl.push((performance.now() - t0) * 1000);
  }
  for (let i = 0; i < samples; i++) {
    const first = 1 + rand(size - 1);
    const t0 = performance.now();
    await d.log.consistencyProof(first, size);
    cons.push((performance.now() - t0) * 1000);
  }
  console.log(`inclusion proof at size ${fmt(size)}: median ${fmt(quantile(incl, 0.5), 1)} us, p99 ${fmt(quantile(incl, 0.99), 1)} us (${fmt(samples)} random seqs)`);
  console.log(`consistency proof to size ${fmt(size)}: median ${fmt(quantile(cons, 0.5), 1)} us, p99 ${fmt(quantile(cons, 0.99), 1)} us (${fmt(samples)} random first sizes)`);
}

// 4. Audit.
{
  const t0 = performance.now();
  const report = await d.audit();
  const s = (performance.now() - t0) / 1000;
  if (!report.intact) throw new Error(`audit failed: ${JSON.stringify(report.problem)}`);
  console.log(`audit: ${fmt(report.treeSize)} entries in ${fmt(s, 2)} s = ${fmt(report.treeSize / s)} entries/s, intact`);
  console.log(`audit: hashing alone would take ${fmt(report.treeSize * hashSecondsPerEntry, 2)} s (${fmt((100 * report.treeSize * hashSecondsPerEntry) / s, 1)} % of the audit's time)`);
}
const size = d.log.size;
await d.close();

// 3. HTTP, with the server in its own process so client and server share the two cores.
{
  const bin = fileURLToPath(new URL('../../bin/archive', import.meta.url));
  const server = spawn(process.execPath, [bin, 'serve', '--data', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (chunk: Buffer) => {
      const m = / at (http:\/\/\S+),/.exec(chunk.toString());
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const run = (title: string) =>
    autocannon({
      url,
      title,
      connections: 32,
      pipelining: 1,
      duration: title === 'warmup' ? 2 : HTTP_SECONDS,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/log/inclusion?seq=${rand(size)}` }) }],
    });
  await run('warmup');
  const r = await run('inclusion');
  server.kill('SIGTERM');
  const bad = r.non2xx + r.errors + r.timeouts;
  console.log(`GET /v1/log/inclusion over HTTP at size ${fmt(size)}: ${fmt(r.requests.average)} req/s (mean over ${HTTP_SECONDS} s), latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${bad} failed, 32 connections`);
}

rmSync(dataDir, { recursive: true, force: true });
