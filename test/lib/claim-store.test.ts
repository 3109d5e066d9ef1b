// The claims held as columns (lib/record/stores/claim-store.ts, docs/record.md "How the state is kept") against the Map of
// Claim objects they replace, on random operations: claims added, amended and given evidence, read by ref, by row and in
// order, and restored from a snapshot half way; and a snapshot's copy of the state, taken before a claim changes, keeps the
// claim as it was when the copy was taken, its refs written in pieces and read back whole.
import t from 'tap';
import { deserialize } from 'node:v8';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { restore, same, throws } from '../helpers/stores.js';
import {
  emptyState,
  readState,
  readStateFrom,
  stateBody,
  stateBodySync,
  stateDigest,
  type Claim,
  type State,
} from '../../lib/record/fold/index.js';
import { bytesBody } from 'tlog-engine';

const paperRef = (p: number, n: number) => `rec:${p.toString(16).padStart(16, '0')}#C${n}`;
const externalRef = (x: number) => `ext:${(0xe000 + x).toString(16).padStart(16, '0')}#C1`;

/** A claim as the record makes it: a paper's claim `n`, or an external claim. */
function claim(i: number, external: boolean, n = 1): Omit<Claim, 'amendment' | 'evidence'> {
  const ref = external ? externalRef(i) : paperRef(i, n);
  return {
    ref,
    paper: ref.slice(0, ref.lastIndexOf('#')),
    external,
    kind: i % 3 === 0 ? 'conceptual' : 'empirical',
    confidence: external ? null : ((i * 7 + n) % 101) / 100,
    source: external ? `doi:10.1234/${i}` : null,
    operatorId: `op_${i % 4}`,
    agent: `agent-${i % 9}`,
    seq: 100 + i,
  };
}

/** The test claim `ref` is made with (the state keeps its hash: its texts stay on the log). */
const testOf = (ref: string): string => `test of claim ${ref} ✓`;

/** Adds claim `c` to `state`, with its test. */
const add = (state: State, c: Omit<Claim, 'amendment' | 'evidence'>): number => state.claims.add(c, testOf(c.ref));

type Op =
  { add: number; external: boolean; n: number } | { amend: number; conceptual: boolean; test: boolean } | { evidence: number } | 'restore';

const ops = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: fc.record({ add: fc.nat(400), external: fc.boolean(), n: fc.integer({ min: 1, max: 3 }) }) },
    { weight: 2, arbitrary: fc.record({ amend: fc.nat(1000), conceptual: fc.boolean(), test: fc.boolean() }) },
    { weight: 2, arbitrary: fc.record({ evidence: fc.nat(1000) }) },
    { weight: 1, arbitrary: fc.constant('restore' as const) },
  ),
  { maxLength: 120 },
);

t.test(
  'the claims: what a Map of Claim objects held, by ref, by row and in order, through amendments, evidence and restores',
  async (t) => {
    fc.assert(
      fc.property(ops, (list: Op[]) => {
        let state = emptyState();
        const model = new Map<string, Claim>();
        // Each claim's test as it stands: the state holds its hash, which must say so, and no other test.
        const tests = new Map<string, string>();
        for (const op of list) {
          if (op === 'restore') state = restore(state);
          else if ('add' in op) {
            const c = claim(op.add, op.external, op.n);
            if (model.has(c.ref)) {
              if (!throws(() => add(state, c))) return false;
              continue;
            }
            if (add(state, c) !== model.size) return false;
            model.set(c.ref, { ...c, amendment: null, evidence: 0 });
            tests.set(c.ref, testOf(c.ref));
          } else if (model.size > 0) {
            const ref = [...model.keys()][('amend' in op ? op.amend : op.evidence) % model.size]!;
            const m = model.get(ref)!;
            if ('evidence' in op) {
              state.claims.addEvidence(ref);
              m.evidence++;
            } else {
              const kind = op.conceptual ? 'conceptual' : 'empirical';
              const test = op.test ? `${tests.get(ref)!}, amended` : undefined;
              state.claims.amend(ref, 500, kind, test);
              m.amendment = { seq: 500, before: { kind: m.kind } };
              m.kind = kind;
              if (test !== undefined) tests.set(ref, test);
            }
          }
        }
        const c = state.claims;
        return (
          c.size === model.size &&
          [...c.keys()].join() === [...model.keys()].join() &&
          [...model].every(([ref, m], row) => same(c.get(ref), m) && same(c.at(row), m) && c.rowOf(ref) === row && c.has(ref)) &&
          [...tests.values()].every((test, row) => c.testMayBe(row, test) && !c.testMayBe(row, `${test}.`)) &&
          [...c.values()].every((v, row) => same(v, [...model.values()][row])) &&
          !c.has(paperRef(999, 1)) &&
          c.get(paperRef(999, 1)) === undefined &&
          [...state.numbers.index.refs].join() === [...model.keys()].join()
        );
      }),
      { numRuns: 300 },
    );
    t.pass('300 random runs of adds, amendments, evidence and restores');
  },
);

