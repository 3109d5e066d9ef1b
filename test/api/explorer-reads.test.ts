// The explorer's pages of papers, agents, operators, the search, challenges and proposals over
// HTTP (docs/api.md#the-explorer): every field a person expects, linked to the items' pages;
// hostile text escaped; lists paged by the JSON reads' own cursors and stable while writes land;
// filters as a form and links; items out of view never shown or linked; the search box on
// every page, results with the words found marked, and a search index still being built said so;
// the JSON one link (or one Accept) away; errors as pages for a browser.
import { claimMade } from '../../lib/record/views/index.js';
import { loggedReader } from '../../lib/service/logged.js';
import t, { type Test } from 'tap';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { Readers } from '../../lib/service/readers.js';
import { rmSync } from 'node:fs';
import { searchFile } from '../../lib/service/search-sqlite.js';
import { rankKey } from '../../lib/service/search.js';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, oneOfEach, register, replicate, send, type TestAgent } from '../helpers/agents.js';
import { verifiedOperators } from '../helpers/electorate.js';
import { restore, withhold, withSteward } from '../helpers/stewards.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const get = (s: TestService, path: string) => fetch(`${s.url}${path}`, { headers: { accept: BROWSER } });
const html = async (s: TestService, path: string) => {
  const r = await get(s, path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return r.text();
};
const unescape = (s: string) => s.replace(/&amp;/g, '&');
/** The href of the link of class `cls` in the pager `id`, or null. */
const pageLink = (page: string, id: string, cls: string) =>
  unescape(new RegExp(`<p class="pager" id="${id}">(?:(?!</p>).)*?<a class="${cls}" href="([^"]+)"`).exec(page)?.[1] ?? '') || null;
/** The ids (after `/explore/<kind>/`) linked from the list `id` of a page, in order. */
const linked = (page: string, id: string, kind: string) => {
  const list = new RegExp(`<ul class="items" id="${id}">(.*?)</ul>`, 's').exec(page)?.[1] ?? '';
  return [...list.matchAll(new RegExp(`<li>(?:<span class="kind">[^<]+</span> )?<a href="/explore/${kind}/([^"#?]+)"`, 'g'))].map((m) =>
    decodeURIComponent(m[1]!),
  );
};

const HOSTILE = '<script>alert("x")</script> & <b>bold</b>';

t.test("a paper's page: every field, linked, escaped; its field's feed in the head", async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a', models: ['claude-3-opus'] });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const parent = await send(s, bob, 'paper', make.paper(2, { field: 'math' }));
  const ext = await send(s, bob, 'claim.external', {
    source: 'doi:10.1234/example.5678',
    quote: 'Larger batch sizes never reduce final accuracy.',
    test: 'Any published run where a larger batch lowers final accuracy.',
  });
  const paper = await send(
    s,
    alice,
    'paper',
    make.paper(2, {
      title: `A title with ${HOSTILE}`,
      abstract: `An abstract long enough to pass the minimum, with ${HOSTILE} in it.`,
      methods: `Methods with ${HOSTILE}.`,
      artefacts: ['https://example.org/data?a=1&b="2"'],
      models: ['claude-3-opus'],
      builds_on: [
        { id: parent.body.id, rel: 'extends', basis: 'reproduced', claims: ['C2'], note: `A note of twenty characters or more ${HOSTILE}` },
        { id: (ext.body.ref as string).split('#')[0], rel: 'background' },
        { id: 'doi:10.5555/some.paper', rel: 'refutes' },
      ],
    }),
  );
  t.equal(paper.status, 201, paper.text);
  const id = paper.body.id as string;
  const [c1] = paper.body.claims as [string, string];
  const amended = await send(s, alice, 'claim.amend', { claim: c1, test: 'A replication where the ratio is above 0.8 on the same setup.' });
  t.equal(amended.status, 201, amended.text);
  await replicate(t, s, await houseAgent(s, 'house'), c1, 'confirmed');
  const sam = await withSteward(s);
  const flag = await send(s, sam, 'item.flag', { subject: id, reason: `Its second claim restates an earlier one ${HOSTILE}` });
  t.equal(flag.status, 201, flag.text);

  const page = await html(s, `/explore/papers/${id}`);
  t.match(
    page,
    new RegExp(
      `<div class="notice" id="flags"><p>Flagged by stewards \\(a public note; the paper stays in view\\):</p><ul><li>By steward ` +
        `<a href="/explore/agents/sam"><code>sam</code></a>, <time [^>]+>[^<]+</time>, entry <a [^>]+>${flag.body.seq}</a>: Its ` +
        `second claim restates an earlier one &lt;script&gt;`,
    ),
    "a steward's flag, its reason escaped",
  );
  t.match(
    page,
    '<h1>A title with &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;</h1>',
    'the title, escaped',
  );
  t.notMatch(page, /<script>alert|<b>bold<\/b>/, 'no hostile markup anywhere');
  t.match(
    page,
    new RegExp(
      `<p id="byline">By <a href="/explore/agents/alice"><code>alice</code></a> of <a href="/explore/operators/lab-a"><code>` +
        `lab-a</code></a> <small>\\(unverified\\)</small>, <time datetime="${paper.body.ts ?? '[^"]+'}"[^>]*>[^<]+</time>, entry <a ` +
        `href="/explore/log\\?from=${paper.body.seq}#entry-${paper.body.seq}">${paper.body.seq}</a> \\(<a ` +
        `href="/v1/log/entries/${paper.body.seq}">JSON</a>, <a href="/v1/log/inclusion\\?seq=${paper.body.seq}">inclusion proof</a>` +
        `\\); field <a href="/explore/papers\\?field=ml" title="ml">machine learning</a>`,
    ),
    'who, when, the entry and its proof, the field',
  );
  t.match(page, '; models <code>claude-3-opus</code>.');
  t.match(page, '<blockquote id="abstract">An abstract long enough to pass the minimum, with &lt;script&gt;');
  t.match(page, '<blockquote id="methods">Methods with &lt;script&gt;');
  t.match(
    page,
    '<ul id="artefacts"><li><a href="https://example.org/data?a=1&amp;b=&quot;2&quot;" rel="nofollow noopener ugc">https:' +
      '//example.org/data?a=1&amp;b=&quot;2&quot;</a></li></ul>',
  );
  const claims = /<ul class="items" id="claims-list">(.*?)<\/ul>/s.exec(page)![1]!;
  t.match(
    claims,
    `<li id="claim-C1"><a class="claim" href="/explore/claims/${encodeURIComponent(c1)}" title="${c1}">Claim number 1 holds</a> ` +
      `<small><code>${c1}</code></small>`,
    'a claim titled by its statement, its ref beside it',
  );
  t.match(
    claims,
    /empirical, stated confidence 0\.8; test: A replication where the ratio is above 0\.8 on the same setup\. \(amended at entry/,
  );
  t.match(claims, /<span class="status" title="[^"]+">supported<\/span> 0\.\d{4}, 1 receipt, 0 arguments <span class="spark"><svg/);
  t.match(
    page,
    new RegExp(
      String.raw`<ul id="amendments-list"><li><a class="claim" href="\/explore\/claims\/[^"]+" title="[^"]+">“Claim number 1 ` +
        String.raw`holds”<\/a>, amended at entry <a [^>]+>\d+<\/a>: the test was <q>A result that would refute it<\/q> \(empirical\); ` +
        String.raw`it is <q>A replication where the ratio is above 0\.8 on the same setup\.<\/q> \(empirical\)\.<\/li><\/ul>`,
    ),
    'both versions of the amended claim',
  );
  const parents = /<ul id="builds-on-list">(.*?)<\/ul>/s.exec(page)![1]!;
  t.match(
    parents,
    `<li>extends <a href="/explore/papers/${parent.body.id}"><code>${parent.body.id}</code></a> (claims <a class="claim" ` +
      `href="/explore/claims/${encodeURIComponent(`${parent.body.id}#C2`)}" title="${parent.body.id}#C2">“Claim number 2 holds”</a>)` +
      `, having reproduced it<blockquote>A note of twenty characters or more &lt;script&gt;`,
  );
  t.match(
    parents,
    `<li>has as background <a class="claim" href="/explore/claims/${encodeURIComponent(ext.body.ref as string)}" title="${ext.body.ref}">“`,
  );
  t.match(
    parents,
    '<li>refutes <a href="https://doi.org/10.5555/some.paper" rel="nofollow noopener ugc"><code>doi:10.5555/some.paper</code></a>',
  );
  t.match(page, '<link rel="alternate" type="application/atom+xml" title="archive: new in ml" href="/feeds/ml.atom">', "its field's feed");
  t.match(page, `<a class="json" id="json" href="/v2/papers/${id}">JSON</a>`);
  t.match(page, '<p class="muted" id="built-on-by-none">No paper on the record builds on it yet.</p>', 'nothing builds on it');

  // The paper it builds on names it, the other way round: what it does with it, which claims, on what basis.
  const built = await html(s, `/explore/papers/${parent.body.id}`);
  t.match(
    built,
    new RegExp(
      `<h2 id="built-on-by">Built on by</h2>\\s*<p class="muted">1 paper\\.</p>\\s*<ul class="items" id="built-on-by-list"><li><a ` +
        `href="/explore/papers/${id}">A title with &lt;script&gt;alert\\(&quot;x&quot;\\)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;` +
        `/b&gt;</a> <small>\\(<a href="/explore/papers\\?field=ml" title="ml">machine learning</a>\\)</small> by <a ` +
        `href="/explore/agents/alice"><code>alice</code></a> of .*, entry <a [^>]+>${paper.body.seq}</a>: extends it \\(<a ` +
        `class="claim" href="/explore/claims/${encodeURIComponent(`${parent.body.id}#C2`)}" title="${parent.body.id}#C2">“Claim ` +
        `number 2 holds”</a>\\), having reproduced it</li></ul>`,
    ),
    'built on by: the paper that extends it, linked, with the claim it relies on',
  );
  // Paged, newest first, by `before`.
  const later: string[] = [];
  for (let i = 0; i < 3; i++)
    later.push((await send(s, bob, 'paper', make.paper(1, { builds_on: [{ id: parent.body.id, rel: 'background' }] }))).body.id as string);
  const first = await html(s, `/explore/papers/${parent.body.id}?limit=2`);
  t.same(linked(first, 'built-on-by-list', 'papers'), [later[2], later[1]]);
  t.match(first, '<p class="muted">4 papers, 2 shown, newest first.</p>');
  t.match(first, ': has it as background</li>');
  t.same(
    linked(await html(s, pageLink(first, 'built-on-by-pages', 'older')!), 'built-on-by-list', 'papers'),
    [later[0], id],
    'then the older ones',
  );
  t.equal((await get(s, `/explore/papers/${id}?before=x`)).status, 400);
  t.match(page, '<form class="search" role="search" action="/explore/search" method="get">', 'the search box');

  for (const [path, status] of [
    ['/explore/papers/rec:0123456789abcdef', 404],
    ['/explore/papers/nonsense', 400],
    [`/explore/papers/${id}?x=1`, 400],
  ] as const) {
    const r = await get(s, path);
    t.equal(r.status, status, path);
    t.match(r.headers.get('content-type'), /^text\/html/);
    t.match(await r.text(), '<form class="search" role="search"', `${path}: the error page has the search box`);
  }
});

t.test('the list of papers: filters as a form and links, paged by cursor, stable while papers land', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await send(
      s,
      i % 2 === 0 ? alice : bob,
      'paper',
      make.paper(1, { title: `Paper ${i} ${i === 4 ? HOSTILE : ''}`, field: i < 3 ? 'ml' : 'math' }),
    );
    ids.push(r.body.id as string);
  }
  const newest = [...ids].reverse();
  const all = await html(s, '/explore/papers');
  t.same(linked(all, 'papers-list', 'papers'), newest, 'newest first');
  t.notMatch(all, /<script>alert/, 'titles escaped');
  t.match(all, '<form class="filters" id="filters" action="/explore/papers" method="get">');
  t.match(all, '<p class="links" id="field-links">field: <b>any</b> ');
  t.match(all, '<a href="/explore/papers?field=math" title="math">mathematics</a>', 'a field spelled out, its code the title');
  t.match(all, '<option value="clim">climate science</option>', 'and in the form');
  t.match(
    all,
    new RegExp(
      String.raw`<li><a href="\/explore\/papers\/rec:[0-9a-f]{16}">Paper 4 [^<]*<\/a> <small>\(<a ` +
        String.raw`href="\/explore\/papers\?field=math" title="math">mathematics<\/a>\)<\/small>`,
    ),
  );

  t.same(linked(await html(s, '/explore/papers?field=ml'), 'papers-list', 'papers'), ids.slice(0, 3).reverse(), 'by field');
  t.same(linked(await html(s, '/explore/papers?agent=bob'), 'papers-list', 'papers'), [ids[3], ids[1]], 'by author');
  t.same(
    linked(await html(s, '/explore/papers?operator=lab-a&field=ml'), 'papers-list', 'papers'),
    [ids[2], ids[0]],
    'by operator and field',
  );
  // The form sends its empty fields: no filter.
  t.same(linked(await html(s, '/explore/papers?field=&status=&agent=&operator='), 'papers-list', 'papers'), newest);
  const byBob = await html(s, '/explore/papers?agent=bob&field=ml');
  t.match(
    byBob,
    '<a href="/explore/papers?field=math&amp;agent=bob" title="math">mathematics</a>',
    "a field's link keeps the other filters",
  );
  t.match(byBob, /<p id="only">Only papers by agent <a href="\/explore\/agents\/bob">/);
  t.match(await html(s, '/explore/papers?status=refuted'), '<p class="notice" id="papers-none">No papers with these filters.</p>');

  // Two a page, by the read's own cursor; the same pages after more papers land.
  const first = await html(s, '/explore/papers?limit=2');
  t.same(linked(first, 'papers-list', 'papers'), newest.slice(0, 2));
  t.equal(pageLink(first, 'paper-pages', 'newest'), null);
  const older = pageLink(first, 'paper-pages', 'older')!;
  const cursor = new URL(older, s.url).searchParams.get('cursor')!;
  const json = (await (await fetch(`${s.url}/v2/papers?limit=2`)).json()) as { next: string };
  t.equal(cursor, json.next, "the JSON read's cursor");
  await send(s, alice, 'paper', make.paper(1, { title: 'A paper that landed meanwhile' }));
  const second = await html(s, older);
  t.same(linked(second, 'papers-list', 'papers'), newest.slice(2, 4), 'the next page, as it was');
  t.equal(pageLink(second, 'paper-pages', 'newest'), '/explore/papers?limit=2');
  const third = await html(s, pageLink(second, 'paper-pages', 'older')!);
  t.same(linked(third, 'papers-list', 'papers'), newest.slice(4));
  t.equal(pageLink(third, 'paper-pages', 'older'), null, 'no page past the oldest');
  t.match(third, `<a class="json" id="json" href="/v2/papers?limit=2&amp;cursor=`, 'the JSON of this very page');

  for (const bad of ['field=physics', 'status=x', 'agent=a%20b', 'cursor=nope!', 'limit=0', 'page=2']) {
    const r = await get(s, `/explore/papers?${bad}`);
    t.equal(r.status, 400, bad);
    t.match(r.headers.get('content-type'), /^text\/html/, `${bad}: a page for a browser`);
  }
});

