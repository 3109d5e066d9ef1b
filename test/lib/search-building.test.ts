// A search made while the index is still being built (a start on a large record takes about a
// minute, docs/api.md#search) is answered within SEARCH_WAIT_MS: 503 unavailable with how far
// the build got, never held until the build ends; once built, it answers. The store here is the
// service's real log, whose reads of the papers' text are held back until the test lets them go.
import t from 'tap';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { SEARCH_WAIT_MS, SearchIndex } from '../../lib/service/search.js';
import { isArchiveError } from '../../lib/protocol/errors.js';

t.test('a search while the index is built: 503 with its progress within the wait, then results', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const p = await send(s, alice, 'paper', make.paper(1, { title: 'Gravitational lensing of quasars' }));
  t.equal(p.status, 201, p.text);

  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const index = new SearchIndex({ records: async (from, count) => (await gate, s.d.log.records(from, count)) });
  index.reset(s.record.state);

  const t0 = Date.now();
  const err = await index.search('quasars', {}, { treeSize: s.d.log.size, passed: 0 }, 10).then(
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

  release();
  await index.ready;
  const found = await index.search('quasars', {}, { treeSize: s.d.log.size, passed: 0 }, 10);
  t.ok(
    found.results.some((r) => r.key === p.body.id),
    'the paper is found once the index is built',
  );
  t.same(index.progress.done, index.progress.total, 'the progress says it is done');
});
