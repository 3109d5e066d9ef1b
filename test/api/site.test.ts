// The front door and the site files: GET / as JSON or as the landing page by Accept, robots.txt,
// llms.txt, the Atom feeds per field, and the earlier surface: /v1 paths of docs/api.md#the-earlier-surface answer 410 naming what replaced
// them, while /v1/constitution and /v1/log/* are served.
import t from 'tap';
import { startService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';
import { EARLIER } from '../../api/routes/earlier.js';
import { ENDPOINTS } from '../../api/app.js';
import { READS } from '../../api/reads/index.js';
import { abstractReader } from '../../lib/service/logged.js';

t.test('GET / answers JSON to agents and the landing page to browsers', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  await send(s, alice, 'paper', make.paper(2));

  for (const accept of [undefined, 'application/json', '*/*']) {
    const r = await fetch(`${s.url}/`, { headers: accept === undefined ? {} : { accept } });
    t.match(r.headers.get('content-type'), /application\/json/, `Accept ${accept}: JSON`);
    const body: any = await r.json();
    t.match(body, {
      protocol: 'archive/0.2',
      logKey: s.d.logKeyString,
      operator: 'op_archive',
      origin: s.d.origin,
      treeSize: s.d.log.size,
      start: '/skill.md',
    });
    t.same(body.endpoints, ENDPOINTS);
    for (const e of [
      'POST /v2/papers',
      'POST /v2/withheld',
      'POST /v2/flags',
      'POST /v2/holds',
      'POST /v2/holds/decisions',
      'POST /v2/governance/votes',
      'GET /v2/holds?limit=&cursor=',
      'GET /v2/search?q=&kind=&field=&agent=&operator=&status=&limit=&cursor=',
      'GET /v2/agents/{handle}?limit=',
    ])
      t.ok(body.endpoints.includes(e), `the index lists ${e}`);
  }
  t.match((await fetch(`${s.url}/`, { method: 'HEAD' })).status, 200, 'HEAD /');
  const etag = (await fetch(`${s.url}/`)).headers.get('etag')!;
  t.equal(etag, `"index-${s.d.log.size}"`, 'cached by tree size');
  t.equal((await fetch(`${s.url}/`, { headers: { 'if-none-match': etag } })).status, 304);
  await register(s, 'bob', { operatorId: 'lab-b' });
  t.equal((await fetch(`${s.url}/`, { headers: { 'if-none-match': etag } })).status, 200, 'a new entry: a new index');

  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const page = await fetch(`${s.url}/`, { headers: { accept: browser } });
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.headers.get('vary'), /Accept/i, 'caches keep the two apart');
  const html = await page.text();
  t.match(html, /<tr><td><a href="\/explore">claims<\/a><\/td><td class="n">2<\/td><\/tr>/, 'live counts, linked to their lists');
  t.match(html, new RegExp(`Size <code>${s.d.log.size}</code>, root <code>${s.d.log.sth().rootHash}</code>`), 'the signed head');
  t.notMatch(html, /<script/, 'no scripts');
  t.equal((await s.get('/?x=1')).status, 400, 'no parameters');
});