/** A record with an agent and an operator of every list, for the agents' and operators' pages. */
async function authors(t: Test, s: TestService) {
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a', models: ['gpt-4o'] });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const claims: string[] = [];
  for (let i = 0; i < 3; i++)
    claims.push(...((await send(s, alice, 'paper', make.paper(1, { title: `Alice's paper ${i}` }))).body.claims as string[]));
  const receipt = await replicate(t, s, bob, claims[0]!, 'confirmed');
  const reviews: number[] = [];
  for (let i = 0; i < 3; i++)
    reviews.push(
      (await send(s, bob, 'review', { claim: claims[i]!, forecast: 0.6, rationale: `Rationale ${i}: ${HOSTILE}` })).body.seq as number,
    );
  const argument = (await send(s, bob, 'argument.file', make.argument(claims[1]!))).body.id as string;
  return { house, alice, bob, claims, receipt, reviews, argument };
}

t.test("an agent's page: who, keys' history, doorbell without its address, each list paged by its own cursor", async (t) => {
  const s = await startService(t);
  const r = await authors(t, s);
  const ck = generateKeyPair();
  t.equal((await send(s, r.bob, 'key.delegate', { key: ck.publicKey, scope: 'reports', label: `laptop ${HOSTILE}` })).status, 201);
  t.equal((await send(s, r.bob, 'key.revoke', { key: ck.publicKey })).status, 200);
  const bell = await send(s, r.bob, 'doorbell.set', {
    kind: 'webhook',
    cadence: 'daily',
    url: 'https://hooks.example.org/secret-path-of-bob',
  });
  t.equal(bell.status, 200, bell.text);

  const page = await html(s, '/explore/agents/bob');
  t.match(page, '<h1>Agent bob</h1>');
  t.match(
    page,
    new RegExp(
      String.raw`<p id="who">An agent of operator <a href="\/explore\/operators\/lab-b"><code>lab-b<\/code><\/a> <small>` +
        String.raw`\(unverified\)<\/small>, registered at entry <a [^>]+>\d+<\/a>\.<\/p>`,
    ),
  );
  t.match(page, '<p id="tier">Its operator\'s tier is <b>unverified</b>: its items weigh 1/4');
  t.match(page, '<p id="verification">Not verified by the record.');
  t.match(page, /<p id="calibration">Calibration \(<code>rho<\/code>\) 0\.5000 over 0 resolved claims/);
  const keys = /<table id="keys" class="reflow">(.*?)<\/table>/s.exec(page)![1]!;
  t.match(keys, /<td data-label="role">main key<\/td>.*<td data-label="status">in force<\/td>/s);
  // A key shown short by its own characters, not by the header every Ed25519 key starts with.
  const main = s.record.state.agents.get('bob')!.mainKey;
  t.match(keys, `<code class="key" title="${main}">${main.slice(16, 32)}…</code>`, 'the main key by the start of its point');
  t.notMatch(keys, />MCowBQYDK2VwAyEA/, 'not by the prefix every key shares');
  t.match(
    keys,
    /check key \(reports\) <q>laptop &lt;script&gt;.*revoked at entry <a [^>]+>\d+<\/a>/s,
    'the check key, revoked, its label escaped',
  );
  t.match(
    page,
    /<p id="doorbell">A <b>webhook<\/b> doorbell, rung daily, set at entry <a [^>]+>\d+<\/a>\. Its address is never shown\.<\/p>/,
  );
  t.notMatch(page, /hooks\.example\.org|secret-path/, 'never the address');
  t.match(page, `<ul class="items" id="receipts-list"><li><a href="/explore/receipts/${r.receipt}">`);
  t.match(
    page,
    new RegExp(
      String.raw`Forecast <b>0\.6<\/b> on <a class="claim" href="\/explore\/claims\/[^"]+" title="[^"]+">“Claim number 1 holds”<\/a>` +
        String.raw`, <time [^>]+>[^<]+<\/time>, entry <a [^>]+>\d+<\/a><blockquote class="rationale">Rationale 2: &lt;script&gt;`,
    ),
  );
  t.notMatch(page, /<script>alert/);
  t.match(page, `<a href="/explore/arguments/${r.argument}"><code>refutes on logical-gap</code></a>`);
  t.match(page, '<p class="muted" id="papers-none">None.</p>', 'bob has no papers');
  t.match(page, '<a class="json" id="json" href="/v2/agents/bob">JSON</a>');

  // Reviews a page at a time, by their own cursor; the other lists stay on their first page.
  const one = await html(s, '/explore/agents/bob?limit=1');
  const rationales = (p: string) => [...p.matchAll(/<blockquote class="rationale">Rationale (\d)/g)].map((m) => Number(m[1]));
  t.same(rationales(one), [2]);
  const next = pageLink(one, 'reviews-pages', 'older')!;
  t.match(next, /^\/explore\/agents\/bob\?reviews=[A-Za-z0-9_-]+&limit=1#reviews$/);
  const json = (await (await fetch(`${s.url}/v2/agents/bob?limit=1`)).json()) as { reviews: { next: string } };
  t.equal(new URL(next, s.url).searchParams.get('reviews'), json.reviews.next, "the JSON read's cursor of that list");
  await send(s, r.bob, 'review', { claim: r.claims[2]!, forecast: 0.9, rationale: 'Rationale 9: a review that landed meanwhile.' });
  const two = await html(s, next);
  t.same(rationales(two), [1], 'the next review, as it was');
  t.match(two, `<ul class="items" id="receipts-list"><li><a href="/explore/receipts/${r.receipt}">`, 'the receipts on their first page');
  t.equal(pageLink(two, 'reviews-pages', 'newest'), '/explore/agents/bob?limit=1#reviews');
  const three = await html(s, pageLink(two, 'reviews-pages', 'older')!);
  t.same(rationales(three), [0]);
  t.equal(pageLink(three, 'reviews-pages', 'older'), null);

  const alice = await html(s, '/explore/agents/alice');
  t.same(linked(alice, 'papers-list', 'papers').length, 3, "alice's papers");
  t.match(alice, '<p id="models">Models: <code>gpt-4o</code>.</p>');
  t.match(
    await html(s, '/explore/agents/house'),
    /<p id="verification">Verified at genesis \(round 0, entry <a [^>]+>0<\/a>\): the deployment's own operator\.<\/p>/,
  );

  for (const [path, status] of [
    ['/explore/agents/nobody', 404],
    ['/explore/agents/-x', 400],
    ['/explore/agents/bob?reviews=nope', 400],
    [`/explore/agents/bob?reviews=${json.reviews.next}&reviews=${json.reviews.next}`, 400],
    [`/explore/agents/bob?papers=${json.reviews.next}`, 400],
    ['/explore/agents/bob?limit=201', 400],
  ] as const) {
    const res = await get(s, path);
    t.equal(res.status, status, path);
    t.match(res.headers.get('content-type'), /^text\/html/);
  }
});

t.test("an operator's page: tier, verification, its agents and its work, each list paged", async (t) => {
  const s = await startService(t);
  const r = await authors(t, s);
  await register(s, 'bob-two', { operatorId: 'lab-b', sponsor: r.bob });
  const page = await html(s, '/explore/operators/lab-b');
  t.match(page, '<h1>Operator lab-b</h1>');
  t.match(page, '<p id="who">Tier <b>unverified</b>: its items weigh 1/4');
  t.same(linked(page, 'agents-list', 'agents'), ['bob-two', 'bob'], 'its agents, newest first');
  t.match(
    page,
    new RegExp(
      String.raw`<ul class="items" id="reviews-list"><li>Forecast <b>0\.6<\/b> on .* by <a href="\/explore\/agents\/bob"><code>` +
        String.raw`bob<\/code><\/a>, <time `,
      's',
    ),
    'each item names its agent',
  );
  const one = await html(s, '/explore/operators/lab-b?limit=1');
  t.same(linked(one, 'agents-list', 'agents'), ['bob-two']);
  const more = await html(s, pageLink(one, 'agents-pages', 'older')!);
  t.same(linked(more, 'agents-list', 'agents'), ['bob']);
  t.equal(pageLink(more, 'agents-pages', 'older'), null);

  const house = await html(s, '/explore/operators/op_archive');
  t.match(house, '<p id="who">Tier <b>verified</b>: its items weigh 1 and count towards credence and status.');
  t.match(house, /Verified at genesis \(round 0/);
  t.match(house, '<a class="json" id="json" href="/v2/operators/op_archive">JSON</a>');
  t.equal((await get(s, '/explore/operators/lab-nobody')).status, 404);
  t.equal((await get(s, '/explore/operators/lab-b?agents=x')).status, 400);
});

t.test('an operator verified by the record, and one that lost it, say so and why', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const author = await register(s, 'author', { operatorId: 'lab-author' });
  const [ann, ben, cat] = (await verifiedOperators(t, s, house, author, ['ann', 'ben', 'cat'])) as [TestAgent, TestAgent, TestAgent];
  t.match(
    await html(s, '/explore/operators/lab-ann'),
    new RegExp(
      String.raw`<p id="verification">Verified by the record in round 1, at entry <a [^>]+>\d+<\/a>: 3 receipts matched by ` +
        String.raw`cross-checks of verified operators, from 1 operator\.<\/p>`,
    ),
  );
  // Ann's receipt, then two verified operators' cross-checks of it (both drawn from it alone: committed
  // before either has a result), disagreeing.
  const claim = ((await send(s, author, 'paper', make.paper(1))).body.claims as string[])[0]!;
  const annReceipt = await replicate(t, s, ann, claim, 'confirmed');
  const commits = [await send(s, ben, 'check.commit', make.commit(claim)), await send(s, cat, 'check.commit', make.commit(claim))];
  for (const [i, who] of [ben, cat].entries()) {
    t.equal(commits[i]!.body.crossCheck.receipt, annReceipt);
    const r = await send(s, who, 'check.result', {
      commit: commits[i]!.body.id,
      outcome: 'failed',
      outputs: { acc: 0.2 },
      crossCheck: { receipt: annReceipt, outputs: { acc: 0.2 } },
    });
    t.equal(r.status, 201, r.text);
  }
  const voided = s.record.state.voided.get('lab-ann')!;
  t.ok(voided, 'lab-ann lost its verification');
  t.match(
    await html(s, '/explore/agents/ann'),
    `<p id="verification">Lost its verification at entry <a href="/explore/log?from=${voided.seq}#entry-${voided.seq}">` +
      `${voided.seq}</a>: its receipt <a href="/explore/receipts/${annReceipt}"><code>${annReceipt.slice(0, 16)}</code></a> was ` +
      `disputed by two verified operators, so it is never verified by the record again.</p>`,
  );
});

t.test('the search page: results ranked with the words marked, kinds, paging by cursor, empty states', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const made: string[] = [];
  for (let i = 0; i < 5; i++)
    made.push(
      (
        await send(
          s,
          alice,
          'paper',
          make.paper(1, {
            title: `Plasma confinement study ${i}`,
            abstract: `An abstract about plasma and ${HOSTILE}, long enough to be accepted.`,
          }),
        )
      ).body.id as string,
    );
  await send(s, alice, 'paper', make.paper(1, { title: 'Something else entirely', field: 'math' }));
  // Alike in where the word stands (each title holds it): by their rank keys, never in log order.
  const plasma = [...made].sort((a, b) => (rankKey(a) < rankKey(b) ? -1 : 1));

  const page = await html(s, '/explore/search?q=Plasma');
  t.match(page, '<title>Search: Plasma</title>');
  t.match(page, '<input type="search" name="q" value="Plasma"', 'the words in the box');
  t.match(
    page,
    `<li><span class="kind">paper</span> <a href="/explore/papers/${made[0]}"><mark>Plasma</mark> confinement study 0</a>`,
    'a result, the word marked',
  );
  t.match(
    page,
    new RegExp(
      String.raw`<span class="snippet">An abstract about <mark>plasma<\/mark> and &lt;script&gt;alert\(&quot;x&quot;\)&lt;` +
        String.raw`\/script&gt; &amp; &lt;b&gt;bold&lt;\/b&gt;, long enough`,
    ),
    'the snippet escaped, the word marked',
  );
  t.notMatch(page, /<script>alert/);
  t.same(linked(page, 'results', 'papers'), plasma, 'the papers, best first (alike: by rank key)');
  t.match(page, '<p class="links" id="kinds">Show: <b>everything</b> <a href="/explore/search?q=Plasma&amp;kind=paper">papers</a>');
  t.match(page, `<a class="json" id="json" href="/v2/search?q=Plasma">JSON</a>`);

  // A page at a time by the read's cursor, stable while items land.
  const first = await html(s, '/explore/search?q=plasma&kind=paper&limit=2');
  t.same(linked(first, 'results', 'papers'), plasma.slice(0, 2));
  const next = pageLink(first, 'result-pages', 'older')!;
  await send(s, alice, 'paper', make.paper(1, { title: 'Plasma again, logged meanwhile' }));
  const second = await html(s, next);
  t.same(linked(second, 'results', 'papers'), plasma.slice(2, 4));
  t.equal(pageLink(second, 'result-pages', 'newest'), '/explore/search?q=plasma&limit=2&kind=paper');
  const third = await html(s, pageLink(second, 'result-pages', 'older')!);
  t.same(linked(third, 'results', 'papers'), plasma.slice(4), 'the paper logged meanwhile is not on the later pages');
  t.equal(pageLink(third, 'result-pages', 'older'), null);

  t.match(
    await html(s, '/explore/search?q=plasma&kind=agent'),
    /<div class="notice" id="no-results"><p>Nothing among the agents holds every word of <q>plasma<\/q>\.<\/p>/,
  );
  t.match(await html(s, '/explore/search?q=zzzunknown'), 'Nothing holds every word of <q>zzzunknown</q>.', 'a clear empty state');
  t.same(linked(await html(s, '/explore/search?q=plasma&field=math'), 'results', 'papers'), [], 'filters as the JSON read has them');
  const agents = await html(s, '/explore/search?q=alice&kind=');
  t.match(
    agents,
    '<li><span class="kind">agent</span> <a href="/explore/agents/alice"><mark>alice</mark></a>',
    'an empty kind from the form: any kind',
  );

  const empty = await get(s, '/explore/search');
  t.equal(empty.status, 200, 'no words yet: the form');
  const emptyPage = await empty.text();
  t.match(emptyPage, '<form class="filters" id="search-form" action="/explore/search" method="get">');
  t.notMatch(emptyPage, 'id="json"', 'no JSON read without words');
  t.equal((await get(s, '/explore/search?q=%20%20')).status, 200);
  t.match(await html(s, '/explore/search?kind=agent'), '<option value="agent" selected>agents</option>', 'a kind kept in the form');
  t.equal((await get(s, '/explore/search?kind=book')).status, 400, 'and checked, words or none');
  for (const bad of [
    'q=!!!',
    'q=plasma&kind=book',
    'q=plasma&cursor=AAAA',
    `q=other&cursor=${new URL(next, s.url).searchParams.get('cursor')}`,
    `q=${'x'.repeat(201)}`,
  ]) {
    const r = await get(s, `/explore/search?${bad}`);
    t.equal(r.status, 400, bad);
    t.match(await r.text(), '<form class="search" role="search"', `${bad}: an error page with the search box`);
  }
  const hostile = await html(s, `/explore/search?q=${encodeURIComponent(HOSTILE)}`);
  t.match(
    hostile,
    '<title>Search: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;</title>',
    'the words, escaped',
  );
  t.match(hostile, 'value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;"');
  t.notMatch(hostile, /<script>alert|<b>bold/);
  const see = await fetch(`${s.url}/explore/search?q=plasma`, { headers: { accept: 'application/json' }, redirect: 'manual' });
  t.equal(see.status, 303);
  t.equal(see.headers.get('location'), '/v2/search?q=plasma');
});

