// verifyService in segments (verify/verify.ts): a run of a few entries a segment holds no more than a segment at once, and
// gives the report, state and subtrees a run of the whole log in one segment gives, on a sound log, with a saved head in a middle
// segment and one rewritten (logs broken in each segment: segments-broken.test.ts).
import t from 'tap';
import { both, SEGMENT, service } from '../helpers/segments.js';
import { reviewedPaper } from '../helpers/verifier.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { fetchLog } from '../../verify/source.js';

t.test('a sound log: the same report, state and subtrees in segments, holding a segment at once', async (t) => {
  const s = await service(t);
  const v = await both(t, s.url, 'sound');
  t.same(v.report.problems, []);
  t.ok(v.report.entries > 2 * SEGMENT, `${v.report.entries} entries`);
  t.equal(v.report.outOfView, 1, 'the paper out of view is counted');
  t.ok(
    ['credence', 'record', 'papers', 'agents'].every((r) => v.report.compared.includes(r)),
    'the served reads compared',
  );
  // A head saved at a size in a middle segment: its root is computed as the segment passes it.
  const earlier = (await fetchLog(new ArchiveClient(s.url))).sth;
  await reviewedPaper(t, s, 6);
  t.same((await both(t, s.url, 'a saved head', earlier)).report.problems, []);
  const rewritten = { ...earlier, treeSize: SEGMENT + 3 };
  t.match((await both(t, s.url, 'a saved head rewritten', rewritten)).report.problems, [{ kind: 'consistency' }]);
});
