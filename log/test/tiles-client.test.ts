// The client side against a real served log (docs/engine.md, "The client side"): the tiles
// client reads a log of 300 entries from its tiles, served live and by a static mirror that
// writeMirror wrote (a second run writes only what changed), and finds a tampered tile, a
// tampered entry, a checkpoint of another key; proofs fetched from the log are checked.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  LogClient,
  checkpointProblem,
  consistent,
  hashLeaf,
  headSigned,
  included,
  readTiles,
  toHex,
  writeMirror,
  type Log,
} from '../src/index.js';
import { logKey, memoryLog, serveLog, serveStatic } from './helpers/serve-log.js';
import { bytes, str } from './helpers/text.js';
import { tempDir } from './helpers/tmp.js';

const ORIGIN = 'test.example/tiles';
const PREFIX = '/v1/log';

async function appendN(log: Log, n: number, from = 0): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => log.append(bytes(`entry ${from + i}`))));
}

t.test('readTiles: a live log and its static mirror, written and updated by writeMirror', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 300);
  const live = new LogClient(`${await serveLog(t, log, key, { prefix: PREFIX })}${PREFIX}`);

  const fetched: number[] = [];
  const read = await readTiles(live, { progress: (n) => fetched.push(n) });
  t.same(read.problems, [], 'the live log holds together');
  t.equal(read.checkpoint.treeSize, 300);
  t.equal(read.note, log.checkpoint());
  t.same(read.sth, log.sth());
  t.same(
    read.entries.map((e) => str(e)),
    Array.from({ length: 300 }, (_, i) => `entry ${i}`),
    'every entry, in order',
  );
  t.same(
    read.leaves.map(toHex),
    (await log.entries(0, 300)).map((e) => toHex(e.leafHash)),
    'the leaf hashes',
  );
  t.same(fetched, [0, 256, 300], 'progress bundle by bundle');

  // The mirror: every tile and bundle, then the head; a second run writes nothing.
  const dir = tempDir(t);
  const first = await writeMirror(live, dir, { under: 'v1/log' });
  t.equal(first.treeSize, 300);
  for (const p of [
    'tile/0/000',
    'tile/0/001.p/44',
    'tile/1/000.p/1',
    'tile/entries/000',
    'tile/entries/001.p/44',
    'key',
    'sth',
    'checkpoint',
  ])
    t.ok(first.written.includes(`v1/log/${p}`), p);
  t.same((await writeMirror(live, dir, { under: 'v1/log' })).written, [], 'nothing changed, nothing written');
  await appendN(log, 3, 300);
  t.same(
    (await writeMirror(live, dir, { under: 'v1/log' })).written,
    ['v1/log/checkpoint', 'v1/log/sth', 'v1/log/tile/0/001.p/47', 'v1/log/tile/entries/001.p/47'],
    'only the new partial tile and bundle, and the head',
  );
  t.equal(readFileSync(join(dir, 'v1/log/checkpoint'), 'utf8'), log.checkpoint());

  const mirror = new LogClient(`${await serveStatic(t, dir)}${PREFIX}`);
  const copy = await readTiles(mirror);
  t.same(copy.problems, [], 'the mirror holds together');
  t.equal(copy.entries.length, 303);

  // A pinned key that is not the log's: the checkpoint and the head are refused.
  const other = logKey();
  const pinned = await readTiles(mirror, { trusted: { key: other.key } });
  t.match(pinned.problems, [
    { kind: 'head', seq: null, detail: /^the checkpoint is not signed by test\.example\/tiles\+/ },
    { kind: 'head', seq: null, detail: 'the signed head of size 303 is not signed by the log key' },
  ]);

  // A tampered hash in the full level-0 tile: entry 1 does not hash to it, nor the tiles to the root.
  const tile = join(dir, 'v1/log/tile/0/000');
  const saved = readFileSync(tile);
  const tampered = Buffer.from(saved);
  tampered.writeUInt8(tampered[40]! ^ 1, 40);
  writeFileSync(tile, tampered);
  const bad = await readTiles(mirror);
  t.ok(
    bad.problems.some((p) => p.kind === 'hash' && p.seq === 1),
    'entry 1 does not hash to the tampered leaf',
  );
  t.ok(bad.problems.some((p) => p.kind === 'head' && /level-0 tiles do not give the checkpoint's root/.test(p.detail)));
  t.ok(bad.problems.some((p) => /tile\/1\/000\.p\/1: hash 0 is not the root of the tile below it/.test(p.detail)));
  writeFileSync(tile, saved);

  // A tampered entry in a bundle (the same length): it does not hash to its leaf.
  const bundle = join(dir, 'v1/log/tile/entries/001.p/47');
  const entries = readFileSync(bundle);
  writeFileSync(bundle, Buffer.from(entries.toString('latin1').replace('entry 301', 'entry 3O1'), 'latin1'));
  t.match((await readTiles(mirror)).problems, [
    { kind: 'hash', seq: 301, detail: 'entry 301 of tile/entries/001.p/47 does not hash to its leaf in the level-0 tile' },
  ]);
});

