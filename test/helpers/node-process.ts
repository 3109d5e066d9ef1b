// `archive serve` as a real child process, one node of many on a PostgreSQL database
// (docs/deploy.md), for tests and benchmarks that kill, pause and resume nodes.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from './fixtures.js';

export interface NodeProcess {
  id: string;
  url: string;
  child: ChildProcess;
  /** Every line it printed on stdout and stderr, in order. */
  lines: string[];
  /** Resolves with the exit code (null after a signal) once it exited. */
  exited: Promise<number | null>;
  /** The next line matching `re` printed from now on (or already printed, from `since`). */
  line(re: RegExp, ms?: number, since?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

export interface NodeOptions {
  /** The database; none: a LevelDB node alone under its data directory. */
  storeUrl?: string;
  dataDir: string;
  id: string;
  /** Copy the deployment's keys from this data directory first. */
  keysFrom?: string;
  args?: string[];
  /** Node's own options, before the script (say --cpu-prof). */
  nodeArgs?: string[];
  /** The checkout whose `bin/archive` runs (default: this one; a benchmark's baseline, bench/baseline.ts). */
  root?: string;
}

/** Starts `archive serve` (with `--store …` when given) and resolves once it serves. */
export async function startNodeProcess(opts: NodeOptions): Promise<NodeProcess> {
  if (opts.keysFrom !== undefined && !existsSync(join(opts.dataDir, 'keys'))) {
    mkdirSync(opts.dataDir, { recursive: true });
    cpSync(join(opts.keysFrom, 'keys'), join(opts.dataDir, 'keys'), { recursive: true });
  }
  const child = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      join(opts.root ?? projectRoot, 'bin', 'archive'),
      'serve',
      '--port',
      '0',
      '--data',
      opts.dataDir,
      ...(opts.storeUrl === undefined ? [] : ['--store', opts.storeUrl, '--node-id', opts.id]),
      '--reserve-mib',
      '1',
      ...(opts.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  const watchers: { re: RegExp; resolve(m: RegExpExecArray): void }[] = [];
  const onLine = (l: string) => {
    lines.push(l);
    for (const w of [...watchers]) {
      const m = w.re.exec(l);
      if (m !== null) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = (re: RegExp, ms = 30_000, since = lines.length): Promise<RegExpExecArray> => {
    for (const l of lines.slice(since)) {
      const m = re.exec(l);
      if (m !== null) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`node ${opts.id}: no line ${re} in ${ms} ms:\n${lines.join('\n')}`)), ms);
      watchers.push({
        re,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`node ${opts.id} exited:\n${lines.join('\n')}`));
      });
    });
  };
  const serving = await line(/^archive: serving .* at (http:\/\/\S+),/);
  return {
    id: opts.id,
    url: serving[1]!,
    child,
    lines,
    exited,
    line,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
