// npm run bench:start — the service's start-up (issue 15, docs/benchmarks.md): `archive serve` in a
// child process on a log of BENCH_ENTRIES entries (default 1,000,000, built through the record,
// or kept in BENCH_LOG_DIR and reused), timed from spawn to its "serving" line, with its peak
// memory (VmHWM, the resident set's high-water mark). In the same run:
//   - the floor: reading the snapshot file's bytes, and reading every entry from the store;
//   - a start from zero (--no-snapshots), then a start that writes its snapshot at shutdown;
//   - a start from that snapshot (the figure; goal: under 3 s at 1,000,000 entries);
//   - a restart after SIGKILL with writes (registrations) under way: the entries after the
//     snapshot are replayed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openDeployment } from '../lib/service/deployment.js';
import { snapshotFile } from '../lib/service/snapshot.js';
import { buildLog } from './build-log.js';
import { generateKeyPair } from '../lib/protocol/ed25519.js';
import { fmt, machine } from './stats.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const CLI = fileURLToPath(new URL('../bin/cli.js', import.meta.url));
const NODE_FLAGS = ['--max-semi-space-size=64', '--max-old-space-size=12288'];

interface Started {
  child: ChildProcess;
  seconds: number;
  peakMiB: number;
  url: string;
  lines: string[];
}

/** Peak resident memory of `pid` so far, in MiB (Linux: VmHWM). */
function peakMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? NaN : Number(m[1]) / 1024;
}

/** Spawns `archive serve` on `dir` and resolves at its "serving" line. */
function serve(dir: string, extra: string[] = []): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, 'serve', '--data', dir, '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`archive serve exited (${code}) before serving: ${lines.join(' | ')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const m = /serving .* at (http:\/\/\S+),/.exec(line);
      if (m !== null) resolve({ child, seconds: (performance.now() - t0) / 1000, peakMiB: peakMiB(child.pid!), url: m[1]!, lines });
    });
  });
}

async function stop(s: Started, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  s.child.removeAllListeners('exit');
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill(signal);
  await exited;
}

/** Registers new agents as fast as one client can for `ms` (each an entry on the log), counting those answered 201 in `landed`. */
async function writesFor(url: string, ms: number, landed: { n: number }): Promise<void> {
  const { constitution } = (await (await fetch(`${url}/v2/record`)).json()) as { constitution: { version: string; hash: string } };
  let n = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const body = { handle: `late-${process.pid}-${n}`, publicKey: generateKeyPair().publicKey, operatorId: `late-lab-${n}`, constitution };
    const r = await fetch(`${url}/v2/agents/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await r.arrayBuffer();
    if (r.status === 201) landed.n++;
    n++;
  }
}

async function main(): Promise<void> {
  console.log(`bench:start on ${machine()}`);
  const kept = process.env.BENCH_LOG_DIR;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'bench-start-'));
  try {
    if (kept === undefined || !existsSync(join(kept, 'db'))) {
      const t0 = performance.now();
      await buildLog(dir, ENTRIES);
      console.log(`built a ${fmt(ENTRIES)}-entry log in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    } else console.log(`reusing the log in ${kept}`);
    rmSync(snapshotFile(dir), { force: true });

    // The floor of reading the store: every entry, as a replay reads them.
    const d = await openDeployment({ dataDir: dir });
    const size = d.log.size;
    const tr = performance.now();
    for (let from = 0; from < size; from += 4096) await d.log.records(from, Math.min(4096, size - from));
    const readStore = (performance.now() - tr) / 1000;
    await d.close();

    const zero = await serve(dir, ['--no-snapshots']);
    await stop(zero);
    const writing = await serve(dir);
    await stop(writing);
    const took = writing.lines.find((l) => l.includes('snapshot at entry')) ?? 'no snapshot line';

    const tf = performance.now();
    const bytes = await readFile(snapshotFile(dir));
    const readSnapshot = (performance.now() - tf) / 1000;

    const fromSnapshot = await serve(dir, ['--register-limit', '1000000']);
    const used = fromSnapshot.lines.find((l) => l.includes('starting from the snapshot')) ?? 'the snapshot was not used';
    // SIGKILL with writes under way, then a restart: no snapshot at shutdown, so the last one is
    // used and the entries written since are replayed.
    const written = { n: 0 };
    const late = writesFor(fromSnapshot.url, 3000, written).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1500));
    await stop(fromSnapshot, 'SIGKILL');
    await late;
    const landed = written.n;
    const afterKill = await serve(dir);
    await stop(afterKill, 'SIGKILL');

    console.log(`\n${fmt(size)} entries; snapshot ${fmt(bytes.length / 2 ** 20)} MiB (${took.replace(/^archive: /, '')})`);
    console.log('| start | seconds | peak RSS MiB |');
    console.log('|---|---|---|');
    console.log(`| floor: reading every entry from the store | ${fmt(readStore, 1)} | |`);
    console.log(`| floor: reading the snapshot file | ${fmt(readSnapshot, 2)} | |`);
    console.log(`| from zero (--no-snapshots) | ${fmt(zero.seconds, 1)} | ${fmt(zero.peakMiB)} |`);
    console.log(`| from zero, then a snapshot at shutdown | ${fmt(writing.seconds, 1)} | ${fmt(writing.peakMiB)} |`);
    console.log(
      `| from the snapshot (${used.replace(/^archive: /, '')}) | ${fmt(fromSnapshot.seconds, 1)} | ${fmt(fromSnapshot.peakMiB)} |`,
    );
    console.log(
      `| restart after SIGKILL mid-write (the same snapshot, then ${fmt(landed)}+ entries written since) | ${fmt(afterKill.seconds, 1)} | ${fmt(afterKill.peakMiB)} |`,
    );
    console.log(
      `ratio from the snapshot / from zero: ${fmt(fromSnapshot.seconds / zero.seconds, 2)} (goal: under 3 s at 1,000,000 entries)`,
    );
  } finally {
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
