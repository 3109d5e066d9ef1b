// npm run bench:state-holders — what holds the state's heap (issue 26), for this code and the code
// before in the same run: each replays the log of BENCH_LOG_DIR (a log bench:readers kept, e.g.
// BENCH_ENTRIES=200000 BENCH_LOG_DIR=... npm run bench:readers) in a process of its own, collects
// the garbage, prints the heap and array buffers an entry, then lets go of the state's structures
// one at a time, collecting again after each, and prints what each held (its retained size, in
// the order let go). BENCH_BASELINE names the commit before (default: none, this code alone).
//   node --expose-gc dist/bench/state-holders.js                       (the runs)
//   node --expose-gc dist/bench/state-holders.js <dist root> <data dir> (one code's child)
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBaseline, HERE } from './baseline.js';

const mib = (n: number) => (n / 2 ** 20).toFixed(1);

async function child(root: string, dataDir: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const held = () => {
    for (let i = 0; i < 3; i++) gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const { openDeployment } = (await import(`${root}/lib/service/deployment.js`)) as {
    openDeployment(o: { dataDir: string }): Promise<{ close(): Promise<void> }>;
  };
  const { LiveRecord } = (await import(`${root}/lib/service/live-record.js`)) as {
    LiveRecord: { open(d: unknown): Promise<{ state: Record<string, unknown> & { size: number } }> };
  };
  const empty = held();
  const d = await openDeployment({ dataDir });
  const t0 = performance.now();
  const record = await LiveRecord.open(d);
  const replay = performance.now() - t0;
  const s = record.state;
  const size = s.size;
  let last = held();
  console.log(
    `${size} entries replayed in ${(replay / 1000).toFixed(1)} s: ${mib(last - empty)} MiB of heap and array buffers, ` +
      `${((last - empty) / size).toFixed(0)} B an entry`,
  );
  const n = s.numbers as Record<string, unknown>;
  const ix = n.index as Record<string, unknown>;
  const ag = n.aggregates as Record<string, unknown>;
  const lines: [string, number][] = [];
  const drop = (name: string, o: Record<string, unknown>, k: string) => {
    o[k] = undefined;
    const now = held();
    lines.push([name, last - now]);
    last = now;
  };
  for (const k of Object.keys(ix)) drop(`numbers.index.${k}`, ix, k);
  for (const k of Object.keys(ag)) drop(`numbers.aggregates.${k}`, ag, k);
  for (const k of Object.keys(n)) drop(`numbers.${k}`, n, k);
  for (const k of Object.keys(s)) drop(k, s, k);
  for (const [name, bytes] of lines.sort((a, b) => b[1] - a[1]).filter(([, b]) => b >= 2 ** 19))
    console.log(`  ${name.padEnd(30)} ${mib(bytes).padStart(8)} MiB ${(bytes / size).toFixed(0).padStart(6)} B an entry`);
  await d.close();
}

function main(): void {
  const dir = process.env.BENCH_LOG_DIR;
  if (dir === undefined) throw new Error('BENCH_LOG_DIR: a log kept by bench:readers');
  const codes = [{ name: 'this code', dist: HERE }];
  if (process.env.BENCH_BASELINE !== undefined) codes.unshift(buildBaseline(process.env.BENCH_BASELINE));
  for (const c of codes) {
    // A copy of the log for each, so that neither reads a snapshot or lock the other left.
    const copy = mkdtempSync(join(tmpdir(), 'bench-state-'));
    cpSync(dir, copy, { recursive: true, filter: (src) => !src.endsWith('LOCK') });
    console.log(`${c.name}:`);
    execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=12288', fileURLToPath(import.meta.url), c.dist, copy], {
      stdio: 'inherit',
    });
    rmSync(copy, { recursive: true, force: true });
  }
}

if (process.argv.length > 3) await child(process.argv[2]!, process.argv[3]!);
else main();
