// The checksum database's HTTP contract (README.md): a real server on port 0 over a real
// LevelDB in a temporary directory. Records are added and refused (nothing written), served
// by lookup, in tiles and in the signed tree note exactly as golang.org/x/mod/sumdb's server
// serves them, and kept across a restart. Hashes and roots are recomputed here with node:crypto,
// not taken from the engine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, test } from 'node:test';
import { openSumDB, type SumDB } from '../src/db.js';
import { sumdbServer } from '../src/server.js';

const run = promisify(execFile);
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../src/main.js');

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sumdb-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const sha256 = (...parts: (string | Uint8Array)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const h1 = (what: string) => `h1:${sha256(what).toString('base64')}`;

/** A record of a module version, its hashes made up from its name. */
function record(path: string, version: string, salt = ''): string {
  return `${path} ${version} ${h1(`${salt}${path}@${version}`)}\n${path} ${version}/go.mod ${h1(`${salt}${path}@${version}/go.mod`)}\n`;
}

/** RFC 6962: the leaf hash of a record's text, and the root of a list of leaf hashes. */
const leafHash = (text: string) => sha256(Buffer.of(0), text);
function root(leaves: Buffer[]): Buffer {
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Buffer.of(1), root(leaves.slice(0, k)), root(leaves.slice(k)));
}

interface Running {
  db: SumDB;
  url: string;
  close(): Promise<void>;
}

async function start(dir: string, name?: string): Promise<Running> {
  const db = await openSumDB(dir, name === undefined ? {} : { name });
  const server = sumdbServer(db);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await db.close();
  };
  after(close);
  return { db, url, close };
}

async function add(url: string, text: string | Uint8Array) {
  const res = await fetch(`${url}/add`, { method: 'POST', body: text });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function get(url: string, path: string) {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Checks a signed tree note with its vkey, as Go's note.Open does, and gives its tree. */
function openTreeNote(note: string, vkey: string): { size: number; root: Buffer } {
  // The base64 key may itself hold '+': the name and ID end at the first two.
  const [, name, id, key] = /^([^+]+)\+([^+]+)\+(.*)$/.exec(vkey) as unknown as [string, string, string, string];
  const raw = Buffer.from(key, 'base64');
  assert.equal(raw[0], 1, 'an Ed25519 key');
  assert.equal(sha256(name, '\n', raw).subarray(0, 4).toString('hex'), id, 'the key ID is SHA-256(name \\n key)[:4]');
  const m = /^(go\.sum database tree\n(0|[1-9][0-9]*)\n([A-Za-z0-9+/]{43}=)\n)\n— (\S+) (\S+)\n$/.exec(note);
  assert.ok(m, `a tree note: ${JSON.stringify(note)}`);
  const [, text, size, rootB64, signer, sig] = m as unknown as string[];
  assert.equal(signer, name);
  const blob = Buffer.from(sig!, 'base64');
  assert.equal(blob.subarray(0, 4).toString('hex'), id);
  const publicKey = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw.subarray(1)]),
    format: 'der',
    type: 'spki',
  });
  assert.ok(verify(null, Buffer.from(text!), publicKey, blob.subarray(4)), 'the note signature verifies');
  return { size: Number(size), root: Buffer.from(rootB64!, 'base64') };
}

