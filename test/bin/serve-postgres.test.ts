// `archive serve --store postgres://…` (and ARCHIVE_STORE): the log in a PostgreSQL database,
// the keys in the data directory; the log is there after a restart, and a store that is not a
// PostgreSQL URL stops the start, naming it.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgres } from 'tlog-engine/testing';
import { tempDir } from '../helpers/tmp.js';

const archive = fileURLToPath(new URL('../../../bin/archive', import.meta.url));
const server = await startPostgres(t);

/** Starts `archive serve` with `args` and `env`; resolves with its URL once it serves, and a stop. */
function serve(args: string[], env: Record<string, string> = {}): Promise<{ url: string; line: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [archive, 'serve', '--port', '0', '--reserve-mib', '1', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let err = '';
    p.stderr.on('data', (b) => (err += b));
    const exited = new Promise<void>((done) => p.once('exit', () => done()));
    createInterface({ input: p.stdout }).on('line', (line) => {
      const m = / at (http:\/\/\S+),/.exec(line);
      if (m === null) return;
      resolve({
        url: m[1]!,
        line,
        stop: async () => {
          p.kill('SIGTERM');
          await exited;
        },
      });
    });
    p.on('error', reject);
    p.on('exit', (code) => reject(new Error(`archive serve exited with ${code}: ${err}`)));
  });
}

async function headRow(url: string): Promise<number | undefined> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ tree_size: string }>('SELECT tree_size FROM log_head');
    return rows[0] === undefined ? undefined : Number(rows[0].tree_size);
  } finally {
    await c.end();
  }
}

t.test('serve --store postgres://… keeps the log in the database and the keys under --data', async (t) => {
  const db = await server.createDatabase();
  const dataDir = join(tempDir(t), 'data');
  const first = await serve(['--data', dataDir, '--store', db]);
  t.match(first.line, `log in ${db}`);
  const sth = (await (await fetch(`${first.url}/v1/log/sth`)).json()) as { treeSize: number; rootHash: string };
  t.equal(sth.treeSize, 1, 'the genesis entry');
  await first.stop();
  t.equal(await headRow(db), 1, 'the head row is in the database');
  t.notOk(existsSync(join(dataDir, 'db')), 'no LevelDB under --data');
  t.same(readdirSync(join(dataDir, 'keys')).sort(), ['log.key', 'operator.key']);

  // ARCHIVE_STORE names the same database: the same log, not a new genesis.
  const again = await serve(['--data', dataDir], { ARCHIVE_STORE: db });
  const sth2 = (await (await fetch(`${again.url}/v1/log/sth`)).json()) as { treeSize: number; rootHash: string };
  t.equal(sth2.treeSize, 1);
  t.equal(sth2.rootHash, sth.rootHash);
  const audit = (await (await fetch(`${again.url}/v1/log/audit`)).json()) as { intact: boolean };
  t.equal(audit.intact, true, 'the log audits intact');
  await again.stop();
});

t.test('serve --store with something else than a PostgreSQL URL stops, naming it', async (t) => {
  const dataDir = join(tempDir(t), 'data');
  await t.rejects(serve(['--data', dataDir, '--store', 'mysql://x@localhost/db']), /expected a PostgreSQL URL/);
});
