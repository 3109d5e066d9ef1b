// Each claim's reviews as columns (lib/record/numbers/claim-reviews.ts, docs/record.md "How the state is kept") against the
// Map of review rows per claim they replace, on random reviews of random claims: read by the claim's row, in log order,
// restored from a snapshot half way; and a snapshot's copy of the state, taken before more reviews land, holds each claim's
// reviews as they were when the copy was taken, the hot claims' lists (HOT_FROM reviews or more) too.
import t from 'tap';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { restore, same } from '../helpers/stores.js';
import { emptyState, readState, stateBody, type State } from '../../lib/record/fold/index.js';
import { HOT_FROM } from '../../lib/record/numbers/index.js';

const refOf = (c: number) => `rec:${c.toString(16).padStart(16, '0')}#C1`;

/** Claim `c` on the record, added when it is not yet (claims land between reviews, so a claim's row is not its number). */
function claimRow(state: State, c: number): number {
  const ref = refOf(c);
  const row = state.claims.rowOf(ref);
  if (row >= 0) return row;
  return state.claims.add(
    {
      ref,
      paper: ref.slice(0, -3),
      external: false,
      kind: 'empirical',
      confidence: 0.5,
      source: null,
      operatorId: `op_${c % 3}`,
      agent: `agent-${c % 5}`,
      seq: c,
    },
    `test of ${ref}`,
  );
}

/** A review of claim `c` lands as the fold lands it (types/reviews.ts): a row of the reviews, then its claim's list. */
function review(state: State, c: number): number {
  const claim = claimRow(state, c);
  const n = state.reviews.size;
  const row = state.reviews.add({
    id: createHash('sha256').update(`review ${n}`).digest('hex'),
    seq: 1000 + n,
    ts: new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString(),
    claim: refOf(c),
    agent: `agent-${n % 7}`,
    operatorId: `op_${n % 4}`,
    forecast: 0.5,
    models: [],
    signerKey: `key-${n % 7}`,
  });
  state.numbers.index.reviewsByClaim.add(claim, row);
  return row;
}

type Model = Map<string, number[]>;

/** Whether `state` holds exactly the lists of `model`, by each claim's row, and nothing for a claim never reviewed. */
function holds(state: State, model: Model): boolean {
  const ix = state.numbers.index.reviewsByClaim;
  for (const ref of state.claims.keys()) {
    const row = state.claims.rowOf(ref);
    const want = model.get(ref) ?? [];
    if (ix.countOf(row) !== want.length || !same([...ix.rowsOf(row)], want)) return false;
    // Read by place as the claim page reads it (newestFirst: an ArrayLike).
    const rows = ix.rowsOf(row);
    if (rows.length !== want.length || want.some((r, i) => rows[i] !== r)) return false;
  }
  return ix.countOf(-1) === 0 && ix.rowsOf(-1).length === 0 && ix.countOf(state.claims.size + 5) === 0;
}

const copyOf = (model: Model): Model => new Map([...model].map(([k, v]) => [k, [...v]]));

type Op = { review: number } | 'restore' | 'copy';

// Most reviews on a few claims, so that some pass HOT_FROM (their lists kept as such) while most stay few.
const ops = fc.array(
  fc.oneof(
    { weight: 12, arbitrary: fc.record({ review: fc.nat(1) }) },
    { weight: 6, arbitrary: fc.record({ review: fc.nat(40) }) },
    { weight: 1, arbitrary: fc.constant('restore' as const) },
    { weight: 1, arbitrary: fc.constant('copy' as const) },
  ),
  { maxLength: 300, size: 'max' },
);