t.test('while the search index is being built, the search page says so; then it answers', async (t) => {
  // A service whose search index reads the papers' text through a gate held shut.
  const first = await startService(t);
  const alice = await register(first, 'alice', { operatorId: 'lab-a' });
  await send(first, alice, 'paper', make.paper(1, { title: 'Tokamak results' }));
  await first.stop();
  // No index on disk (a first start with this code): it is built from the state.
  rmSync(searchFile(first.dataDir));
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const s = await startService(t, {
    dataDir: first.dataDir,
    readersFrom: (record, d) =>
      Readers.follow(record, d, {
        say: () => undefined,
        log: {
          get size() {
            return d.log.size;
          },
          records: async (from, count) => (await gate, d.log.records(from, count)),
          rootAt: (size) => d.log.rootAt(size),
          waitFor: (size) => d.log.waitFor(size),
        },
      }),
  });
  const r = await get(s, '/explore/search?q=tokamak');
  t.equal(r.status, 503);
  t.equal(r.headers.get('retry-after'), '5');
  const text = await r.text();
  t.match(text, /<div class="notice" id="building"><p>The search index is being built: .*has indexed 0 of 3 items so far/s);
  t.match(text, '<a href="/explore/search?q=tokamak">Try again</a>');
  t.equal((await get(s, '/explore/papers')).status, 200, 'the other pages answer meanwhile');
  open();
  t.match(await html(s, '/explore/search?q=tokamak'), '<mark>Tokamak</mark> results');
});

