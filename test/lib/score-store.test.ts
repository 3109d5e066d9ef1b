// The claims' scores as columns (lib/record/numbers/score-store.ts): a snapshot's copy of them is
// made without copying them, and holds each score as it stood at the copy however many claims are
// rescored, and added, before the copy is read (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
import t from 'tap';
import { Scores, type Score } from '../../lib/record/numbers/score-store.js';
import { columnCopy, type Column } from '../../lib/record/stores/columns.js';

const N = 3000;
const refs = Array.from({ length: N + 2000 }, (_, i) => `rec:${i.toString(16).padStart(16, '0')}#C1`);
const rows = new Map(refs.map((r, i) => [r, i]));
const ix = { refs, rowOf: (ref: string) => rows.get(ref) ?? -1 };

/** A score of claim `i`, its numbers drawn from `v`. */
function score(i: number, v: number): Score {
  const x = ((i * 7 + v) % 97) / 100;
  return {
    ref: refs[i]!,
    calibration: v % 3 === 0 ? null : x,
    prior: x,
    credence: 1 - x,
    credenceVerified: x / 2,
    cap: v % 2 === 0 ? null : 0.9,
    status: v % 2 === 0 ? 'unchecked' : 'supported',
    resolved: v % 5 === 0 ? 1 : null,
    use: v,
    s: x * 3,
    f: x * 4,
    dispute: 0,
    reproduced: v % 7 === 0,
    families: v % 4 === 0 ? ['gpt'] : [],
    arguments: {
      refutes: { open: 0, upheld: 0, dismissed: 0 },
      qualifies: { open: 0, upheld: 0, dismissed: 0 },
      supports: { open: 0, upheld: 0, dismissed: 0 },
    },
    foundations: [],
    evidence: x - 0.5,
    evidenceVerified: x - 0.25,
    hypoCredence: 1 - x / 2,
    hypoVerified: 1 - x / 3,
    lift: [],
  };
}

t.test('a copy of the scores: each as it stood at the copy, whatever is rescored and added before it is read', async (t) => {
  const scores = new Scores(ix);
  for (let i = 0; i < N; i++) scores.set(refs[i]!, score(i, 0));
  const packed = scores.pack();
  const views: Column[] = [packed.numbers, packed.bytes, packed.families];
  const was = views.map((v) => v.slice());
  const copies = views.map((v) => columnCopy(v)!);
  t.ok(
    copies.every((c) => c !== undefined),
    'each column is copied on write, not copied now',
  );
  // Every seventh claim rescored (its rows of every page), then claims added until the columns grow into new buffers.
  for (let i = 0; i < N; i += 7) scores.set(refs[i]!, score(i, 1 + (i % 11)));
  for (let i = N; i < N + 2000; i++) scores.set(refs[i]!, score(i, 3));
  for (let i = 3; i < N; i += 7) scores.set(refs[i]!, score(i, 2));
  copies.forEach((c, k) => {
    const out = c.empty();
    c.read(out, 0, out.length);
    t.same(Array.from(out), Array.from(was[k]!), `column ${k}: the rows at the copy`);
    c.release();
  });
  t.same(scores.get(refs[7]!), score(7, 1 + (7 % 11)), 'the scores themselves moved on');
  t.same(scores.get(refs[N + 5]!), score(N + 5, 3), 'and grew');
});
