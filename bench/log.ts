// `npm run bench:log`: the figures of the log (docs/benchmarks.md).
//   1. durable appends into LevelDB in batches of 1,000 (entries/s), at two payload sizes
//   2. inclusion and consistency proof generation at tree size 1,000,000, in process (median)
//   3. GET /v1/log/inclusion over HTTP on loopback (requests/s, p99), server in a child process
//   4. audit of 1,000,000 entries (s)
//   5. hashing work against the machine's raw SHA-256 speed, measured in the same run
//   6. bytes written per byte of entry records appended, at 1 entry per commit and in batches
//      of up to 1,000, for the store's layout and raw LevelDB
// Options: BENCH_ENTRIES (default 1000000), BENCH_HTTP_SECONDS (default 10),
// BENCH_SINGLE (entries appended one per commit, default 20000).
// With BENCH_BASELINE=<commit>, it measures that commit's code (built in a temporary directory,
// bench/baseline.ts) and this code in the same run, each in a process of its own, alternately
// BENCH_ROUNDS times (default 2), and prints this code's appends, proofs and audit as a ratio of
// the baseline's (issue 24: at least 0.95).
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { hash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Level } from 'level';
import { openDeployment, type Deployment } from '../lib/service/deployment.js';
import { openLevelStore } from 'tlog-engine';
import { fmt, machine, quantile } from './stats.js';
import { HERE, buildBaseline, type Code } from './baseline.js';

/** The figures of one run of a code's bench:log, read off its lines. */
interface Figures {
  appends: number;
  inclusion: number;
  consistency: number;
  audit: number;
}

/** Runs `code`'s bench/log.js in a process of its own and reads its figures off what it prints. */
function runOnce(code: Code): Figures {
  const out = execFileSync(process.execPath, ['--max-semi-space-size=64', join(code.dist, 'bench', 'log.js')], {
    env: { ...process.env, BENCH_BASELINE: '' },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const num = (re: RegExp) => Number(re.exec(out)?.[1]?.replace(/,/g, ''));
  // The second appends line is the typical payload (the first, the small one).
  const appends = [...out.matchAll(/^appends: [\d,]+ entries of \d+ B in [\d.,]+ s = ([\d,]+) entries\/s/gm)].map((m) =>
    Number(m[1]!.replace(/,/g, '')),
  );
  return {
    appends: appends.at(-1)!,
    inclusion: num(/^inclusion proof at size [\d,]+: median ([\d.,]+) us/m),
    consistency: num(/^consistency proof to size [\d,]+: median ([\d.,]+) us/m),
    audit: num(/^audit: [\d,]+ entries in [\d.,]+ s = ([\d,]+) entries\/s/m),
  };
}

/** This code against `commit`'s, alternately, each figure as a ratio of the baseline's (higher is better). */
async function compareWith(commit: string): Promise<void> {
  console.log(`machine: ${machine()}`);
  const codes = [buildBaseline(commit), { name: 'this code', dist: HERE }];
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const runs = new Map<string, Figures[]>(codes.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++)
    for (const code of r % 2 === 0 ? codes : [...codes].reverse()) {
      const f = runOnce(code);
      runs.get(code.name)!.push(f);
      console.log(
        `${code.name}: appends ${fmt(f.appends)} entries/s, inclusion ${fmt(f.inclusion, 1)} us, consistency ${fmt(f.consistency, 1)} ` +
          `us, audit ${fmt(f.audit)} entries/s`,
      );
    }
  const mean = (name: string, k: keyof Figures) => runs.get(name)!.reduce((a, f) => a + f[k], 0) / rounds;
  const [base, ours] = codes.map((c) => c.name) as [string, string];
  const ratio = (k: keyof Figures, lowerIsBetter = false) =>
    lowerIsBetter ? mean(base, k) / mean(ours, k) : mean(ours, k) / mean(base, k);
  console.log(
    `this code against ${commit} (${rounds} runs each, ${fmt(N)} entries): appends ${fmt(ratio('appends'), 2)}, inclusion proofs ` +
      `${fmt(ratio('inclusion', true), 2)}, consistency proofs ${fmt(ratio('consistency', true), 2)}, audit ${fmt(ratio('audit'), 2)} ` +
      `(1 = as fast; goal at least 0.95)`,
  );
}

const N = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const BASELINE = process.env.BENCH_BASELINE;
if (BASELINE !== undefined && BASELINE !== '') {
  await compareWith(BASELINE);
  process.exit(0);
}
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 20_000);
const WRITERS = 4000;
const rand = (n: number) => Math.floor(Math.random() * n);
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'archive-bench-'));
  dirs.push(d);
  return d;
};

