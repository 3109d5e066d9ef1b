// npm run bench:start — the service's start-up and memory (issue 15, docs/benchmarks.md): `archive
// serve` in a child process on logs of BENCH_ENTRIES entries (default 1,000,000, built through the
// record: 1,000 registrations, 1,000 papers, reviews), timed from spawn to its "serving" line,
// with its peak memory (VmHWM, the resident set's high-water mark). Two shapes of the same log:
//   - dense (BENCH_LOG_DIR): entries 1 ms apart, so the whole log lies within the replay window
//     and the replay index holds every signed write;
//   - spread (BENCH_SPREAD_LOG_DIR): entries BENCH_SPREAD_MS apart (default 86: a million over a
//     day), so the index holds the last 20 minutes' writes, as a busy service's does.
// A log dir given is kept and reused (built there when empty). For each shape, and for the code of
// BENCH_BASELINE (a commit of BENCH_REPO, default this checkout, built in a temporary directory from
// `git archive`) when given, then for
// this code, one after the other in the same run:
//   - a start from zero, then the snapshot written at its clean shutdown (the service's pause);
//   - a start from that snapshot (the figure; goal: under 3 s at 1,000,000 entries);
//   - the record's memory after start, from zero and from the snapshot (bench/start-heap.ts: V8's
//     heap in use and the array buffers after a full collection; goal: at most half of the baseline's);
//   - reads on the service started from the snapshot: GET /v2/papers/{id}, /explore and
//     /explore/claims/{ref} (medians; goal: under 5 ms);
// and, for this code, a restart after SIGKILL with writes under way. The floors: reading every
// entry from the store, reading the snapshot file's bytes.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDeployment } from '../lib/service/deployment.js';
import { snapshotFile } from '../lib/service/snapshot.js';
import { buildLog } from './build-log.js';
import { HERE, buildBaseline, type Code } from './baseline.js';
import { heapAfterStart, reads, serve, stop, writesUntil, type Started } from './served.js';
import { fmt, machine } from './stats.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const SPREAD_MS = Number(process.env.BENCH_SPREAD_MS ?? 86);
const BASELINE = process.env.BENCH_BASELINE;
const READS = Number(process.env.BENCH_READS ?? 200);

interface Row {
  code: string;
  zero: Started;
  snapshotLine: string;
  fromSnapshot: Started;
  snapshotUsed: string;
  heapZero: { heapMiB: number; arrayBuffersMiB: number };
  heapSnapshot: { seconds: number; heapMiB: number; arrayBuffersMiB: number };
  paper: { median: number; p99: number };
  explore: { median: number; p99: number };
  claim: { median: number; p99: number };
  snapshotMiB: number;
  readSnapshot: number;
}

/** Every figure of one code on one log. */
async function measure(code: Code, dir: string): Promise<Row> {
  rmSync(snapshotFile(dir), { force: true });
  // From zero (no snapshot there yet), then the snapshot written at its clean shutdown.
  const zero = await serve(code, dir);
  await stop(zero);
  const snapshotLine = zero.lines.find((l) => l.includes('snapshot at entry')) ?? 'no snapshot line';
  const tf = performance.now();
  const bytes = await readFile(snapshotFile(dir));
  const readSnapshot = (performance.now() - tf) / 1000;
  const fromSnapshot = await serve(code, dir);
  const snapshotUsed = fromSnapshot.lines.find((l) => l.includes('starting from the snapshot')) ?? 'the snapshot was not used';
  const text = await (await fetch(`${fromSnapshot.url}/v2/credence`)).text();
  const ref = /rec:[0-9a-f]{16}#C1/.exec(text)![0];
  const paper = await reads(fromSnapshot.url, `/v2/papers/${ref.split('#')[0]}`, READS);
  const explore = await reads(fromSnapshot.url, '/explore', Math.ceil(READS / 4));
  const claim = await reads(fromSnapshot.url, `/explore/claims/${encodeURIComponent(ref)}`, READS);
  await stop(fromSnapshot);
  const heapSnapshot = heapAfterStart(code, dir, 'snapshot');
  const heapZero = heapAfterStart(code, dir, 'zero');
  return {
    code: code.name,
    zero,
    snapshotLine,
    fromSnapshot,
    snapshotUsed,
    heapZero,
    heapSnapshot,
    paper,
    explore,
    claim,
    snapshotMiB: bytes.length / 2 ** 20,
    readSnapshot,
  };
}

