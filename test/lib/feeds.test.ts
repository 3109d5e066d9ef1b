// A field's feed (lib/record/views/feeds.ts) walks status changes from the newest and stops once it
// has its 50: what it serves equals the newest 50 of every paper and status change of the field.
import t from 'tap';
import { Fold } from '../helpers/fold.js';
import { FEED_ITEMS, feedItems, feedLinks, claimField } from '../../lib/record/views/index.js';

t.test('the feed is the newest 50 papers and status changes of its field, whatever the history', async (t) => {
  const f = new Fold(['op_archive', 'v1', 'v2']);
  f.agent('a-1', 'lab-a');
  f.agent('v1-1', 'v1');
  f.agent('v2-1', 'v2');
  // Claims confirmed by a verified replication move from unchecked to supported: a status change each.
  for (let i = 0; i < 80; i++) {
    const [ref] = f.paper('a-1', [{ confidence: 0.8 }]);
    f.receipt(i % 2 === 0 ? 'v1-1' : 'v2-1', ref!, 'confirmed');
  }
  const changes = f.state.numbers.statusChanges.filter((c) => claimField(f.state, c.ref) === 'ml');
  t.ok(changes.length > FEED_ITEMS, `${changes.length} status changes in the field`);
  const all = [
    ...[...f.state.papers.values()].filter((p) => p.field === 'ml').map((p) => ({ seq: p.seq, id: `paper:${p.id}` })),
    ...changes.map((c) => ({ seq: c.seq, id: `status:${c.ref}:${c.seq}` })),
  ].sort((a, b) => b.seq - a.seq || (a.id < b.id ? -1 : 1));
  t.same(
    feedItems(f.state, 'ml').map((i) => i.id),
    all.slice(0, FEED_ITEMS).map((i) => i.id),
  );
  t.same(feedItems(f.state, 'bio'), []);
  t.same(
    feedItems(f.state, 'all').map((i) => i.id),
    all.slice(0, FEED_ITEMS).map((i) => i.id),
    'every field: here, all of them are ml',
  );
});

t.test("feed autodiscovery: every field's feed, and the page's own field's", async (t) => {
  const all = '<link rel="alternate" type="application/atom+xml" title="archive: new in every field" href="/feeds/all.atom">';
  t.equal(feedLinks(), all);
  t.equal(feedLinks('ml'), `${all}<link rel="alternate" type="application/atom+xml" title="archive: new in ml" href="/feeds/ml.atom">`);
  t.equal(feedLinks('physics'), all, 'a field with no feed: none of its own');
});
