// npm run bench:record — the figures of issue 3 (docs/benchmarks.md):
//  1. accepted signed writes over HTTP on loopback (reviews, envelopes signed before the run):
//     requests/s sustained and p99 latency, and the ratio to a bare Koa route that only verifies
//     one Ed25519 signature, measured in the same run against the same bodies;
//  2. the same on a hot claim (issue 14): a claim that holds BENCH_HOT reviews already (the log
//     built in process through the record, the service started on it), beside the bare route;
//  3. replay of a 1,000,000-entry log with every signature re-verified, beside the signature
//     floor (node:crypto Ed25519 verifications/s on all cores, measured in the same run), and
//     without signatures (what a start-up does): entries/s, and memory.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openDeployment } from '../lib/service/deployment.js';
import { generateKeyPair } from '../lib/protocol/ed25519.js';
import { LiveRecord } from '../lib/service/live-record.js';
import { replayVerified } from '../lib/service/verified-replay.js';
import { replayStore } from '../lib/record/fold/index.js';
import { sha256TextHex } from 'tlog-engine';
import { fmt, machine, signatureFloor } from './stats.js';

const HTTP_SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const REPLAY_ENTRIES = Number(process.env.BENCH_REPLAY ?? 1_000_000);
const HOT_REVIEWS = Number(process.env.BENCH_HOT ?? 100_000);

import { buildLog, paper, registration, review, type Key } from './build-log.js';
import { CONNECTIONS, loadPosts as load, reviewersOn, signedReviews as signed } from './http-load.js';

/**
 * Starts the service (and the bare route beside it) on `dataDir`; returns their URLs, the time the service
 * took to start, and how to stop it.
 */
