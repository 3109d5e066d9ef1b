// A real full disk (docs/record.md, "A full or failing store"): the service runs on a small
// tmpfs, writers fill it (507), the process is killed and started again on the full disk (it
// serves reads and answers writes 507), then the disk grows and writes resume without a
// restart. Needs `mount -t tmpfs` (root): skipped, saying so, where mount is refused.
import t from 'tap';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { currentConstitution } from '../../lib/protocol/constitution.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { tempDir } from '../helpers/tmp.js';

const archive = fileURLToPath(new URL('../../../bin/archive', import.meta.url));

function mount(dir: string, size: string, remount = false): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', remount ? `remount,size=${size}` : `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim();
  }
}

/** Starts `archive serve`; resolves with its URL and every stderr line so far (kept up to date). */
function serve(dataDir: string): Promise<{ p: ChildProcess; url: string; err: string[] }> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [archive, 'serve', '--data', dataDir, '--port', '0', '--reserve-mib', '8', '--min-free-mib', '1', '--register-limit', '100000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const err: string[] = [];
    createInterface({ input: p.stderr! }).on('line', (l) => err.push(l));
    createInterface({ input: p.stdout! }).on('line', (l) => {
      const m = / at (http:\/\/\S+), data in /.exec(l);
      if (m !== null) resolve({ p, url: m[1]!, err });
    });
    p.on('exit', (code) => reject(new Error(`archive serve exited with ${code}: ${err.join('\n')}`)));
  });
}

async function register(url: string, handle: string): Promise<{ status: number; body: any }> {
  const body = {
    handle,
    publicKey: generateKeyPair().publicKey,
    constitution: { version: currentConstitution().version, hash: currentConstitution().hash },
  };
  const r = await fetch(`${url}/v2/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

/** Writes `file` until the disk is full. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

const killed = (p: ChildProcess) =>
  new Promise<void>((resolve) => {
    p.removeAllListeners('exit');
    p.on('exit', () => resolve());
    p.kill('SIGKILL');
  });

// The disk: 16 MiB, of which the reserve keeps 8 (LevelDB, opening, turns its write-ahead log
// into a table: the reserve must hold what that log can hold).
const mnt = tempDir(t, 'archive-tmpfs-');
const refused = mount(mnt, '16m');
if (refused === null) t.teardown(() => execFileSync('umount', ['-l', mnt]));
const skip =
  refused === null
    ? false
    : `mount -t tmpfs is not permitted here (${refused}); test/api/full-disk.test.ts covers the same with injected ENOSPC`;

t.test('a real full disk: writers get 507, a restart on it serves reads, writes resume when it grows', { skip }, async (t) => {
  t.setTimeout(120_000);
  const dataDir = join(mnt, 'data');
  mkdirSync(dataDir);

  let s = await serve(dataDir);
  // Something else takes the disk but for 1 MiB, which the writers then fill.
  const filler = join(mnt, 'filler');
  fill(filler);
  truncateSync(filler, statSync(filler).size - 2 ** 20);
  const acked: string[] = [];
  let full: { status: number; body: any } | null = null;
  for (let i = 0; i < 5000 && full === null; i++) {
    const r = await register(s.url, `w${i}`);
    if (r.status === 201) acked.push(`w${i}`);
    else full = r;
  }
  t.ok(full !== null, `the disk filled after ${acked.length} registrations`);
  t.equal(full!.status, 507, JSON.stringify(full!.body));
  t.equal(full!.body.error, 'insufficient_storage');
  t.match(full!.body.detail, /the store is full/);
  const sth = (await (await fetch(`${s.url}/v1/log/sth`)).json()) as { treeSize: number };
  t.equal(sth.treeSize, 1 + acked.length, 'the head is the last acknowledged write');
  t.equal(s.err.filter((l) => l.startsWith('archive: writes are off')).length, 1, 'one line when writes went off');

  await killed(s.p);
  s = await serve(dataDir);
  const again = (await (await fetch(`${s.url}/v1/log/sth`)).json()) as { treeSize: number };
  t.equal(again.treeSize, sth.treeSize, 'every acknowledged write survived');
  t.equal((await fetch(`${s.url}/v1/log/inclusion?seq=${again.treeSize - 1}`)).status, 200, 'proofs are served');
  t.equal((await fetch(`${s.url}/v2/record`)).status, 200, 'the record is served');
  t.equal((await register(s.url, 'late')).status, 507, 'writes are refused');
  t.match(s.err.join('\n'), /archive: writes are off: the store is full/, 'the restart said why writes are off');
  t.match(
    s.err.join('\n'),
    /did not open \(.*no space left on device.*\); deleted .*reserve to free space/i,
    'the store opened on its reserve',
  );

  t.equal(mount(mnt, '64m', true), null, 'the disk grows');
  let resumed: { status: number; body: any } = { status: 0, body: null };
  for (let i = 0; i < 60 && resumed.status !== 201; i++) {
    await new Promise((r) => setTimeout(r, 250));
    resumed = await register(s.url, `after${i}`);
  }
  t.equal(resumed.status, 201, 'writes resume without a restart');
  const last = (await (await fetch(`${s.url}/v1/log/sth`)).json()) as { treeSize: number };
  t.equal(last.treeSize, again.treeSize + 1, 'the log went on from the last acknowledged head');
  t.ok(
    s.err.some((l) => l.startsWith('archive: writes are on again')),
    'one line when writes came back',
  );
  await killed(s.p);
});
