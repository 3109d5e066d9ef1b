// Runs the real `bin/archive` as a child process, as a user would from a clone.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from './fixtures.js';

const run = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/archive ...args`; resolves with the exit code and both streams (never rejects on a non-zero exit). */
export async function archive(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(projectRoot, 'bin', 'archive'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs `archive` once for each of `argsList`, `width` at a time; the runs in the order given. */
export async function archiveEach(argsList: string[][], width = 4): Promise<CliRun[]> {
  const out: CliRun[] = new Array(argsList.length);
  let next = 0;
  const lane = async () => {
    while (next < argsList.length) {
      const i = next++;
      out[i] = await archive(argsList[i]!);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return out;
}
