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
import { stateDigest } from '../../lib/record/digest.js';
import { replayEntries } from '../../lib/record/replay.js';
import { ENTRY_TYPES } from '../../lib/record/registry.js';
import { emptyState, type RecordEntry, type State } from '../../lib/record/state.js';
import { fixtureJson, fixtureText } from '../helpers/fixtures.js';
import { seededState } from '../helpers/fold.js';

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

const types = new Set<string>();
for (const name of Object.keys(expected)) {
  t.test(`fixtures/record/${name}.jsonl replays to the digest it had`, async (t) => {
    const { start, log } = load(name);
    for (const e of log) types.add(e.type);
    const state = replayEntries(log, start);
    t.equal(state.size, expected[name]!.size, 'every entry folded');
    t.equal(stateDigest(state), expected[name]!.digest, 'the same state digest');
  });
}

t.test('together the fixtures hold every entry type of the record', async (t) => {
  t.same(
    ENTRY_TYPES.map((d) => d.type).filter((type) => !types.has(type)),
    [],
    'no type missing',
  );
});