t.test('the claims restored: every ref found by the index read back, the columns their own, growing with new claims', async (t) => {
  const N = 5000;
  const state = emptyState();
  for (let i = 0; i < N; i++) add(state, claim(i, i % 10 === 0, 1 + (i % 3)));
  const back = restore(state);
  t.equal(back.claims.size, N);
  t.ok(
    [...state.claims.keys()].every((ref, row) => back.claims.rowOf(ref) === row),
    `each of ${N} refs found at its row by the index read back`,
  );
  t.equal(back.claims.rowOf(`${paperRef(1, 1)} `), -1, 'a ref with a space after it is not found');
  t.equal(back.claims.rowOf(paperRef(1, 1).toUpperCase()), -1, 'nor one spelled in capitals');
  t.same(back.claims.get(externalRef(10)), state.claims.get(externalRef(10)), 'an external claim read back as it was');
  t.same(back.claims.get(paperRef(11, 3)), state.claims.get(paperRef(11, 3)), "a paper's claim read back as it was");
  t.equal(back.claims.get(paperRef(11, 3))!.paper, paperRef(11, 3).slice(0, -3), 'its paper read from its ref');
  // Past each column's room and the index's half: every column grows, the index resizes; both states stay the same.
  for (let i = N; i < 3 * N; i++) {
    add(back, claim(i, false, 1));
    add(state, claim(i, false, 1));
  }
  back.claims.addEvidence(paperRef(1, 2));
  state.claims.addEvidence(paperRef(1, 2));
  t.ok(
    [...state.claims].every(([ref, c], row) => back.claims.rowOf(ref) === row && same(back.claims.at(row), c)),
    `each of ${3 * N} claims the same in both, at the same row`,
  );
  t.equal(stateDigest(back), stateDigest(state), 'the same state digest');
  t.throws(() => add(state, claim(3, false, 1)), /on the record already/, 'a ref already held is not added twice');
  t.throws(() => state.claims.addEvidence(paperRef(99999, 1)), /no claim/, 'evidence on a claim the record does not hold');
});

t.test("a snapshot's copy taken before a claim changes keeps the claim as it was at the copy", async (t) => {
  const state = emptyState();
  for (let i = 0; i < 200; i++) add(state, claim(i, i % 5 === 0, 1));
  const ref = paperRef(1, 1);
  const was = state.claims.get(ref)!;
  const digest = stateDigest(state);
  let turns = 0;
  // The copy is taken now; its bytes are made over later turns, while the claim is amended and given evidence.
  const body = stateBody(state, async () => {
    if (turns++ === 0) {
      state.claims.amend(ref, 900, 'conceptual', 'another test');
      state.claims.addEvidence(ref);
      add(state, claim(500, false, 1));
    }
  });
  const back = readState(Buffer.concat(await body), state.size);
  if ('problem' in back) throw new Error(back.problem);
  t.ok(turns > 0, 'the state changed while the bytes were made');
  t.same(state.claims.get(ref), {
    ...was,
    kind: 'conceptual',
    evidence: 1,
    amendment: { seq: 900, before: { kind: was.kind } },
  });
  t.ok(state.claims.testMayBe(1, 'another test'), 'its test amended');
  t.ok(back.claims.testMayBe(1, testOf(ref)) && !back.claims.testMayBe(1, 'another test'), 'the copy holds its test as it was');
  t.same(back.claims.get(ref), was, 'the copy holds the claim as it was: not amended, no evidence');
  t.equal(back.claims.size, 200, 'nor the claim added after the copy');
  t.equal(stateDigest(back), digest, 'the state digest of the state at the copy');
});

