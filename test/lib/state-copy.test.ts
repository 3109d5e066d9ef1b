// The state's body in parts and columns (lib/record/fold/state-copy.ts): a list of strings that only grows, read back from a
// snapshot, is written again as it was first written (V8 writes an array that may hold holes sparsely, each item after its
// index, and v8.deserialize makes every array read back so; docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
import t from 'tap';
import { bytesBody } from 'tlog-engine';
import { copyBytesSync, copyState, readCopy, readCopyFrom } from '../../lib/record/fold/state-copy.js';
import { appendOnlyEach, appendTo, growing, HexIds, isColumnRows, type Rows } from '../../lib/record/stores/columns.js';

const body = (written: object): Buffer => Buffer.concat(copyBytesSync(copyState(written, 3, true)));

t.test('a list of strings read back from a snapshot is written again in the same bytes, not sparsely', async (t) => {
  const ids = growing(Array.from({ length: 10_000 }, (_, i) => `rec:${i.toString(16).padStart(16, '0')}`));
  const first = body({ papers: { ids } });
  const back = readCopy(first) as { papers: { ids: string[] } };
  t.same(back.papers.ids, ids, 'the list read back');
  const again = body({ papers: { ids: growing(back.papers.ids) } });
  t.equal(again.length, first.length, 'as many bytes as the first time');
  t.ok(again.equals(first), 'the same bytes');
  back.papers.ids.push('rec:more');
  t.same(
    (readCopy(body({ papers: { ids: back.papers.ids } })) as { papers: { ids: string[] } }).papers.ids.at(-1),
    'rec:more',
    'and grown after',
  );
});

t.test('lists that only grow, read back a piece at a time: each as it was, short ones in one buffer, each grown on its own', async (t) => {
  // Each agent's reviews (appendOnlyEach): short lists of Int32 and of Float64 between them, and one longer than a shared run.
  const lists = appendOnlyEach(new Map<string, Rows>());
  const want = new Map<string, number[]>();
  const add = (key: string, n: number, at: (i: number) => number) => {
    for (let i = 0; i < n; i++) appendTo(lists, key, at(i));
    want.set(
      key,
      Array.from({ length: n }, (_, i) => at(i)),
    );
  };
  for (let k = 0; k < 50; k++) add(`agent-${k}`, 64 + k * 7, (i) => i * 3 + k);
  add('floats', 100, (i) => i + 0.5);
  add('floats-too', 70, (i) => -i - 0.25);
  add('long', 2 ** 21, (i) => i);
  for (let k = 50; k < 60; k++) add(`agent-${k}`, 64 + k, (i) => 2 ** 31 - 1 - i);
  add('short', 3, (i) => i);
  const written = (v: Map<string, Rows>) => bytesBody(Buffer.concat(copyBytesSync(copyState({ reviewsByAgent: v }, 3, true))));
  const back = (await readCopyFrom(written(lists))) as { reviewsByAgent: Map<string, Rows> };
  t.same([...back.reviewsByAgent.keys()], [...want.keys()], 'every list, in order');
  for (const [key, list] of back.reviewsByAgent) if (![...list].every((x, i) => x === want.get(key)![i])) t.fail(`${key} read back`);
  const buffers = new Set([...back.reviewsByAgent.values()].filter(isColumnRows).map((l) => l.buffer));
  t.ok(buffers.size <= 6, `the short lists read into few buffers (${buffers.size} for ${back.reviewsByAgent.size - 1} columns)`);
  // A list grown after is an array of its own; the lists beside it in the buffer are as they were.
  appendTo(back.reviewsByAgent, 'agent-3', -1);
  t.same(back.reviewsByAgent.get('agent-3')!.at(-1), -1);
  t.same([...back.reviewsByAgent.get('agent-2')!], want.get('agent-2'));
  t.same([...back.reviewsByAgent.get('agent-4')!], want.get('agent-4'));
  // Written again and read back: the grown list with its new item, the long one whole.
  const again = (await readCopyFrom(written(appendOnlyEach(back.reviewsByAgent)))) as { reviewsByAgent: Map<string, Rows> };
  t.same([...again.reviewsByAgent.get('agent-3')!], [...want.get('agent-3')!, -1], 'the grown list written and read back');
  t.equal(again.reviewsByAgent.get('long')!.length, 2 ** 21);
});

t.test('a row index read back takes a buffer of its own size, a column that grows one with room', async (t) => {
  const ids = new HexIds();
  const hexes = Array.from({ length: 3000 }, (_, i) => (i * 2654435761).toString(16).padStart(64, 'f').slice(-64));
  for (const h of hexes) ids.push(h);
  const written = bytesBody(Buffer.concat(copyBytesSync(copyState({ ids: { bytes: ids.pack(), index: ids.packIndex() } }, 3, true))));
  const back = ((await readCopyFrom(written)) as { ids: { bytes: Uint8Array<ArrayBuffer>; index: Int32Array<ArrayBuffer> } }).ids;
  t.equal(back.index.buffer.byteLength, back.index.byteLength, 'the slots: no room (the index moves to a new table to grow)');
  t.ok(back.bytes.buffer.byteLength > back.bytes.byteLength, 'the ids: room to grow');
  const again = HexIds.unpack(back.bytes, undefined, back.index);
  t.ok(
    hexes.every((h, i) => again.find(h) === i),
    'every id found by the index read back',
  );
  again.push('ab'.repeat(32));
  t.equal(again.find('ab'.repeat(32)), 3000, 'and one pushed after, the index grown');
});
