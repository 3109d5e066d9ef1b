// The code of an earlier commit, built in a temporary directory, for a benchmark that measures
// it beside this code in the same run (BENCH_BASELINE): `git archive` of the commit, installed
// from its own package-lock.json (`npm ci`, its engine workspace included when it has one) and
// built by its own `prepare` script, so it runs exactly the dependencies it was written for.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
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

/** The code of `commit`, installed and built in a temporary directory. */
export function buildBaseline(commit: string): Code {
  const dir = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
  execFileSync('sh', ['-c', `git -C ${JSON.stringify(REPO)} archive ${commit} | tar -x -C ${JSON.stringify(dir)}`]);
  // `npm ci` runs the commit's `prepare`: its build.
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (!existsSync(join(dir, 'dist'))) throw new Error(`${commit}: npm ci built no dist/ (no prepare script?)`);
  return { name: commit, dist: join(dir, 'dist') };
}