// A verifier replays served entries, whose withheld texts are null (docs/record.md#what-served-entries-withhold): a claim whose
// test was withheld, or whose amendment's test was, has no test known to be the same as another, and survives a snapshot so.
t.test('a test withheld (null) is known the same as none, through an amendment and a snapshot', async (t) => {
  const state = emptyState();
  const withheld = claim(1, false);
  const known = claim(2, false);
  state.claims.add(withheld, null);
  state.claims.add(known, testOf(known.ref));
  t.notOk(state.claims.testMayBe(0, testOf(withheld.ref)), 'a claim made with its test withheld');
  t.notOk(state.claims.testMayBe(0, null) || state.claims.testMayBe(1, null), 'an amendment whose test is withheld');
  t.ok(state.claims.testMayBe(1, testOf(known.ref)), 'a known test is still known');
  state.claims.amend(withheld.ref, 300, 'empirical', 'a test now served');
  t.ok(state.claims.testMayBe(0, 'a test now served'), 'amended with a test served: known again');
  state.claims.amend(known.ref, 301, 'empirical', null);
  t.notOk(state.claims.testMayBe(1, testOf(known.ref)), 'amended with its test withheld: no longer known');
  const back = readState(Buffer.concat(stateBodySync(state)), state.size);
  if ('problem' in back) throw new Error(back.problem);
  t.ok(back.claims.testMayBe(0, 'a test now served') && !back.claims.testMayBe(1, testOf(known.ref)), 'read back from a snapshot');
  t.equal(back.claims.get(known.ref)!.kind, 'empirical', 'its kind as it was');
});

// A list that only grows is serialized a piece of 16,384 items a turn, so that ten million refs do not hold the service for
// seconds in one call (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
t.test('sources longer than a piece are written a piece a turn and read back whole, in order, as they stood at the copy', async (t) => {
  const state = emptyState();
  const N = 150_000;
  // Every claim external: its source is a string of a list that only grows (RowTexts).
  for (let i = 0; i < N; i++) add(state, claim(i, true, 1));
  const digest = stateDigest(state);
  let turns = 0;
  const body = Buffer.concat(
    await stateBody(state, async () => {
      if (turns++ === 3) add(state, claim(N, false, 1));
    }),
  );
  const whole = readState(body, state.size);
  const inPieces = await readStateFrom(bytesBody(body), state.size);
  if ('problem' in whole) throw new Error(whole.problem);
  if ('problem' in inPieces) throw new Error(inPieces.problem);
  t.equal(state.claims.size, N + 1, 'a claim added while the bytes were made');
  for (const [how, back] of [
    ['read whole', whole],
    ['read a piece at a time', inPieces.state],
  ] as const) {
    t.equal(back.claims.size, N, `${how}: the claims at the copy, not the one added after`);
    t.ok(
      [...back.claims.refs].every((ref, row) => ref === state.claims.refAt(row) && back.claims.rowOf(ref) === row),
      `${how}: every ref at its row`,
    );
    t.ok(
      Array.from({ length: N }, (_, row) => row).every((row) => back.claims.at(row).source === `doi:10.1234/${row}`),
      `${how}: every source at its row`,
    );
    t.equal(stateDigest(back), digest, `${how}: the state digest at the copy`);
  }
  const manifest = deserialize(body.subarray(4, 4 + body.readUInt32LE(0))) as { parts: { path: string[]; pieces?: number[] }[] };
  const sources = manifest.parts.find((p) => p.path.join('.') === 'claims.sources.texts');
  t.equal(sources?.pieces?.length, 10, 'the sources written in ten pieces (of 16,384 at most), each in a turn of its own');
});

