// /openapi.json: OpenAPI 3.1, validated by a real OpenAPI 3.1 validator and linted by Redocly's
// CLI under its recommended rules; every operation has an id, a tag, the servers and its
// security declared; every endpoint the service lists is described; every read's live answer
// matches its response schema.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startService } from '../helpers/service.js';
import { oneOfEach } from '../helpers/agents.js';
import { projectRoot } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';
import { ENDPOINTS } from '../../api/app.js';
import { READS } from '../../api/reads/index.js';
import { EARLIER } from '../../api/routes/earlier.js';
import { WRITE_ROUTES } from '../../lib/record/types/index.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of the document: [method, path, operation]. */
const operations = (doc: any): [string, string, any][] =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, o]): [string, string, any] => [m, path, o]),
  );

t.test('every operation: an operationId, a declared tag, the servers, its security declared', async (t) => {
  const s = await startService(t);
  const doc: any = (await s.get('/openapi.json')).body;
  t.same(doc.servers, [{ url: '/', description: 'this service: paths are relative to where this document is served' }]);
  t.equal(doc.info.license.identifier, 'Apache-2.0');
  const tags = new Set(doc.tags.map((x: any) => x.name));
  for (const tag of doc.tags) t.ok(tag.description, `tag ${tag.name} is described`);
  const ops = operations(doc);
  // Every read, every write path, registration and /mcp: the operations a client may call.
  t.equal(ops.length, READS.length + new Set(Object.values(WRITE_ROUTES).map((r) => r.path)).size + 2, `${ops.length} operations`);
  const ids = new Set<string>();
  for (const [method, path, o] of ops) {
    const at = `${method.toUpperCase()} ${path}`;
    t.match(o.operationId, /^[a-z][a-z0-9_]*$/, `${at}: an operationId`);
    t.notOk(ids.has(o.operationId), `${at}: ${o.operationId} is unique`);
    ids.add(o.operationId);
    t.ok(o.tags?.length === 1 && tags.has(o.tags[0]), `${at}: one declared tag (${o.tags})`);
    t.same(o.security, [], `${at}: no HTTP credential, declared`);
    t.ok(o.servers === undefined && o.summary && o.description, `${at}: the document's servers, a summary and a description`);
  }
  // A write names the key that must sign it, as the route does.
  for (const route of Object.values(WRITE_ROUTES)) t.equal(doc.paths[route.path].post['x-archive-signer'], route.signer, route.path);
  t.match(doc.paths['/v2/papers'].post, { operationId: 'write_paper', tags: ['papers'], description: /^No HTTP credential/ });
  t.match(doc.paths['/v2/agents/doorbell'].post, { operationId: 'write_doorbell_set_or_stop', tags: ['agents'] });
  t.match(doc.paths['/v2/papers/{id}'].get, { operationId: 'get_paper', tags: ['papers'] });
  // The earlier surface is no operation: its paths, gone, are listed beside the operations with their successors.
  t.equal(doc.paths['/v1/papers'], undefined);
  t.same(
    doc['x-archive-gone'],
    EARLIER.map(([method, path, successor]) => ({ method, path: path.replace(/:id/g, '{id}'), status: 410, successor })),
  );
  t.match(doc['x-archive-gone'], [{ method: 'POST', path: '/v1/agents/register', status: 410, successor: 'POST /v2/agents/register' }]);
  t.match(doc.info.description, /x-archive-gone/);
  for (const [method, path, successor] of EARLIER.slice(0, 3)) {
    const r = await fetch(`${s.url}${path.replace(':id', 'x')}`, { method: method === 'ALL' ? 'GET' : method });
    t.equal(r.status, 410, `${method} ${path}: still gone`);
    t.match(await r.json(), { error: 'gone', detail: new RegExp(successor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
  }
});

t.test("Redocly's recommended rules: no error and no warning", async (t) => {
  const s = await startService(t);
  const file = join(tempDir(t), 'openapi.json');
  writeFileSync(file, (await s.get('/openapi.json')).text);
  // The project's redocly.yaml: the recommended rules, no telemetry, no rule turned off.
  t.notMatch(readFileSync(join(projectRoot, 'redocly.yaml'), 'utf8'), /^\s*rules:/m, 'the recommended rules as they are');
  let out: string;
  try {
    out = (
      await promisify(execFile)(
        process.execPath,
        [join(projectRoot, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--format=json', '--max-problems=1000'],
        { cwd: projectRoot, env: { PATH: process.env.PATH ?? '', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' } },
      )
    ).stdout;
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  const report = JSON.parse(out);
  t.same(
    report.problems.map((p: any) => `${p.severity} ${p.ruleId} at ${p.location[0].pointer}: ${p.message}`),
    [],
    'no problem',
  );
  t.same(report.totals, { errors: 0, warnings: 0, ignored: 0 });
});

t.test('the document: OpenAPI 3.1, valid, served with CORS and an ETag', async (t) => {
  const s = await startService(t);
  const r = await fetch(`${s.url}/openapi.json`);
  t.equal(r.status, 200);
  t.equal(r.headers.get('access-control-allow-origin'), '*', 'CORS');
  const doc: any = await r.json();
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, 'archive/0.2');
  const result = await new Validator().validate(doc);
  t.same(result.errors, undefined, 'no validation errors');
  t.equal(result.valid, true, 'a valid OpenAPI 3.1 document');

  const etag = r.headers.get('etag')!;
  t.match(etag, /^"[0-9a-f]{32}"$/);
  t.equal((await fetch(`${s.url}/openapi.json`, { headers: { 'if-none-match': etag } })).status, 304);

  // Every endpoint the index lists, and the statuses of Part 7 where they belong.
  for (const e of ENDPOINTS) {
    const [method, target] = e.split(' ') as [string, string];
    const path = target.split('?')[0]!;
    t.ok(doc.paths[path]?.[method.toLowerCase()], `${e} is described`);
  }
  t.match(Object.keys(doc.paths['/v2/papers'].post.responses), [
    '201',
    '202',
    '400',
    '401',
    '404',
    '409',
    '413',
    '428',
    '429',
    '451',
    '503',
  ]);
  t.match(Object.keys(doc.paths['/v2/checks/result'].post.responses), [
    '201',
    '400',
    '401',
    '403',
    '404',
    '409',
    '413',
    '422',
    '428',
    '429',
    '503',
  ]);
  t.same(
    doc.paths['/v2/reviews'].post.requestBody.content['application/json'].schema.properties.payload.required.sort(),
    ['agent', 'claim', 'forecast', 'protocol', 'rationale', 'ts', 'type'],
    "the payload schema is the service's",
  );
  t.notOk(
    operations(doc).some(([, , o]) => o.deprecated),
    'no operation deprecated: the earlier surface is in x-archive-gone',
  );
});

t.test('every read answers what its response schema says', async (t) => {
  const s = await startService(t);
  const one = await oneOfEach(t, s);

  const doc: any = (await s.get('/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const urls: Record<string, string> = {
    '/v2/papers/{id}': `/v2/papers/${one.paper}`,
    '/v2/receipts/{hash}': `/v2/receipts/${one.receipt}`,
    '/v2/arguments': `/v2/arguments?claim=${encodeURIComponent(one.c2)}`,
    '/v2/arguments/{id}': `/v2/arguments/${one.argument}`,
    '/v2/challenges/{id}': `/v2/challenges/${one.challenge}`,
    '/v2/governance/proposals/{id}': `/v2/governance/proposals/${one.proposal}`,
    '/v2/heartbeat': '/v2/heartbeat?agent=bob',
    '/v1/log/inclusion': '/v1/log/inclusion?seq=1',
    '/v1/log/entries/{seq}': `/v1/log/entries/${one.paperSeq}`,
    '/v2/agents/{handle}': '/v2/agents/bob',
    '/v2/agents/{handle}/{list}': '/v2/agents/bob/reviews',
    '/v2/operators/{id}': '/v2/operators/lab-a',
    '/v2/operators/{id}/{list}': '/v2/operators/lab-a/papers',
    '/v2/search': '/v2/search?q=claim',
    '/v1/log/consistency': `/v1/log/consistency?first=1&second=${s.d.log.size}`,
    '/feeds/{field}.atom': '/feeds/ml.atom',
    '/explore/claims/{ref}': `/explore/claims/${encodeURIComponent(one.c1)}`,
    '/explore/receipts/{id}': `/explore/receipts/${one.receipt}`,
    '/explore/arguments/{id}': `/explore/arguments/${one.argument}`,
    '/explore/papers/{id}': `/explore/papers/${one.paper}`,
    '/explore/agents/{handle}': '/explore/agents/bob',
    '/explore/operators/{id}': '/explore/operators/lab-a',
    '/explore/search': '/explore/search?q=claim',
    '/explore/challenges/{id}': `/explore/challenges/${one.challenge}`,
    '/explore/proposals/{id}': `/explore/proposals/${one.proposal}`,
  };
  let checked = 0;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    const ok = item.get?.responses?.['200'];
    if (ok === undefined) continue;
    const url = urls[path] ?? path;
    if (url.includes('{')) {
      t.fail(`no live URL for ${path}`);
      continue;
    }
    // Asked for the media type described (a page answers a client preferring JSON with a 303 to its JSON read).
    const [type, media] = Object.entries<any>(ok.content)[0]!;
    const r = await fetch(`${s.url}${url}`, { headers: { accept: type } });
    t.equal(r.status, 200, `GET ${url}`);
    t.ok(r.headers.get('content-type')!.startsWith(type), `GET ${url}: ${type}`);
    if (type !== 'application/json') {
      t.ok((await r.text()).length > 0);
      continue;
    }
    const schema = JSON.parse(JSON.stringify(media.schema).replace(/"#\/components\/schemas\//g, '"openapi#/components/schemas/'));
    const validate = ajv.compile(schema);
    const valid = validate(await r.json());
    t.ok(valid, `GET ${url} matches its schema ${valid ? '' : JSON.stringify(validate.errors)}`);
    checked++;
  }
  t.ok(checked >= 20, `${checked} JSON reads checked against their schemas`);
});