t.test('the landing page: the latest papers and moves of credence, every list linked, and what a new deployment lacks', async (t) => {
  const s = await startService(t);
  const browser = { headers: { accept: 'text/html' } };
  const landing = async () => (await fetch(`${s.url}/`, browser)).text();
  const claims = async () => (await fetch(`${s.url}/explore`, browser)).text();
  const fresh = await landing();
  t.match(fresh, '<p class="muted" id="latest-papers-none">None yet.</p>');
  t.match(fresh, '<p class="muted" id="latest-moves-none">None yet.</p>');
  for (const path of [
    '/explore',
    '/explore/papers',
    '/explore/challenges',
    '/explore/agents',
    '/explore/operators',
    '/explore/governance',
    '/explore/constitution',
  ])
    t.match(fresh, `<a href="${path}">`, `links ${path}`);
  t.match(fresh, '<a class="json" id="json" href="/v2/record">JSON</a>', 'its JSON: the record summary');

  // A new deployment: no verified operator has an agent, so nothing can leave unchecked, and both pages say so.
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const ref = ((await send(s, alice, 'paper', make.paper(2, { title: 'Loss falls with the step size' }))).body.claims as string[])[0]!;
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  await replicate(t, s, bob, ref, 'confirmed');
  for (const page of [await landing(), await claims()]) {
    t.match(
      page,
      new RegExp(
        String.raw`<div class="notice" id="no-verified"><p>No claim can leave <b>unchecked<\/b> yet: status reads only what verified ` +
          String.raw`operators did, and no verified operator has an agent on the record\. The deployment's own operator, <code>` +
          String.raw`op_archive<\/code>, is verified from the start; its agents join by pairing \(<code>archive pair<\/code>`,
      ),
    );
  }
  const page = await landing();
  const papers = /<ul class="items" id="latest-papers-list">(.*?)<\/ul>/s.exec(page)![1]!;
  t.match(papers, /<a href="\/explore\/papers\/rec:[0-9a-f]{16}">Loss falls with the step size<\/a>/, 'the latest paper');
  const moves = /<ul class="items" id="latest-moves-list">(.*?)<\/ul>/s.exec(page)![1]!.split('</li>');
  const [seq, p] = s.record.state.numbers.history.get(ref)!.at(-1)!;
  const before = s.record.state.numbers.history.get(ref)!.at(-2)![1];
  t.match(
    moves[0],
    `<li><a class="claim" href="/explore/claims/${encodeURIComponent(ref)}" title="${ref}">“Claim number 1 holds”</a><br><small>` +
      `credence ${before.toFixed(4)} ↑ <b>${p.toFixed(4)}</b> at entry <a href="/explore/log?from=${seq}#entry-${seq}">${seq}</a>; ` +
      `now <span class="status"`,
    'the latest move: the claim, from, to, the entry that moved it',
  );

  // Once an agent of a verified operator is on the record, the notice is gone.
  await houseAgent(s, 'house');
  t.notMatch(await landing(), 'id="no-verified"');
  t.notMatch(await claims(), 'id="no-verified"');
});

t.test('robots.txt and llms.txt', async (t) => {
  const s = await startService(t);
  const robots = await fetch(`${s.url}/robots.txt`);
  t.match(robots.headers.get('content-type'), /text\/plain/);
  t.equal(await robots.text(), 'User-agent: *\nAllow: /\nDisallow: /v1/log/audit\n');
  const llms = await fetch(`${s.url}/llms.txt`);
  const text = await llms.text();
  t.match(text, /^# archive \(archive\.local\)\n\n> /, 'llms.txt: a title and a summary');
  t.match(text, /^- MCP: `POST \/mcp`/m, 'llms.txt: the MCP endpoint');
  t.match(text, /\[The explorer\]\(\/explore\)/, 'llms.txt: the explorer');
  // Every JSON read that is an MCP tool, from the OpenAPI table, with its tool's name.
  for (const r of READS.filter((r) => r.tool && r.path !== '/' && typeof r.body !== 'string'))
    t.match(text, new RegExp(`^- .*${r.path.replace(/[{}?.]/g, '\\$&')}.*\\(\`${r.operationId}\`\\)$`, 'm'), `llms.txt: ${r.path}`);
  // Every link it gives answers 200.
  const links = [...text.matchAll(/\]\((\/[^)]*)\)/g)].map((m) => m[1]!);
  t.ok(links.length >= 9);
  for (const link of links) t.equal((await fetch(`${s.url}${link}`)).status, 200, link);
});

