// The claims' statements and tests are not kept in the state but read from the entries that carry them
// (docs/record.md#how-the-state-is-kept): a paper's claims, an external claim's quote and test, an amendment's test. A
// service started from its snapshot serves the same texts as the one that folded the writes live: in the paper's read,
// the explorer's claim page, the search and the feeds.
import t from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotFile } from '../../lib/service/snapshot.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const html = async (s: TestService, path: string) => {
  const r = await fetch(`${s.url}${path}`, { headers: { accept: BROWSER } });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return r.text();
};

t.test("a state read back from its snapshot serves the claims' texts the live state served, amended ones before and after", async (t) => {
  const dataDir = tempDir(t);
  const file = snapshotFile(dataDir);
  const first = await startService(t, { dataDir, snapshot: file });
  const alice = await register(first, 'alice', { operatorId: 'lab-a' });
  const claims = [
    { text: 'Halving the learning rate halves the variance of final loss.', confidence: 0.7, test: 'A variance ratio above 0.75.' },
    { text: 'Warmup removes the early loss spikes of small transformers.', confidence: 0.6, test: 'A run with warmup that spikes.' },
    { text: 'Weight decay leaves the final loss of small transformers alone.', confidence: 0.5, test: 'A decay that moves it by 1%.' },
  ];
  const paper = await send(first, alice, 'paper', make.paper(3, { claims }));
  t.equal(paper.status, 201, paper.text);
  const [c1, c2, c3] = paper.body.claims as string[];
  const ext = await send(first, alice, 'claim.external', {
    source: 'doi:10.1234/batch.5678',
    quote: 'Larger batch sizes never reduce final accuracy.',
    test: 'A larger batch that lowers accuracy by a point.',
  });
  t.equal(ext.status, 201, ext.text);
  const amended = await send(first, alice, 'claim.amend', { claim: c2, test: 'A run with warmup whose loss spikes twice.' });
  t.same(
    amended.body,
    {
      claim: c2,
      kind: 'empirical',
      test: 'A run with warmup whose loss spikes twice.',
      before: { kind: 'empirical', test: 'A run with warmup that spikes.' },
      seq: first.record.state.size - 1,
    },
    "the amendment's answer: its test, and the test before read from the paper's entry",
  );
  const kindOnly = await send(first, alice, 'claim.amend', { claim: ext.body.ref, kind: 'conceptual' });
  t.same(
    kindOnly.body,
    {
      claim: ext.body.ref,
      kind: 'conceptual',
      test: 'A larger batch that lowers accuracy by a point.',
      before: { kind: 'empirical', test: 'A larger batch that lowers accuracy by a point.' },
      seq: first.record.state.size - 1,
    },
    'an amendment of the kind alone: the test the claim was made with, before and after',
  );
  const same = await send(first, alice, 'claim.amend', { claim: c3, test: claims[2]!.test });
  t.equal(same.status, 409, 'its own test again changes nothing');
  t.match(same.body, { error: 'conflict', detail: /^payload: nothing changes/ });

  // What a reader is served of the texts, on each surface that shows them.
  const served = async (s: TestService) => {
    const read = (await s.get(`/v2/papers/${paper.body.id}`)).body;
    const search = (await s.get('/v2/search?q=spikes')).body.results.map((r: { id: string; snippet: string }) => [r.id, r.snippet]);
    return {
      claims: read.claims.map((c: Record<string, unknown>) => [c.ref, c.text, c.test, c.kind, c.amended]),
      amendments: read.amendments,
      page: await html(s, `/explore/claims/${encodeURIComponent(c2!)}`),
      external: await html(s, `/explore/claims/${encodeURIComponent(ext.body.ref as string)}`),
      search,
      // Its links name the service's address, which the second start does not share.
      feed: (await fetch(`${s.url}/feeds/all.atom`).then((r) => r.text())).replaceAll(s.url, ''),
    };
  };
  const live = await served(first);
  t.same(
    live.claims,
    [
      [c1, claims[0]!.text, claims[0]!.test, 'empirical', null],
      [
        c2,
        claims[1]!.text,
        'A run with warmup whose loss spikes twice.',
        'empirical',
        { seq: amended.body.seq, before: amended.body.before },
      ],
      [c3, claims[2]!.text, claims[2]!.test, 'empirical', null],
    ],
    "the paper's claims: statements and tests as the entries hold them, the amended one's test after, with the one before",
  );
  t.same(live.amendments, [
    {
      claim: c2,
      seq: amended.body.seq,
      before: amended.body.before,
      after: { kind: 'empirical', test: 'A run with warmup whose loss spikes twice.' },
    },
  ]);
  t.match(live.page, `<p>Test: A run with warmup whose loss spikes twice.</p>`);
  t.match(live.page, 'before it, the test was: A run with warmup that spikes. (empirical)');
  t.match(live.page, `<title>${claims[1]!.text}`, 'the page titled by its statement');
  t.match(live.external, '<p>Test: A larger batch that lowers accuracy by a point.</p>');
  t.same(
    live.search.map(([id]: string[]) => id),
    [c2],
    'the search finds the amended claim by its new test',
  );

  const taken = await first.record.snapshot(file);
  t.equal(taken?.treeSize, first.d.log.size, 'the snapshot holds every entry');
  await first.stop();
  const lines: string[] = [];
  const second = await startService(t, { dataDir, snapshot: file, say: (l) => lines.push(l) });
  t.match(lines, [new RegExp(`starting from the snapshot at entry ${taken!.treeSize} of ${second.d.log.size}`)], 'started from it');
  t.same(await served(second), live, 'the same texts served from the state read back');
  await second.stop();
});
