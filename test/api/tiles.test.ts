// The log as C2SP tlog-tiles (docs/log-format.md, "Tiles"): hash tiles and entry bundles at
// several tree sizes, byte for byte; their caching; 404 beyond the tree and 400 for bad paths;
// the note verifier key.
import t from 'tap';
import { createHash, verify as edVerify, createPublicKey } from 'node:crypto';
import { decodeBundle, fromHex, openNote, rootFromLeafHashes, toHex, verifierKey } from 'tlog-engine';
import { startService, type TestService } from '../helpers/service.js';
import { appendPairings } from '../helpers/agents.js';

async function bytes(s: TestService, path: string) {
  const r = await fetch(s.url + path);
  return {
    status: r.status,
    cache: r.headers.get('cache-control'),
    type: r.headers.get('content-type'),
    body: Buffer.from(await r.arrayBuffer()),
  };
}

async function entries(s: TestService): Promise<any[]> {
  const out: any[] = [];
  for (let from = 0; ;) {
    const page = (await s.get(`/v1/log/entries?from=${from}&limit=1000`)).body;
    out.push(...page.entries);
    if (page.next === null) return out;
    from = page.next;
  }
}

const leafHash = (input: Buffer) =>
  createHash('sha256')
    .update(Buffer.concat([Buffer.of(0), input]))
    .digest();

t.test('hash tiles and entry bundles are what tlog-tiles defines, at several sizes', async (t) => {
  const s = await startService(t);
  for (const target of [1, 40, 256, 300]) {
    await appendPairings(s, target - s.d.log.size, s.d.log.size);
    const size = s.d.log.size;
    t.equal(size, target);
    const served = await entries(s);
    const leaves = served.map((e) => fromHex(e.entryHash, 32));
    const full = Math.floor(size / 256);
    const rest = size % 256;
    for (let n = 0; n < full; n++) {
      const tile = await bytes(s, `/v1/log/tile/0/${String(n).padStart(3, '0')}`);
      t.equal(tile.status, 200);
      t.equal(tile.cache, 'public, max-age=31536000, immutable', 'a full tile is immutable');
      t.equal(tile.type, 'application/octet-stream');
      t.same(tile.body, Buffer.concat(leaves.slice(n * 256, n * 256 + 256)), `full level-0 tile ${n} at size ${size}`);
    }
    if (rest > 0) {
      const tile = await bytes(s, `/v1/log/tile/0/${String(full).padStart(3, '0')}.p/${rest}`);
      t.equal(tile.status, 200);
      t.equal(tile.cache, 'public, max-age=5', 'a partial tile is cached briefly');
      t.same(tile.body, Buffer.concat(leaves.slice(full * 256)), `partial level-0 tile at size ${size}`);
      // A narrower partial tile of an earlier checkpoint is still served: a prefix.
      const narrow = await bytes(s, `/v1/log/tile/0/${String(full).padStart(3, '0')}.p/1`);
      t.same(narrow.body, leaves[full * 256], 'width 1');
      const bundle = await bytes(s, `/v1/log/tile/entries/${String(full).padStart(3, '0')}.p/${rest}`);
      t.equal(bundle.status, 200);
      const inputs = decodeBundle(bundle.body);
      t.equal(inputs.length, rest);
      inputs.forEach((input, i) => {
        const e = served[full * 256 + i];
        t.same(leafHash(Buffer.from(input)), Buffer.from(leaves[full * 256 + i]!), `entry ${e.seq} hashes to its leaf`);
        t.same(JSON.parse(Buffer.from(input).toString()), {
          payloadHash: e.payloadHash,
          prevHash: e.prevHash,
          seq: e.seq,
          ts: e.ts,
          type: e.type,
        });
      });
      t.equal(bundle.body.readUInt16BE(0), inputs[0]!.length, 'a big-endian uint16 length prefix');
      const payloads = await bytes(s, `/v1/log/payloads/${String(full).padStart(3, '0')}.p/${rest}`);
      const lines = payloads.body
        .toString()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      t.same(lines, served.slice(full * 256), 'payload bundles are the entries as /v1/log/entries serves them');
    }
    if (full > 0) {
      const bundle = await bytes(s, '/v1/log/tile/entries/000');
      t.equal(bundle.cache, 'public, max-age=31536000, immutable');
      t.equal(decodeBundle(bundle.body).length, 256);
      // Level 1: one hash per full level-0 tile, the root of its 256 leaves.
      const up = await bytes(s, `/v1/log/tile/1/000.p/${full}`);
      t.equal(up.status, 200);
      t.same(up.body, Buffer.from(rootFromLeafHashes(leaves.slice(0, 256))), 'level-1 tile: the root of the full tile below');
    }
    // What the tree does not hold yet is 404.
    const beyond = await bytes(s, `/v1/log/tile/0/${String(full).padStart(3, '0')}.p/${rest + 1}`);
    t.equal(beyond.status, 404);
    t.match(JSON.parse(beyond.body.toString()), { error: 'not_found', detail: /beyond the tree/ });
  }
  t.equal((await bytes(s, '/v1/log/tile/0/001')).status, 404, 'a full tile not yet complete');
  t.equal((await bytes(s, '/v1/log/tile/1/000')).status, 404);
  t.equal((await bytes(s, '/v1/log/tile/entries/001')).status, 404);
  t.equal((await bytes(s, '/v1/log/payloads/001')).status, 404);
});

t.test('bad tile paths are 400 naming the part', async (t) => {
  const s = await startService(t);
  const cases: [string, RegExp][] = [
    ['/v1/log/tile/64/000', /^level/],
    ['/v1/log/tile/01/000', /^level/],
    ['/v1/log/tile/a/000', /^level/],
    ['/v1/log/tile/0/1', /^index/],
    ['/v1/log/tile/0/x000/001', /^index/],
    ['/v1/log/tile/0/001/002', /^index/],
    ['/v1/log/tile/0/000.p/0', /^width/],
    ['/v1/log/tile/0/000.p/256', /^width/],
    ['/v1/log/tile/0/000.p/07', /^width/],
    ['/v1/log/tile/entries/12', /^index/],
    ['/v1/log/payloads/000.p/x', /^width/],
  ];
  for (const [path, detail] of cases) {
    const r = await s.get(path);
    t.equal(r.status, 400, path);
    t.match(r.body, { error: 'bad_request', detail }, path);
  }
  t.equal((await s.get('/v1/log/tile/0/000.p/1')).status, 200, 'the genesis alone');
  t.equal((await s.get('/v1/log/tile/0/x001/000.p/1')).status, 404, 'index 1000 in the x001/000 form is parsed');
});

t.test('the note verifier key is published and verifies the checkpoint', async (t) => {
  const s = await startService(t);
  const index = (await s.get('/')).body;
  const key = (await s.get('/v1/log/key')).body;
  t.equal(index.vkey, key.vkey);
  const raw = Buffer.from(key.key, 'base64url').subarray(12);
  t.equal(key.vkey, verifierKey(key.origin, raw));
  t.match(key.vkey, new RegExp(`^${key.origin.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\+[0-9a-f]{8}\\+[A-Za-z0-9+/]{44}$`));
  const spki = createPublicKey({ key: Buffer.from(key.key, 'base64url'), format: 'der', type: 'spki' });
  const note = openNote((await s.get('/v1/log/checkpoint')).text, key.vkey, (_raw, msg, sig) => edVerify(null, msg, spki, sig));
  t.ok(note.verified);
  t.equal(toHex(Buffer.from(note.text.split('\n')[2]!, 'base64')), (await s.get('/v1/log/sth')).body.rootHash);
});
