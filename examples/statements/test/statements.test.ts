// The statement log end to end (README): a real server on port 0 over a real LevelDB, real
// Ed25519 signatures. Statements are posted, refused when bad (nothing written), served with
// the checkpoint, entries and proofs, checked by the log's own verifier (which catches tampered
// copies), and kept across a restart; a log that cannot write answers 503 and recovers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateLogKey, logSigner, MemoryStore, openLog, rawPublicKey, verifierKey, type Checkpoint } from 'tlog-engine';
import { canonicalize } from '../src/canonical.js';
import { openStatementLog, statementServer, type StatementLog } from '../src/server.js';
import {
  consistencyHolds,
  fetchStatementLog,
  inclusionHolds,
  openCheckpoint,
  verifyStatementLog,
  type StatementLogCopy,
} from '../src/verify.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../src/main.js');

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'statements-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Holder {
  privateKey: KeyObject;
  publicKey: string;
}

function holder(): Holder {
  const privateKey = generateLogKey(); // an Ed25519 key, as any other
  return { privateKey, publicKey: Buffer.from(rawPublicKey(privateKey)).toString('base64url') };
}

/** A statement signed by `h`: its signature over the UTF-8 bytes of the statement's canonical JSON. */
const signed = (h: Holder, statement: unknown) => ({
  statement,
  publicKey: h.publicKey,
  signature: sign(null, Buffer.from(canonicalize(statement)), h.privateKey).toString('base64url'),
});

async function serve(s: StatementLog): Promise<{ url: string; close(): Promise<void> }> {
  const server = statementServer(s);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await s.close();
  };
  after(close);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers of every shape
}

