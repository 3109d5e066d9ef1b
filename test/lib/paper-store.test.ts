// The papers held as columns (lib/record/stores/paper-store.ts, docs/record.md "How the state is kept") against the Map of
// Paper objects they replace, on random papers (a ts the log would not spell, parents, models, claims named otherwise than
// the record names them), read by id, by row and in order, and restored from a snapshot half way; and a snapshot taken
// before more papers land holds the papers of its time alone.
import t from 'tap';
import fc from 'fast-check';
import { restore, same, throws } from '../helpers/stores.js';
import { emptyState, readState, stateBody, stateDigest, type Paper } from '../../lib/record/fold/index.js';

const idOf = (i: number) => `rec:${(0xa000 + i).toString(16).padStart(16, '0')}`;

/** A paper as the record makes it, with some of its rarer members. */
function paper(i: number, odd: { ts: boolean; parents: boolean; models: boolean; claims: boolean }): Paper {
  const id = idOf(i);
  const n = 1 + (i % 4);
  return {
    id,
    seq: 10 + i,
    ts: odd.ts ? `2026-11-27T10:00:${String(i % 60).padStart(2, '0')}+00:00` : new Date(Date.UTC(2026, 10, 27) + i * 1013).toISOString(),
    agent: `agent-${i % 7}`,
    operatorId: `op_${i % 3}`,
    title: `Paper ${i}: on the variance of ${i % 5} ✓`,
    field: ['ml', 'bio', 'phys'][i % 3]!,
    claims: Array.from({ length: n }, (_, k) => (odd.claims ? `${id}#X${k}` : `${id}#C${k + 1}`)),
    buildsOn: odd.parents ? [{ id: idOf(i + 1000), rel: 'extends', basis: null, claims: [`${idOf(i + 1000)}#C1`], note: 'n' }] : [],
    models: odd.models ? ['model-a', `model-${i % 2}`] : [],
  };
}

const adds = fc.array(
  fc.oneof(
    {
      weight: 9,
      arbitrary: fc.record({ i: fc.nat(500), ts: fc.boolean(), parents: fc.boolean(), models: fc.boolean(), claims: fc.boolean() }),
    },
    { weight: 1, arbitrary: fc.constant('restore' as const) },
  ),
  { maxLength: 120 },
);

t.test('the papers as columns read as the Map of papers they replace, before and after a snapshot', async (t) => {
  fc.assert(
    fc.property(adds, (ops) => {
      let state = emptyState();
      const model = new Map<string, Paper>();
      for (const op of ops) {
        if (op === 'restore') {
          state = restore(state);
          continue;
        }
        const odd = {
          ts: op.ts && op.i % 3 === 0,
          parents: op.parents && op.i % 2 === 0,
          models: op.models,
          claims: op.claims && op.i % 5 === 0,
        };
        const p = paper(op.i, odd);
        // A paper already on the record is refused, and the store left as it was.
        if (model.has(p.id)) {
          if (!throws(() => state.papers.add(p))) return false;
          continue;
        }
        model.set(p.id, p);
        state.papers.add(p);
      }
      if (state.papers.size !== model.size) return false;
      if (!same([...state.papers.entries()], [...model.entries()])) return false;
      let row = 0;
      for (const [id, p] of model) {
        if (!same(state.papers.get(id), p) || state.papers.rowOf(id) !== row || !same(state.papers.at(row), p)) return false;
        row++;
      }
      return !state.papers.has(idOf(9999)) && state.papers.get(idOf(9999)) === undefined && state.papers.rowOf(idOf(9999)) === -1;
    }),
    { numRuns: 200 },
  );
  t.pass('200 random runs of papers added and restores');
});

t.test("a snapshot's copy holds the papers of its time, not those added after it; the digest is the Map's", async (t) => {
  const state = emptyState();
  for (let i = 0; i < 300; i++) state.papers.add(paper(i, { ts: i === 7, parents: i % 10 === 0, models: i % 4 === 0, claims: i === 11 }));
  const body = stateBody(state, () => Promise.resolve());
  const before = [...state.papers.values()];
  for (let i = 300; i < 400; i++) state.papers.add(paper(i, { ts: false, parents: false, models: false, claims: false }));
  const back = readState(Buffer.concat(await body), state.size);
  if ('problem' in back) throw new Error(back.problem);
  t.equal(back.papers.size, 300, 'the papers of the copy alone');
  t.same([...back.papers.values()], before, 'each as it was');
  t.equal(back.papers.get(idOf(7))!.ts, '2026-11-27T10:00:07+00:00', 'a ts the log would not spell kept as it came');
  t.same(back.papers.get(idOf(11))!.claims, [`${idOf(11)}#X0`, `${idOf(11)}#X1`, `${idOf(11)}#X2`, `${idOf(11)}#X3`]);
  t.equal(back.papers.rowOf(idOf(299)), 299, 'the index read back');
  back.papers.add(paper(300, { ts: false, parents: false, models: false, claims: false }));
  t.equal(back.papers.rowOf(idOf(300)), 300, 'and added to after');

  // The digest reads the store as the Map of papers it stands for.
  const again = emptyState();
  for (const p of back.papers.values()) again.papers.add(p);
  t.equal(stateDigest(again), stateDigest(back));
  const other = emptyState();
  for (const p of back.papers.values()) other.papers.add({ ...p, title: p.id === idOf(5) ? 'another title' : p.title });
  t.not(stateDigest(other), stateDigest(back), 'a paper that differs changes the digest');
});
