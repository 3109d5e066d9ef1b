// The search index's snapshot (lib/service/search-snapshot.ts, docs/log-format.md, "Snapshots of
// the record's state"): an index restored from it and brought up to the state by the entries
// logged since (papers, external claims, agents, amendments) answers every search as the index
// that followed the record all along; a snapshot of another log, beyond the state, or damaged is
// not used, with its line, and the index is built from the state.
import t from 'tap';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { Readers } from '../../lib/service/readers.js';
import { SearchIndex } from '../../lib/service/search.js';
import { encodeSearch, savedSearch, writeSearchSnapshot } from '../../lib/service/search-snapshot.js';
import { toHex } from 'tlog-engine';

const abstract = (topic: string) => `We study ${topic} across many settings and report what holds and what does not, with data.`;
const WORDS = ['axion', 'haloscope', 'plasma', 'turbulence', 'zebrafish', 'nothing', 'carol', 'lab', 'transformers', 'sheared', 'finds'];

t.test('an index from its snapshot and the entries since answers as the index that followed the record', async (t) => {
  let readers: Readers | undefined;
  const s = await startService(t, { readersFrom: (record, log) => (readers = Readers.follow(record, log)) });
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const early = await send(s, alice, 'paper', make.paper(2, { title: 'Axion searches with haloscopes', abstract: abstract('axions') }));
  t.equal(early.status, 201, early.text);
  await readers!.search.ready;
  const file = join(tempDir(t), 'search.snapshot');
  const saved = await readers!.search.save();
  t.ok(saved, 'saved once built');
  const written = await writeSearchSnapshot(file, saved!, s.d.log, performance.now());
  t.equal(written.treeSize, s.record.state.size, "at the state's size");

  // After the snapshot: an agent, a paper, an external claim, amendments of a claim before and after it.
  await register(s, 'carol', { operatorId: 'lab-c' });
  const late = await send(
    s,
    bob,
    'paper',
    make.paper(1, { title: 'Plasma turbulence in small transformers', abstract: abstract('plasma') }),
  );
  const ext = await send(s, bob, 'claim.external', {
    source: 'doi:10.1234/plasma.5678',
    quote: 'Plasma turbulence is suppressed by sheared flows.',
    test: 'A sheared flow with no less turbulence',
  });
  t.equal(ext.status, 201, ext.text);
  for (const [who, claim, test] of [
    [alice, `${early.body.id}#C1`, 'A zebrafish study that finds nothing.'],
    [bob, `${late.body.id}#C1`, 'A haloscope run that finds nothing at all.'],
  ] as const) {
    const r = await send(s, who, 'claim.amend', { claim, test });
    t.equal(r.status, 201, r.text);
  }

  const lines: string[] = [];
  const restored = new SearchIndex(
    s.d.log,
    savedSearch(file, s.d.log, (l) => lines.push(l)),
  );
  restored.reset(s.record.state);
  await restored.ready;
  t.same(lines, [], 'the snapshot is used');
  t.equal(restored.lastBuild!.from, written.treeSize, 'from the snapshot');
  t.equal(restored.size, readers!.search.size, 'the same items');
  const at = { treeSize: s.record.state.size, passed: 0 };
  for (const q of WORDS) {
    const want = await readers!.search.search(q, {}, at, 50);
    t.same(await restored.search(q, {}, at, 50), want, `${q}: ${want.results.length} results, as the index that followed the record`);
  }
  t.ok((await restored.search('zebrafish', {}, at, 50)).results.length > 0, 'an amendment after the snapshot is found');

  // Damaged, or of a state larger than the one started: built from the state, one line saying why.
  for (const [name, bytes, why] of [
    ['damaged', (b: Buffer) => ((b[b.length - 3] = b[b.length - 3]! ^ 1), b), /its state does not hash to its digest/],
    ['truncated', (b: Buffer) => b.subarray(0, b.length - 100), /truncated/],
    ['not JSON', () => Buffer.from('nonsense\n'), /its header is not JSON/],
  ] as const) {
    const other = join(tempDir(t), `${name}.snapshot`);
    writeFileSync(other, bytes(Buffer.from(readFileSync(file))));
    const said: string[] = [];
    const built = new SearchIndex(
      s.d.log,
      savedSearch(other, s.d.log, (l) => said.push(l)),
    );
    built.reset(s.record.state);
    await built.ready;
    t.match(said, [why], `${name}: not used, and said why`);
    t.equal(built.lastBuild!.from, null, `${name}: built from the state`);
    t.same(await built.search('plasma', {}, at, 50), await readers!.search.search('plasma', {}, at, 50));
  }

  // Whole, of this code and log, but its parts are not an index: not used either.
  const garbage = join(tempDir(t), 'garbage.snapshot');
  writeFileSync(
    garbage,
    await encodeSearch(
      { treeSize: written.treeSize, items: 1, parts: [Buffer.from('not an index')] },
      toHex(await s.d.log.rootAt(written.treeSize)),
    ),
  );
  const told: string[] = [];
  const fallback = new SearchIndex(
    s.d.log,
    savedSearch(garbage, s.d.log, (l) => told.push(l)),
  );
  fallback.reset(s.record.state);
  await fallback.ready;
  t.match(told, [/garbage\.snapshot is not used, its index cannot be read \(.+\); indexing the state's items/]);
  t.equal(fallback.lastBuild!.from, null, 'built from the state');
  t.same(await fallback.search('plasma', {}, at, 50), await readers!.search.search('plasma', {}, at, 50));

  // Taken at a size beyond the state's (a state of another history, say): not used.
  const said: string[] = [];
  const small = new SearchIndex(
    s.d.log,
    savedSearch(file, s.d.log, (l) => said.push(l)),
  );
  small.reset({ ...s.record.state, size: written.treeSize - 1 } as typeof s.record.state);
  await small.ready;
  t.match(said, [/it was taken at size \d+, beyond the state's \d+ entries/]);
});

t.test("a snapshot of another log's index is not used", async (t) => {
  let readers: Readers | undefined;
  const a = await startService(t, { readersFrom: (record, log) => (readers = Readers.follow(record, log)) });
  await register(a, 'alice', { operatorId: 'lab-a' });
  await readers!.search.ready;
  const file = join(tempDir(t), 'search.snapshot');
  await writeSearchSnapshot(file, (await readers!.search.save())!, a.d.log, performance.now());

  const b = await startService(t);
  await register(b, 'bob', { operatorId: 'lab-b' });
  await register(b, 'carol', { operatorId: 'lab-c' });
  const said: string[] = [];
  const index = new SearchIndex(
    b.d.log,
    savedSearch(file, b.d.log, (l) => said.push(l)),
  );
  index.reset(b.record.state);
  await index.ready;
  t.match(said, [/is not used, its head \(size \d+, root [0-9a-f]{64}\) is not a prefix of this log/]);
  t.equal(index.lastBuild!.from, null);
  t.same((await index.search('bob', {}, { treeSize: b.record.state.size, passed: 0 }, 10)).results, [{ kind: 'agent', key: 'bob' }]);
});
