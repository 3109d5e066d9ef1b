// `archive serve` in a child process, as bench:start and bench:ten-million measure it: spawned
// with the flags and environment `archive` gives Node, timed from spawn to its "serving" line (and to any
// later line), its peak resident memory, sequential reads, and a client writing as fast as it can.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { generateKeyPair } from '../lib/protocol/ed25519.js';
import { HERE, type Code } from './baseline.js';
import { quantile } from './stats.js';

/** Node's flags as `bin/archive` passes them, with room in the old generation for ten million entries. */
export const NODE_FLAGS = ['--max-semi-space-size=64', '--max-old-space-size=12288'];
/**
 * The environment `bin/archive` gives Node: glibc's malloc asked for transparent huge pages, before any tunable already set
 * (docs/deploy.md#memory).
 */
export const ARCHIVE_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GLIBC_TUNABLES: `glibc.malloc.hugetlb=1:${process.env.GLIBC_TUNABLES ?? ''}`,
};

export interface Started {
  child: ChildProcess;
  seconds: number;
  peakMiB: number;
  url: string;
  lines: string[];
  /** Resolves with the first line from `from` on (default: any) that matches, and the seconds from spawn to it. */
  line(re: RegExp, from?: number): Promise<{ line: string; seconds: number; at: number }>;
}

/** Peak resident memory of `pid` so far, in MiB (Linux: VmHWM). */
export function peakMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? NaN : Number(m[1]) / 1024;
}

/** CPU milliseconds `pid` has used so far, all its threads (Linux: /proc/<pid>/stat, in 10 ms ticks). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** The services still running, stopped when this process exits (a benchmark that fails leaves none holding its store). */
const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((c) => c.kill('SIGKILL')));

/** Spawns `archive serve` of `code` on `dir` and resolves at its "serving" line. */
export function serve(code: Code, dir: string, extra: string[] = []): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, join(code.dist, 'bin/cli.js'), 'serve', '--data', dir, '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: ARCHIVE_ENV,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const lines: string[] = [];
  const times: number[] = [];
  const waiting: { re: RegExp; from: number; resolve: (l: { line: string; seconds: number; at: number }) => void }[] = [];
  const line = (re: RegExp, from = 0) =>
    new Promise<{ line: string; seconds: number; at: number }>((resolve) => {
      const i = lines.findIndex((l, k) => k >= from && re.test(l));
      if (i >= 0) resolve({ line: lines[i]!, seconds: (times[i]! - t0) / 1000, at: times[i]! });
      else waiting.push({ re, from, resolve });
    });
  return new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`archive serve exited (${c}) before serving: ${lines.join(' | ')}`)));
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const at = performance.now();
      lines.push(l);
      times.push(at);
      for (const w of waiting.filter((w) => w.re.test(l))) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve({ line: l, seconds: (at - t0) / 1000, at });
      }
      const m = /serving .* at (http:\/\/\S+),/.exec(l);
      if (m !== null) resolve({ child, seconds: (at - t0) / 1000, peakMiB: peakMiB(child.pid!), url: m[1]!, lines, line });
    });
  });
}

export async function stop(s: Started, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  running.delete(s.child);
  s.child.removeAllListeners('exit');
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill(signal);
  await exited;
}

/** The record's memory after start, measured in a child process of its own (bench/start-heap.ts). */
export function heapAfterStart(
  code: Code,
  dir: string,
  mode: 'zero' | 'snapshot',
): { seconds: number; heapMiB: number; arrayBuffersMiB: number; rssMiB: number } {
  const out = execFileSync(process.execPath, [...NODE_FLAGS, '--expose-gc', join(HERE, 'bench/start-heap.js'), code.dist, dir, mode], {
    encoding: 'utf8',
    maxBuffer: 2 ** 26,
    env: ARCHIVE_ENV,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { seconds: number; heapMiB: number; arrayBuffersMiB: number; rssMiB: number };
}

/** Times `n` sequential GETs of the paths `pick` gives (after `warm` to warm up), each answered 200; milliseconds. */
export async function timeGets(url: string, n: number, pick: (i: number) => string, warm = 10): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n + warm; i++) {
    const path = pick(i);
    const t0 = performance.now();
    const r = await fetch(`${url}${path}`);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    if (i >= warm) times.push(performance.now() - t0);
  }
  return times;
}

/** Median and p99 of `n` sequential GETs of `path`, in ms (each answered 200). */
export async function reads(url: string, path: string, n: number): Promise<{ median: number; p99: number }> {
  const times = await timeGets(url, n, () => path);
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

/** Registrations sent by this process so far (their handles are named by it and its pid). */
let written = 0;

/**
 * Registers new agents as fast as one client can until `done()` (each an entry on the log),
 * counting those answered 201 in `landed`. The service needs a --register-limit above their number.
 */
export async function writesUntil(url: string, done: () => boolean, landed: { n: number }): Promise<void> {
  const { constitution } = (await (await fetch(`${url}/v2/record`)).json()) as { constitution: { version: string; hash: string } };
  while (!done()) {
    const n = written++;
    const body = {
      handle: `late-${process.pid}-${n}`,
      publicKey: generateKeyPair().publicKey,
      operatorId: `late-lab-${process.pid}-${n}`,
      constitution,
    };
    const r = await fetch(`${url}/v2/agents/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await r.arrayBuffer();
    if (r.status === 201) landed.n++;
  }
}
