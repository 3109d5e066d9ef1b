// One verification for bench:verify (bench/verify.ts), in a process of its own: the export read and
// verified with the code of the dist directory given (this checkout's, or a baseline's built by the
// parent), as `archive verify --file` does, with the CPU time of every thread and of the main thread.
// Then, when a head of an earlier size is given, the incremental run (`archive verify --state`): the
// entries up to that head verified and their replay saved, loaded again, and the whole export
// verified from it. Prints one JSON line: the figures.
//
//   node dist/bench/verify-run.js <dist> <export> [<head of an earlier size, as JSON>]
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SignedTreeHead } from 'tlog-engine';
import type { LogCopy } from '../verify/source.js';
import type { Verification, VerifyOptions } from '../verify/verify.js';
import type { Resume } from '../verify/saved-state.js';
import type { State } from '../lib/record/fold/index.js';
import type { Subtree } from 'tlog-engine';

interface Code {
  readExport: (path: string) => Promise<LogCopy>;
  verifyLog: (log: LogCopy, opts?: VerifyOptions) => Promise<Verification>;
  saveReplay: (file: string, state: State, range: Subtree[], lastEntryHash: string) => void;
  // Synchronous in the code before the replay was read a piece at a time: awaited either way.
  loadReplay: (file: string) => Resume | { problem: string } | null | Promise<Resume | { problem: string } | null>;
}

export interface RunFigures {
  entries: number;
  ok: boolean;
  problems: string[];
  /** Wall seconds: reading the export, then verifying it. */
  readS: number;
  verifyS: number;
  /** CPU seconds of every thread of the process, and of its main thread, over reading and verifying. */
  cpuS: number;
  mainS: number;
  /** What verifyLog reports of its parts (wall time of the replay, worker time of hashing and signatures). */
  replayS: number;
  hashS: number;
  signatureS: number;
  incremental?: { at: number; ok: boolean; loadS: number; verifyS: number; cpuS: number; saveS: number; savedMiB: number };
}

/** CPU seconds of this process's main thread so far (Linux: /proc/self/task/<pid>/stat), or NaN elsewhere. */
function mainThreadCpu(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function load(dist: string): Promise<Code> {
  const at = (file: string) => pathToFileURL(join(dist, file)).href;
  const source = await import(at('verify/source.js'));
  const verify = await import(at('verify/verify.js'));
  const saved = await import(at('verify/saved-state.js'));
  return { readExport: source.readExport, verifyLog: verify.verifyLog, saveReplay: saved.saveReplay, loadReplay: saved.loadReplay };
}

async function main(): Promise<void> {
  const [dist, path, headFile] = process.argv.slice(2);
  if (dist === undefined || path === undefined) throw new Error('usage: verify-run.js <dist> <export> [<head>]');
  const code = await load(dist);
  const t0 = performance.now();
  const cpu0 = cpuNow();
  const main0 = mainThreadCpu();
  const log = await code.readExport(path);
  const readS = (performance.now() - t0) / 1000;
  const v = await code.verifyLog(log);
  const figures: RunFigures = {
    entries: v.report.entries,
    ok: v.report.ok,
    problems: v.report.problems.map((p) => `${p.kind} ${p.seq}: ${p.detail}`),
    readS,
    verifyS: v.timings.totalMs / 1000,
    cpuS: cpuNow() - cpu0,
    mainS: mainThreadCpu() - main0,
    replayS: v.timings.replayMs / 1000,
    hashS: v.timings.hashMs / 1000,
    signatureS: v.timings.signatureMs / 1000,
  };
  if (headFile !== undefined) {
    const head = JSON.parse(readFileSync(headFile, 'utf8')) as SignedTreeHead;
    const at = head.treeSize;
    const earlier = await code.verifyLog({ ...log, sth: head, entries: log.entries.slice(0, at), lines: log.lines?.slice(0, at) });
    if (!earlier.report.ok) throw new Error(`the first ${at} entries do not verify: ${JSON.stringify(earlier.report.problems)}`);
    const dir = mkdtempSync(join(tmpdir(), 'archive-bench-verify-replay-'));
    try {
      const file = join(dir, 'verified.json.replay');
      const ts = performance.now();
      code.saveReplay(file, earlier.state, earlier.range, log.entries[at - 1]!.entryHash);
      const saveS = (performance.now() - ts) / 1000;
      const c0 = cpuNow();
      const tl = performance.now();
      const resume = await code.loadReplay(file);
      if (resume === null || 'problem' in resume) throw new Error(`the replay does not load: ${JSON.stringify(resume)}`);
      const loadS = (performance.now() - tl) / 1000;
      const again = await code.verifyLog(log, { resume });
      figures.incremental = {
        at,
        ok: again.report.ok,
        loadS,
        verifyS: again.timings.totalMs / 1000,
        cpuS: cpuNow() - c0,
        saveS,
        savedMiB: statSync(file).size / 2 ** 20,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

await main();
