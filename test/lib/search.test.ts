// The search index on disk (lib/service/search.ts, search-sqlite.ts; docs/api.md#search): kept as
// the record folds and brought up to date from its head at start, built anew when that head does
// not hold (one line saying why), it answers the same, in the same order, however it was made;
// words are stemmed; an amended claim is one item whose text is its latest version; a cursor
// crosses a restart, and writes landing between pages, without skipping or repeating an item;
// the SQLite index keeps each version's columns, the snippets of a page, which answer as the log's.
import t from 'tap';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, send, type TestAgent } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { Readers } from '../../lib/service/readers.js';
import { queryWords, rankKey, SearchIndex, TIERS } from '../../lib/service/search.js';
import { searchFile, SqliteSearch } from '../../lib/service/search-sqlite.js';

const abstract = (topic: string) => `We study ${topic} across many settings and report what holds and what does not, with data.`;
const QUERIES = ['learning rate', 'learning', 'rates', 'replicated', 'plasma turbulence', 'zebrafish', 'refute', 'lab', 'carol', 'finds'];

/** A service whose readers are kept (so a test can reach its search index), saying its lines into `lines`. */
async function service(t: Parameters<typeof startService>[0], dataDir: string, lines: string[] = []) {
  let readers!: Readers;
  const s = await startService(t, {
    dataDir,
    readersFrom: (record, d) => (readers = Readers.follow(record, d, { say: (l) => lines.push(l) })),
  });
  await readers.search.ready;
  return { s, readers };
}

