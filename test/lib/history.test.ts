// The claims' credence histories (lib/record/numbers/history.ts): the latest points of every
// claim together, newest first, each with its claim and the value before it, the same after the
// history is packed and unpacked (as a snapshot restores it) as when it was noted.
import t from 'tap';
import { History, RECENT_POINTS } from '../../lib/record/numbers/index.js';

const ref = (n: number) => `rec:${n.toString(16).padStart(16, '0')}#C1`;

t.test('the latest points, newest first, each naming its claim and the value before', async (t) => {
  const h = new History();
  t.same([...h.recent()], [], 'none noted');
  h.note(ref(1), 3, 0.5);
  h.note(ref(2), 3, 0.6);
  h.note(ref(1), 7, 0.7);
  h.note(ref(1), 8, 0.7); // unchanged: not a point
  h.note(ref(2), 9, 0.4);
  t.same(
    [...h.recent()],
    [
      { ref: ref(2), seq: 9, credence: 0.4, before: 0.6 },
      { ref: ref(1), seq: 7, credence: 0.7, before: 0.5 },
      { ref: ref(2), seq: 3, credence: 0.6, before: null },
      { ref: ref(1), seq: 3, credence: 0.5, before: null },
    ],
  );
  t.same([...History.unpack(h.pack()).recent()], [...h.recent()], 'the same once unpacked');
});

t.test('no more than the latest RECENT_POINTS, the same once unpacked', async (t) => {
  const h = new History();
  // Ten claims moving in turn, then one claim moving alone: its points fill the end.
  let seq = 0;
  for (let round = 0; round < 60; round++) for (let c = 0; c < 10; c++) h.note(ref(c), ++seq, (round * 10 + c) / 1000);
  for (let i = 0; i < 100; i++) h.note(ref(3), ++seq, 0.9 - i / 1000);
  const recent = [...h.recent()];
  t.equal(recent.length, RECENT_POINTS);
  t.same(
    recent.slice(0, 100).map((p) => p.ref),
    Array(100).fill(ref(3)),
    'the lone claim first',
  );
  t.same(recent[0], { ref: ref(3), seq, credence: 0.9 - 99 / 1000, before: 0.9 - 98 / 1000 });
  t.same(recent[100], { ref: ref(9), seq: 600, credence: 0.599, before: 0.589 }, 'then the round before it');
  t.ok(
    recent.every((p, i) => i === 0 || p.seq < recent[i - 1]!.seq),
    'newest first',
  );
  for (const p of recent) if (h.get(p.ref)!.find(([s]) => s === p.seq)?.[1] !== p.credence) t.fail(`${p.ref} at ${p.seq}`);
  t.same([...History.unpack(h.pack()).recent()], recent, 'the same once unpacked');
});