/** The log of `dir` (built when empty), or of a temporary directory. */
async function logDir(kept: string | undefined, stepMs: number, made: string[]): Promise<string> {
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'bench-start-'));
  if (kept === undefined) made.push(dir);
  if (!existsSync(join(dir, 'db'))) {
    mkdirSync(dir, { recursive: true });
    const t0 = performance.now();
    await buildLog(dir, ENTRIES, { stepMs });
    console.log(`built a ${fmt(ENTRIES)}-entry log (${stepMs} ms apart) in ${dir} in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  } else console.log(`reusing the log in ${dir}`);
  return dir;
}

const ms = (x: { median: number; p99: number }) => `${fmt(x.median, 2)} (p99 ${fmt(x.p99, 1)})`;

async function main(): Promise<void> {
  console.log(`bench:start on ${machine()}`);
  const made: string[] = [];
  const codes: Code[] = [...(BASELINE === undefined ? [] : [buildBaseline(BASELINE)]), { name: 'this code', dist: HERE }];
  try {
    const shapes = [
      { name: 'dense: entries 1 ms apart, every signed write in the replay window', dir: await logDir(process.env.BENCH_LOG_DIR, 1, made) },
      {
        name: `spread: entries ${SPREAD_MS} ms apart, the window's writes only`,
        dir: await logDir(process.env.BENCH_SPREAD_LOG_DIR, SPREAD_MS, made),
      },
    ];
    for (const shape of shapes) {
      const d = await openDeployment({ dataDir: shape.dir });
      const size = d.log.size;
      const tr = performance.now();
      for (let from = 0; from < size; from += 4096) await d.log.records(from, Math.min(4096, size - from));
      const readStore = (performance.now() - tr) / 1000;
      await d.close();

      const rows: Row[] = [];
      for (const code of codes) rows.push(await measure(code, shape.dir));

      console.log(`\n${shape.name}: ${fmt(size)} entries; floor: reading every entry from the store ${fmt(readStore, 1)} s`);
      console.log(
        '| code | from zero s (peak RSS MiB) | snapshot at shutdown | from the snapshot s (peak RSS MiB) | reading the snapshot file s ' +
          '| heap + array buffers after start from zero, MiB | the same from the snapshot, MiB | GET /v2/papers/{id} ms | GET /explore ' +
          'ms | GET /explore/claims/{ref} ms |',
      );
      console.log('|---|---|---|---|---|---|---|---|---|---|');
      for (const r of rows) {
        const mem = (h: { heapMiB: number; arrayBuffersMiB: number }) =>
          `${fmt(h.heapMiB + h.arrayBuffersMiB)} (${fmt(h.heapMiB)} + ${fmt(h.arrayBuffersMiB)})`;
        console.log(
          `| ${r.code} | ${fmt(r.zero.seconds, 1)} (${fmt(r.zero.peakMiB)}) | ${r.snapshotLine.replace(/^archive: /, '')} | ` +
            `${fmt(r.fromSnapshot.seconds, 2)} (${fmt(r.fromSnapshot.peakMiB)}) | ${fmt(r.readSnapshot, 2)} (${fmt(r.snapshotMiB)} MiB) ` +
            `| ${mem(r.heapZero)} | ${mem(r.heapSnapshot)} | ${ms(r.paper)} | ${ms(r.explore)} | ${ms(r.claim)} |`,
        );
        if (!r.snapshotUsed.includes('starting from the snapshot')) console.log(`  (${r.code}: ${r.snapshotUsed})`);
      }
      if (rows.length === 2) {
        const [b, a] = rows as [Row, Row];
        const total = (h: { heapMiB: number; arrayBuffersMiB: number }) => h.heapMiB + h.arrayBuffersMiB;
        console.log(
          `ratios this code / ${b.code}: memory after start from zero ${fmt(total(a.heapZero) / total(b.heapZero), 2)}, from the ` +
            `snapshot ${fmt(total(a.heapSnapshot) / total(b.heapSnapshot), 2)} (goal: at most 0.5); start from the snapshot ` +
            `${fmt(a.fromSnapshot.seconds / b.fromSnapshot.seconds, 2)}, from zero ${fmt(a.zero.seconds / b.zero.seconds, 2)}`,
        );
      }
    }

    // SIGKILL with writes under way, then a restart of this code: no snapshot at shutdown, so the
    // last one is used and the entries written since are replayed.
    const dir = shapes[1]!.dir;
    const code = codes.at(-1)!;
    const running = await serve(code, dir, ['--register-limit', '1000000']);
    const written = { n: 0 };
    const end = Date.now() + 60_000;
    const late = writesUntil(running.url, () => Date.now() >= end, written).catch(() => undefined);
    // (A log reused from an earlier run keeps that run's late agents: this run's are named by its pid.)
    // Killed half a second after the first registration landed, writes still under way.
    for (const end = Date.now() + 30_000; written.n === 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 500));
    await stop(running, 'SIGKILL');
    await late;
    if (written.n === 0) throw new Error('no registration landed before the SIGKILL: the restart would replay nothing');
    const afterKill = await serve(code, dir);
    await stop(afterKill, 'SIGKILL');
    console.log(
      `\nrestart after SIGKILL mid-write (spread log, this code; the snapshot, then the ${fmt(written.n)}+ entries written since): ` +
        `${fmt(afterKill.seconds, 2)} s, peak RSS ${fmt(afterKill.peakMiB)} MiB`,
    );
  } finally {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
    for (const code of codes.slice(0, -1)) rmSync(join(code.dist, '..'), { recursive: true, force: true });
  }
}

await main();
