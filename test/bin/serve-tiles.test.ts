// `archive serve --tiles-dir`: the service keeps a static tiles copy current as the log grows
// (docs/log-format.md, "A static copy").
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/tmp.js';
import { serveStatic } from '../helpers/static-server.js';
import { fetchTilesLog } from '../../verify/tiles.js';
import { verifyLog } from '../../verify/verify.js';

const run = promisify(execFile);
const archive = fileURLToPath(new URL('../../../bin/archive', import.meta.url));

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.test('serve --tiles-dir keeps the copy current', async (t) => {
  const data = tempDir(t);
  const copy = tempDir(t);
  const p = spawn(
    process.execPath,
    [archive, 'serve', '--data', data, '--port', '0', '--reserve-mib', '1', '--tiles-dir', copy, '--tiles-every', '0.2'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // Its directories are removed after it: wait until it has exited (it writes a snapshot as it closes).
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (p.exitCode !== null || p.signalCode !== null) return resolve();
        p.once('exit', () => resolve());
        p.kill('SIGTERM');
      }),
  );
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: p.stdout }).on('line', (line) => {
      const m = / at (http:\/\/\S+),/.exec(line);
      if (m) resolve(m[1]!);
    }),
  );
  const checkpoint = join(copy, 'v1/log/checkpoint');
  const size = () => (existsSync(checkpoint) ? Number(readFileSync(checkpoint, 'utf8').split('\n')[1]) : 0);
  await until('the first copy', () => size() === 1);
  await run(process.execPath, [archive, 'pair', '--url', url, '--key', join(data, 'keys/operator.key')]);
  await until('the copy to grow', () => size() === 2);
  t.equal(readFileSync(checkpoint, 'utf8'), await (await fetch(`${url}/v1/log/checkpoint`)).text());
  const { log, problems: found } = await fetchTilesLog(await serveStatic(t, copy));
  const report = (await verifyLog(log, { found })).report;
  t.same(report.problems, []);
  t.equal(report.entries, 2);
});