describe('the command line', () => {
  test('npm start prints the vkey line, makes the key file once, and keeps its name', async () => {
    const dir = tempDir();
    const child = execFile('node', [MAIN, '--data', dir, '--port', '0', '--name', 'sum.example.com']);
    after(() => child.kill('SIGKILL'));
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (d: Buffer) => {
        text += d.toString();
        if (/listening /.test(text)) resolve(text);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
    });
    const vkey = /^vkey (\S+)$/m.exec(out)?.[1];
    assert.match(vkey ?? '', /^sum\.example\.com\+[0-9a-f]{8}\+[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]$/);
    const url = /^listening (http:\/\/127\.0\.0\.1:[0-9]+) /m.exec(out)?.[1];
    const latest = await get(url!, '/latest');
    assert.equal(latest.status, 200);
    assert.deepEqual(openTreeNote(latest.bytes.toString(), vkey!), { size: 0, root: sha256('') });
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));

    const keyFile = join(dir, 'note.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, "the key file is the owner's alone");
    assert.match(
      readFileSync(keyFile, 'utf8'),
      new RegExp(`^PRIVATE\\+KEY\\+sum\\.example\\.com\\+${vkey!.split('+')[1]}\\+[A-Za-z0-9+/]{44}\\n$`),
    );
    const other = await run('node', [MAIN, '--data', dir, '--port', '0', '--name', 'other.example']).catch((e) => e);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /note\.key is the key of "sum\.example\.com", not of "other\.example"/);
    const noData = await run('node', [MAIN, '--port', '0']).catch((e) => e);
    assert.equal(noData.code, 2);
    assert.match(noData.stderr, /--data is required/);
  });
});

