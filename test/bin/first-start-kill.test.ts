// A first start killed at any point leaves a data directory that starts (docs/protocol.md,
// "First start"): `archive serve` on a new directory is SIGKILLed after a random delay, many
// times, and each time the next start comes up with the keys its genesis names.
import t from 'tap';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openDeployment } from '../../lib/service/deployment.js';
import { readGenesis } from '../../lib/protocol/genesis.js';
import { loadScreening } from '../../lib/service/screening.js';
import { tempDir } from '../helpers/tmp.js';

const archive = fileURLToPath(new URL('../../../bin/archive', import.meta.url));

/** Runs `archive serve` on `dataDir`; kills it after `killAfter` ms (if given). Resolves with how long it ran and whether it came up. */
function serve(dataDir: string, killAfter?: number): Promise<{ ms: number; served: boolean }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const p = spawn(process.execPath, [archive, 'serve', '--data', dataDir, '--port', '0', '--reserve-mib', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let served = false;
    let err = '';
    p.stderr.on('data', (b) => (err += b));
    createInterface({ input: p.stdout }).on('line', (line) => {
      if (!line.startsWith('archive: serving')) return;
      served = true;
      if (killAfter === undefined) {
        resolve({ ms: Date.now() - started, served });
        p.kill('SIGKILL');
      }
    });
    const timer = killAfter === undefined ? undefined : setTimeout(() => p.kill('SIGKILL'), killAfter);
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`archive serve exited with ${code}: ${err}`));
      else resolve({ ms: Date.now() - started, served });
    });
  });
}

t.test('a first start killed at a random point leaves a directory that starts with the keys its genesis names', async (t) => {
  // Each run spawns a process: allow for a loaded machine.
  t.setTimeout(240_000);
  const root = tempDir(t);
  // How long a first start takes to serve on this machine: kills are spread over it (the first
  // third or so is node loading the code).
  const { ms: full } = await serve(join(root, 'measure'));
  const runs = 30;
  let cut = 0;
  for (let i = 0; i < runs; i++) {
    const dataDir = join(root, `run-${i}`);
    const { served } = await serve(dataDir, Math.floor(full * (0.3 + 0.75 * Math.random())));
    if (!served) cut++;
    // The next start: it must come up, finishing the first start if it was cut short.
    const d = await openDeployment({ dataDir });
    try {
      const g = await readGenesis(d.log);
      t.equal(g.logKey, d.logKeyString, `run ${i}: the genesis names keys/log.key`);
      t.equal(g.operatorKey, d.operatorKeyString, `run ${i}: the genesis names keys/operator.key`);
      t.ok(loadScreening(dataDir).rules.length > 0, `run ${i}: screening.json holds the rules`);
    } finally {
      await d.close();
    }
    t.same(readdirSync(join(dataDir, 'keys')).sort(), ['log.key', 'operator.key'], `run ${i}: no temporary file left`);
  }
  t.comment(`${cut} of ${runs} first starts were killed before they served (a full one takes ${full} ms)`);
  t.ok(cut >= runs / 3, 'most kills fell inside the first start');
});
