// The constitution's reads (api/routes/constitution.ts, from their rows) mounted in a bare Koa app behind the project's error middleware.
import t, { type Test } from 'tap';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { errorMiddleware } from '../../api/error-middleware.js';
import { readRoutes } from '../../api/reads/index.js';
import { currentConstitution, constitutionHash, type Constitution } from '../../lib/protocol/constitution.js';

async function serve(t: Test, current: () => Constitution = () => currentConstitution()): Promise<string> {
  const app = new Koa();
  app.use(errorMiddleware(() => {}));
  const router = readRoutes({ constitution: current }, ['/v1/constitution', '/constitution.md']);
  app.use(router.routes()).use(router.allowedMethods());
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('GET /v1/constitution serves the version, hash and articles in force', async (t) => {
  const base = await serve(t);
  const res = await fetch(`${base}/v1/constitution`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.equal(res.headers.get('access-control-allow-origin'), '*');
  const body: any = await res.json();
  t.equal(body.version, currentConstitution().version);
  t.equal(body.hash, currentConstitution().hash);
  t.same(Object.keys(body).sort(), ['articles', 'hash', 'version']);
  t.same(body.articles, currentConstitution().articles);
  t.equal(constitutionHash(body), body.hash, 'the served body recomputes to its hash');
});

t.test('an unknown query parameter answers 400', async (t) => {
  const base = await serve(t);
  for (const path of ['/v1/constitution?version=1', '/constitution.md?x']) {
    const res = await fetch(`${base}${path}`);
    t.equal(res.status, 400, path);
    const body: any = await res.json();
    t.equal(body.error, 'bad_request');
    t.match(body.detail, /unknown parameter \(takes none\)/);
  }
});

t.test('GET /constitution.md renders the constitution as Markdown', async (t) => {
  const base = await serve(t);
  const res = await fetch(`${base}/constitution.md`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/markdown; charset=utf-8/);
  const text = await res.text();
  t.match(text, currentConstitution().hash);
  for (const a of currentConstitution().articles) t.match(text, `## Article ${a.id}: ${a.title}`);
});

t.test('the router serves whatever is in force now', async (t) => {
  let current: Constitution = currentConstitution();
  const base = await serve(t, () => current);
  const articles = currentConstitution().articles.map((a) => (a.id === 'VI' ? { ...a, text: `${a.text}\n6. An added clause.` } : a));
  const amended: Constitution = { version: '2', articles, hash: constitutionHash({ version: '2', articles }) };
  current = amended;
  const body: any = await (await fetch(`${base}/v1/constitution`)).json();
  t.equal(body.version, '2');
  t.equal(body.hash, amended.hash);
  t.not(body.hash, currentConstitution().hash);
});