t.test('writeMirror copies what an application serves beside each entry bundle', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 3);
  const url = await serveLog(t, log, key);
  const dir = tempDir(t);
  // `beside` names the bundle itself under another name here: a path the log serves.
  const { written } = await writeMirror(new LogClient(url), dir, { beside: (tile) => [`tile/0/000.p/${tile.width}`] });
  t.same(written, ['checkpoint', 'key', 'sth', 'tile/0/000.p/3', 'tile/entries/000.p/3'], 'the mirror at the top of dir');
});

t.test('proofs and heads fetched from the log are checked', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 10);
  const small = log.sth();
  await appendN(log, 7, 10);
  const large = log.sth();
  const client = new LogClient(`${await serveLog(t, log, key, { prefix: PREFIX })}${PREFIX}`);

  t.equal(await consistent(client, small, large), true, '10 is a prefix of 17');
  t.equal(await consistent(client, { ...small, rootHash: large.rootHash }, large), false, 'not with another root');
  t.equal(await consistent(client, large, large), true, 'a head is consistent with itself');
  t.equal(await consistent(client, { treeSize: 17, rootHash: small.rootHash }, large), false, 'not with another root at its size');
  t.equal(await consistent(client, small, { treeSize: 40, rootHash: large.rootHash }), null, 'a tree the log does not hold: no proof');

  const leaf = hashLeaf(bytes('entry 3'));
  t.equal(await included(client, 3, leaf, large), true, 'entry 3 is in the tree of 17');
  t.equal(await included(client, 4, leaf, large), false, 'not as entry 4');
  t.equal(await included(client, 3, leaf, { ...large, rootHash: small.rootHash }), false, 'nor in another tree');
  t.equal(await included(client, 17, leaf, large), false, 'nor beyond the tree');

  t.ok(headSigned(await client.sth(), key), 'the head is signed by the log key');
  t.notOk(headSigned(await client.sth(), logKey().key), 'not by another');
  t.notOk(headSigned(await client.sth(), 'not a key'), 'nor by a malformed key');
  const { checkpoint, sth } = await client.head();
  t.equal(checkpointProblem(checkpoint, ORIGIN, key, sth), null, 'the checkpoint is the head');
  t.equal(checkpointProblem(checkpoint, ORIGIN, key, small), 'moved', 'of another size: moved');
  t.equal(checkpointProblem(checkpoint, ORIGIN, key, { ...sth, rootHash: small.rootHash }), "its root is not the head's");
  t.equal(checkpointProblem(checkpoint, ORIGIN, logKey().key, sth), 'not signed by the log key');
  t.match(checkpointProblem('garbage', ORIGIN, key, sth), /^not a signed note/);

  t.same(await client.key(), { key, origin: ORIGIN, vkey: (await client.key()).vkey });
  await t.rejects(new LogClient(`${await serveLog(t, log, key)}/nowhere`).checkpoint(), {
    code: 'unavailable',
    message: /expected 200, got 404/,
  });
  t.throws(() => new LogClient('ftp://example.com'), { code: 'bad_argument' });
});