/** Every result of each query, page after page of `limit`. */
async function answers(s: TestService, limit = 2): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const q of QUERIES) {
    const ids: string[] = [];
    let url = `/v2/search?q=${encodeURIComponent(q)}&limit=${limit}`;
    for (let page = 0; page < 50; page++) {
      const r = await s.get(url);
      if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.text}`);
      ids.push(...r.body.results.map((x: { id: string }) => x.id));
      if (r.body.next === null) break;
      url = `/v2/search?q=${encodeURIComponent(q)}&limit=${limit}&cursor=${r.body.next}`;
    }
    out[q] = ids;
  }
  return out;
}

async function papers(s: TestService, alice: TestAgent, bob: TestAgent) {
  const made: Record<string, any> = {};
  made.rates = await send(
    s,
    alice,
    'paper',
    make.paper(1, { title: 'Warmup schedules for learning rates', abstract: abstract('the learning rates of small models') }),
  );
  made.rate = await send(s, bob, 'paper', make.paper(1, { title: 'The learning rate is not enough', abstract: abstract('tuning') }));
  made.replication = await send(
    s,
    bob,
    'paper',
    make.paper(1, {
      title: 'A replication of plasma turbulence results',
      abstract: abstract('turbulence in plasma'),
      claims: [{ text: 'Turbulence in plasma falls with shear', confidence: 0.6, test: 'A sheared plasma with no less turbulence' }],
    }),
  );
  for (const m of Object.values(made)) if (m.status !== 201) throw new Error(m.text);
  return made;
}

t.test('stemmed words: a search for one form finds the items that use another', async (t) => {
  const { s } = await service(t, tempDir(t));
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const made = await papers(s, alice, bob);
  const ids = async (q: string) => (await s.get(`/v2/search?q=${encodeURIComponent(q)}&kind=paper`)).body.results.map((x: any) => x.id);
  t.same((await ids('learning rate')).sort(), [made.rates.body.id, made.rate.body.id].sort(), '"learning rate" finds "learning rates"');
  t.same((await ids('learning rates')).sort(), [made.rates.body.id, made.rate.body.id].sort(), 'and the other way');
  t.same(await ids('replicated'), [made.replication.body.id], '"replicated" finds "replication"');
  // The words found are marked in any of their forms.
  const r = await s.get('/v2/search?q=learning%20rate&kind=paper');
  t.match(r.body.results.find((x: any) => x.id === made.rates.body.id).snippet, /learning rates of small models/);
  const page = await (await fetch(`${s.url}/explore/search?q=learning%20rate`)).text();
  t.match(page, '<mark>learning</mark> <mark>rates</mark>', 'the explorer marks "rates" for "rate"');
  // As a phrase in a title, before the words apart in one, before the words in an abstract.
  const ranked = await papersOfRank(s);
  t.same(ranked.found, ranked.want, 'ranked by tier');
});

/** Papers whose titles hold the words as a phrase, apart, and only their abstracts: the ids found, and in the order wanted. */
async function papersOfRank(s: TestService): Promise<{ found: string[]; want: string[] }> {
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const apart = await send(s, carol, 'paper', make.paper(1, { title: 'Flares of a quiet magnetar', abstract: abstract('stars') }));
  const inAbstract = await send(
    s,
    carol,
    'paper',
    make.paper(1, { title: 'Neutron stars', abstract: abstract('a magnetar with a flare') }),
  );
  const phrase = await send(s, carol, 'paper', make.paper(1, { title: 'Every magnetar flare we saw', abstract: abstract('stars') }));
  const r = await s.get('/v2/search?q=magnetar%20flare&kind=paper');
  return { found: r.body.results.map((x: any) => x.id), want: [phrase.body.id, apart.body.id, inAbstract.body.id] };
}

t.test('an index brought up to date at start, or built anew, answers as the one that followed the record', async (t) => {
  const dataDir = tempDir(t);
  const lines: string[] = [];
  const first = await service(t, dataDir, lines);
  const s = first.s;
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const made = await papers(s, alice, bob);
  const live = await answers(s);
  const head = first.readers.search.size;
  t.equal(head, s.d.log.size, 'the index holds every entry committed');
  await s.stop();
  // A copy of the index at this head, for a start with entries logged after it.
  const kept = join(tempDir(t), 'search.sqlite');
  copyFileSync(searchFile(dataDir), kept);

  // Entries after the copy: an agent, a paper, an external claim, an amendment of a claim of before.
  const second = await service(t, dataDir, lines);
  t.same(lines, [], 'the index on disk is used, without a line');
  t.equal(second.readers.search.lastBuild?.from, head, 'brought up to date from its head');
  t.same(await answers(second.s), live, 'the same answers after a restart');
  const s2 = second.s;
  await register(s2, 'carol', { operatorId: 'lab-c' });
  const late = await send(
    s2,
    bob,
    'paper',
    make.paper(1, { title: 'Plasma turbulence in small transformers', abstract: abstract('plasma') }),
  );
  t.equal(late.status, 201, late.text);
  const ext = await send(s2, bob, 'claim.external', {
    source: 'doi:10.1234/plasma.5678',
    quote: 'Plasma turbulence is suppressed by sheared flows.',
    test: 'A sheared flow with no less turbulence',
  });
  t.equal(ext.status, 201, ext.text);
  const amended = await send(s2, alice, 'claim.amend', {
    claim: `${made.rates.body.id}#C1`,
    test: 'A zebrafish study that finds nothing.',
  });
  t.equal(amended.status, 201, amended.text);
  const want = await answers(s2);
  t.ok(want['zebrafish']!.includes(`${made.rates.body.id}#C1`), 'the amended claim is found by its new text');
  t.notOk(want['refute']!.includes(`${made.rates.body.id}#C1`), 'not by its text of before');
  t.ok(want['refute']!.includes(`${made.rate.body.id}#C1`), 'which other claims still have');
  await s2.stop();

  // The copy of before: brought up to date from the log.
  copyFileSync(kept, searchFile(dataDir));
  rmSync(`${searchFile(dataDir)}-wal`, { force: true });
  rmSync(`${searchFile(dataDir)}-shm`, { force: true });
  const third = await service(t, dataDir, lines);
  t.same(lines, [], 'used');
  t.equal(third.readers.search.lastBuild?.from, head, 'from the head of the copy, the entries since read from the log');
  t.same(await answers(third.s), want, 'the same answers, in the same order');
  await third.s.stop();

  // None: built anew from the state.
  rmSync(searchFile(dataDir));
  rmSync(`${searchFile(dataDir)}-wal`, { force: true });
  rmSync(`${searchFile(dataDir)}-shm`, { force: true });
  const fourth = await service(t, dataDir, lines);
  t.match(lines, [/search\.sqlite is not used, it holds nothing yet; indexing the state's items/], 'one line saying why');
  t.equal(fourth.readers.search.lastBuild?.from, null, 'built anew');
  t.same(await answers(fourth.s), want, 'the same answers, in the same order');
});

