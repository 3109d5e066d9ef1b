// bench/repiece.ts rewrites a LevelDB store's bundles in pieces cut at blocks of 16 entries, as a
// commit now writes them (docs/log-format.md): the benches' logs built before are read as one
// built now would be. The entries read back are the same; only the pieces' keys change.
import t from 'tap';
import { Level } from 'level';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { lengthPrefixed, openLevelStore } from 'tlog-engine';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);
const REPIECE = fileURLToPath(new URL('../../bench/repiece.js', import.meta.url));
const BUNDLE = 0x62;
const entry = (seq: number) => Buffer.from(`entry ${seq} ${'x'.repeat(seq % 37)}`);
const pieceKey = (index: number, offset: number) => {
  const k = Buffer.alloc(offset === 0 ? 9 : 10);
  k[0] = BUNDLE;
  k.writeUInt32BE(index, 5);
  if (offset !== 0) k[9] = offset;
  return k;
};
const joined = (from: number, to: number) => Buffer.from(lengthPrefixed.join(Array.from({ length: to - from }, (_, i) => entry(from + i))));

async function pieceStarts(dir: string): Promise<number[]> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const keys = await db.keys({ gte: Buffer.from([BUNDLE]), lt: Buffer.from([BUNDLE + 1]) }).all();
  await db.close();
  return keys.map((k) => k.readUInt32BE(5) * 256 + (k.length === 10 ? k[9]! : 0));
}

t.test('a store written in whole bundles is cut at blocks, its entries unchanged', async (t) => {
  const dir = join(tempDir(t), 'db');
  // The store made by the engine (its framing and version keys), then its bundles written as before blocks:
  // bundle 0 whole, bundle 1 in a piece of 14 and one of 30 (300 entries).
  const store = await openLevelStore(dir);
  await store.close();
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.batch([
    { type: 'put', key: pieceKey(0, 0), value: joined(0, 256) },
    { type: 'put', key: pieceKey(1, 0), value: joined(256, 270) },
    { type: 'put', key: pieceKey(1, 14), value: joined(270, 300) },
  ]);
  await db.close();
  t.same(await pieceStarts(dir), [0, 256, 270]);

  const { stdout } = await run(process.execPath, [REPIECE, dir]);
  t.match(stdout, /^2 bundles cut at blocks of 16; 0 were already/);
  t.same(await pieceStarts(dir), [...Array.from({ length: 16 }, (_, i) => 16 * i), 256, 272, 288], 'a piece at each block');

  const again = await run(process.execPath, [REPIECE, dir]);
  t.match(again.stdout, /^0 bundles cut at blocks of 16; 2 were already/, 'run again, it changes nothing');

  // The entries as a store reads them: every one, and one at a time.
  const read = await openLevelStore(dir);
  const hex = (xs: Uint8Array[]) => xs.map((x) => Buffer.from(x).toString('hex'));
  t.same(hex(await read.readEntries(0, 400)), hex(Array.from({ length: 300 }, (_, i) => entry(i))), 'all 300, in order');
  for (const seq of [0, 15, 16, 255, 256, 269, 270, 299]) t.same(hex(await read.readEntries(seq, 1)), hex([entry(seq)]), `entry ${seq}`);
  await read.close();
});