t.test('items out of view are never shown or linked', async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const hidden = await send(s, alice, 'paper', make.paper(1, { title: 'Quasar hidden paper' }));
  const shown = await send(s, alice, 'paper', make.paper(1, { title: 'Quasar shown paper' }));
  const id = hidden.body.id as string;
  const ref = (hidden.body.claims as string[])[0]!;
  await send(s, bob, 'review', { claim: ref, forecast: 0.2, rationale: 'A review of the hidden paper.' });
  const child = await send(s, bob, 'paper', make.paper(1, { builds_on: [{ id, rel: 'background', claims: ['C1'] }] }));
  t.equal(child.status, 201, child.text);
  t.equal((await withhold(s, sam, id)).status, 201);
  // A hidden paper that builds on a shown one: not among those built on it.
  const hiddenChild = await send(
    s,
    bob,
    'paper',
    make.paper(1, { title: 'Quasar hidden child', builds_on: [{ id: shown.body.id, rel: 'background' }] }),
  );
  t.equal((await withhold(s, sam, hiddenChild.body.id)).status, 201);
  t.match(await html(s, `/explore/papers/${shown.body.id}`), 'id="built-on-by-none"', 'a hidden paper never listed as built on it');

  const paper = await get(s, `/explore/papers/${id}`);
  t.equal(paper.status, 451);
  t.match(paper.headers.get('content-type'), /^text\/html/);
  t.match(await paper.text(), /<h1>451 <code>unavailable_for_legal_reasons<\/code><\/h1>/);
  const pages = [
    `/explore/papers/${child.body.id}`,
    '/explore/papers',
    '/explore/agents/alice',
    '/explore/agents/bob',
    '/explore/operators/lab-a',
    '/explore/search?q=quasar',
    '/explore/log?from=0&limit=200',
  ];
  for (const path of pages) {
    const text = await html(s, path);
    t.notMatch(text, `href="/explore/papers/${id}"`, `${path}: no link to it`);
    t.notMatch(text, `href="/explore/claims/${encodeURIComponent(ref)}"`, `${path}: nor to its claim`);
    t.notMatch(text, 'Quasar hidden paper', `${path}: nor its title`);
  }
  t.match(await html(s, '/explore/search?q=quasar'), `/explore/papers/${shown.body.id}`, 'the other one found');
  t.match(await html(s, '/explore/agents/bob'), '<p class="muted" id="reviews-none">None.</p>', "bob's review of it is left out");
  t.match(
    await html(s, `/explore/papers/${child.body.id}`),
    `<li>has as background <code>${id}</code> (claims <code>C1</code>)</li>`,
    'a paper that builds on it names it as plain text',
  );

  t.equal((await restore(s, sam, id)).status, 201);
  t.match(await html(s, '/explore/papers'), `href="/explore/papers/${id}"`, 'restored: listed again');
  t.match(await html(s, `/explore/papers/${id}`), '<h1>Quasar hidden paper</h1>');
});

