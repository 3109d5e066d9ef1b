// A tiles mirror (docs/log-format.md, "A static copy"): `archive tiles` writes a static copy,
// a second run writes only what changed, and `archive verify --tiles` checks the copy served
// by a plain static file server, and the live service, and finds a tampered tile.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startService } from '../helpers/service.js';
import { appendPairings, make, register, send } from '../helpers/agents.js';
import { serveStatic } from '../helpers/static-server.js';
import { tempDir } from '../helpers/tmp.js';
import { fetchTilesLog, writeStaticTiles } from '../../verify/tiles.js';
import { verifyLog } from '../../verify/verify.js';

const run = promisify(execFile);
const ARCHIVE = join(process.cwd(), 'bin', 'archive');

async function verifyTiles(url: string) {
  const { log, problems: found } = await fetchTilesLog(url);
  return (await verifyLog(log, { found })).report;
}

t.test('a static copy: written, updated with only what changed, verified as served by a static server', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice');
  await send(s, alice, 'paper', make.paper(1));
  await appendPairings(s, 300);
  const dir = tempDir(t);

  const first = await writeStaticTiles(s.url, dir);
  t.equal(first.treeSize, s.d.log.size);
  t.ok(first.written.includes('v1/log/tile/0/000'), 'the full level-0 tile');
  t.ok(first.written.includes('v1/log/tile/entries/000'));
  t.ok(first.written.includes(`v1/log/tile/0/001.p/${first.treeSize - 256}`), 'the partial tile at the edge');
  t.ok(first.written.includes('v1/log/tile/1/000.p/1'));
  t.ok(first.written.includes('v1/log/checkpoint'));

  const again = await writeStaticTiles(s.url, dir);
  t.same(again.written, [], 'nothing changed, nothing written');

  await appendPairings(s, 3, 300);
  const third = await writeStaticTiles(s.url, dir);
  const w = third.treeSize - 256;
  t.same(
    third.written,
    [`v1/log/checkpoint`, `v1/log/payloads/001.p/${w}`, `v1/log/sth`, `v1/log/tile/0/001.p/${w}`, `v1/log/tile/entries/001.p/${w}`],
    'only the new partial tiles, bundles and the head',
  );
  t.equal(readFileSync(join(dir, 'v1/log/checkpoint'), 'utf8'), (await s.get('/v1/log/checkpoint')).text);

  const mirror = await serveStatic(t, dir);
  const report = await verifyTiles(mirror);
  t.same(report.problems, [], 'the static copy verifies');
  t.equal(report.entries, third.treeSize);

  // The command line, against the static copy.
  const cli = await run(process.execPath, [ARCHIVE, 'verify', '--tiles', mirror, '--json']);
  t.equal(JSON.parse(cli.stdout).ok, true);

  // A tampered hash in the full level-0 tile is found.
  const tile = join(dir, 'v1/log/tile/0/000');
  const bytes = readFileSync(tile);
  bytes.writeUInt8(bytes[40]! ^ 1, 40);
  writeFileSync(tile, bytes);
  const bad = await verifyTiles(mirror);
  t.equal(bad.ok, false);
  t.ok(
    bad.problems.some((p) => p.kind === 'hash' && p.seq === 1),
    'entry 1 does not hash to the tampered leaf',
  );
  t.ok(bad.problems.some((p) => p.kind === 'head' && /level-0 tiles/.test(p.detail)));
  const failed = await run(process.execPath, [ARCHIVE, 'verify', '--tiles', mirror]).catch((e) => e);
  t.equal(failed.code, 1, 'the command fails');
});

t.test('verify --tiles against the live service', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice');
  await send(s, alice, 'paper', make.paper(1));
  await appendPairings(s, 260);
  const report = await verifyTiles(s.url);
  t.same(report.problems, []);
  t.equal(report.ok, true);
  t.equal(report.entries, s.d.log.size);
});