async function call(url: string, path: string, init: { method?: string; body?: unknown; raw?: string } = {}): Promise<Answer> {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const res = await fetch(`${url}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), body });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (res.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(text) : text,
  };
}

const post = (url: string, body: unknown) => call(url, '/statements', { body });
const treeSize = async (url: string) => Number((await call(url, '/v1/log/checkpoint')).body.split('\n')[1]);

/** The copy with entry `seq`'s data replaced by `text`, its leaf hash recomputed as a forger would. */
function forged(copy: StatementLogCopy, seq: number, text: string): StatementLogCopy {
  const data = Buffer.from(text);
  const leafHash = createHash('sha256').update(Buffer.of(0)).update(data).digest('hex');
  return { ...copy, entries: copy.entries.map((e) => (e.seq === seq ? { ...e, data: data.toString('base64'), leafHash } : e)) };
}

describe('a log of signed statements', async () => {
  const dir = tempDir();
  let s = await openStatementLog(dir);
  let running = await serve(s);
  const vkey = s.vkey;
  const [alice, bob] = [holder(), holder()];
  let early: Checkpoint;

  test('POST /statements: 201 with the entry, once durable; the leaf is the canonical JSON of the write', async () => {
    const bodies = [signed(alice, { claim: 'the sky is blue', n: 1e21 }), signed(bob, ['any', 'json', 1]), signed(alice, 'plain text')];
    const answers = [];
    for (const body of bodies) {
      const r = await post(running.url, body);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      answers.push(r.body);
    }
    assert.deepEqual(
      answers.map((a) => [a.seq, a.treeSize]),
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
    );
    assert.deepEqual(Object.keys(answers[0]).sort(), ['leafHash', 'seq', 'time', 'treeSize']);
    const leaf =
      `{"publicKey":"${alice.publicKey}","signature":"${bodies[0]!.signature}","statement":{"claim":"the sky is ` + `blue","n":1e+21}}`;
    assert.equal(answers[0].leafHash, createHash('sha256').update(Buffer.of(0)).update(leaf).digest('hex'), 'SHA-256(0x00 || leaf)');
    const page = await call(running.url, '/v1/log/entries?from=0&limit=1');
    assert.deepEqual(page.body, {
      treeSize: 3,
      from: 0,
      count: 1,
      next: 1,
      entries: [{ seq: 0, data: Buffer.from(leaf).toString('base64'), leafHash: answers[0].leafHash }],
    });
    early = openCheckpoint((await call(running.url, '/v1/log/checkpoint')).body, vkey)!;
    assert.equal(early.treeSize, 3);
  });

  test('refusals: 4xx {error, detail} naming the member, and nothing written', async () => {
    const good = signed(alice, { n: 1 });
    const deep = signed(alice, 1);
    let nested: unknown = 1;
    for (let i = 0; i < 40; i++) nested = [nested];
    const cases: [string, { body?: unknown; raw?: string }, number, string, RegExp][] = [
      ['not JSON', { raw: '{' }, 400, 'bad_request', /^body: not JSON$/],
      ['not an object', { body: [good] }, 400, 'bad_request', /^body: expected a JSON object/],
      ['no statement', { body: { ...good, statement: undefined } }, 400, 'bad_request', /^statement: required/],
      ['a null statement', { body: { ...good, statement: null } }, 400, 'bad_request', /^statement: required, any JSON value but null$/],
      ['a statement nested too deep', { body: { ...deep, statement: nested } }, 400, 'bad_request', /^statement: nested deeper than 32$/],
      ['a bad key', { body: { ...good, publicKey: 'nope' } }, 400, 'bad_request', /^publicKey: expected a 32-byte Ed25519 key/],
      ['no key', { body: { ...good, publicKey: undefined } }, 400, 'bad_request', /^publicKey: required, a string$/],
      ['a signature of another type', { body: { ...good, signature: 7 } }, 400, 'bad_request', /^signature: required, a string$/],
      [
        'a short signature',
        { body: { ...good, signature: good.signature.slice(2) } },
        400,
        'bad_request',
        /^signature: expected a 64-byte/,
      ],
      ['an unknown member', { body: { ...good, extra: 1 } }, 400, 'bad_request', /^extra: unexpected member$/],
      ['another statement', { body: { ...good, statement: { n: 2 } } }, 401, 'unauthorized', /^signature: does not verify/],
      ['another key', { body: { ...good, publicKey: bob.publicKey } }, 401, 'unauthorized', /^signature: does not verify/],
      ['too large', { body: signed(alice, 'x'.repeat(17_000)) }, 413, 'too_large', /^body: at most 16384 bytes$/],
    ];
    for (const [what, init, status, error, detail] of cases) {
      const r = await call(running.url, '/statements', init.raw !== undefined ? { raw: init.raw } : { body: init.body });
      assert.equal(r.status, status, what);
      assert.equal(r.body.error, error, what);
      assert.match(r.body.detail, detail, what);
    }
    const get = await call(running.url, '/statements');
    assert.deepEqual([get.status, get.body.error, get.headers.get('allow')], [405, 'method_not_allowed', 'POST']);
    const none = await call(running.url, '/nothing');
    assert.deepEqual([none.status, none.body], [404, { error: 'not_found', detail: 'path: no route /nothing' }]);
    assert.equal(await treeSize(running.url), 3, 'no refused statement is on the log');
  });

  test('the log reads: the key, proofs, and their refusals', async () => {
    assert.equal((await post(running.url, signed(bob, { last: true }))).status, 201);
    const key = await call(running.url, '/v1/log/key');
    assert.deepEqual([key.body.origin, key.body.vkey], ['statements.localhost', vkey]);
    // The engine's router answers the reads, and refuses bad ones with {error, detail} naming the parameter.
    const reads: [string, number, string, RegExp][] = [
      ['/v1/log/inclusion?seq=4&size=4', 400, 'bad_request', /^seq: /],
      ['/v1/log/inclusion?seq=0&size=5', 404, 'not_found', /./],
      ['/v1/log/inclusion?size=2', 400, 'bad_request', /^seq: required$/],
      ['/v1/log/inclusion?seq=01', 400, 'bad_request', /^seq: /],
      ['/v1/log/inclusion?seq=0&at=1', 400, 'bad_request', /^at: /],
      ['/v1/log/consistency?first=3&second=2', 400, 'bad_request', /^first: /],
      ['/v1/log/entries?limit=0', 400, 'bad_request', /^limit: /],
      ['/v1/log/nothing', 404, 'not_found', /^path: no route \/v1\/log\/nothing$/],
    ];
    for (const [path, status, error, detail] of reads) {
      const r = await call(running.url, path);
      assert.deepEqual([r.status, r.body.error], [status, error], path);
      assert.match(r.body.detail, detail, path);
    }
    const copy = await fetchStatementLog(running.url);
    const cp = openCheckpoint(copy.checkpoint, vkey)!;
    assert.match(copy.checkpoint, /^statements\.localhost\n4\n/);
    for (const e of copy.entries) {
      const p = await call(running.url, `/v1/log/inclusion?seq=${e.seq}&size=${cp.treeSize}`);
      assert.deepEqual([p.body.seq, p.body.treeSize], [e.seq, 4]);
      assert.ok(inclusionHolds(e, cp, p.body.proof), `entry ${e.seq} is included in the checkpoint's tree`);
      assert.ok(!inclusionHolds(copy.entries[(e.seq + 1) % 4]!, cp, p.body.proof), 'and the proof of one entry does not include another');
    }
    const c = await call(running.url, `/v1/log/consistency?first=${early.treeSize}&second=${cp.treeSize}`);
    assert.ok(consistencyHolds(early, cp, c.body.proof), 'the earlier checkpoint is a prefix of the later one');
    assert.ok(!consistencyHolds(early, cp, []), 'and an empty proof does not show it');
  });

  test("the log's own verifier finds it intact and catches tampered copies", async () => {
    const copy = await fetchStatementLog(running.url);
    assert.equal(copy.entries.length, 4);
    assert.equal(verifyStatementLog(copy, vkey), null);
    const text = (seq: number) => Buffer.from(copy.entries[seq]!.data, 'base64').toString('utf8');
    const edited = {
      ...copy,
      entries: copy.entries.map((e) => (e.seq === 1 ? { ...e, data: Buffer.from(text(1).replace('any', 'other')).toString('base64') } : e)),
    };
    const cases: [string, StatementLogCopy, { seq: number | null; detail: string | RegExp }][] = [
      ['an edited entry', edited, { seq: 1, detail: 'leafHash does not recompute from data' }],
      [
        'a statement changed under its signature',
        forged(copy, 1, text(1).replace('any', 'other')),
        { seq: 1, detail: /^signature: does not verify/ },
      ],
      [
        'a validly signed statement swapped in',
        forged(copy, 3, canonicalize(signed(alice, { last: false }))),
        { seq: null, detail: "the checkpoint's root is not the root of the entries" },
      ],
      [
        'an entry spelled otherwise',
        forged(copy, 2, text(2).replace(':', ': ')),
        { seq: 2, detail: 'the entry is not the canonical JSON of its statement' },
      ],
      ['an entry that is not JSON', forged(copy, 0, 'hello'), { seq: 0, detail: 'the entry is not JSON text' }],
      [
        'an entry left out',
        { ...copy, entries: copy.entries.slice(0, 3) },
        { seq: null, detail: "the checkpoint's tree has 4 entries, the copy 3" },
      ],
      [
        'entries reordered',
        { ...copy, entries: [copy.entries[1]!, copy.entries[0]!, ...copy.entries.slice(2)] },
        { seq: 0, detail: 'entry served as seq 1' },
      ],
      [
        'the checkpoint edited',
        { ...copy, checkpoint: copy.checkpoint.replace('\n4\n', '\n3\n') },
        { seq: null, detail: 'the checkpoint is not signed by the log key' },
      ],
    ];
    for (const [what, tampered, want] of cases) {
      const problem = verifyStatementLog(tampered, vkey);
      assert.equal(problem?.seq, want.seq, what);
      if (typeof want.detail === 'string') assert.equal(problem?.detail, want.detail, what);
      else assert.match(problem?.detail ?? '', want.detail, what);
    }
    const otherKey = verifierKey('statements.localhost', new Uint8Array(32).fill(7));
    assert.deepEqual(
      verifyStatementLog(copy, otherKey),
      { seq: null, detail: 'the checkpoint is not signed by the log key' },
      'another vkey',
    );
  });

  test('the same log after a restart, and it goes on', async () => {
    const before = (await call(running.url, '/v1/log/checkpoint')).body;
    await running.close();
    s = await openStatementLog(dir);
    running = await serve(s);
    assert.equal(s.vkey, vkey);
    assert.equal((await call(running.url, '/v1/log/checkpoint')).body, before, 'reopened at its last checkpoint');
    assert.equal((await post(running.url, signed(alice, { after: 'restart' }))).body.seq, 4);
    assert.equal(verifyStatementLog(await fetchStatementLog(running.url), vkey), null);
    await assert.rejects(openStatementLog(tempDir(), { origin: 'bad origin' }), /note key name/);
  });
});