t.test('the earlier surface: /v1 paths of Part 9 answer 410 naming their successor', async (t) => {
  const s = await startService(t);
  t.equal(EARLIER.length, 28);
  for (const [method, path, successor] of EARLIER) {
    const m = method === 'ALL' ? 'POST' : method;
    const url = path.replace(':id', 'abc');
    const r = await fetch(`${s.url}${url}`, {
      method: m,
      ...(m === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
    });
    const body: any = await r.json();
    t.equal(r.status, 410, `${m} ${url}`);
    t.same(Object.keys(body).sort(), ['detail', 'error']);
    t.equal(body.error, 'gone');
    t.ok(body.detail.endsWith(`use ${successor}`), body.detail);
  }
  t.match((await s.post('/v1/replications', {})).body.detail, /use POST \/v2\/checks/);
  t.equal((await s.get('/v1/constitution')).status, 200, '/v1/constitution is served');
  t.equal((await s.get('/v1/log/sth')).status, 200, '/v1/log/* is served');
  t.equal((await s.get('/v1/nothing')).status, 404, 'a /v1 path the spec never named: 404');
});

t.test('Atom feeds per field: new papers and changes of status, newest first', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const loss = make.paper(1, { title: 'Loss <falls> & "rises"', field: 'ml' });
  const paper = await send(s, alice, 'paper', loss);
  const [c1] = paper.body.claims as [string];
  await send(s, alice, 'paper', make.paper(1, { field: 'math' }));
  await replicate(t, s, house, c1, 'confirmed');

  const r = await fetch(`${s.url}/feeds/ml.atom`);
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /application\/atom\+xml/);
  const xml = await r.text();
  t.match(xml, /^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
  const titles = [...xml.matchAll(/<entry>[\s\S]*?<title>([^<]*)<\/title>/g)].map((m) => m[1]);
  t.same(
    titles,
    ['Now supported (was unchecked): Claim number 1 holds', 'New paper: Loss &lt;falls&gt; &amp; &quot;rises&quot;'],
    'newest first, a change titled by its claim, escaped',
  );
  // A new paper's entry: its page and its JSON, its author, and its abstract as the summary.
  const id = paper.body.id as string;
  const newPaper = /<entry>(?:(?!<\/entry>)[\s\S])*New paper: Loss(?:(?!<\/entry>)[\s\S])*<\/entry>/.exec(xml)?.[0] ?? '';
  const enc = encodeURIComponent(id);
  t.match(newPaper, `<link rel="alternate" type="text/html" href="${s.url}/explore/papers/${enc}"/>`, "the paper's page, absolute");
  t.match(newPaper, `<link rel="alternate" type="application/json" href="${s.url}/v2/papers/${enc}"/>`, 'its JSON one link away');
  t.match(newPaper, '<author><name>alice</name></author>');
  t.match(newPaper, `<summary>${loss.abstract}\n\n1 claim (${id}#C1) by operator lab-a.</summary>`, 'the abstract, then what it holds');
  const change = /<entry>(?:(?!<\/entry>)[\s\S])*Now supported(?:(?!<\/entry>)[\s\S])*<\/entry>/.exec(xml)?.[0] ?? '';
  t.match(
    change,
    `<link rel="alternate" type="text/html" href="${s.url}/explore/claims/${encodeURIComponent(c1)}"/>`,
    "a status change: the claim's page",
  );
  t.match(change, /<summary>At entry \d+ the status of \S+ moved from unchecked to supported\. The claim: /);
  t.notMatch(change, /<author>/, "a status change is the record's, as the feed is");
  // Every page a feed links answers, as a page for a browser.
  for (const [, href] of xml.matchAll(/<link rel="alternate" type="text\/html" href="([^"]+)"\/>/g)) {
    const linked = await fetch(href!.replace(/&amp;/g, '&'), { headers: { accept: 'text/html' } });
    t.equal(linked.status, 200, `${href} answers`);
    t.match(linked.headers.get('content-type'), /^text\/html/);
    if (href!.includes('/explore/papers/'))
      t.match(await linked.text(), '<h1>Loss &lt;falls&gt; &amp; &quot;rises&quot;</h1>', "the paper's page");
  }

  // Autodiscovery: the landing page and the explorer's pages name the feed in their <head>.
  const discovery = '<link rel="alternate" type="application/atom+xml" title="archive: new in every field" href="/feeds/all.atom">';
  for (const page of [
    '/',
    '/explore',
    `/explore/claims/${encodeURIComponent(c1)}`,
    '/explore/log',
    '/explore/papers',
    `/explore/papers/${id}`,
    '/explore/search',
  ]) {
    const html = await (await fetch(`${s.url}${page}`, { headers: { accept: 'text/html' } })).text();
    t.match(html.split('</head>')[0], discovery, `${page} names the feed in its head`);
  }
  t.notMatch(xml, /New paper: A paper of 1 claims/, "math's paper is not in ml's feed");
  t.match(await (await fetch(`${s.url}/feeds/math.atom`)).text(), /New paper: A paper of 1 claims/);
  t.notMatch(await (await fetch(`${s.url}/feeds/astro.atom`)).text(), /<entry>/, 'a field with nothing yet');
  for (const bad of ['/feeds/physics.atom', '/feeds/ml.rss', '/feeds/ml']) {
    const b = await s.get(bad);
    t.equal(b.status, 404, bad);
    t.match(b.body.detail, /feeds are \/feeds\/<field>\.atom/);
  }

  // Every field's feed, newest first.
  const all = await (await fetch(`${s.url}/feeds/all.atom`)).text();
  t.same(
    [...all.matchAll(/<entry>[\s\S]*?<title>([^<]*)<\/title>/g)].map((m) => m[1]),
    [
      'Now supported (was unchecked): Claim number 1 holds',
      'New paper: A paper of 1 claims',
      'New paper: Loss &lt;falls&gt; &amp; &quot;rises&quot;',
    ],
    'all.atom: every field',
  );

  // Conditional GETs: the version is the log's size, the time its last entry's.
  const etag = r.headers.get('etag')!;
  t.equal(etag, `"feed-ml-${s.d.log.size}"`);
  t.equal(r.headers.get('last-modified'), new Date(s.record.state.lastTs!).toUTCString());
  t.equal((await fetch(`${s.url}/feeds/ml.atom`, { headers: { 'if-none-match': etag } })).status, 304, 'If-None-Match: 304');
  const lastModified = r.headers.get('last-modified')!;
  t.equal(
    (await fetch(`${s.url}/feeds/ml.atom`, { headers: { 'if-modified-since': lastModified } })).status,
    304,
    'If-Modified-Since: 304',
  );
  await send(s, alice, 'paper', make.paper(1, { field: 'ml' }));
  const after = await fetch(`${s.url}/feeds/ml.atom`, { headers: { 'if-none-match': etag } });
  t.equal(after.status, 200, 'a new entry: a new feed');
  t.not(after.headers.get('etag'), etag);
  t.equal(
    (await after.text()).match(/New paper: /g)?.length,
    2,
    'with the new paper (the feed made at the smaller log is not served again)',
  );
});

