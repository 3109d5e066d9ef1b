// Reading logged entries back (lib/service/logged.ts): the entries a read asks for in one turn are read
// together, those near one another in one range of the store, each answered with its own entry.
import t from 'tap';
import { entryLookup, LONGEST, NEAR, ranges } from '../../lib/service/logged.js';
import type { RecordLog } from '../../lib/protocol/log-entry.js';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';

t.test('ranges: seqs near one another share one', async (t) => {
  t.same(ranges([]), []);
  t.same(ranges([5]), [{ from: 5, count: 1, seqs: [5] }]);
  t.same(ranges([5, 6, 5 + NEAR]), [{ from: 5, count: NEAR + 1, seqs: [5, 6, 5 + NEAR] }]);
  t.same(ranges([5, 5 + NEAR + 1]), [
    { from: 5, count: 1, seqs: [5] },
    { from: 5 + NEAR + 1, count: 1, seqs: [5 + NEAR + 1] },
  ]);
  const many = Array.from({ length: 200 }, (_, i) => i * (NEAR - 1));
  const split = ranges(many);
  t.ok(
    split.every((r) => r.count <= LONGEST),
    'no range longer than LONGEST',
  );
  t.same(
    split.flatMap((r) => r.seqs),
    many,
    'every seq in one range',
  );
});

t.test("a page's entries asked for together are read in one store read, each answered with its own", async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const seqs: number[] = [];
  for (let i = 0; i < 5; i++) seqs.push((await send(s, a, 'paper', make.paper(1, { title: `Paper number ${i}` }))).body.seq as number);
  const reads: [number, number][] = [];
  const spy = Object.create(s.d.log) as RecordLog;
  spy.records = (from, count, only) => {
    reads.push([from, count]);
    return s.d.log.records(from, count, only);
  };
  const entries = entryLookup(spy);
  const titles = await Promise.all([...seqs].reverse().map(async (seq) => (await entries.logged(seq, 'paper')).title));
  t.same(titles, ['Paper number 4', 'Paper number 3', 'Paper number 2', 'Paper number 1', 'Paper number 0']);
  t.same(reads, [[seqs[0], seqs[4]! - seqs[0]! + 1]], 'one read of the range that holds them');
  const [again, same] = await Promise.all([entries.entry(seqs[2]!), entries.entry(seqs[2]!)]);
  t.equal(again.seq, seqs[2]);
  t.equal(same, again, 'the same entry asked twice: one read');
  t.equal(reads.length, 2);
  await t.rejects(entries.logged(seqs[1]!, 'review'), { code: 'internal' }, 'an entry not of the type the record names is a bug');
  const later = await Promise.all([entries.entry(seqs[0]!), entries.logged(seqs[3]!, 'paper')]);
  t.equal(later[0].seq, seqs[0], 'one wrong read fails its caller alone');
});

t.test('records of a range with `only`: the seqs asked for alone, parsed, fewer where the log ends', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const seqs: number[] = [];
  for (let i = 0; i < 3; i++) seqs.push((await send(s, a, 'paper', make.paper(1, { title: `Paper number ${i}` }))).body.seq as number);
  const whole = await s.d.log.records(seqs[0]!, seqs[2]! - seqs[0]! + 1);
  const some = await s.d.log.records(seqs[0]!, seqs[2]! - seqs[0]! + 1, [seqs[0]!, seqs[2]!]);
  t.same(
    some,
    whole.filter((e) => e.seq === seqs[0] || e.seq === seqs[2]),
    'the two asked for, as a read of the whole range gives them',
  );
  t.same(
    some.map((e) => (JSON.parse(e.payload) as { payload: { title: string } }).payload.title),
    ['Paper number 0', 'Paper number 2'],
  );
  const size = s.d.log.size;
  t.same(
    (await s.d.log.records(size - 1, 5, [size - 1, size + 1])).map((e) => e.seq),
    [size - 1],
    'none past the end',
  );
});
