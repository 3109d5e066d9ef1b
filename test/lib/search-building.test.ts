// A search made while the index is still being built (a first start on a large record takes a
// minute or more, docs/api.md#search) is answered within SEARCH_WAIT_MS: 503 unavailable with how
// far the build got, never held until the build ends; once built, it answers. The log here is the
// service's real log, whose reads of the papers' text are held back until the test lets them go.
import t from 'tap';
import { join } from 'node:path';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { SEARCH_WAIT_MS, SearchIndex, TIERS } from '../../lib/service/search.js';
import { SqliteSearch } from '../../lib/service/search-sqlite.js';
import { isArchiveError } from '../../lib/protocol/errors.js';

t.test('a search while the index is built: 503 with its progress within the wait, then results', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const p = await send(s, alice, 'paper', make.paper(1, { title: 'Gravitational lensing of quasars' }));
  t.equal(p.status, 201, p.text);

  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const log = s.d.log;
  const said: string[] = [];
  const index = new SearchIndex(
    {
      get size() {
        return log.size;
      },
      records: async (from, count) => (await gate, log.records(from, count)),
      rootAt: (size) => log.rootAt(size),
      waitFor: (size) => log.waitFor(size),
    },
    new SqliteSearch(join(tempDir(t), 'search.sqlite'), TIERS),
    { say: (l) => said.push(l) },
  );
  t.teardown(() => index.close());
  index.reset(s.record.state);

  const t0 = Date.now();
  const err = await index.search(['quasars'], {}, null, 10).then(
    () => null,
    (e: unknown) => e,
  );
  const waited = Date.now() - t0;
  t.ok(isArchiveError(err), 'refused with a typed error');
  if (isArchiveError(err)) {
    t.equal(err.code, 'unavailable');
    t.equal(err.retryAfter, 5);
    t.match(err.detail, /^q: the search index is being built \(0 of \d+ items indexed\)/);
  }
  t.ok(waited >= SEARCH_WAIT_MS - 50 && waited < SEARCH_WAIT_MS + 1500, `answered after the wait (${waited} ms)`);
  t.match(said, [/search\.sqlite is not used, it holds nothing yet; indexing the state's items/], 'one line saying why');

  release();
  await index.ready;
  const found = await index.search(['quasars'], {}, null, 10);
  t.ok(
    found.results.some((r) => r.key === p.body.id),
    'the paper is found once the index is built',
  );
  t.same(index.progress.done, index.progress.total, 'the progress says it is done');
  t.same(index.lastBuild?.from, null, 'built anew');
});

t.test('a node that takes the lead while a write is applied but not yet committed brings the index up once the log holds it', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const p = await send(s, alice, 'paper', make.paper(1, { title: 'Gravitational lensing of quasars' }));
  t.equal(p.status, 201, p.text);

  // The log as this node sees it commits one entry less than the state holds (the paper, in flight), until the test lets it.
  const log = s.d.log;
  let committed = log.size - 1;
  let commit!: () => void;
  const committing = new Promise<void>((r) => (commit = r));
  const beyond = (size: number) => new Error(`size ${size} is beyond the tree size ${committed}`);
  const index = new SearchIndex(
    {
      get size() {
        return committed;
      },
      records: (from, count) => log.records(from, Math.max(0, Math.min(count, committed - from))),
      rootAt: (size) => (size > committed ? Promise.reject(beyond(size)) : log.rootAt(size)),
      waitFor: async (size) => {
        if (size > committed) await committing;
      },
    },
    new SqliteSearch(join(tempDir(t), 'search.sqlite'), TIERS),
    { writes: false, say: () => undefined },
  );
  t.teardown(() => index.close());
  index.reset(s.record.state);
  await index.ready;
  t.equal(s.record.state.size, committed + 1, 'the state holds the paper, the log not yet');

  index.lead();
  await new Promise((r) => setTimeout(r, 50));
  committed = log.size;
  commit();
  await index.ready;
  const found = await index.search(['quasars'], {}, null, 10);
  t.same(
    found.results.map((r) => r.key),
    [p.body.id],
    'the paper is found',
  );
  t.equal(index.size, committed, 'the index holds the whole log');
});
