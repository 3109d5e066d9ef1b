// The verifier's export cache (verify/cache.ts) on its own: its blocks are read only when an older
// entry is asked for, and each is checked against its digest then; appending keeps the earlier bytes.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SignedTreeHead } from 'tlog-engine';
import { BLOCK, HEADER_BYTES, openCache, writeCache, type Cache } from '../../verify/cache.js';
import { readExport, type LogCopy, type ServedEntry } from '../../verify/source.js';
import { tempDir } from '../helpers/tmp.js';

const entry = (seq: number): ServedEntry => ({
  seq,
  ts: '2026-01-01T00:00:00.000Z',
  type: 'review',
  payloadHash: '0'.repeat(64),
  prevHash: '1'.repeat(64),
  entryHash: `hash-${seq}`,
  payload: { n: seq },
});
const copy = (n: number): LogCopy => ({
  key: { key: 'k', origin: 'o' },
  sth: { treeSize: n } as SignedTreeHead,
  entries: Array.from({ length: n }, (_, i) => entry(i)),
});

async function opened(file: string, ...args: Parameters<typeof openCache> extends [string, ...infer R] ? R : never): Promise<Cache> {
  const c = await openCache(file, ...args);
  if ('problem' in c) throw new Error(c.problem);
  return c;
}

t.test('older entries are read block by block, each block checked when it is read', async (t) => {
  const file = join(tempDir(t), 'log.jsonl');
  const n = 3 * BLOCK + 5;
  const mark = await writeCache(file, copy(n));
  t.same({ entries: mark.entries, blocks: mark.offsets.length, first: mark.offsets[0] }, { entries: n, blocks: 4, first: HEADER_BYTES });
  t.match(await openCache(file, mark, 'another'), { problem: `its last entry is not the one verified (another)` });

  // A byte of the first block changed: opening reads the header and the last block only; the first fails when it is read.
  const bytes = readFileSync(file);
  const at = bytes.indexOf('"n":5}');
  bytes[at + 4] = 0x36;
  writeFileSync(file, bytes);
  const c = await opened(file, mark, `hash-${n - 1}`);
  t.same(await c.entry(2 * BLOCK + 1), entry(2 * BLOCK + 1));
  await t.rejects(c.entry(5), { name: 'CacheProblem', message: /its block of entries 0 on \(bytes 4096 on\) is not the one verified/ });
  await c.close();
  bytes[at + 4] = 0x35;
  writeFileSync(file, bytes);

  // Appended: the earlier bytes stay, the header names the new head, the next mark opens.
  const before = readFileSync(file);
  const d = await opened(file, mark, `hash-${n - 1}`);
  const next = await d.append(copy(n + BLOCK));
  await d.close();
  const after = readFileSync(file);
  t.ok(after.subarray(HEADER_BYTES, before.length).equals(before.subarray(HEADER_BYTES)), 'the earlier entries are the same bytes');
  const read = await readExport(file);
  t.same([read.sth.treeSize, read.entries.length, read.entries.at(-1)], [n + BLOCK, n + BLOCK, entry(n + BLOCK - 1)]);
  const e = await opened(file, next, `hash-${n + BLOCK - 1}`);
  t.same(await Promise.all([0, BLOCK * 3 + 4, n + 3].map((i) => e.entry(i))), [entry(0), entry(BLOCK * 3 + 4), entry(n + 3)]);
  await e.close();
  t.match(await openCache(file, mark, `hash-${n - 1}`), { problem: /it holds \d+ bytes, \d+ when it was last verified/ });
});
