// Interop with an implementation nobody here wrote: test/interop/tiles.go, on Go's
// golang.org/x/mod/sumdb/tlog and sumdb/note (installed by scripts/go-tlog.sh), reads the tiles
// and checkpoint of the live service and of a static copy, verifies the checkpoint with the
// published vkey, proves records included, and an older checkpoint consistent.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startService } from '../helpers/service.js';
import { appendPairings } from '../helpers/agents.js';
import { serveStatic } from '../helpers/static-server.js';
import { tempDir } from '../helpers/tmp.js';
import { writeStaticTiles } from '../../verify/tiles.js';

const run = promisify(execFile);

t.test("Go's sumdb/tlog and sumdb/note read the log's tiles", async (t) => {
  // No Go, no pass: the script installs it or fails.
  const gopath = (await run('bash', ['scripts/go-tlog.sh'])).stdout.trim();
  const gocache = tempDir(t);
  const goTiles = async (url: string, vkey: string, older: string, seqs: number[]) =>
    run('go', ['run', join(process.cwd(), 'test/interop/tiles.go'), url, vkey, older, ...seqs.map(String)], {
      env: { ...process.env, GO111MODULE: 'off', GOPATH: gopath, GOCACHE: gocache, GOFLAGS: '' },
      timeout: 300_000,
    });

  const s = await startService(t);
  await appendPairings(s, 100);
  const dir = tempDir(t);
  mkdirSync(dir, { recursive: true });
  const older = join(dir, 'older-checkpoint');
  writeFileSync(older, (await s.get('/v1/log/checkpoint')).text);
  await appendPairings(s, 200, 100);
  const vkey = (await s.get('/v1/log/key')).body.vkey;
  const size = s.d.log.size;
  t.ok(size > 256, 'a full tile and a partial one');

  const live = await goTiles(s.url, vkey, older, [0, 1, 99, 255, 256, size - 1]);
  t.match(live.stdout, new RegExp(`^ok \\S+ ${size} `), 'the live service');

  const copy = tempDir(t);
  await writeStaticTiles(s.url, copy);
  const mirror = await serveStatic(t, copy);
  const fromCopy = await goTiles(mirror, vkey, older, [0, 200, size - 1]);
  t.match(fromCopy.stdout, new RegExp(`^ok \\S+ ${size} `), 'the static copy');

  // A wrong key, or a tampered tile, fails.
  const otherKey = vkey.replace(/\+([0-9a-f]{8})\+/, (_: string, id: string) => `+${id === '00000000' ? '00000001' : '00000000'}+`);
  const badKey = await goTiles(mirror, otherKey, older, [0]).catch((e) => e);
  t.not(badKey.code ?? 0, 0, 'a vkey whose id does not match is refused');
  const tile = join(copy, 'v1/log/tile/0/000');
  const bytes = readFileSync(tile);
  bytes.writeUInt8(bytes[0]! ^ 1, 0);
  writeFileSync(tile, bytes);
  const tampered = await goTiles(mirror, vkey, older, [0]).catch((e) => e);
  t.not(tampered.code ?? 0, 0, 'a tampered tile is refused');
  t.match(tampered.stderr, /FAIL/);
});