test('a log that cannot write: 503, nothing logged, and the next write recovers', async () => {
  const store = new MemoryStore();
  const log = await openLog({ store, signer: logSigner(generateLogKey()), origin: 'statements.test' });
  const { url } = await serve({ log, vkey: verifierKey(log.keyName, log.publicKey), close: () => log.close() });
  const h = holder();
  assert.equal((await post(url, signed(h, 1))).status, 201);
  store.injectFault('before-write');
  const failed = await post(url, signed(h, 2));
  assert.deepEqual([failed.status, failed.body.error], [503, 'unavailable']);
  assert.match(failed.body.detail, /^the log cannot write now, nothing was logged/);
  const again = await post(url, signed(h, 3));
  assert.deepEqual([again.status, again.body.seq], [201, 1], 'in the place of the write that failed');
});

test('npm start prints the vkey and serves the log', async () => {
  const data = tempDir();
  const child = execFile('node', [MAIN, '--data', data, '--port', '0']);
  after(() => child.kill('SIGKILL'));
  const out = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      if (/listening /.test(text)) resolve(text);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
  });
  const vkey = /^vkey (\S+)$/m.exec(out)![1]!;
  assert.match(vkey, /^statements\.localhost\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
  const url = /^listening (http:\/\/127\.0\.0\.1:[0-9]+) /m.exec(out)![1]!;
  assert.equal((await post(url, signed(holder(), 'hello'))).status, 201);
  assert.equal(verifyStatementLog(await fetchStatementLog(url), vkey), null);
  child.kill('SIGTERM');
  assert.equal(await new Promise((resolve) => child.on('exit', resolve)), 0);
});