/** A signed review's envelope as logged, `pad` characters of rationale long. */
const payload = (i: number, pad: number) =>
  `{"payload":{"agent":{"handle":"bench-agent","publicKey":"MCowBQYDK2VwAyEA${'A'.repeat(43)}"},` +
  `"claim":"rec:${(i % 65536).toString(16).padStart(16, '0')}#C1","forecast":0.7,"protocol":"archive/0.2",` +
  `"rationale":"${'r'.repeat(pad)} ${i}","ts":"2026-11-22T10:00:00Z","type":"review"},"signature":"${'s'.repeat(86)}"}`;

/** One-shot SHA-256 calls per second on `size`-byte inputs, as the log calls it. */
function rawShaPerSecond(size: number): number {
  const buf = Buffer.alloc(size, 7);
  const n = 300_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) hash('sha256', buf, 'binary');
  return n / ((performance.now() - t0) / 1000);
}

/** Bulk SHA-256 throughput in MB/s (one 64 MiB input). */
function rawShaMBps(): number {
  const buf = Buffer.alloc(64 * 2 ** 20, 7);
  const t0 = performance.now();
  hash('sha256', buf, 'binary');
  return (64 * 1.048576) / ((performance.now() - t0) / 1000);
}

/** Appends `n` entries from `writers` concurrent writers (each waits for its ack, then goes on). */
async function appendAll(d: Deployment, n: number, pad: number, writers = WRITERS): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const writer = async () => {
    while (next < n) {
      const i = next++;
      await d.log.append('review', payload(i, pad));
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return (performance.now() - t0) / 1000;
}

/**
 * Bytes this process has handed to write(2) and its kin so far (/proc/self/io, wchar): every
 * write LevelDB makes (write-ahead log, tables, manifest), its background thread included.
 */
function wchar(): number {
  return Number(/^wchar: (\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

/** A stored entry record: "<ts> <type>" (32 bytes for a review), a newline, the payload. */
const record = (i: number, pad: number) => `2026-11-22T10:00:00.000Z review\n${payload(i, pad)}`;

/** Bytes of the records of entries [0, n). */
function recordBytes(n: number, pad: number): number {
  let bytes = 0;
  for (let i = 0; i < n; i++) bytes += record(i, pad).length;
  return bytes;
}

interface Written {
  perSecond: number;
  /** Bytes written per byte of entry records. */
  ratio: number;
}

/**
 * Appends n entries through a deployment, counting the bytes written from the first append until
 * the store has been closed and opened again: opening writes what the write-ahead log holds into
 * a table, so the flush of the last memtable is counted too.
 */
async function appendWritten(n: number, pad: number, writers: number): Promise<Written> {
  const dataDir = tempDir();
  const d = await openDeployment({ dataDir });
  const w0 = wchar();
  const s = await appendAll(d, n, pad, writers);
  await d.close();
  await (await openLevelStore(join(dataDir, 'db'))).close();
  const ratio = (wchar() - w0) / recordBytes(n, pad);
  rmSync(dataDir, { recursive: true, force: true });
  return { perSecond: n / s, ratio };
}

/** The floor: the same records written straight into LevelDB, one key each, `perCommit` to a synced batch. */
async function rawWritten(n: number, pad: number, perCommit: number): Promise<Written> {
  const dir = tempDir();
  const db = new Level<Buffer, string>(dir, { keyEncoding: 'buffer', valueEncoding: 'utf8', writeBufferSize: 64 * 2 ** 20 } as never);
  await db.open();
  const w0 = wchar();
  const t0 = performance.now();
  for (let i = 0; i < n; i += perCommit) {
    const b = db.batch();
    for (let j = i; j < Math.min(n, i + perCommit); j++) {
      const key = Buffer.alloc(8);
      key.writeUInt32BE(j, 4);
      b.put(key, record(j, pad));
    }
    await b.write({ sync: true });
  }
  const s = (performance.now() - t0) / 1000;
  await db.close();
  await db.open();
  await db.close();
  const ratio = (wchar() - w0) / recordBytes(n, pad);
  rmSync(dir, { recursive: true, force: true });
  return { perSecond: n / s, ratio };
}

console.log(`machine: ${machine()}`);

// 6. Bytes written per byte of entry records (476-byte entries, 508-byte records), counted from
//    the first append until the store has been closed and opened again. One writer: every
//    append is its own commit.
{
  const PAD = 120;
  const size = record(0, PAD).length;
  const show = (w: Written) => `${fmt(w.ratio, 2)} (${fmt(w.perSecond)} entries/s)`;
  const oneRaw = await rawWritten(SINGLE, PAD, 1);
  const oneNew = await appendWritten(SINGLE, PAD, 1);
  console.log(
    `bytes written per byte of records, 1 entry per commit, ${fmt(SINGLE)} records of ${size} B: store ${show(oneNew)}; raw LevelDB ` +
      `floor ${show(oneRaw)}`,
  );
  const bigN = N - 1;
  const bigRaw = await rawWritten(bigN, PAD, 1000);
  const bigNew = await appendWritten(bigN, PAD, WRITERS);
  console.log(
    `bytes written per byte of records, batches of up to 1,000 (${WRITERS} writers), ${fmt(bigN)} records of ${size} B: store ` +
      `${show(bigNew)}; raw LevelDB floor ${show(bigRaw)}`,
  );
}

// 1. Appends at a small and a typical payload size.
{
  const d = await openDeployment({ dataDir: tempDir() });
  const small = Math.min(N, 300_000);
  const s = await appendAll(d, small, 0);
  console.log(
    `appends: ${fmt(small)} entries of ${payload(0, 0).length} B in ${fmt(s, 2)} s = ${fmt(small / s)} entries/s (durable, batches of ` +
      `up to 1,000, ${WRITERS} concurrent writers)`,
  );
  await d.close();
}
const dataDir = tempDir();
const d = await openDeployment({ dataDir });
const PAD = 120;
const typical = payload(0, PAD).length;
const appendSeconds = await appendAll(d, N - 1, PAD);
console.log(
  `appends: ${fmt(N - 1)} entries of ${typical} B in ${fmt(appendSeconds, 2)} s = ${fmt((N - 1) / appendSeconds)} entries/s (durable, ` +
    `batches of up to 1,000, ${WRITERS} concurrent writers)`,
);

// 5. Hashing work per entry: payload hash, leaf hash (about 190 B), and on average one
//    interior node (65 B); each as a one-shot call at the machine's measured speed.
const shaPayload = rawShaPerSecond(typical);
const shaLeaf = rawShaPerSecond(191);
const shaNode = rawShaPerSecond(65);
const hashSecondsPerEntry = 1 / shaPayload + 1 / shaLeaf + 1 / shaNode;
console.log(
  `raw SHA-256: ${fmt(rawShaMBps())} MB/s bulk; one-shot ${fmt(shaPayload)} /s at ${typical} B, ${fmt(shaLeaf)} /s at 191 B, ` +
    `${fmt(shaNode)} /s at 65 B`,
);
console.log(
  `appends: hashing alone would allow ${fmt(1 / hashSecondsPerEntry)} entries/s; hashing is ` +
    `${fmt((100 * (N - 1) * hashSecondsPerEntry) / appendSeconds, 1)} % of the append time`,
);

// 2. Proofs in process at the full size.
{
  const size = d.log.size;
  const samples = 20_000;
  const incl: number[] = [];
  const cons: number[] = [];
  for (let i = 0; i < 2000; i++) await d.log.inclusionProof(rand(size), size); // warm up
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
  console.log(
    `inclusion proof at size ${fmt(size)}: median ${fmt(quantile(incl, 0.5), 1)} us, p99 ${fmt(quantile(incl, 0.99), 1)} us ` +
      `(${fmt(samples)} random seqs)`,
  );
  console.log(
    `consistency proof to size ${fmt(size)}: median ${fmt(quantile(cons, 0.5), 1)} us, p99 ${fmt(quantile(cons, 0.99), 1)} us ` +
      `(${fmt(samples)} random first sizes)`,
  );
}

// 4. Audit.
{
  const t0 = performance.now();
  const report = await d.audit();
  const s = (performance.now() - t0) / 1000;
  if (!report.intact) throw new Error(`audit failed: ${JSON.stringify(report.problem)}`);
  console.log(`audit: ${fmt(report.treeSize)} entries in ${fmt(s, 2)} s = ${fmt(report.treeSize / s)} entries/s, intact`);
  console.log(
    `audit: hashing alone would take ${fmt(report.treeSize * hashSecondsPerEntry, 2)} s ` +
      `(${fmt((100 * report.treeSize * hashSecondsPerEntry) / s, 1)} % of the audit's time)`,
  );
}
const size = d.log.size;
await d.close();

// 3. HTTP, with the server in its own process, so client and server share the two cores.
//    wrk (C) if installed, else autocannon (Node), which takes more of the CPU for itself.
{
  // The service's own log routes in a child process (bench/log-server.ts): `archive serve` would
  // first replay the record, which cannot fold this log's synthetic entries.
  const script = fileURLToPath(new URL('./log-server.js', import.meta.url));
  const server = spawn(process.execPath, [script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (chunk: Buffer) => {
      const m = / at (http:\/\/\S+),/.exec(chunk.toString());
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  let wrk = false;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    wrk = true;
  } catch (err) {
    wrk = (err as { status?: number }).status === 1; // wrk --version exits 1 after printing
  }
  if (wrk) {
    const script = join(tempDir(), 'inclusion.lua');
    writeFileSync(
      script,
      `math.randomseed(os.time())\nrequest = function() return wrk.format("GET", "/v1/log/inclusion?seq=" .. math.random(0, ` +
        `${size - 1})) end\n`,
    );
    execFileSync('wrk', ['-t1', '-c32', '-d2', '-s', script, url]); // warm up
    const out = execFileSync('wrk', ['-t1', '-c32', `-d${HTTP_SECONDS}`, '--latency', '-s', script, url]).toString();
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    const p50 = /\s50%\s+(\S+)/.exec(out)?.[1];
    const p99 = /\s99%\s+(\S+)/.exec(out)?.[1];
    const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? '0';
    console.log(
      `GET /v1/log/inclusion over HTTP at size ${fmt(size)} (wrk, 1 thread, 32 connections, ${HTTP_SECONDS} s): ${fmt(rps)} req/s, ` +
        `latency p50 ${p50}, p99 ${p99}, ${errors} non-2xx`,
    );
  } else {
    const run = (duration: number) =>
      autocannon({
        url,
        connections: 32,
        duration,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/log/inclusion?seq=${rand(size)}` }) }],
      });
    await run(2);
    const r = await run(HTTP_SECONDS);
    console.log(
      `GET /v1/log/inclusion over HTTP at size ${fmt(size)} (autocannon, 32 connections, ${HTTP_SECONDS} s): ${fmt(r.requests.average)} ` +
        `req/s, latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.non2xx + r.errors} failed`,
    );
  }
  server.kill('SIGTERM');
}

for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
