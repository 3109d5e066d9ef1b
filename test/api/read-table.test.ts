// The read table (api/reads/) and the routers the service runs: every path a router answers GET on
// is a row, every row is answered at its path (the log's rows by the engine's router), and a
// row's handler reads only the parameters its row declares.
import t, { type Test } from 'tap';
import Koa from 'koa';
import type Router from '@koa/router';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app.js';
import { errorMiddleware } from '../../api/error-middleware.js';
import { EARLIER } from '../../api/routes/earlier.js';
import { READ_TABLE, READS, readRouter, routeOf, type Read, type ReadEnv } from '../../api/reads/index.js';
import { openDeployment } from '../../lib/service/deployment.js';
import { LiveRecord } from '../../lib/service/live-record.js';
import { tempDir } from '../helpers/tmp.js';

/** Each router the app mounts, with the paths it answers GET on. */
async function routers(t: Test): Promise<{ paths: string[] }[]> {
  const d = await openDeployment({ dataDir: tempDir(t) });
  t.teardown(() => d.close());
  const record = await LiveRecord.open(d, Date.now, undefined, { say: () => {} });
  const app = createApp(d, record, { registerLimit: null });
  return app.middleware
    .map((m) => (m as { router?: Router }).router)
    .filter((r) => r !== undefined)
    .map((r) => ({ paths: r.stack.filter((l) => l.methods.includes('GET')).map((l) => String(l.path)) }));
}

t.test('every path a router answers GET on is a row of the read table, and every row is answered', async (t) => {
  const all = await routers(t);
  const earlier = new Set(EARLIER.map(([, path]) => path));
  // The MCP connector answers GET /mcp with 405 (api/mcp.ts); the earlier surface answers 410: neither is a read.
  const served = all.flatMap((r) => r.paths).filter((p) => !earlier.has(p) && p !== '/mcp');
  const rows = READ_TABLE.map(routeOf);
  t.same([...served].sort(), [...rows].sort(), 'the paths routed are the rows');
  t.equal(new Set(rows).size, rows.length, 'no path is two rows');
  // The log's rows are the engine's router's paths (tlog-engine/http), and only those.
  const log = all.find((r) => r.paths.includes('/v1/log/sth'))!;
  t.same(
    [...log.paths].sort(),
    READ_TABLE.filter((r) => r.serve === 'log')
      .map(routeOf)
      .sort(),
    "the engine's router serves the rows marked log",
  );
  t.ok(
    READ_TABLE.filter((r) => r.serve !== 'log').every((r) => !log.paths.includes(routeOf(r))),
    'no other row is in it',
  );
  t.ok(READS.length > 50 && READS.length < READ_TABLE.length, 'the operations are the rows not unlisted');
});

t.test("every row's path names exactly its path parameters", async (t) => {
  for (const r of READ_TABLE) {
    const named = [...r.path.matchAll(/\{([a-z]+)\}/gi)].map((m) => m[1]);
    const declared = (r.params ?? []).filter((p) => p.in === 'path').map((p) => p.name);
    t.same(declared, named, r.path);
  }
});

t.test('a handler gets the query its row declares: others are refused, and reading one undeclared is a bug', async (t) => {
  const row = (path: string, params: Read['params'], read: string): Read => ({
    path,
    operationId: 'test',
    summary: 'test',
    returns: 'test',
    body: { type: 'object' },
    params,
    serve: () => (ctx, query) => {
      ctx.body = { got: query.get(read) ?? null };
    },
  });
  const limit = { name: 'limit', in: 'query' as const, description: 'how many', schema: { type: 'integer' } };
  const errors: unknown[] = [];
  const app = new Koa();
  app.use(errorMiddleware((e) => errors.push(e)));
  app.use(readRouter([row('/declared', [limit], 'limit'), row('/undeclared', [limit], 'since')], {} as ReadEnv).routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string) => {
    const res = await fetch(base + path);
    return { status: res.status, body: (await res.json()) as { got?: unknown; error?: string; detail?: string } };
  };

  t.same(await get('/declared?limit=3'), { status: 200, body: { got: '3' } }, 'a declared parameter is read');
  const unknown = await get('/declared?since=3');
  t.equal(unknown.status, 400);
  t.match(unknown.body.detail, /^since: unknown parameter \(takes limit\)/, 'one not declared is refused, naming it');
  t.equal((await get('/undeclared')).status, 500, 'a handler reading a parameter its row does not declare fails');
  t.match(String(errors[0]), /\/undeclared reads the query parameter since, which its row does not declare/);
});
