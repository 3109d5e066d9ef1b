// The claims' scores as columns (lib/record/numbers/score-store.ts): each distinct score held once, shared by the claims
// that hold it and let go when none does; read as the Map of scores they replace, before and after a snapshot; and a
// snapshot's copy of them is made without copying them, and holds each score as it stood at the copy however many claims
// are rescored, and added, before the copy is read (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
import t from 'tap';
import fc from 'fast-check';
import { Scores, type Score } from '../../lib/record/numbers/score-store.js';
import { columnCopy, type Column } from '../../lib/record/stores/columns.js';
import { copyBytesSync, copyState, readCopy } from '../../lib/record/fold/state-copy.js';

const N = 3000;
const refs = Array.from({ length: N + 2000 }, (_, i) => `rec:${i.toString(16).padStart(16, '0')}#C1`);
const rows = new Map(refs.map((r, i) => [r, i]));
const ix = { refAt: (row: number) => refs[row]!, rowOf: (ref: string) => rows.get(ref) ?? -1 };

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
  const views: Column[] = [packed.vector, packed.numbers, packed.bytes, packed.families, packed.index];
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

t.test('claims with the same score share it; a score no claim holds is let go and its place taken by the next', async (t) => {
  const scores = new Scores(ix);
  // A thousand claims whose scores are one of five, as the claims no review touched are.
  const same = (i: number, v: number) => ({ ...score(0, v), ref: refs[i]! });
  for (let i = 0; i < 1000; i++) scores.set(refs[i]!, same(i, i % 5));
  t.equal(scores.size, 1000);
  t.equal(scores.distinct, 5, 'five scores held');
  t.same(scores.get(refs[7]!), same(7, 2), 'each read as it was set');
  // Every claim of score 0 given a score of its own, then all but one given score 1 again: score 0 is let go.
  for (let i = 0; i < 1000; i += 5) scores.set(refs[i]!, score(i, 11));
  t.equal(scores.distinct, 4 + 97, 'score 0 let go; a score of its own for each claim whose numbers differ');
  for (let i = 5; i < 1000; i += 5) scores.set(refs[i]!, same(i, 1));
  t.equal(scores.distinct, 5, 'the scores of their own let go');
  t.same(scores.get(refs[0]!), score(0, 11));
  t.same(scores.get(refs[5]!), same(5, 1));
  // Numbers freed in the order 7, 2, 5 are taken least first: what a state read from a snapshot does too.
  const fresh = new Scores(ix);
  for (let i = 0; i < 10; i++) fresh.set(refs[i]!, score(i, 11));
  for (const i of [7, 2, 5]) fresh.set(refs[i]!, same(i, 1));
  for (const i of [20, 21, 22]) fresh.set(refs[i]!, score(i, 11));
  t.same(Array.from(fresh.pack().vector.subarray(20, 23)), [3, 6, 8], 'scores 2, 5 and 7 (each plus one) taken in turn');
  // -0 and 0 are held apart, as they were (their bits differ).
  scores.set(refs[1]!, { ...same(1, 1), dispute: -0 });
  t.ok(Object.is(scores.get(refs[1]!)!.dispute, -0), '-0 read back as -0');
  t.ok(Object.is(scores.get(refs[6]!)!.dispute, 0), 'and 0 as 0');
});

t.test('the scores read as the Map of scores they replace, through rescores and restores', async (t) => {
  const steps = fc.array(fc.oneof(fc.record({ i: fc.nat(199), v: fc.nat(6) }), fc.constant('restore' as const)), { maxLength: 300 });
  fc.assert(
    fc.property(steps, (ops) => {
      let scores = new Scores(ix);
      // The same scores never restored: numbered alike (a score freed is taken by the next new one, least first).
      const never = new Scores(ix);
      const model = new Map<number, Score>();
      for (const op of ops) {
        if (op === 'restore') {
          // Written as a snapshot writes them and read back.
          const body = Buffer.concat(copyBytesSync(copyState({ scores: scores.pack() }, 1, true)));
          scores = Scores.unpack(readCopy(body).scores as ReturnType<Scores['pack']>, ix);
          continue;
        }
        // Scores of three kinds: shared by many claims, one per claim, and one per claim and step.
        const s = op.v < 3 ? { ...score(0, op.v), ref: refs[op.i]! } : score(op.i, op.v);
        scores.set(refs[op.i]!, s);
        never.set(refs[op.i]!, s);
        model.set(op.i, s);
      }
      const rows = [...model.keys()].sort((a, b) => a - b);
      if (scores.size !== model.size) return false;
      if (JSON.stringify([...scores.values()]) !== JSON.stringify(rows.map((i) => model.get(i)))) return false;
      for (let i = 0; i < 200; i++) if (JSON.stringify(scores.get(refs[i]!)) !== JSON.stringify(model.get(i))) return false;
      const columns = (x: Scores) =>
        JSON.stringify(Object.values(x.pack()).map((c) => (ArrayBuffer.isView(c) ? Array.from(c as Int32Array) : c)));
      if (columns(scores) !== columns(never)) return false;
      const kinds = new Set([...model.values()].map((s) => JSON.stringify({ ...s, ref: '', lift: [] })));
      return scores.distinct === kinds.size;
    }),
    { numRuns: 200 },
  );
  t.pass('200 random runs of rescores and restores');
});