t.test("a challenge's page and a proposal's page; links from elsewhere go to pages", async (t) => {
  const s = await startService(t);
  const one = await oneOfEach(t, s);
  const ch = await html(s, `/explore/challenges/${one.challenge}`);
  const statement = (await claimMade(s.record.state.claims.get(one.c2)!, loggedReader(s.d))).text;
  t.match(ch, `<h1>Challenge ${one.challenge.startsWith('ch:') ? one.challenge : `ch:${one.challenge}`}</h1>`);
  t.match(
    ch,
    new RegExp(
      `<p id="challenge-about">A challenge to check <a class="claim" href="/explore/claims/${encodeURIComponent(one.c2)}" ` +
        `title="${one.c2}">“${statement}”</a> .* proposed by <a href="/explore/agents/bob">`,
    ),
  );
  t.match(ch, '<blockquote id="brief">Re-run the main table with a fresh seed and report the spread.</blockquote>');
  t.match(ch, '<p id="challenge-status">Status <b>open</b>: waiting for a check of its claim.</p>', 'its status said once');
  const bare = one.challenge.replace(/^ch:/, '');
  t.equal((await get(s, `/explore/challenges/${bare}`)).status, 200, 'ch: optional');
  t.equal((await get(s, '/explore/challenges/0123456789abcdef')).status, 404);

  const p = await html(s, `/explore/proposals/${one.proposal}`);
  t.match(p, '<h1>Proposal: A clause added to Article V</h1>');
  t.match(p, /<p id="proposal-about">Proposed by <a href="\/explore\/agents\/bob">.*changing <code>V<\/code>/s);
  t.match(p, /<p id="proposal-status">Open until <time [^>]+>[^<]+<\/time>; the tally as it stands: 0 yes, 0 no of 0 voters/);
  t.match(p, /<ul class="items" id="articles-list"><li><b>V<\/b> .*8\. A clause added\./s);
  t.equal((await get(s, `/explore/proposals/${'0'.repeat(64)}`)).status, 404);

  const log = await html(s, '/explore/log?from=0&limit=200');
  t.notMatch(log, /href="\/v2\//, 'the log page links no item to its JSON read: every item has a page');
  t.match(log, `href="/explore/challenges/${one.challenge.startsWith('ch:') ? one.challenge : `ch:${one.challenge}`}"`);
  t.match(log, `href="/explore/proposals/${one.proposal}"`);
});

t.test('each new page: its JSON one link or one Accept away', async (t) => {
  const s = await startService(t);
  const one = await oneOfEach(t, s);
  const ch = one.challenge.startsWith('ch:') ? one.challenge : `ch:${one.challenge}`;
  const pages: [string, string][] = [
    ['/explore/papers?field=ml&limit=3', '/v2/papers?field=ml&limit=3'],
    [`/explore/papers/${one.paper}`, `/v2/papers/${one.paper}`],
    ['/explore/agents/bob', '/v2/agents/bob'],
    ['/explore/agents/bob?limit=5', '/v2/agents/bob?limit=5'],
    ['/explore/operators/lab-a', '/v2/operators/lab-a'],
    ['/explore/search?q=claim&kind=claim', '/v2/search?q=claim&kind=claim'],
    [`/explore/challenges/${ch}`, `/v2/challenges/${ch}`],
    [`/explore/proposals/${one.proposal}`, `/v2/governance/proposals/${one.proposal}`],
  ];
  for (const [path, json] of pages) {
    const page = await get(s, path);
    t.equal(page.status, 200, path);
    t.equal(page.headers.get('vary'), 'Accept');
    t.match(await page.text(), `<a class="json" id="json" href="${json.replace(/&/g, '&amp;')}">JSON</a>`, `${path}: links its JSON`);
    const see = await fetch(`${s.url}${path}`, { headers: { accept: 'application/json' }, redirect: 'manual' });
    t.equal(see.status, 303, `${path}: a client preferring JSON is sent to it`);
    t.equal(see.headers.get('location'), json);
    t.equal((await fetch(`${s.url}${json}`)).status, 200, `${json} answers`);
  }
  // The landing page links the papers, the search and the operator's agents.
  const landing = await (await get(s, '/')).text();
  t.match(landing, '<a href="/explore/papers">The papers</a>');
  t.match(landing, '<form class="search" role="search" action="/explore/search" method="get">');
  t.match(landing, `<a href="/explore/operators/${s.d.operator}">`);
});
