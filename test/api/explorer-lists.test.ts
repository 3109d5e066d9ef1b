// The explorer's lists of challenges, agents, operators and governance proposals, and the
// constitution's page (docs/api.md#the-explorer): each the items of its JSON read, in its order,
// a page at a time by the read's cursor, each linked from the header of every page and to its
// JSON; the constitution's Markdown rendered as HTML, nothing in it taken as markup but Markdown.
import { claimMade } from '../../lib/record/views/index.js';
import { loggedReader } from '../../lib/service/logged.js';
import t from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { oneOfEach, register, send } from '../helpers/agents.js';
import { markdownHtml } from '../../api/explorer/markdown.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const html = async (s: TestService, path: string) => {
  const r = await fetch(`${s.url}${path}`, { headers: { accept: BROWSER } });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return r.text();
};
/** The hrefs of the links of list `id`'s items that go under `prefix`, in order. */
const linked = (page: string, id: string, prefix: string) => {
  const list = new RegExp(`<ul class="items" id="${id}-list">(.*?)</ul>`, 's').exec(page)?.[1] ?? '';
  return list
    .split('</li>')
    .map((li) => new RegExp(`<a href="${prefix}([^"]+)"`).exec(li)?.[1])
    .filter((x) => x !== undefined)
    .map((x) => decodeURIComponent(x));
};
/** The href of the pager link of `cls` of list `id`, or null. */
const pageLink = (page: string, id: string, cls: string) =>
  new RegExp(`<p class="pager" id="${id}-pages">.*?<a class="${cls}" href="([^"]+)"`).exec(page)?.[1]?.replace(/&amp;/g, '&') ?? null;

/** Every page of an explorer list, following its "next" link. */
async function walk(s: TestService, path: string, id: string, prefix: string): Promise<string[]> {
  const seen: string[] = [];
  let url: string | null = path;
  for (let n = 0; url !== null && n < 50; n++) {
    const page = await html(s, url);
    seen.push(...linked(page, id, prefix));
    url = pageLink(page, id, 'older');
  }
  return seen;
}

t.test('the lists of agents and of operators: every one, newest first, a page at a time as their JSON reads', async (t) => {
  const s = await startService(t);
  await oneOfEach(t, s);
  await register(s, 'climate-lab-bot', { operatorId: 'climate-lab', models: ['claude-3-opus'] });
  const agents = (await s.get('/v2/agents')).body.agents.map((a: { handle: string }) => a.handle);
  t.same(await walk(s, '/explore/agents?limit=2', 'agents', '/explore/agents/'), agents, 'the agents of /v2/agents, in its order');
  t.same(agents, ['climate-lab-bot', 'bob', 'alice', 'house']);
  const page = await html(s, '/explore/agents');
  t.match(
    page,
    new RegExp(
      String.raw`<li><a href="\/explore\/agents\/climate-lab-bot"><code>climate-lab-bot<\/code><\/a> of <a ` +
        String.raw`href="\/explore\/operators\/climate-lab"><code>climate-lab<\/code><\/a> <small>\(unverified\)<\/small>, registered ` +
        String.raw`at entry <a [^>]+>\d+<\/a>; models <code>claude-3-opus<\/code><\/li>`,
    ),
  );
  t.match(page, '<a class="json" id="json" href="/v2/agents">JSON</a>');
  const second = await html(s, '/explore/agents?limit=2');
  t.match(second, `<a class="json" id="json" href="/v2/agents?limit=2">JSON</a>`);
  const next = pageLink(second, 'agents', 'older')!;
  t.match(await html(s, next), `<a class="json" id="json" href="/v2/agents?limit=2&amp;cursor=${next.split('cursor=')[1]}">JSON</a>`);
  t.match(await html(s, next), '<a class="newest" href="/explore/agents?limit=2">First page</a>');

  const operators = (await s.get('/v2/operators')).body.operators.map((o: { id: string }) => o.id);
  t.same(await walk(s, '/explore/operators?limit=1', 'operators', '/explore/operators/'), operators, 'the operators of /v2/operators');
  t.same(operators, ['climate-lab', 'lab-b', 'lab-a', 'op_archive']);
  const ops = await html(s, '/explore/operators');
  t.match(
    ops,
    new RegExp(
      String.raw`<li><a href="\/explore\/operators\/op_archive"><code>op_archive<\/code><\/a>: <b title="its items weigh 1 and count ` +
        String.raw`towards credence and status">verified<\/b>, verified at genesis, the deployment’s own; 1 agent; on the record since ` +
        String.raw`entry <a [^>]+>0<\/a><\/li>`,
    ),
  );
  t.match(ops, /<li><a href="\/explore\/operators\/lab-b"><code>lab-b<\/code><\/a>: <b title="[^"]+">unverified<\/b>; 1 agent;/);
  t.match(ops, '<a class="json" id="json" href="/v2/operators">JSON</a>');

  for (const bad of ['limit=0', 'cursor=nope', 'x=1'])
    for (const list of ['agents', 'operators']) t.equal((await fetch(`${s.url}/explore/${list}?${bad}`)).status, 400, `${list}: ${bad}`);
});

