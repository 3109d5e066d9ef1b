// `archive` run as a command (its own line `#!/usr/bin/env -S …`, as `npm start`, `npx archive` and a
// linked `archive` run it) starts Node with its memory settings (docs/deploy.md#memory): glibc's
// malloc asked for transparent huge pages, before any tunable of the caller's, which so wins. Read
// from the running process: its arguments, and how much of its memory lies in huge pages.
import t from 'tap';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

/** Whether this machine's kernel gives transparent huge pages to memory that asks for them. */
const thp = (() => {
  try {
    return /\[(madvise|always)\]/.test(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'));
  } catch {
    return false;
  }
})();

/** `bin/archive serve` on a new directory, run as a command with `env`, once it serves: its arguments, and its memory in huge pages. */
function started(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ cmdline: string[]; hugeKiB: number }> {
  return new Promise((resolve, reject) => {
    const p = spawn(join(projectRoot, 'bin', 'archive'), ['serve', '--data', dataDir, '--port', '0', '--reserve-mib', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let err = '';
    let stopping = false;
    p.stderr.on('data', (b) => (err += b));
    p.on('error', reject);
    p.on('exit', (code) => {
      if (!stopping) reject(new Error(`archive serve exited with ${code} before serving: ${err}`));
    });
    createInterface({ input: p.stdout }).on('line', (line) => {
      if (!line.startsWith('archive: serving')) return;
      // env(1) replaced itself with node: the same process.
      const cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
      const hugeKiB = Number(/AnonHugePages:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.pid}/smaps_rollup`, 'utf8'))?.[1]);
      stopping = true;
      p.once('exit', () => resolve({ cmdline, hugeKiB }));
      p.kill('SIGTERM');
    });
  });
}

t.test(
  'archive starts node with huge pages for malloc and its young generation',
  { skip: !thp && 'no transparent huge pages here' },
  async (t) => {
    t.setTimeout(60_000);
    const root = tempDir(t);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

    const plain = await started(join(root, 'a'), env);
    t.match(plain.cmdline[0], /node$/, 'the process is node');
    t.ok(plain.cmdline.includes('--max-semi-space-size=64'), 'semi-spaces of 64 MiB');
    t.ok(plain.hugeKiB > 0, `${plain.hugeKiB} KiB of its memory in huge pages`);

    // A tunable of the caller's comes after the command's: one that turns huge pages off wins.
    const off = await started(join(root, 'b'), { ...env, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' });
    t.equal(off.hugeKiB, 0, 'none with glibc.malloc.hugetlb=0 in the environment');

    const scripts = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    t.equal(scripts.start, 'bin/archive serve', 'npm start runs the command, not node on its file');
  },
);
