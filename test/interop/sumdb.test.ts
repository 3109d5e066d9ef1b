// The Go toolchain's verdict on examples/sumdb: test/interop/sumdb.go is a client on
// golang.org/x/mod/sumdb.Client (Debian's golang-golang-x-mod-dev, installed by
// scripts/go-tlog.sh), nothing of this project. It looks up every record added to the example
// server (built, started as `npm start` starts it) and gets exactly its lines, before and after
// a restart; and it catches, with its security error, a server that serves a changed record
// and one that serves a forked tree (two servers started from copies of one data directory,
// which then diverge).
import t, { type Test } from 'tap';
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);
const MAIN = join(process.cwd(), 'examples/sumdb/dist/src/main.js');

const h1 = (what: string) => `h1:${createHash('sha256').update(what).digest('base64')}`;
/** A record of a module version, its hashes made up from its name and `salt`. */
const record = (path: string, version: string, salt = '') =>
  `${path} ${version} ${h1(`${salt}${path}@${version}`)}\n${path} ${version}/go.mod ${h1(`${salt}${path}@${version}/go.mod`)}\n`;

interface Server {
  url: string;
  vkey: string;
  stop(): Promise<void>;
}

/** The example server on `dir`, as `npm start -- --data dir --port 0` runs it; stopped at teardown. */
async function startServer(t: Test, dir: string): Promise<Server> {
  const p = spawn(process.execPath, [MAIN, '--data', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<void>((resolve) => p.on('exit', () => resolve()));
  const stop = async () => {
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
    await exited;
  };
  t.teardown(stop);
  const { url, vkey } = await new Promise<{ url: string; vkey: string }>((resolve, reject) => {
    let vkey = '';
    createInterface({ input: p.stdout }).on('line', (line) => {
      if (line.startsWith('vkey ')) vkey = line.slice(5);
      const m = /^listening (\S+)/.exec(line);
      if (m) resolve({ url: m[1]!, vkey });
    });
    p.on('exit', (code) => reject(new Error(`the sumdb example exited with ${code}: ${stderr}`)));
  });
  return { url, vkey, stop };
}

async function add(url: string, text: string): Promise<number> {
  const res = await fetch(`${url}/add`, { method: 'POST', body: text });
  const body = (await res.json()) as { id: number };
  if (res.status !== 201) throw new Error(`POST /add: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

/** A record's module@version, as the Go client is asked for it. */
const modVer = (text: string) => text.split(' ').slice(0, 2).join('@');

t.test("Go's sumdb.Client checks the example checksum database", async (t) => {
  t.setTimeout(300_000); // Go compiles the client first
  // No Go, no pass: the script installs it or fails.
  const gopath = (await run('bash', ['scripts/go-tlog.sh'])).stdout.trim();
  const bin = join(tempDir(t), 'sumdb-client');
  await run('go', ['build', '-o', bin, join(process.cwd(), 'test/interop/sumdb.go')], {
    env: { ...process.env, GO111MODULE: 'off', GOPATH: gopath, GOCACHE: tempDir(t), GOFLAGS: '' },
    timeout: 280_000,
  });
  /** Runs the Go client: its exit code, the lines it printed, and what it said on stderr. */
  const lookup = async (s: Server, state: string, texts: string[]) => {
    const r = await run(bin, [s.url, s.vkey, state, ...texts.map(modVer)], { timeout: 60_000 }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  };

  const data = tempDir(t);
  let s = await startServer(t, data);
  t.match(s.vkey, /^sumdb\.localhost\+[0-9a-f]{8}\+\S{44}$/, 'the vkey line');
  // Module versions of each kind Go spells: upper case (escaped in URLs), pre-releases,
  // +incompatible, gopkg.in, major-version paths; then enough for a full tile and a level-1 tile.
  const texts = [
    record('golang.org/x/text', 'v0.3.0'),
    record('github.com/Azure/azure-sdk-for-go', 'v1.2.3-RC.1'),
    record('github.com/BurntSushi/toml', 'v0.3.1'),
    record('example.com/old', 'v3.1.0+incompatible'),
    record('gopkg.in/yaml.v2', 'v2.4.0'),
    record('example.com/m/v2', 'v2.0.0-20200101000000-abcdefabcdef'),
  ];
  for (const text of texts) await add(s.url, text);
  const more = Array.from({ length: 300 }, (_, i) => record(`example.com/Many/m${i}`, `v1.${i}.0`));
  const ids = await Promise.all(more.map((text) => add(s.url, text)));
  ids.forEach((id, i) => (texts[id] = more[i]!));
  t.equal(texts.length, 306);

  const state = tempDir(t);
  const all = await lookup(s, state, texts);
  t.equal(all.code, 0, all.stderr);
  t.equal(all.stdout, texts.join(''), 'every record: exactly its lines, the module and its go.mod');

  // A restart on the same directory: the same tree, grown; the client's tree of before is proved in it.
  await s.stop();
  s = await startServer(t, data);
  const later = [record('example.com/after', 'v0.1.0'), record('example.com/After/v3', 'v3.0.0')];
  for (const text of later) texts[await add(s.url, text)] = text;
  const again = await lookup(s, state, [texts[0]!, texts[300]!, ...later]);
  t.equal(again.code, 0, again.stderr);
  t.equal(again.stdout, [texts[0], texts[300], ...later].join(''), 'after a restart, with the tree the client knew');
  await s.stop();

  // Two servers from copies of one directory, diverging: A adds X, B adds X with other hashes (a
  // changed record: a tree of the same size with another leaf), then Y (a tree forked from A's).
  const [dirA, dirB] = [tempDir(t), tempDir(t)];
  cpSync(data, dirA, { recursive: true });
  cpSync(data, dirB, { recursive: true });
  const [a, b] = [await startServer(t, dirA), await startServer(t, dirB)];
  t.equal(a.vkey, s.vkey, 'one key');
  t.equal(b.vkey, s.vkey);
  const x = record('example.com/x', 'v1.0.0');
  const xChanged = record('example.com/x', 'v1.0.0', 'changed');
  t.equal(await add(a.url, x), 308);
  t.equal(await add(b.url, xChanged), 308);
  const SECURITY = /SECURITY ERROR\ngo\.sum database server misbehavior detected![\s\S]*ErrSecurity: /;

  const seenA = await lookup(a, state, [x]);
  t.equal(seenA.code, 0, seenA.stderr);
  t.equal(seenA.stdout, x);
  // Each alone is a sound log: a client that knows neither takes B's record.
  const fresh = await lookup(b, tempDir(t), [xChanged]);
  t.equal(fresh.code, 0, fresh.stderr);
  t.equal(fresh.stdout, xChanged);

  const changed = await lookup(b, state, [xChanged]);
  t.equal(changed.code, 3, 'a changed record: the security error');
  t.match(changed.stderr, SECURITY);
  t.match(changed.stderr, /old database:\n\tgo\.sum database tree\n\t309\n[\s\S]*new database:\n\tgo\.sum database tree\n\t309\n/);
  t.equal(changed.stdout, '', 'and no line of it');

  const y = record('example.com/y', 'v1.0.0');
  t.equal(await add(b.url, y), 309);
  const stateFork = tempDir(t);
  t.equal((await lookup(a, stateFork, [x])).code, 0);
  const forked = await lookup(b, stateFork, [y]);
  t.equal(forked.code, 3, 'a forked tree: the security error');
  t.match(forked.stderr, SECURITY);
  t.match(forked.stderr, /old database:\n\tgo\.sum database tree\n\t309\n[\s\S]*new database:\n\tgo\.sum database tree\n\t310\n/);
  t.equal(forked.stdout, '');

  // A record changed on the way (a lookup's answer edited, the tree note left alone) is refused
  // too; Go's client says so without calling it a security error.
  const proxy = createServer((req, res) => {
    fetch(`${a.url}${req.url}`).then(
      async (r) => {
        const body = Buffer.from(await r.arrayBuffer());
        const out = req.url!.startsWith('/lookup/') ? Buffer.from(body.toString().replace(/h1:\S+/, h1('edited'))) : body;
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' }).end(out);
      },
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  const edited = await lookup({ ...a, url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }, tempDir(t), [x]);
  t.equal(edited.code, 1);
  t.match(edited.stderr, /example\.com\/x@v1\.0\.0: cannot authenticate record data in server response/);
});
