// The claims' credence histories (lib/record/numbers/history.ts): the latest points of every
// claim together, newest first, each with its claim and the value before it, the same after the
// history is packed and unpacked (as a snapshot restores it) as when it was noted, and a snapshot's copy taken before claims
// move keeps their points as they were.
import t from 'tap';
import { History, RECENT_POINTS, type HistoryData } from '../../lib/record/numbers/index.js';
import { copyBytes, copyState, readCopy } from '../../lib/record/fold/state-copy.js';

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

t.test("a snapshot's copy taken before claims' credences move keeps each claim's history as it was at the copy", async (t) => {
  const h = new History();
  let seq = 0;
  // Three thousand claims: their latest points fill three pages of the column a copy saves before each first write.
  const claims = Array.from({ length: 3000 }, (_, c) => ref(c));
  for (const [c, r] of claims.entries()) h.note(r, ++seq, c / 10_000);
  const was = claims.map((r) => h.get(r));
  let turns = 0;
  // The copy is taken now; its bytes are made over later turns, while every seventh claim moves and a new one is scored.
  const body = copyBytes(copyState({ history: h.pack() }), async () => {
    if (turns++ > 0) return;
    for (let c = 0; c < claims.length; c += 7) h.note(claims[c]!, ++seq, 0.99);
    h.note(ref(5000), ++seq, 0.5);
  });
  const back = History.unpack(readCopy(Buffer.concat(await body)).history as HistoryData);
  t.ok(turns > 0, 'the history moved while the bytes were made');
  t.same(h.get(claims[7]!)!.at(-1), [3002, 0.99], 'the history itself moved (the second claim noted after the copy)');
  t.same(
    claims.map((r) => back.get(r)),
    was,
    "the copy holds each claim's points as they were",
  );
  t.equal(back.get(ref(5000)), undefined, 'nor the claim scored after the copy');
});

t.test('a point is the credence as served: a move the served number does not show is no point', async (t) => {
  const h = new History();
  h.note(ref(1), 1, 0.123449); // served 0.1234
  h.note(ref(1), 2, 0.12341); // served 0.1234 again: no point
  h.note(ref(1), 3, 0.12346); // served 0.1235
  h.note(ref(1), 4, 0.99999); // served 0.9999, never 1
  h.note(ref(1), 5, 0.999951); // served 0.9999 again: no point
  h.note(ref(1), 6, 0.00001); // served 0.0001, never 0
  t.same(h.get(ref(1)), [
    [1, 0.1234],
    [3, 0.1235],
    [4, 0.9999],
    [6, 0.0001],
  ]);
  t.same([...h.recent()][0], { ref: ref(1), seq: 6, credence: 0.0001, before: 0.9999 });
  const packed = h.pack();
  t.equal(packed.credence.BYTES_PER_ELEMENT, 2, 'two bytes a point');
  t.same(History.unpack(packed).get(ref(1)), h.get(ref(1)), 'the same once unpacked');
});
