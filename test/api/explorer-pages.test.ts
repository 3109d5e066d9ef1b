// The explorer's claims, a page at a time (docs/api.md, GET /explore): newest first, `limit` a
// page, and an "Older claims" link whose `before` keeps the next page the same while claims land.
import t from 'tap';
import { startService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';

const claimsOn = (html: string) =>
  [...html.matchAll(/<tr><td><a href="\/explore\/claims\/([^"]+)">/g)].map((m) => decodeURIComponent(m[1]!));
const olderLink = (html: string) => /<a id="older" href="([^"]+)">Older claims<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;

t.test('pages of claims, newest first, stable while claims land', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const published: string[] = [];
  for (let i = 0; i < 3; i++) published.push(...((await send(s, a, 'paper', make.paper(2))).body.claims as string[]));
  const newestFirst = [...published].reverse();

  const first = await (await fetch(`${s.url}/explore?limit=4`)).text();
  t.same(claimsOn(first), newestFirst.slice(0, 4), 'the four newest');
  const next = olderLink(first);
  t.ok(next, 'a link to older claims');
  const second = await (await fetch(`${s.url}${next}`)).text();
  t.same(claimsOn(second), newestFirst.slice(4), 'then the rest');
  t.equal(olderLink(second), null, 'and no link past the oldest');

  await send(s, a, 'paper', make.paper(2));
  t.same(claimsOn(await (await fetch(`${s.url}${next}`)).text()), newestFirst.slice(4), 'the same page after newer claims landed');
  t.same(claimsOn(await (await fetch(`${s.url}/explore`)).text()).length, 8, 'the default page holds them all');

  for (const bad of ['limit=0', 'limit=201', 'before=x', 'before=-1', 'page=2']) {
    const r = await fetch(`${s.url}/explore?${bad}`);
    t.equal(r.status, 400, bad);
    t.match(await r.json(), { error: 'bad_request' });
  }
});

t.test("a claim's page names where it comes from, and an amended claim its original test", async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const paper = await send(s, a, 'paper', make.paper(1, { title: 'Variance <halves> with the rate' }));
  const ref = (paper.body.claims as string[])[0]!;
  const amended = await send(s, a, 'claim.amend', { claim: ref, test: 'A replication on the same setup where the ratio is above 0.8.' });
  t.equal(amended.status, 201, amended.text);
  const html = await (await fetch(`${s.url}/explore/claims/${encodeURIComponent(ref)}`)).text();
  t.match(
    html,
    /<p id="about">From the paper <i>Variance &lt;halves&gt; with the rate<\/i> \(<code>rec:[0-9a-f]{16}<\/code>, ml\), by <code>alice<\/code> of <code>lab-a<\/code>, entry <a href="\/explore\/log\?from=\d+">\d+<\/a>; empirical, stated confidence 0\.8\.<\/p>/,
  );
  t.match(html, /<p>Test: A replication on the same setup where the ratio is above 0\.8\.<\/p>/, 'the test in force');
  t.match(
    html,
    /<p id="amendment">Amended at entry <a [^>]+>\d+<\/a>; before it, the test was: A result that would refute it \(empirical\)\.<\/p>/,
    'and the original one',
  );

  const ext = await send(s, a, 'claim.external', {
    source: 'doi:10.1234/example.5678',
    quote: 'Larger batch sizes never reduce final accuracy.',
    test: 'Any published run where a larger batch lowers final accuracy.',
  });
  t.equal(ext.status, 201, ext.text);
  const page = await (await fetch(`${s.url}/explore/claims/${encodeURIComponent(ext.body.ref as string)}`)).text();
  t.match(page, /<p id="about">An external claim, quoted from <code>doi:10\.1234\/example\.5678<\/code>, by <code>alice<\/code>/);
  t.notMatch(page, /stated confidence/, 'an external claim states none');
});

t.test('the log page says who wrote each entry, at a time to the second', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  await send(s, a, 'paper', make.paper(1));
  const html = await (await fetch(`${s.url}/explore/log?from=0`)).text();
  const rows = [
    ...html.matchAll(
      /<tr id="entry-(\d+)"[^>]*><td class="n">\d+<\/td><td>([^<]+)<\/td><td class="who">([^<]*)<\/td><td><code title="([^"]+)">([^<]+)<\/code>/g,
    ),
  ];
  t.same(
    rows.map((r) => [r[2], r[3]]),
    [
      ['log.genesis', 'the service'],
      ['agent.register', 'alice'],
      ['paper', 'alice'],
    ],
  );
  for (const r of rows)
    t.equal(r[5], r[4]!.slice(0, 19).replace('T', ' '), `entry ${r[1]}: the ts to the second, the full one in its title`);
});

t.test("a claim's page says why it has its status", async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const ref = ((await send(s, a, 'paper', make.paper(1))).body.claims as string[])[0]!;
  for (const who of ['bob', 'carol']) await replicate(t, s, await register(s, who, { operatorId: `lab-${who}` }), ref, 'confirmed');
  const unchecked = await (await fetch(`${s.url}/explore/claims/${encodeURIComponent(ref)}`)).text();
  t.match(unchecked, /status <b>unchecked<\/b>/);
  t.match(
    unchecked,
    /<p id="why-status">Unchecked: supported needs credence from verified operators alone of at least 0\.6 \(here [0-9.]+\) and a confirming replication by a verified operator \(here 0\)\. 2 results by operators not verified are shown and count towards credence, not towards status\.<\/p>/,
    'two confirmed replications by operators not verified: said why it is unchecked',
  );

  await replicate(t, s, await houseAgent(s, 'house'), ref, 'confirmed');
  const supported = await (await fetch(`${s.url}/explore/claims/${encodeURIComponent(ref)}`)).text();
  t.match(supported, /status <b>supported<\/b>/);
  t.match(
    supported,
    /<p id="why-status">Supported: credence from verified operators alone is [0-9.]+ \(at least 0\.6\), with 1 confirming replication by verified operators\. 2 results by operators not verified/,
  );
});