t.test('an index of another log is not used: one line, and it is built anew', async (t) => {
  const a = await service(t, tempDir(t));
  await register(a.s, 'alice', { operatorId: 'lab-a' });
  await a.s.stop();
  const lines: string[] = [];
  const b = await service(t, tempDir(t));
  await register(b.s, 'bob', { operatorId: 'lab-b' });
  await register(b.s, 'carol', { operatorId: 'lab-c' });
  const index = new SearchIndex(b.s.d.log, new SqliteSearch(searchFile(a.s.dataDir), TIERS), { say: (l) => lines.push(l) });
  t.teardown(() => index.close());
  index.reset(b.s.record.state);
  await index.ready;
  t.match(lines, [/is not used, its head \(size \d+, root [0-9a-f]{64}\) is not a prefix of this log; indexing the state's items/]);
  t.equal(index.lastBuild?.from, null);
  t.same((await index.search(queryWords('bob'), {}, null, 10)).results, [{ kind: 'agent', key: 'bob', text: ['bob', 'lab-b', ''] }]);
  t.same((await index.search(queryWords('alice'), {}, null, 10)).results, [], "nothing of the other log's");
});

t.test('a cursor goes on after a restart and while writes land: nothing skipped, nothing repeated', async (t) => {
  const dataDir = tempDir(t);
  const first = await service(t, dataDir);
  const s = first.s;
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  for (let i = 0; i < 9; i++) {
    const where = i % 3 === 0 ? { title: `Quasar survey ${i}`, abstract: abstract('stars') } : { abstract: abstract(`quasar ${i}`) };
    t.equal((await send(s, alice, 'paper', make.paper(1, where))).status, 201);
  }
  const whole = (await s.get('/v2/search?q=quasar&kind=paper&limit=100')).body.results.map((r: any) => r.id);
  t.equal(whole.length, 9);
  const p1 = await s.get('/v2/search?q=quasar&kind=paper&limit=4');
  await s.stop();
  const second = await service(t, dataDir);
  // Better matches land before the next pages are read.
  for (let i = 0; i < 3; i++)
    t.equal(
      (await send(second.s, alice, 'paper', make.paper(1, { title: `Quasar ${i} first`, abstract: abstract('quasars') }))).status,
      201,
    );
  const p2 = await second.s.get(`/v2/search?q=quasar&kind=paper&limit=4&cursor=${p1.body.next}`);
  t.equal(p2.status, 200, p2.text);
  const p3 = await second.s.get(`/v2/search?q=quasar&kind=paper&limit=4&cursor=${p2.body.next}`);
  t.equal(p3.body.next, null, 'the last page');
  const walked = [p1, p2, p3].flatMap((p) => p.body.results.map((r: any) => r.id));
  t.same(walked, whole, 'the pages of before the restart, as they were');
  t.equal((await second.s.get('/v2/search?q=quasar&kind=paper&limit=100')).body.results.length, 12, 'a new search finds the new papers');
});

t.test("the index keeps each version's columns: a page's snippets are read from it, an amended claim's from the log", async (t) => {
  const dataDir = tempDir(t);
  const first = await service(t, dataDir);
  const s = first.s;
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const made = await papers(s, alice, bob);
  const paper = made.replication.body.id;
  const claim = `${made.rate.body.id}#C1`;
  const amended = await send(s, bob, 'claim.amend', { claim, test: 'A zebrafish study that finds nothing.' });
  t.equal(amended.status, 201, amended.text);
  await first.readers.search.ready;
  const before = { text: 'Claim number 1 holds', test: 'A result that would refute it' };
  const kept = await first.readers.search.store.texts!([rankKey(paper), rankKey(claim), rankKey(claim, 1), rankKey('rec:none')]);
  t.same(
    [...kept],
    [
      [rankKey(paper), ['A replication of plasma turbulence results', abstract('turbulence in plasma'), '']],
      [rankKey(claim), [before.text, before.test, '']],
      [rankKey(claim, 1), [before.text, 'A zebrafish study that finds nothing.', '']],
    ],
    "each version's columns as indexed, none for a key it does not hold",
  );
  const snippets = async (s: TestService, q: string) =>
    (await s.get(`/v2/search?q=${encodeURIComponent(q)}&limit=50`)).body.results.map((r: any) => `${r.id}: ${r.snippet}`);
  const asked = ['turbulence', 'zebrafish', 'refute', 'learning rates', 'plasma shear'];
  const live = await Promise.all(asked.map((q) => snippets(s, q)));
  t.ok(live[0].includes(`${paper}: ${abstract('turbulence in plasma')}`), "a paper's snippet is its abstract");
  t.ok(
    live[1].includes(`${claim}: A zebrafish study that finds nothing.`),
    'an amended claim is found by its new test, shown as it stands',
  );
  t.ok(
    live[2].some((x: string) => x.startsWith(`${made.rates.body.id}#C1: `)) && !live[2].some((x: string) => x.startsWith(`${claim}: `)),
    'not by its test of before',
  );
  await s.stop();
  // Built anew from the state (the texts read from the log): the same snippets.
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${searchFile(dataDir)}${suffix}`, { force: true });
  const second = await service(t, dataDir);
  t.same(await Promise.all(asked.map((q) => snippets(second.s, q))), live, 'the same results and snippets');
});