async function startService(dataDir: string) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [new URL('./record-server.js', import.meta.url).pathname, dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line: string = await new Promise((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const { service, bare } = JSON.parse(line) as { service: string; bare: string };
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };
  return { service, bare, startSeconds: (performance.now() - t0) / 1000, stop };
}

/** Loads the bare route, then POST /v2/reviews, with the same signed bodies; prints both and their ratio. */
async function writesBesideFloor(service: string, bare: string, bodies: string[], what: string): Promise<void> {
  await load(`${bare}/`, bodies.slice(0, 2000), 2); // warm up
  const floor = await load(`${bare}/`, bodies, HTTP_SECONDS);
  const writes = await load(`${service}/v2/reviews`, bodies, HTTP_SECONDS);
  if (writes.sent > bodies.length) console.log('warning: bodies were reused; repeats answer 409 and count as failed');
  console.log(
    `bare Koa route verifying one signature (${CONNECTIONS} connections, ${HTTP_SECONDS} s): ${fmt(floor.rps)} req/s, p50 ${floor.p50} ` +
      `ms, p99 ${floor.p99} ms, ${floor.failed} failed`,
  );
  console.log(
    `accepted signed writes, POST /v2/reviews ${what} (${CONNECTIONS} connections, ${HTTP_SECONDS} s): ${fmt(writes.rps)} req/s, p50 ` +
      `${writes.p50} ms, p99 ${writes.p99} ms, ${writes.failed} failed of ${fmt(writes.total)}`,
  );
  console.log(`ratio of accepted writes to the bare route: ${fmt(writes.rps / floor.rps, 2)}`);
}

/** Review envelopes by `reviewers` (round robin) on `claim`, signed before the run. */
function signedReviews(reviewers: Key[], claim: string, from: number): string[] {
  const n = Math.ceil(HTTP_SECONDS * 8000) + 20000;
  const t0 = performance.now();
  const bodies = signed({ keys: reviewers, claim }, from, n);
  console.log(`signed ${fmt(n)} review envelopes in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  return bodies;
}

async function httpWrites(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-record-'));
  const { service, bare, stop } = await startService(dataDir);
  try {
    // 100 reviewers of 100 operators and one author; reviews are signed before the run.
    const { keys, claim } = await reviewersOn(service);
    await writesBesideFloor(service, bare, signedReviews(keys, claim, 0), 'on a new claim');
  } finally {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The hot claim: one claim that holds HOT_REVIEWS reviews by 100 reviewers of 100 operators,
 * built in process through the record (with a clock that ends now), then the service started
 * on that log and loaded with more reviews of the same claim.
 */
async function hotClaimWrites(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-hot-'));
  try {
    const t0 = performance.now();
    let t = Date.now() - HOT_REVIEWS - 200;
    const d = await openDeployment({ dataDir, clock: () => t });
    const record = await LiveRecord.open(d, () => t);
    const c = record.state.constitution;
    const wait: Promise<unknown>[] = [];
    const admit = (type: string, logged: object) => {
      t++;
      const a = record.admit(type, logged);
      if (!('already' in a)) wait.push(a.committed);
      return a;
    };
    const author = generateKeyPair();
    admit('agent.register', registration('author', author, 'lab-author', c));
    const reviewers = Array.from({ length: 100 }, () => generateKeyPair());
    reviewers.forEach((k, i) => admit('agent.register', registration(`reviewer-${i}`, k, `lab-${i}`, c)));
    admit('paper', paper('author', author, 0));
    const claim = `${[...record.state.papers.keys()].at(-1)}#C1`;
    for (let n = 0; n < HOT_REVIEWS; n++) {
      const i = n % 100;
      admit('review', review(`reviewer-${i}`, reviewers[i]!, claim, n, new Date(t + 1).toISOString()));
      if (wait.length >= 5000) await Promise.all(wait.splice(0));
    }
    await Promise.all(wait);
    await d.close();
    console.log(`built a claim holding ${fmt(HOT_REVIEWS)} reviews through the record in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    const { service, bare, startSeconds, stop } = await startService(dataDir);
    try {
      console.log(`the service started on that log (replayed, no signatures) in ${fmt(startSeconds, 1)} s`);
      await writesBesideFloor(
        service,
        bare,
        signedReviews(reviewers, claim, HOT_REVIEWS),
        `on the claim holding ${fmt(HOT_REVIEWS)} reviews`,
      );
    } finally {
      await stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function replay(): Promise<void> {
  // BENCH_LOG_DIR keeps the built log there and reuses it on the next run (building a million
  // entries through the record takes minutes); without it the log is built in a temp dir and removed.
  const kept = process.env.BENCH_LOG_DIR;
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'bench-replay-'));
  try {
    const t0 = performance.now();
    if (kept !== undefined && existsSync(join(kept, 'db'))) console.log(`reusing the log in ${kept}`);
    else {
      await buildLog(dataDir, REPLAY_ENTRIES);
      console.log(
        `built a ${fmt(REPLAY_ENTRIES)}-entry log (registrations, papers, reviews) in ${fmt((performance.now() - t0) / 1000, 1)} s`,
      );
    }
    const d = await openDeployment({ dataDir });
    const size = d.log.size;
    const floor = await signatureFloor(5);
    console.log(`signature floor: ${fmt(floor)} node:crypto Ed25519 verifications/s on ${availableParallelism()} cores`);
    global.gc?.();
    const before = process.memoryUsage();
    const t1 = performance.now();
    const { state, problem } = await replayVerified(d.log, size);
    const seconds = (performance.now() - t1) / 1000;
    global.gc?.();
    const after = process.memoryUsage();
    if (problem !== null) throw new Error(`replay found a problem at ${problem.seq}: ${problem.detail}`);
    console.log(
      `replay of ${fmt(size)} entries, every signature re-verified: ${fmt(seconds, 1)} s, ${fmt(size / seconds)} entries/s ` +
        `(${state.reviews.size} reviews in the state), ${fmt(size / seconds / floor, 2)} of the signature floor`,
    );
    console.log(
      `memory after replay: heap used ${fmt(after.heapUsed / 2 ** 20)} MiB (+${fmt((after.heapUsed - before.heapUsed) / 2 ** 20)}), rss ` +
        `${fmt(after.rss / 2 ** 20)} MiB`,
    );
    // The floor of any replay without signatures: every entry read from the store, its text
    // parsed and its signed bytes hashed, kept in a Map by that hash (what the record must do at
    // the least), measured just before the replay.
    const tf = performance.now();
    const floorMap = new Map<string, unknown>();
    for (let from = 0; from < size; from += 4096) {
      for (const r of await d.log.records(from, Math.min(4096, size - from))) floorMap.set(sha256TextHex(r.payload), JSON.parse(r.payload));
    }
    const floorSeconds = (performance.now() - tf) / 1000;
    floorMap.clear();
    console.log(
      `reading, parsing and hashing every entry (the floor of a replay): ${fmt(floorSeconds, 1)} s, ${fmt(size / floorSeconds)} entries/s`,
    );
    const t2 = performance.now();
    const plain = await replayStore(d.log, size);
    const plainSeconds = (performance.now() - t2) / 1000;
    console.log(
      `replay of ${fmt(size)} entries without signatures (a start-up): ${fmt(plainSeconds, 1)} s, ${fmt(size / plainSeconds)} entries/s ` +
        `(${plain.reviews.size} reviews in the state), ${fmt(floorSeconds / plainSeconds, 2)} of the floor's rate`,
    );
    await d.close();
  } finally {
    if (kept === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`machine: ${machine()}`);
const only = process.env.BENCH_ONLY;
if (only === undefined || only === 'http') await httpWrites();
if (only === undefined || only === 'hot') await hotClaimWrites();
if (only === undefined || only === 'replay') await replay();