t.test('each claim reviews: what a Map of review rows per claim held, through reviews, restores and copies', async (t) => {
  let hot = 0;
  let copies = 0;
  await fc.assert(
    fc.asyncProperty(ops, fc.nat(7), async (list: Op[], extra: number) => {
      let state = emptyState();
      const model: Model = new Map();
      const land = (c: number) => {
        const row = review(state, c);
        const ref = refOf(c);
        model.set(ref, [...(model.get(ref) ?? []), row]);
      };
      // Each copy's bytes in the making, and the lists at its time: more reviews land while the bytes are made.
      const taken: { body: Promise<Uint8Array[]>; then: Model }[] = [];
      for (const op of list) {
        if (op === 'restore') state = restore(state);
        else if (op === 'copy') {
          const s = state;
          // The lists at the copy: its first turn is taken at once, before stateBody returns.
          const then = copyOf(model);
          let turn = 0;
          // Each turn of the copy lands reviews on the state it was taken of, on a hot claim and on others.
          const body = stateBody(s, async () => {
            if (s === state && turn++ < 3) for (let i = 0; i <= extra; i++) land(i % 3 === 0 ? 0 : 1 + ((turn * 7 + i) % 40));
          });
          taken.push({ body, then });
        } else land(op.review);
      }
      if (!holds(state, model)) return false;
      if ([...model.values()].some((rows) => rows.length >= HOT_FROM)) hot++;
      for (const { body, then } of taken) {
        copies++;
        const back = readState(Buffer.concat(await body), state.size);
        if ('problem' in back || !holds(back, then)) return false;
      }
      return holds(restore(state), model);
    }),
    { numRuns: 100 },
  );
  t.ok(hot > 10, `${hot} of 100 runs with a claim of ${HOT_FROM} reviews or more`);
  t.ok(copies > 100, `${copies} copies taken while reviews landed`);
});

t.test("a hot claim's reviews are one list, kept and read back as such; the others' are made from the back-links", async (t) => {
  const state = emptyState();
  for (let i = 0; i < 3 * HOT_FROM; i++) review(state, i % 3 === 0 ? 7 : 100 + (i % 5));
  const ix = state.numbers.index.reviewsByClaim;
  const hot = state.claims.rowOf(refOf(7));
  t.equal(ix.countOf(hot), HOT_FROM);
  t.equal(ix.rowsOf(hot), ix.rowsOf(hot), 'the hot claim: the same list read twice, kept');
  const cold = state.claims.rowOf(refOf(101));
  const few = Array.from({ length: 3 * HOT_FROM }, (_, i) => i).filter((i) => i % 3 !== 0 && i % 5 === 1);
  t.same([...ix.rowsOf(cold)], few, 'its reviews, in log order');
  t.not(ix.rowsOf(cold), ix.rowsOf(cold), 'a claim with fewer reviews: its list made at each read');
  t.same(
    [...ix.rowsOf(hot)],
    Array.from({ length: HOT_FROM }, (_, i) => 3 * i),
    'every third review, in log order',
  );
  const back = restore(state);
  review(back, 7);
  review(state, 7);
  t.same([...back.numbers.index.reviewsByClaim.rowsOf(hot)], [...ix.rowsOf(hot)], 'read back, then one more: the same');
  t.equal(back.numbers.index.reviewsByClaim.countOf(hot), HOT_FROM + 1);
});

t.test("counts past a byte: a claim's 600 reviews and pieces of evidence, copied at 300 while more land, read back", async (t) => {
  const state = emptyState();
  const more = (n: number) => {
    for (let i = 0; i < n; i++) {
      review(state, 7);
      state.claims.addEvidence(refOf(7));
    }
  };
  more(300);
  review(state, 8);
  let turns = 0;
  const body = stateBody(state, async () => {
    if (turns++ === 0) more(300);
  });
  const copy = readState(Buffer.concat(await body), state.size);
  if ('problem' in copy) throw new Error(copy.problem);
  const counts = (s: State) =>
    [7, 8].flatMap((c) => {
      const row = s.claims.rowOf(refOf(c));
      return [s.numbers.index.reviewsByClaim.countOf(row), s.claims.evidenceAt(row)];
    });
  t.same(counts(copy), [300, 300, 1, 0], 'the copy: 300 reviews and pieces of evidence, as at the copy');
  t.same(counts(state), [600, 600, 1, 0], 'the state: 600 each');
  t.same(counts(restore(state)), [600, 600, 1, 0], 'restored: 600 each');
  const packed = state.numbers.index.reviewsByClaim.pack().count;
  t.same(
    [packed.bytes.constructor.name, packed.bytes[state.claims.rowOf(refOf(7))], packed.over],
    ['Uint8Array', 255, [[state.claims.rowOf(refOf(7)), 600]]],
    'a byte a claim; 255 for the hot claim, whose count is apart',
  );
});
