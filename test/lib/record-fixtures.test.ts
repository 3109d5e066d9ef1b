// Logs written before the record was reshaped (issue 13), kept in fixtures/record/ with the state
// digest their replay gave then: replaying them now must give the very same digest. Together they
// hold every entry type the record folds. Three are a real service's stored entries, one line
// each ({seq, ts, type, payload} with the logged object's canonical JSON): the race of
// test/api/concurrency.test.ts (every write type, seals, lapses, holds, referrals), the amendment
// of test/api/governance.test.ts (a close, acknowledgements) and the workload of
// test/lib/record-replay.test.ts (reveals). The fourth is the fold driven by hand in
// test/lib/settlement.test.ts (shut-outs ending), replayed from its seeded state: its first line
// names the operators verified from the start.
import t from 'tap';
import { stateDigest, replayEntries, emptyState, type RecordEntry, type State } from '../../lib/record/fold/index.js';
import { ENTRY_TYPES } from '../../lib/record/types/index.js';
import { claimScore, operatorCalibration } from '../../lib/record/numbers/index.js';
import { writeFileSync } from 'node:fs';
import { fixtureJson, fixtureText, projectRoot } from '../helpers/fixtures.js';
import { seededState } from '../helpers/fold.js';
import { summary } from '../../lib/record/views/index.js';

interface Expected {
  size: number;
  digest: string;
}

const expected = fixtureJson<Record<string, Expected>>('record/digests.json');

function entries(lines: string[]): RecordEntry[] {
  return lines.map((line) => {
    const r = JSON.parse(line) as { seq: number; ts: string; type: string; payload: string };
    return { seq: r.seq, ts: r.ts, type: r.type, logged: JSON.parse(r.payload) };
  });
}

function load(name: string): { start: State; log: RecordEntry[] } {
  const lines = fixtureText(`record/${name}.jsonl`)
    .split('\n')
    .filter((l) => l !== '');
  if (name === 'fold') {
    const header = JSON.parse(lines[0]!) as { verified: string[] };
    return { start: seededState(header.verified), log: entries(lines.slice(1)) };
  }
  return { start: emptyState(), log: entries(lines) };
}

/**
 * The numbers served after replaying a fixture, rounded as the API serves them: every claim's
 * ClaimScore (GET /v2/credence, in view or not) and every author's calibration. Written once on
 * the code before the numbers were kept as aggregates (issue 14): the state digests above hold
 * the unrounded scores, which the exact sums of docs/credence.md#arithmetic moved by a few ULPs,
 * so this is what shows that no served number changed. FIXTURES_WRITE=1 writes them anew.
 */
function servedNumbers(state: State) {
  const claims = [...state.numbers.index.refs].map((ref) => claimScore(state, ref));
  const operators: Record<string, { rho: number; resolved: number }> = {};
  for (const op of [...state.numbers.index.claimsByOperator.keys()].sort()) operators[op] = operatorCalibration(state, op);
  return { claims, operators };
}

const types = new Set<string>();
for (const name of Object.keys(expected)) {
  t.test(`fixtures/record/${name}.jsonl replays to the digest it had`, async (t) => {
    const { start, log } = load(name);
    for (const e of log) types.add(e.type);
    const state = replayEntries(log, start);
    t.equal(state.size, expected[name]!.size, 'every entry folded');
    t.equal(stateDigest(state), expected[name]!.digest, 'the same state digest');
    // The summary's counts are kept as entries land; counted from the state, they are the same.
    const { external, checks, receipts } = summary(state);
    t.equal(external, [...state.claims.values()].filter((c) => c.external).length, 'external claims, as counted');
    t.equal(receipts, [...state.receipts.values()].filter((r) => r.result !== null).length, 'receipts with a result, as counted');
    t.equal(checks, state.receipts.size);
    if (name === 'concurrency') t.ok(receipts > 0 && external > 0, 'the fixture has results and external claims');
  });
  t.test(`fixtures/record/${name}.jsonl replays to the served numbers it had`, async (t) => {
    const { start, log } = load(name);
    const served = JSON.parse(JSON.stringify(servedNumbers(replayEntries(log, start)))) as unknown;
    const file = `record/${name}.numbers.json`;
    if (process.env.FIXTURES_WRITE === '1') writeFileSync(`${projectRoot}fixtures/${file}`, JSON.stringify(served, null, 1) + '\n');
    t.ok((served as { claims: unknown[] }).claims.length > 0, 'the fixture has claims');
    t.same(served, fixtureJson(file), 'the same served numbers');
  });
}

t.test('together the fixtures hold every entry type of the record', async (t) => {
  t.same(
    ENTRY_TYPES.map((d) => d.type).filter((type) => !types.has(type)),
    [],
    'no type missing',
  );
});