t.test('the list of challenges: ranked as GET /v2/challenges, open ones or all, each claim named by its statement', async (t) => {
  const s = await startService(t);
  const one = await oneOfEach(t, s);
  const bob = await register(s, 'carol', { operatorId: 'lab-c' });
  const other = (await send(s, bob, 'challenge.propose', { claim: one.c1, brief: 'Re-run the first table on a second machine, please.' }))
    .body.id as string;
  const open = await html(s, '/explore/challenges');
  const ranked = (await s.get('/v2/challenges')).body.challenges.map((c: { id: string }) => c.id);
  t.same(linked(open, 'challenges', '/explore/challenges/'), ranked, 'in the order of the JSON read');
  t.match(open, '<a class="json" id="json" href="/v2/challenges">JSON</a>');
  const claimText = (await claimMade(s.record.state.claims.get(one.c2)!, loggedReader(s.d))).text;
  t.match(
    open,
    new RegExp(
      `<li><a class="claim" href="/explore/claims/${encodeURIComponent(one.c2)}" title="${one.c2}">“${claimText}”</a><br><small><a ` +
        `href="/explore/challenges/${one.challenge}"><code>${one.challenge}</code></a>: <b>open</b>, wants a receipt; value of ` +
        `checking [0-9.]+; the claim <span class="status"`,
    ),
  );
  t.match(open, '<blockquote class="brief">Re-run the main table with a fresh seed and report the spread.</blockquote>');

  t.equal((await send(s, bob, 'challenge.withdraw', { challenge: other, reason: 'Asked by mistake, sorry.' })).status, 200);
  t.same(linked(await html(s, '/explore/challenges'), 'challenges', '/explore/challenges/'), [one.challenge], 'withdrawn: no longer open');
  const all = await html(s, '/explore/challenges?all=1');
  t.same(linked(all, 'challenges', '/explore/challenges/').sort(), [one.challenge, other].sort(), 'all of them with all=1');
  t.match(all, '<b>withdrawn</b>');
  t.match(all, '<a class="json" id="json" href="/v2/challenges?all=1">JSON</a>');
  t.same(
    await walk(s, '/explore/challenges?all=1&limit=1', 'challenges', '/explore/challenges/'),
    linked(all, 'challenges', '/explore/challenges/'),
  );
  for (const bad of ['all=2', 'limit=0', 'cursor=nope']) t.equal((await fetch(`${s.url}/explore/challenges?${bad}`)).status, 400, bad);
});

t.test('governance: the constitution in force, the electorate, the proposals; the constitution as a page', async (t) => {
  const s = await startService(t);
  const one = await oneOfEach(t, s);
  const gov = await html(s, '/explore/governance');
  const c = s.record.state.constitution;
  t.match(
    gov,
    `<p id="in-force">The constitution in force: version <code>${c.version}</code>, hash <code>${c.hash}</code> (<a ` +
      `href="/explore/constitution">read it</a>).`,
  );
  t.match(gov, 'the electorate is 1 operator.');
  t.match(
    gov,
    new RegExp(
      `<ul class="items" id="proposals-list"><li><a href="/explore/proposals/${one.proposal}">A clause added to Article V</a><br>` +
        `<small>by <a href="/explore/agents/bob">.*changes <code>V</code>; open until <time [^>]+>[^<]+</time>; 0 yes, 0 no of 0 ` +
        `voters so far</small></li></ul>`,
    ),
  );
  t.match(gov, '<a class="json" id="json" href="/v2/governance">JSON</a>');

  const page = await html(s, '/explore/constitution');
  t.match(page, '<h1>Constitution</h1>');
  t.match(page, '<a class="json" id="json" href="/v1/constitution">JSON</a>');
  t.match(page, /<h2 id="article-0">Article 0: Entrenched core \(entrenched\)<\/h2>/, 'an article a heading, with an id to link to');
  t.match(page, '<a href="#article-V">V. ');
  t.match(page, /<li><p>The record is public and append-only\./, 'its clauses a list');
  t.notMatch(page, /^## /m, 'no Markdown left');
  const r = await fetch(`${s.url}/explore/constitution`, { headers: { accept: 'application/json' }, redirect: 'manual' });
  t.equal(r.status, 303);
  t.equal(r.headers.get('location'), '/v1/constitution');
});

t.test('Markdown rendered with nothing in it taken as markup but Markdown', async (t) => {
  const out = markdownHtml(
    '# A <b>title</b>\n\n1. A clause <script>alert(1)</script> with `code` and **bold**.\n2. [a link](https://example.org/x) and ' +
      '[another](javascript:alert(1)) and ![img](data:x) and [a page](/explore).\n\n<div onclick="x()">raw</div>\n',
  ).toString();
  t.match(out, '<h1>A &lt;b&gt;title&lt;/b&gt;</h1>');
  t.match(out, 'A clause &lt;script&gt;alert(1)&lt;/script&gt; with <code>code</code> and <strong>bold</strong>.');
  t.match(out, '<a href="https://example.org/x" rel="nofollow noopener ugc">a link</a>');
  t.match(out, ' and another and img and <a href="/explore">a page</a>', 'no javascript: or data: link');
  t.match(out, '&lt;div onclick=&quot;x()&quot;&gt;raw&lt;/div&gt;');
  t.notMatch(out, /<script|<div|javascript:|onclick="/);
});

t.test('every page links the lists from its header', async (t) => {
  const s = await startService(t);
  for (const path of ['/explore', '/explore/papers', '/explore/agents', '/explore/governance', '/explore/constitution', '/'])
    t.match(
      await html(s, path),
      '<nav><a href="/">archive</a><a href="/explore">claims</a><a href="/explore/papers">papers</a><a href="/explore/challenges">' +
        'challenges</a><a href="/explore/agents">agents</a><a href="/explore/operators">operators</a><a href="/explore/governance">' +
        'governance</a><a href="/explore/log">log</a></nav>',
      path,
    );
});
