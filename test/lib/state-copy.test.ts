// The state's body in parts and columns (lib/record/fold/state-copy.ts): a list of strings that only grows, read back from a
// snapshot, is written again as it was first written (V8 writes an array that may hold holes sparsely, each item after its
// index, and v8.deserialize makes every array read back so; docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
import t from 'tap';
import { copyBytesSync, copyState, readCopy } from '../../lib/record/fold/state-copy.js';
import { growing } from '../../lib/record/stores/columns.js';

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
