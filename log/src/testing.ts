// `tlog-engine/testing` (docs/engine.md, "Testing on PostgreSQL"): a throw-away log key, and a
// real PostgreSQL server for tests and benchmarks: Debian's binaries (scripts/postgres.sh finds
// them, or installs them as root), a cluster made by initdb in a temporary directory, on a free
// loopback port; no system service. As root, the server runs as `postgres` (it refuses root).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { LogSigner, LogVerifier } from './head.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/postgres.sh', import.meta.url));

export interface PgServer {
  /** The URL of database `db` on this server. */
  url(db?: string): string;
  /** A new, empty database; its URL. */
  createDatabase(): Promise<string>;
  /** Kills the server at once (SIGKILL): no shutdown, as in a crash. */
  kill(): Promise<void>;
  /** Starts the server again on the same data and port. */
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  remove(): Promise<void>;
}

let binDir: string | undefined;

/** Where initdb and postgres are; installs them first if they are missing. */
function pgBin(): string {
  binDir ??= execFileSync('bash', [SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  return binDir;
}

/** The uid and gid to run the server as: `postgres` when this process is root, else this process's own. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a new server; `t.teardown` removes it. */
export async function startPostgres(t?: { teardown(fn: () => unknown): void }): Promise<PgServer> {
  const bin = pgBin();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'tlog-pg-'));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...user,
  });
  let port = 0;
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let dbs = 0;

  const url = (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`;

  async function ready(): Promise<boolean> {
    for (let i = 0; i < 300; i++) {
      if (child === null || child.exitCode !== null || child.signalCode !== null) return false;
      const c = new pg.Client({ connectionString: url() });
      try {
        await c.connect();
        await c.end();
        return true;
      } catch {
        await c.end().catch(() => undefined);
        await sleep(100);
      }
    }
    return false;
  }

  async function start(): Promise<void> {
    // A port taken meanwhile by someone else, or the shared memory of a killed server not yet
    // released: try again, on a new port only for a new server.
    for (let attempt = 0; attempt < 5; attempt++) {
      if (port === 0 || attempt > 2) port = await freePort();
      const p = spawn(
        join(bin, 'postgres'),
        [
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          dir,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'max_connections=40',
          '-c',
          'shared_buffers=32MB',
          '-c',
          `log_destination=stderr`,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], ...user },
      );
      child = p;
      const log: Buffer[] = [];
      p.stderr!.on('data', (b: Buffer) => log.push(b));
      exited = new Promise((resolve) => p.once('exit', () => resolve()));
      if (await ready()) return;
      p.kill('SIGKILL');
      await exited;
      child = null;
      if (attempt === 4) throw new Error(`PostgreSQL did not start in ${dir}:\n${Buffer.concat(log).toString()}`);
      await sleep(300);
    }
  }

  async function kill(): Promise<void> {
    const p = child;
    child = null;
    if (p === null) return;
    p.kill('SIGKILL');
    await exited;
  }

  async function stop(): Promise<void> {
    const p = child;
    child = null;
    if (p === null) return;
    p.kill('SIGINT'); // fast shutdown
    const timer = setTimeout(() => p.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  // The server and its directory must not outlive a process that ends without its teardown.
  const onExit = () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);

  async function remove(): Promise<void> {
    process.off('exit', onExit);
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  t?.teardown(remove);

  return {
    url,
    async createDatabase() {
      const name = `t${++dbs}`;
      const c = new pg.Client({ connectionString: url() });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    kill,
    start,
    remove,
  };
}

/** A throw-away log key for tests: its signer and a verifier of its signatures. */
export function testSigner(): { signer: LogSigner; verify: LogVerifier } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return {
    signer: { publicKey: raw, sign: (m) => sign(null, m, privateKey) },
    verify: (m, s) => verify(null, m, publicKey, s),
  };
}