describe('the HTTP contract', async () => {
  const dir = tempDir();
  const s = await start(dir);
  const vkey = s.db.key.vkey;
  const texts: string[] = [];

  test('POST /add appends a record as one leaf: 201 {id}, and the signed tree holds it', async () => {
    const text = record('golang.org/x/text', 'v0.3.0');
    const r = await add(s.url, text);
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, { id: 0 });
    assert.equal(r.headers.get('location'), '/lookup/golang.org/x/text@v0.3.0');
    texts.push(text);
    const latest = await get(s.url, '/latest');
    assert.equal(latest.type, 'text/plain; charset=UTF-8');
    assert.deepEqual(openTreeNote(latest.bytes.toString(), vkey), { size: 1, root: leafHash(text) });
  });

  test('GET /lookup answers "<id>\\n<record>\\n" and the signed tree note; upper case is escaped with "!"', async () => {
    const upper = record('github.com/Azure/azure-sdk-for-go', 'v1.2.3-RC.1');
    assert.deepEqual((await add(s.url, upper)).body, { id: 1 });
    texts.push(upper);
    const latest = (await get(s.url, '/latest')).bytes.toString();
    const a = await get(s.url, '/lookup/golang.org/x/text@v0.3.0');
    assert.equal(a.status, 200);
    assert.equal(a.type, 'text/plain; charset=UTF-8');
    assert.equal(a.bytes.toString(), `0\n${texts[0]}\n${latest}`);
    const b = await get(s.url, '/lookup/github.com/!azure/azure-sdk-for-go@v1.2.3-!r!c.1');
    assert.equal(b.bytes.toString(), `1\n${upper}\n${latest}`);
    assert.deepEqual(openTreeNote(latest, vkey), { size: 2, root: root(texts.map(leafHash)) });
  });

  test('lookups it cannot answer: 400 for a malformed path, 404 for a module version it does not hold', async () => {
    const cases: [string, number, string][] = [
      ['/lookup/golang.org/x/text', 400, 'invalid module@version syntax\n'],
      ['/lookup/golang.org/x/text@latest', 400, 'invalid module@version syntax\n'],
      ['/lookup/github.com/Azure/azure-sdk-for-go@v1.2.3', 400, 'invalid escaped module path "github.com/Azure/azure-sdk-for-go"\n'],
      ['/lookup/nodot/x@v1.0.0', 400, 'invalid escaped module path "nodot/x": missing dot in first path element\n'],
      ['/lookup/golang.org/x/text@v0.3.1', 404, 'not found: golang.org/x/text@v0.3.1\n'],
      ['/lookup/github.com/azure/azure-sdk-for-go@v1.2.3-!r!c.1', 404, 'not found: github.com/azure/azure-sdk-for-go@v1.2.3-RC.1\n'],
      ['/nothing', 404, '404 page not found\n'],
    ];
    for (const [path, status, body] of cases) {
      const r = await get(s.url, path);
      assert.equal(r.status, status, path);
      assert.equal(r.bytes.toString(), body, path);
    }
  });

  test('409 for a module version it holds, whatever its hashes; nothing is written', async () => {
    const r = await add(s.url, record('golang.org/x/text', 'v0.3.0', 'other hashes'));
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, { error: 'exists', detail: 'golang.org/x/text v0.3.0 is record 0', id: 0 });
    assert.equal(s.db.log.size, 2);
  });

  test('400 {error, detail} for a malformed record, naming what is wrong; nothing is written', async () => {
    const good = record('example.com/m', 'v1.0.0');
    const [l1, l2] = good.split('\n') as [string, string];
    const cases: [string | Uint8Array, RegExp][] = [
      ['', /the body is empty/],
      [l1 + '\n', /expected 2 lines/],
      [`${l1}\n${l2}`, /must end with a newline/],
      [`${l1}\r\n${l2}\r\n`, /control character/],
      [`${l1}\n${l2}\n${l2}\n`, /expected 2 lines/],
      [Buffer.from([0xff, 0x0a]), /not UTF-8/],
      [`${l2}\n${l1}\n`, /line 1: the version must end in ""|line 1: expected the module's hash/],
      [`${l1}\n${l1}\n`, /line 2: the version must end in "\/go.mod"/],
      [record('example.com/m', 'v1.0.0').replace('v1.0.0/go.mod', 'v1.0.1/go.mod'), /line 2: names another module version/],
      [record('Example.com/m', 'v1.0.0'), /line 1: Example.com\/m: invalid char "E" in first path element/],
      [record('example/m', 'v1.0.0'), /line 1: example\/m: missing dot in first path element/],
      [record('example.com/m', 'v1.0'), /line 1: example.com\/m: version "v1.0" is not a canonical semantic version/],
      [record('example.com/m', 'v1.0.0+build'), /not a canonical semantic version/],
      [record('example.com/m', 'v2.0.0'), /should be v0 or v1, not v2/],
      [record('example.com/m/v2', 'v1.0.0'), /should be v2, not v1/],
      [record('example.com/m/v1', 'v1.0.0'), /invalid version/],
      [record('example.com/m', 'v1.0.0+incompatible'), /\+incompatible needs v2 or later/],
      [`${l1.replace(/h1:\S+/, 'h1:abc=')}\n${l2}\n`, /line 1: the hash must be "h1:" and the standard padded base64 of 32 bytes/],
      [`${l1.replace(/ h1:/, '  h1:')}\n${l2}\n`, /line 1: expected "<module> <version> h1:<hash>", three fields/],
    ];
    for (const [body, detail] of cases) {
      const r = await add(s.url, body);
      assert.equal(r.status, 400, JSON.stringify(body.toString()));
      assert.equal(r.body.error, 'bad_record');
      assert.match(String(r.body.detail), /^record: /);
      assert.match(String(r.body.detail), detail, JSON.stringify(body.toString()));
    }
    const big = await add(s.url, 'x'.repeat(5000));
    assert.equal(big.status, 413);
    assert.equal(big.body.error, 'too_large');
    const wrongMethod = await fetch(`${s.url}/add`);
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
    assert.equal(((await wrongMethod.json()) as { error: string }).error, 'method_not_allowed');
    assert.equal(s.db.log.size, 2);
    // Versions Go accepts are taken: +incompatible past v1, gopkg.in's .vN, a /vN path.
    for (const [path, version] of [
      ['example.com/old', 'v3.1.0+incompatible'],
      ['gopkg.in/yaml.v2', 'v2.4.0'],
      ['example.com/m/v2', 'v2.0.0-20200101000000-abcdefabcdef'],
    ] as const) {
      const text = record(path, version);
      const r = await add(s.url, text);
      assert.equal(r.status, 201, `${path} ${version}: ${JSON.stringify(r.body)}`);
      texts.push(text);
    }
  });

  test('tiles: hash tiles of 32-byte hashes and data tiles of records, as Go paths name them', async () => {
    // Past one full tile: records 5..299, added at once (they commit in batches).
    const more = Array.from({ length: 300 - texts.length }, (_, i) => record(`example.com/many${i}`, 'v1.0.0'));
    const ids = await Promise.all(more.map((t) => add(s.url, t)));
    assert.deepEqual(
      ids.map((r) => r.body.id).sort((a, b) => Number(a) - Number(b)),
      more.map((_, i) => texts.length + i),
    );
    // The order the records got is the order of their ids.
    const byId: string[] = [...texts];
    ids.forEach((r, i) => (byId[Number(r.body.id)] = more[i]!));
    texts.splice(0, texts.length, ...byId);
    const leaves = texts.map(leafHash);

    const full = await get(s.url, '/tile/8/0/000');
    assert.equal(full.status, 200);
    assert.equal(full.type, 'application/octet-stream');
    assert.deepEqual(full.bytes, Buffer.concat(leaves.slice(0, 256)));
    const partial = await get(s.url, '/tile/8/0/001.p/44');
    assert.deepEqual(partial.bytes, Buffer.concat(leaves.slice(256, 300)));
    const shorter = await get(s.url, '/tile/8/0/001.p/3');
    assert.deepEqual(shorter.bytes, Buffer.concat(leaves.slice(256, 259)), 'a narrower tile of a tree that has grown');
    const level1 = await get(s.url, '/tile/8/1/000.p/1');
    assert.deepEqual(level1.bytes, root(leaves.slice(0, 256)), 'level 1: the root of each 256 leaves');

    const data = await get(s.url, '/tile/8/data/001.p/44');
    assert.equal(data.type, 'text/plain; charset=UTF-8');
    assert.equal(
      data.bytes.toString(),
      texts
        .slice(256)
        .map((t, i) => `${256 + i}\n${t}\n`)
        .join(''),
    );
    const data0 = await get(s.url, '/tile/8/data/000');
    assert.equal(
      data0.bytes.toString(),
      texts
        .slice(0, 256)
        .map((t, i) => `${i}\n${t}\n`)
        .join(''),
    );

    const latest = (await get(s.url, '/latest')).bytes.toString();
    assert.deepEqual(openTreeNote(latest, vkey), { size: 300, root: root(leaves) });

    const refused: [string, number][] = [
      ['/tile/8/0/001', 404], // not full yet
      ['/tile/8/0/001.p/45', 404],
      ['/tile/8/data/002.p/1', 404],
      ['/tile/8/1/000', 404],
      ['/tile/4/0/000', 404], // height 4: a valid path this database does not serve
      ['/tile/8/0/1', 400],
      ['/tile/8/0/000.p/256', 400],
      ['/tile/8/0/000.p/0', 400],
      ['/tile/8/x/000', 400],
      ['/tile/8/0/x000/001', 400], // a leading zero element
      ['/tile/31/0/000', 400],
      ['/tile/8/0', 400],
    ];
    for (const [path, status] of refused) {
      const r = await get(s.url, path);
      assert.equal(r.status, status, path);
      assert.equal(r.type, 'text/plain; charset=utf-8', path);
    }
    assert.equal((await get(s.url, '/tile/8/0/x000/001')).bytes.toString(), 'invalid tile syntax\n');
  });

  test('after a restart on the same directory: the same key, records, tree and lookups; ids go on', async () => {
    const before = (await get(s.url, '/latest')).bytes.toString();
    await s.close();
    const again = await start(dir);
    assert.equal(again.db.key.vkey, vkey);
    assert.equal((await get(again.url, '/latest')).bytes.toString().split('\n\n')[0], before.split('\n\n')[0]);
    const a = await get(again.url, '/lookup/github.com/!azure/azure-sdk-for-go@v1.2.3-!r!c.1');
    assert.equal(a.bytes.toString().split('\n\n')[0], `1\n${texts[1]!.slice(0, -1)}`);
    assert.equal((await add(again.url, texts[0]!)).status, 409);
    const next = record('example.com/after', 'v0.1.0');
    assert.deepEqual((await add(again.url, next)).body, { id: 300 });
    const latest = (await get(again.url, '/latest')).bytes.toString();
    assert.deepEqual(openTreeNote(latest, vkey), { size: 301, root: root([...texts, next].map(leafHash)) });
  });
});
