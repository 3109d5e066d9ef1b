// The directory on disk (README, "Run it"): the command line, the key file, and restarts. The
// state is kept in a snapshot bound to the log's root, written at close and started from; a
// damaged snapshot, or one of another log, is set aside and the log folded from its first entry;
// without one the log is folded too. After each, lookups answer as before.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test, after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { verifyHistory, verifyLookup } from '../src/client.js';
import { openKeyDir } from '../src/keydir.js';
import { call, first, holder, post, rotation, start, tempDir, type Holder } from './helpers.js';

const run = promisify(execFile);
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../src/main.js');

/** Binds n names (each rotated once): 2n entries. */
async function fill(url: string, n: number): Promise<Map<string, Holder>> {
  const now = new Map<string, Holder>();
  for (let i = 0; i < n; i++) {
    const [h1, h2] = [holder(), holder()];
    const name = `user${i}@example.org`;
    const { seq } = (await post(url, first(name, h1))).body;
    assert.equal((await post(url, rotation(name, h2, seq, h1))).status, 201);
    now.set(name, h2);
  }
  return now;
}

/** Every name answers its current key, checked as a client checks it. */
async function answersAll(url: string, vkey: string, keys: Map<string, Holder>): Promise<void> {
  for (const [name, h] of keys) {
    assert.equal(verifyLookup((await call(url, `/keys/${name}`)).body, { vkey, name }).publicKey, h.publicKey, name);
    assert.equal(verifyHistory((await call(url, `/keys/${name}/history`)).body, { vkey, name }).at(-1)!.publicKey, h.publicKey);
  }
}

describe('restarts', async () => {
  const data = tempDir();
  const snapshot = join(data, 'state.snapshot');
  let s = await start(data);
  const vkey = s.dir.vkey;
  const keys = await fill(s.url, 10);
  await s.close();

  test('the snapshot written at close is started from', async () => {
    assert.ok(existsSync(snapshot), 'written at close');
    const header = JSON.parse(readFileSync(snapshot, 'utf8').split('\n')[0]!);
    assert.deepEqual([header.format, header.treeSize], ['keydir-state/1', 20]);
    const said: string[] = [];
    s = await start(data, { say: (l) => said.push(l) });
    assert.equal(s.dir.vkey, vkey, 'the same log key');
    assert.equal(s.dir.replica.startedFrom, 20);
    assert.deepEqual(said, ['starting from the snapshot at entry 20 of 20']);
    await answersAll(s.url, vkey, keys);
    // It goes on: a rotation checked against the state from the snapshot.
    const [name, h] = [...keys][0]!;
    const next = holder();
    assert.equal((await post(s.url, rotation(name, next, 1, h))).status, 201);
    assert.equal((await post(s.url, rotation(name, next, 1, h))).status, 409, 'a replay, refused by the restored state');
    keys.set(name, next);
    await s.close();
  });

  test('a damaged snapshot is set aside, the log folded from its first entry, and a new one written', async () => {
    const bytes = readFileSync(snapshot);
    bytes[bytes.length - 5]! ^= 1;
    writeFileSync(snapshot, bytes);
    const said: string[] = [];
    s = await start(data, { say: (l) => said.push(l) });
    assert.equal(s.dir.replica.startedFrom, 0);
    assert.deepEqual(said, [
      `the snapshot ${snapshot} is not used, its state does not hash to its digest; replaying the log from its first entry`,
    ]);
    await answersAll(s.url, vkey, keys);
    await s.close();
    const again: string[] = [];
    s = await start(data, { say: (l) => again.push(l) });
    assert.deepEqual(again, ['starting from the snapshot at entry 21 of 21'], 'the snapshot written at close replaced it');
    await s.close();
  });

  test('a snapshot of another log is set aside', async () => {
    const other = tempDir();
    const o = await start(other);
    await fill(o.url, 5);
    await o.close();
    copyFileSync(join(other, 'state.snapshot'), snapshot);
    const said: string[] = [];
    s = await start(data, { say: (l) => said.push(l) });
    assert.equal(s.dir.replica.startedFrom, 0);
    assert.match(said[0]!, /is not used, its head \(size 10, root [0-9a-f]{64}\) is not a prefix of this log;/);
    await answersAll(s.url, vkey, keys);
    await s.close();
  });

  test('without a snapshot the log is folded from its first entry', async () => {
    rmSync(snapshot);
    const said: string[] = [];
    s = await start(data, { say: (l) => said.push(l) });
    assert.equal(s.dir.replica.startedFrom, 0);
    assert.deepEqual(said, []);
    await answersAll(s.url, vkey, keys);
    await s.close();
  });

  test('the origin and the key are fixed with the log', async () => {
    await assert.rejects(openKeyDir(data, { origin: 'other.example' }), {
      message: `${data} holds the log of "keydir.localhost", not of "other.example": the origin is fixed when the log is made`,
    });
    const key = join(data, 'log.key');
    const pem = readFileSync(key);
    rmSync(key);
    await assert.rejects(start(data), { message: `${key} is missing, and the log it signs exists: its key cannot be made again` });
    writeFileSync(key, pem, { mode: 0o600 });
  });
});

test('npm start prints the vkey, serves, and writes its snapshot on SIGTERM', async () => {
  const data = tempDir();
  const child = execFile('node', [MAIN, '--data', data, '--port', '0', '--origin', 'keys.example.com']);
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
  assert.match(vkey ?? '', /^keys\.example\.com\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
  const url = /^listening (http:\/\/127\.0\.0\.1:[0-9]+) /m.exec(out)![1]!;
  const h = holder();
  assert.equal((await post(url, first('alice@example.org', h))).status, 201);
  const checked = verifyLookup((await call(url, '/keys/alice@example.org')).body, { vkey: vkey!, name: 'alice@example.org' });
  assert.equal(checked.publicKey, h.publicKey);
  child.kill('SIGTERM');
  assert.equal(await new Promise((resolve) => child.on('exit', resolve)), 0);
  assert.equal(statSync(join(data, 'log.key')).mode & 0o777, 0o600, "the key file is the owner's alone");
  assert.match(readFileSync(join(data, 'log.key'), 'utf8'), /^-----BEGIN PRIVATE KEY-----\n/);
  assert.equal(JSON.parse(readFileSync(join(data, 'state.snapshot'), 'utf8').split('\n')[0]!).treeSize, 1);
  const noData = await run('node', [MAIN, '--port', '0']).catch((e) => e);
  assert.equal(noData.code, 2);
  assert.match(noData.stderr, /--data is required/);
});
