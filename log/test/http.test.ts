// The log's reads over HTTP (log/src/http.ts, docs/engine.md "The log's reads over HTTP"): a real
// Koa server on port 0 over a LevelDB log, with the identity codec and with a codec of its own.
// Every route; the tiles, bundles and proofs checked with the engine's own verify functions;
// every refusal's status and body; the hooks; 'throw' mode; and a main entry that loads no Koa.
import t, { type Test } from 'tap';
import Koa from 'koa';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  LogError,
  decodeBundle,
  ed25519Verify,
  generateLogKey,
  hashLeaf,
  logKeyString,
  logSigner,
  logVerifier,
  openLevelStore,
  openLog,
  openNote,
  parseCheckpoint,
  rootFromLeafHashes,
  verifierKey,
  verifyConsistency,
  verifyHeadSignature,
  verifyInclusion,
  type LeafCodec,
  type Log,
} from '../src/index.js';
import { LogHttpError, logRouter, type LogRouterOptions } from '../src/http.js';
import { bytes, str, toHex } from './helpers/text.js';
import { tempDir } from './helpers/tmp.js';

const ORIGIN = 'test.example/http';

/** A log over LevelDB in a temporary directory, with a new key, closed when the test ends. */
async function openTestLog(t: Test, codec?: LeafCodec): Promise<Log> {
  const store = await openLevelStore(tempDir(t));
  const log = await openLog({ store, signer: logSigner(generateLogKey()), origin: ORIGIN, ...(codec ? { codec } : {}) });
  t.teardown(() => log.close());
  return log;
}

async function appendN(log: Log, from: number, to: number): Promise<void> {
  await Promise.all(Array.from({ length: to - from }, (_, i) => log.append(bytes(`entry ${from + i}`))));
}

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  text: string;
  json: any;
}

/** Serves `app` on a free port of 127.0.0.1 until the test ends; `get` fetches a path. */
async function serve(t: Test, app: Koa): Promise<(path: string) => Promise<Answer>> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (path) => {
    const r = await fetch(url + path);
    const body = Buffer.from(await r.arrayBuffer());
    const text = body.toString('utf8');
    let json: any = undefined;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: a tile, a checkpoint
    }
    return { status: r.status, headers: r.headers, body, text, json };
  };
}

function appOf(log: Log, opts?: LogRouterOptions): Koa {
  const app = new Koa();
  app.use(logRouter(log, opts).routes());
  return app;
}

const leafHashes = (n: number) => Array.from({ length: n }, (_, i) => hashLeaf(bytes(`entry ${i}`)));
const fromHexes = (hex: string[]) => hex.map((h) => Buffer.from(h, 'hex'));

