// The code of an earlier commit, built in a temporary directory, for a benchmark that measures
// it beside this code in the same run (BENCH_BASELINE): `git archive` of the commit, this
// checkout's node_modules (each package linked, but the engine: a commit that has one gets its
// own, built from its own log/), and its own TypeScript build.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This code's dist directory. */
export const HERE = fileURLToPath(new URL('..', import.meta.url));

/** Where `git archive` reads a baseline from: this checkout, unless BENCH_REPO names another. */
export const REPO = process.env.BENCH_REPO ?? join(HERE, '..');

/** A build of some code: its name and its dist directory (bin/cli.js, lib/, bench/, ...). */
export interface Code {
  name: string;
  dist: string;
}

/** The code of `commit`, built in a temporary directory. */
export function buildBaseline(commit: string): Code {
  const dir = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
  execFileSync('sh', ['-c', `git -C ${JSON.stringify(REPO)} archive ${commit} | tar -x -C ${JSON.stringify(dir)}`]);
  const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
  const engine = existsSync(join(dir, 'log', 'package.json'));
  if (!engine) symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  else {
    // Every package of this checkout but the engine, which is the commit's own.
    mkdirSync(join(dir, 'node_modules'));
    for (const name of readdirSync(join(REPO, 'node_modules')))
      if (name !== 'tlog-engine') symlinkSync(join(REPO, 'node_modules', name), join(dir, 'node_modules', name));
    symlinkSync(join(dir, 'log'), join(dir, 'node_modules', 'tlog-engine'));
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'log', 'node_modules'));
    execFileSync(process.execPath, [tsc, '-p', join(dir, 'log', 'tsconfig.json')], { stdio: 'inherit' });
  }
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { stdio: 'inherit' });
  return { name: commit, dist: join(dir, 'dist') };
}