t.test(
  "the authors' columns as narrow as their numbers: Uint8, Uint16, Int32, the same claims before and after each widening",
  async (t) => {
    // Each claim by an agent and operator of its own: past 2 ** 8 and 2 ** 16 of each, restored half way.
    const N = 2 ** 16 + 50;
    const of = (i: number) => ({ ...claim(i, false, 1), agent: `agent-${i}`, operatorId: `op_${i}` });
    const kinds = (s: State) => {
      const d = s.claims.pack();
      return `${d.agent.constructor.name} ${d.operator.constructor.name}`;
    };
    let s = emptyState();
    const seen: string[] = [];
    for (let i = 0; i < N; i++) {
      add(s, of(i));
      if (i === 200 || i === 300 || i === 2 ** 16 - 2 || i === N - 1) seen.push(kinds(s));
      if (i === 40_000) s = restore(s);
    }
    t.same(seen, ['Uint8Array Uint8Array', 'Uint16Array Uint16Array', 'Uint16Array Uint16Array', 'Int32Array Int32Array']);
    const back = restore(s);
    t.ok(
      Array.from({ length: N }, (_, i) => i).every((i) => {
        const c = back.claims.get(paperRef(i, 1))!;
        return c.agent === `agent-${i}` && c.operatorId === `op_${i}`;
      }),
      `each of ${N} claims names its own agent and operator, after every widening and two restores`,
    );
  },
);

t.test('stated confidences and forecasts in ten-thousandths until one is not, each read back as given, across restores', async (t) => {
  let s = emptyState();
  const kinds = (x: State) => `${x.claims.pack().confidence.constructor.name} ${x.reviews.pack().forecast.constructor.name}`;
  const given = (i: number) => (i === 700 ? 0.123456 : ((i * 37) % 10001) / 10000);
  const review = (i: number) => ({
    id: createHash('sha256').update(`review ${i}`).digest('hex'),
    seq: 5000 + i,
    claim: paperRef((i % 100) - (i % 10 === 9 ? 1 : 0), 1),
    agent: `agent-${i % 9}`,
    operatorId: `op_${i % 4}`,
    forecast: given(i),
    models: [],
    signerKey: 'k'.repeat(43),
    ts: '2026-11-28T12:00:00.000Z',
  });
  const seen: string[] = [];
  for (let i = 0; i < 1000; i++) {
    add(s, { ...claim(i, i % 10 === 9), confidence: i % 10 === 9 ? null : given(i) });
    if (i >= 100) s.reviews.add(review(i));
    if (i === 699 || i === 700) seen.push(kinds(s));
    if (i === 400) s = restore(s);
  }
  t.same(seen, ['Uint16Array Uint16Array', 'Float64Array Float64Array'], 'two bytes a number until 0.123456, then doubles');
  const back = restore(s);
  t.ok(
    Array.from({ length: 1000 }, (_, i) => i).every(
      (i) => back.claims.get(claim(i, i % 10 === 9).ref)!.confidence === (i % 10 === 9 ? null : given(i)),
    ),
    'every confidence as given, null for an external claim',
  );
  t.ok(
    Array.from({ length: 900 }, (_, r) => r).every((r) => back.reviews.forecastAt(r) === given(r + 100)),
    'every forecast as given',
  );
  const narrow = emptyState();
  add(narrow, { ...claim(1, false), confidence: 0.65 });
  add(narrow, { ...claim(2, true), confidence: null });
  t.same([...narrow.claims.pack().confidence], [6500, 0xffff], 'a confidence held as ten-thousandths, none as 0xFFFF');
});