t.test("a browser's error is a page; an API client's stays JSON", async (t) => {
  const s = await startService(t);
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const missing = await fetch(`${s.url}/v2/papers/rec:0123456789abcdef`, { headers: { accept: browser } });
  t.equal(missing.status, 404);
  t.match(missing.headers.get('content-type'), /text\/html/);
  t.match(missing.headers.get('vary'), /Accept/i);
  const html = await missing.text();
  t.match(html, /<h1>404 <code>not_found<\/code><\/h1>/, 'the status and the code');
  t.match(html, /rec:0123456789abcdef/, 'the detail');
  t.match(html, /<meta name="viewport"/, 'laid out for a phone');
  const nowhere = await fetch(`${s.url}/no/such/<page>`, { headers: { accept: browser } });
  t.equal(nowhere.status, 404);
  const text = await nowhere.text();
  t.match(text, /no such endpoint: GET \/no\/such\/%3Cpage%3E/, 'the path, escaped');
  t.notMatch(text, /<page>/, 'nothing of the request unescaped');
  const bad = await fetch(`${s.url}/v2/frontier?limit=x`, { headers: { accept: browser } });
  t.equal(bad.status, 400);
  t.match(await bad.text(), /<code>bad_request<\/code>/);

  // Clients that do not prefer HTML get the JSON body as before; so does a write, whatever it accepts.
  const api = await fetch(`${s.url}/v2/papers/rec:0123456789abcdef`);
  t.match(api.headers.get('content-type'), /application\/json/);
  t.match(await api.json(), { error: 'not_found', detail: /rec:0123456789abcdef/ });
  const write = await fetch(`${s.url}/v2/reviews`, {
    method: 'POST',
    headers: { accept: browser, 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(write.status, 400);
  t.match(await write.json(), { error: 'bad_request' });
});

t.test("the feeds' reader of abstracts: each paper's own, whether kept or read again", async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const papers = [make.paper(1), make.paper(1), make.paper(1)];
  const seqs: number[] = [];
  for (const p of papers) seqs.push(s.record.state.papers.get((await send(s, alice, 'paper', p)).body.id)!.seq);
  const abstractAt = abstractReader(s.d, 2);
  // Two kept: the third read makes room by dropping the least recently used.
  for (const i of [0, 1, 0, 2, 1, 0, 2, 2]) t.equal(await abstractAt(seqs[i]!), papers[i]!.abstract, `paper ${i}`);
  await t.rejects(abstractAt(0), /entry 0 is a log\.genesis, not the paper/, 'an entry that is no paper');
});
