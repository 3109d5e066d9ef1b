// The explorer's claims, a page at a time (docs/api.md, GET /explore): newest first, `limit` a
// page, and an "Older claims" link whose `before` keeps the next page the same while claims land.
import t from 'tap';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';

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