t.test('every route over a LevelDB log of the identity codec', async (t) => {
  const log = await openTestLog(t);
  const get = await serve(t, appOf(log));
  await appendN(log, 0, 100);
  const sth1 = (await get('/v1/log/sth')).json;
  await appendN(log, 100, 300);
  const leaves = leafHashes(300);

  const sth = await get('/v1/log/sth');
  t.equal(sth.status, 200);
  t.equal(sth.headers.get('cache-control'), 'no-cache');
  t.same(sth.json, log.sth());
  t.equal(sth.json.treeSize, 300);
  t.equal(sth.json.rootHash, toHex(rootFromLeafHashes(leaves)), 'the head is the root of the leaves appended');

  const key = await get('/v1/log/key');
  t.same(key.json, { key: logKeyString(log.publicKey), origin: ORIGIN, vkey: verifierKey(ORIGIN, log.publicKey) });
  t.ok(verifyHeadSignature(sth.json, logVerifier(key.json.key)), 'the head verifies with the served key');
  t.ok(verifyHeadSignature(sth1, logVerifier(key.json.vkey)), 'and with the served vkey');

  const cp = await get('/v1/log/checkpoint');
  t.equal(cp.status, 200);
  t.equal(cp.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal(cp.headers.get('cache-control'), 'no-cache');
  const note = openNote(cp.text, key.json.vkey, ed25519Verify);
  t.ok(note.verified, 'the checkpoint is signed by the served vkey');
  const parsed = parseCheckpoint(note.text);
  t.same([parsed.origin, parsed.treeSize, toHex(parsed.rootHash)], [ORIGIN, 300, sth.json.rootHash]);

  // Tiles: level 0 holds the leaf hashes; entry bundles the leaf inputs, here the appended bytes.
  const full = await get('/v1/log/tile/0/000');
  t.equal(full.status, 200);
  t.equal(full.headers.get('content-type'), 'application/octet-stream');
  t.equal(full.headers.get('cache-control'), 'public, max-age=31536000, immutable', 'a full tile never changes');
  t.same(full.body, Buffer.concat(leaves.slice(0, 256)));
  const partial = await get('/v1/log/tile/0/001.p/44');
  t.equal(partial.headers.get('cache-control'), 'public, max-age=5', 'a partial tile is cached briefly');
  t.same(partial.body, Buffer.concat(leaves.slice(256)));
  t.same((await get('/v1/log/tile/0/001.p/3')).body, Buffer.concat(leaves.slice(256, 259)), "an earlier tree's narrower tile");
  const up = await get('/v1/log/tile/1/000.p/1');
  t.same(up.body, Buffer.from(rootFromLeafHashes(leaves.slice(0, 256))), 'level 1: the root of the 256 leaves below');
  const bundle = await get('/v1/log/tile/entries/000');
  t.equal(bundle.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.same(
    decodeBundle(bundle.body).map(str),
    Array.from({ length: 256 }, (_, i) => `entry ${i}`),
  );
  const edge = decodeBundle((await get('/v1/log/tile/entries/001.p/44')).body);
  t.same(
    edge.map((e) => Buffer.from(hashLeaf(e))),
    leaves.slice(256).map((h) => Buffer.from(h)),
    "each bundle entry hashes to the tile's leaf",
  );

  // Proofs, checked with the engine's verify functions at both heads.
  for (const head of [sth1, sth.json]) {
    for (const seq of [0, 1, 99, 150, 255, 256, 299].filter((s) => s < head.treeSize)) {
      const r = await get(`/v1/log/inclusion?seq=${seq}&size=${head.treeSize}`);
      t.same([r.json.seq, r.json.treeSize], [seq, head.treeSize]);
      t.ok(
        verifyInclusion(seq, head.treeSize, leaves[seq]!, fromHexes(r.json.proof), Buffer.from(head.rootHash, 'hex')),
        `inclusion of ${seq} in ${head.treeSize}`,
      );
    }
  }
  t.equal((await get('/v1/log/inclusion?seq=3')).json.treeSize, 300, 'size: the tree size by default');
  const c = await get('/v1/log/consistency?first=100&second=300');
  t.equal(c.headers.get('content-type'), 'application/json; charset=utf-8');
  t.same([c.json.first, c.json.second], [100, 300]);
  t.ok(verifyConsistency(100, 300, fromHexes(c.json.proof), Buffer.from(sth1.rootHash, 'hex'), Buffer.from(sth.json.rootHash, 'hex')));
  t.same((await get('/v1/log/consistency?first=0&second=300')).json.proof, [], 'from the empty tree: no hashes');
  t.same((await get('/v1/log/consistency?first=300&second=300')).json.proof, [], 'equal sizes: no hashes');

  // Entries: by default {seq, data (base64 of the stored bytes), leafHash}.
  const first = (await get('/v1/log/entries')).json;
  t.same([first.treeSize, first.from, first.count, first.next], [300, 0, 100, 100], 'a default page of 100');
  t.same(first.entries[7], { seq: 7, data: Buffer.from('entry 7').toString('base64'), leafHash: toHex(leaves[7]!) });
  const last = (await get('/v1/log/entries?from=250&limit=1000')).json;
  t.same([last.from, last.count, last.next], [250, 50, null], 'the last page has no next');
  t.same(
    last.entries.map((e: any) => Buffer.from(e.data, 'base64').toString()),
    Array.from({ length: 50 }, (_, i) => `entry ${250 + i}`),
  );
  t.same((await get('/v1/log/entries?from=300')).json, { treeSize: 300, from: 300, count: 0, next: null, entries: [] });

  const one = (await get('/v1/log/entries/257')).json;
  t.same(Object.keys(one), ['seq', 'entry', 'inclusion', 'head'], 'no `records` without a describe hook');
  t.same(one.entry, { seq: 257, data: Buffer.from('entry 257').toString('base64'), leafHash: toHex(leaves[257]!) });
  t.same(one.head, log.sth());
  t.ok(verifyInclusion(257, 300, leaves[257]!, fromHexes(one.inclusion.proof), Buffer.from(one.head.rootHash, 'hex')));

  t.same((await get('/v1/log/audit')).json, { intact: true, problem: null, treeSize: 300 });
  t.equal((await get('/v1/log/nothing')).status, 404, 'a path the router has not is left to the application');
});

/** Stores "<seq> <data>"; its leaf input is the leaf hash before it, then the stored bytes. */
const chained: LeafCodec = {
  stored: (data, at) => bytes(`${at.seq} ${str(data)}`),
  leaf: (stored, at) => Buffer.concat([at.prev, stored]),
};

t.test('a codec of its own, under another prefix, with every hook', async (t) => {
  const log = await openTestLog(t, chained);
  let audits = 0;
  let guarded = 0;
  // The audit runs until released, once both requests below have reached it.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const router = logRouter(log, {
    prefix: '/log',
    checkpoint: async () => `${log.checkpoint()}\u2014 witness.example AAAA\n`,
    entryJson: (e) => JSON.stringify({ n: e.seq, text: str(e.bytes), prev: toHex(e.prev) }),
    describe: (e) => ({ words: str(e.bytes).split(' ').length }),
    audit: async () => {
      audits++;
      await released;
      return log.audit(logVerifier(log.publicKey));
    },
    auditGuard: async (ctx, next) => {
      if (++guarded > 2) ctx.throw(429, 'the audit is limited to 2', { headers: { 'Retry-After': '30' } });
      await next();
    },
    page: { max: 5, default: 2 },
  });
  // An application's own route beside the log's, under the same prefix.
  router.get('/extra', (ctx) => {
    ctx.body = { size: log.size };
  });
  const app = new Koa();
  app.use(router.routes());
  const get = await serve(t, app);
  await appendN(log, 0, 20);

  const leaves: Uint8Array[] = [];
  for (let i = 0; i < 20; i++) leaves.push(hashLeaf(Buffer.concat([leaves[i - 1] ?? new Uint8Array(32), bytes(`${i} entry ${i}`)])));
  t.equal((await get('/log/sth')).json.rootHash, toHex(rootFromLeafHashes(leaves)), "the codec's leaves make the tree");
  t.equal((await get('/v1/log/sth')).status, 404, 'nothing under the default prefix');
  t.equal((await get('/log/checkpoint')).text, `${log.checkpoint()}\u2014 witness.example AAAA\n`, "the hook's checkpoint is served");

  const inputs = decodeBundle((await get('/log/tile/entries/000.p/20')).body);
  t.same(inputs[3], Buffer.concat([leaves[2]!, bytes('3 entry 3')]), 'a bundle holds the leaf inputs, not the stored bytes');
  t.same((await get('/log/tile/0/000.p/20')).body, Buffer.concat(inputs.map(hashLeaf)), 'which hash to the tile');

  const page = (await get('/log/entries?from=4')).json;
  t.same(page.entries, [
    { n: 4, text: '4 entry 4', prev: toHex(leaves[3]!) },
    { n: 5, text: '5 entry 5', prev: toHex(leaves[4]!) },
  ]);
  t.equal((await get('/log/entries?limit=6')).status, 400, 'the page is at most its max');
  const one = (await get('/log/entries/9')).json;
  t.same(one.records, { words: 3 }, 'describe: served as `records`');
  t.same(one.entry, { n: 9, text: '9 entry 9', prev: toHex(leaves[8]!) });
  t.ok(verifyInclusion(9, 20, leaves[9]!, fromHexes(one.inclusion.proof), Buffer.from(one.head.rootHash, 'hex')));

  const both = Promise.all([get('/log/audit'), get('/log/audit')]);
  while (guarded < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  release();
  const [a, b] = await both;
  t.same(
    [a.json, b.json],
    [
      { intact: true, problem: null, treeSize: 20 },
      { intact: true, problem: null, treeSize: 20 },
    ],
  );
  t.equal(audits, 1, 'two audits at once share one run');
  const limited = await get('/log/audit');
  t.equal(limited.status, 429, "the guard's refusal");
  t.same(limited.json, { error: 'too_many_requests', detail: 'the audit is limited to 2' });
  t.equal(limited.headers.get('retry-after'), '30');
  t.same((await get('/log/extra')).json, { size: 20 }, "the application's own route");
});

t.test('every refusal: its status and its body {error, detail}', async (t) => {
  const log = await openTestLog(t);
  const reported: unknown[] = [];
  const router = logRouter(log, {
    report: (err) => reported.push(err),
    checkpoint: () => {
      throw new Error('the disk is on fire');
    },
    audit: () => Promise.reject(new LogError('corrupt', 'entry 3 is malformed')),
  });
  const app = new Koa();
  app.use(router.routes());
  const get = await serve(t, app);
  await appendN(log, 0, 10);

  const bad = (detail: string) => [400, { error: 'bad_request', detail }] as const;
  const missing = (detail: string) => [404, { error: 'not_found', detail }] as const;
  const cases: [string, readonly [number, object]][] = [
    ['/v1/log/inclusion', bad('seq: required')],
    ['/v1/log/inclusion?seq=abc', bad('seq: expected an integer at least 0, got "abc"')],
    ['/v1/log/inclusion?seq=-1', bad('seq: expected an integer at least 0, got "-1"')],
    ['/v1/log/inclusion?seq=01', bad('seq: expected an integer at least 0, got "01"')],
    ['/v1/log/inclusion?seq=1e2', bad('seq: expected an integer at least 0, got "1e2"')],
    ['/v1/log/inclusion?seq=+1', bad('seq: expected an integer at least 0, got " 1"')],
    ['/v1/log/inclusion?seq=99999999999999999999', bad('seq: expected an integer at least 0, got "99999999999999999999"')],
    ['/v1/log/inclusion?seq=1&seq=2', bad('seq: given more than once')],
    ['/v1/log/inclusion?seq=1&size=0', bad('size: expected an integer at least 1, got "0"')],
    ['/v1/log/inclusion?seq=5&size=5', bad('seq: 5 is not in a tree of size 5')],
    ['/v1/log/inclusion?seq=10', bad('seq: 10 is not in a tree of size 10')],
    ['/v1/log/inclusion?seq=1&sise=3', bad('sise: unknown parameter (takes seq, size)')],
    ['/v1/log/inclusion?seq=%E0%A4%A', bad('query: malformed percent-encoding in "%E0%A4%A"')],
    ['/v1/log/inclusion?seq=1&size=11', missing('size 11 is beyond the tree size 10')],
    ['/v1/log/consistency?second=3', bad('first: required')],
    ['/v1/log/consistency?first=3', bad('second: required')],
    ['/v1/log/consistency?first=4&second=3', bad('first: 4 is larger than second (3)')],
    ['/v1/log/consistency?first=1&second=0', bad('second: expected an integer at least 1, got "0"')],
    ['/v1/log/consistency?first=1&second=11', missing('second 11 is beyond the tree size 10')],
    ['/v1/log/entries?limit=0', bad('limit: expected an integer from 1 to 1000, got "0"')],
    ['/v1/log/entries?limit=1001', bad('limit: expected an integer from 1 to 1000, got "1001"')],
    ['/v1/log/entries?from=11', bad('from: 11 is beyond the tree size 10')],
    ['/v1/log/entries?form=1', bad('form: unknown parameter (takes from, limit)')],
    ['/v1/log/entries/abc', bad('path: expected a seq (an integer at least 0), got "abc"')],
    ['/v1/log/entries/01', bad('path: expected a seq (an integer at least 0), got "01"')],
    ['/v1/log/entries/10', missing('no entry 10: the tree has 10 entries')],
    ['/v1/log/entries/3?full=1', bad('full: unknown parameter (takes none)')],
    ['/v1/log/sth?x=1', bad('x: unknown parameter (takes none)')],
    ['/v1/log/key?x', bad('x: unknown parameter (takes none)')],
    ['/v1/log/tile/64/000', bad('level: "64" is not a decimal from 0 to 63')],
    ['/v1/log/tile/01/000', bad('level: "01" is not a decimal from 0 to 63')],
    ['/v1/log/tile/0/1', bad('index: "1" must be three digits (as in x001/x234/067)')],
    ['/v1/log/tile/0/x000/001', bad('index: "x000/001" has a leading zero element')],
    ['/v1/log/tile/0/000.p/0', bad('width: "0" is not a decimal from 1 to 255')],
    ['/v1/log/tile/0/000.p/256', bad('width: "256" is not a decimal from 1 to 255')],
    ['/v1/log/tile/entries/12', bad('index: "12" must be three digits (as in x001/x234/067)')],
    ['/v1/log/tile/0/000?x=1', bad('x: unknown parameter (takes none)')],
    ['/v1/log/tile/0/000', missing('tile/0/000: beyond the tree of size 10')],
    ['/v1/log/tile/0/000.p/11', missing('tile/0/000.p/11: beyond the tree of size 10')],
    ['/v1/log/tile/entries/000.p/11', missing('tile/entries/000.p/11: beyond the tree of size 10')],
    ['/v1/log/tile/1/000.p/1', missing('tile/1/000.p/1: beyond the tree of size 10')],
  ];
  for (const [path, [status, body]] of cases) {
    const r = await get(path);
    t.equal(r.status, status, `${path}: ${status}`);
    t.same(r.json, body, `${path}: ${JSON.stringify(body)}`);
    t.match(r.headers.get('content-type'), /^application\/json/);
  }
  t.same(reported, [], 'no refusal is reported as a failure');

  const fire = await get('/v1/log/checkpoint');
  t.equal(fire.status, 500);
  t.same(fire.json, { error: 'internal', detail: 'internal error' }, 'a failure says nothing more');
  const corrupt = await get('/v1/log/audit');
  t.equal(corrupt.status, 500, "a LogError other than bad input or outside the tree is the log's failure");
  t.same(corrupt.json, { error: 'internal', detail: 'internal error' });
  t.same(
    reported.map((e) => (e as Error).message),
    ['the disk is on fire', 'entry 3 is malformed'],
    'each failure is reported',
  );
});

t.test("a guard's refusal keeps its code and its Retry-After", async (t) => {
  const log = await openTestLog(t);
  const app = appOf(log, {
    auditGuard: () => {
      throw Object.assign(new Error('rate_limited: 1 a minute'), {
        status: 429,
        expose: true,
        code: 'rate_limited',
        detail: 'the audit is limited to 1 a minute',
        retryAfter: 42,
      });
    },
  });
  const get = await serve(t, app);
  const r = await get('/v1/log/audit');
  t.equal(r.status, 429);
  t.same(r.json, { error: 'rate_limited', detail: 'the audit is limited to 1 a minute' });
  t.equal(r.headers.get('retry-after'), '42');
});

t.test("'throw': refusals reach the application's error middleware as LogHttpError, anything else as it came", async (t) => {
  const log = await openTestLog(t);
  await appendN(log, 0, 3);
  const fire = new Error('the disk is on fire');
  const guard = Object.assign(new Error('limited'), { status: 429, expose: true });
  const caught: unknown[] = [];
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      caught.push(err);
      ctx.status = 418;
      ctx.body = 'the application answers';
    }
  });
  app.use(
    logRouter(log, {
      errors: 'throw',
      report: () => t.fail('nothing is reported in throw mode'),
      checkpoint: () => {
        throw fire;
      },
      auditGuard: () => {
        throw guard;
      },
    }).routes(),
  );
  const get = await serve(t, app);
  for (const path of ['/v1/log/inclusion?seq=x', '/v1/log/inclusion?seq=1&size=4', '/v1/log/checkpoint', '/v1/log/audit']) {
    const r = await get(path);
    t.same([r.status, r.text], [418, 'the application answers'], path);
  }
  const [bad, beyond, failed, refused] = caught as [LogHttpError, LogHttpError, unknown, unknown];
  t.ok(bad instanceof LogHttpError);
  t.match(bad, { status: 400, code: 'bad_request', detail: 'seq: expected an integer at least 0, got "x"', expose: true });
  t.ok(beyond instanceof LogHttpError);
  t.match(beyond, { status: 404, code: 'not_found', detail: 'size 4 is beyond the tree size 3', expose: true });
  t.ok((beyond.cause as LogError).code === 'out_of_range', "the log's own error is its cause");
  t.equal(failed, fire, 'a failure is thrown as it came');
  t.equal(refused, guard, "and so is a guard's refusal");
});

