// A write of the search index that fails (a full disk, say: lib/service/search.ts) is said once and tried again every
// second, never at once in a loop that would hold the event loop; its items go back to the queue, so that once writes work
// again the index holds every item, those of the writes that failed too; meanwhile a search of what it does not hold is
// answered 503.
import t from 'tap';
import { join } from 'node:path';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { Readers } from '../../lib/service/readers.js';
import { TIERS, type SearchStore } from '../../lib/service/search.js';
import { SqliteSearch } from '../../lib/service/search-sqlite.js';

t.test('a failing index write is said once, tried again each second, and loses no item', async (t) => {
  const sqlite = new SqliteSearch(join(tempDir(t), 'search.sqlite'), TIERS);
  let failing = false;
  let tries = 0;
  const store: SearchStore = {
    get where() {
      return sqlite.where;
    },
    open: (say) => sqlite.open(say),
    head: () => sqlite.head(),
    clear: () => sqlite.clear(),
    write: async (items, head) => {
      tries++;
      if (failing) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return sqlite.write(items, head);
    },
    candidates: (...args) => sqlite.candidates(...args),
    texts: (ranks) => sqlite.texts(ranks),
    close: () => sqlite.close(),
  };
  const errors: unknown[][] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => void errors.push(args);
  t.teardown(() => void (console.error = error));
  const said: string[] = [];
  let readers!: Readers;
  const s = await startService(t, {
    readersFrom: (record, d) => (readers = Readers.follow(record, d, { store, say: (l) => said.push(l) })),
  });
  await readers.search.ready;

  failing = true;
  const before = tries;
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const paper = await send(s, alice, 'paper', make.paper(1, { title: 'Gravitational lensing of quasars' }));
  t.equal(paper.status, 201, 'writes to the log land while the index cannot be written');
  // The event loop goes on: a timer of 50 ms fires about thirty times in a second and a half.
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  await new Promise((r) => setTimeout(r, 1500));
  clearInterval(timer);
  t.ok(ticks >= 15, `the event loop is not held (${ticks} ticks of 50 ms in 1.5 s)`);
  t.ok(tries - before >= 2 && tries - before <= 6, `the write is tried again about each second (${tries - before} tries)`);
  const refused = await s.get(`/v2/search?q=quasars`);
  t.equal(refused.status, 503, 'a search of what the index does not hold yet: 503');
  t.equal(refused.body.error, 'unavailable');
  t.match(refused.body.detail, /^q: the search index holds the log up to entry \d+, not yet entry \d+/);
  t.equal(errors.length, 1, 'the failure said once');
  t.match(String(errors[0]![0]), /^archive: writing the search index failed; trying again every 1 s until it works/);

  failing = false;
  let found = false;
  for (const end = Date.now() + 5000; !found && Date.now() < end;) {
    const r = await s.get(`/v2/search?q=quasars`);
    found = r.status === 200 && r.body.results.some((x: { id: string }) => x.id === paper.body.id);
    if (!found) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(found, 'once writes work again, the paper of the writes that failed is found');
  const agent = await s.get(`/v2/search?q=alice&kind=agent`);
  t.same(
    agent.body.results.map((x: { id: string }) => x.id),
    ['alice'],
    'and the agent registered while they failed',
  );
  t.match(said, [/^archive: the search index is written again \(it failed: database or disk is full\)$/]);
  t.equal(errors.length, 1, 'nothing more said of the failure');
});
