// Kill a writing process mid-stream with SIGKILL, reopen, and check that the log is at a
// signed head that includes every acknowledged append, with no partial batch: on LevelDB and on
// PostgreSQL.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openDeployment } from '../../lib/service/deployment.js';
import { startPostgres } from 'tlog-engine/testing';
import { tempDir } from '../helpers/tmp.js';

const child = fileURLToPath(new URL('./crash-child.js', import.meta.url));

/** Runs the child until it has acknowledged `acks` more appends, then kills it; returns the highest ack. */
function runAndKill(dataDir: string, acks: number, storeUrl?: string): Promise<{ opened: number; maxAck: number }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, dataDir, ...(storeUrl === undefined ? [] : [storeUrl])], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let opened = -1;
    let maxAck = -1;
    let seen = 0;
    createInterface({ input: p.stdout }).on('line', (line) => {
      const [word, n] = line.split(' ');
      if (word === 'open') opened = Number(n);
      if (word === 'ack') {
        maxAck = Math.max(maxAck, Number(n));
        if (++seen === acks) p.kill('SIGKILL');
      }
    });
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited with ${code}`));
      else resolve({ opened, maxAck });
    });
  });
}

for (const kind of ['leveldb', 'postgres'] as const) {
  t.test(`${kind}: after SIGKILL mid-stream the log reopens at its last head with every acknowledged entry`, async (t) => {
    const dir = tempDir(t);
    const storeUrl = kind === 'postgres' ? await (await startPostgres(t)).createDatabase() : undefined;
    let expected = 1; // a new log opens with its genesis entry
    for (const acks of [2000, 3500, 5000]) {
      const { opened, maxAck } = await runAndKill(dir, acks, storeUrl);
      t.equal(opened, expected, 'the child opened where the last run left the log');
      const d = await openDeployment({ dataDir: dir, storeUrl });
      try {
        t.ok(d.log.size > maxAck, `reopened at ${d.log.size}, acknowledged up to seq ${maxAck}`);
        const report = await d.audit();
        t.same(report, { intact: true, problem: null, treeSize: d.log.size }, 'audit: intact, no partial batch');
        expected = d.log.size;
      } finally {
        await d.close();
      }
    }
  });
}