t.test('the prefix is checked; an empty prefix serves at the root', async (t) => {
  const log = await openTestLog(t);
  for (const prefix of ['/v1/log/', 'v1/log', '/v1//log']) {
    t.throws(() => logRouter(log, { prefix }), TypeError, `prefix ${prefix} refused`);
  }
  const get = await serve(t, appOf(log, { prefix: '' }));
  t.same((await get('/sth')).json, log.sth());
  t.equal((await get('/key')).json.origin, ORIGIN);
});

t.test('the main entry loads no Koa; tlog-engine/http does', async (t) => {
  // A fresh process: the CommonJS modules of Koa and its router it loaded (and what they require).
  const src = (name: string) => JSON.stringify(fileURLToPath(new URL(`../src/${name}`, import.meta.url)));
  const loaded = (name: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createRequire } from 'node:module';
           await import(${src(name)});
           console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache).filter((p) =>
             /[\\\\/](koa[^\\\\/]*|@koa|http-errors|path-to-regexp)[\\\\/]/.test(p))));`,
        ],
        { encoding: 'utf8' },
      ),
    ) as string[];
  t.same(loaded('index.js'), [], 'importing the main entry loads no Koa');
  const http = loaded('http.js');
  t.ok(
    http.some((p) => /[\\/]koa-compose[\\/]/.test(p)),
    `importing the router loads Koa (so the check above can fail): ${http.length} modules`,
  );
});
