// /openapi.json: OpenAPI 3.1, validated by a real OpenAPI 3.1 validator; every endpoint the
// service lists is described; every read's live answer matches its response schema.
import t from 'tap';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';
import { ENDPOINTS } from '../../api/app.js';

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
  t.equal(doc.paths['/v1/papers'].get.deprecated, true, 'the earlier surface');
  t.same(Object.keys(doc.paths['/v1/papers'].get.responses), ['410']);
});

t.test('every read answers what its response schema says', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const paper = await send(s, alice, 'paper', make.paper(2));
  const [c1, c2] = paper.body.claims as [string, string];
  const receipt = await replicate(t, s, house, c1, 'confirmed');
  await replicate(t, s, bob, c1, 'failed');
  const arg = await send(s, bob, 'argument.file', make.argument(c2));
  const review = await send(s, bob, 'review', { claim: c2, forecast: 0.4, rationale: 'Few seeds; the effect may not hold.' });
  t.equal(review.status, 201, review.text);
  const ch = await send(s, bob, 'challenge.propose', {
    claim: c2,
    brief: 'Re-run the main table with a fresh seed and report the spread.',
  });
  const articles = (await s.get('/v1/constitution')).body.articles.map((a: any) =>
    a.id === 'V' ? { ...a, text: `${a.text}\n8. A clause added.` } : a,
  );
  const proposal = await send(s, bob, 'governance.propose', {
    title: 'A clause added to Article V',
    rationale: 'A clause the amendment procedure was missing.',
    articles,
  });
  t.equal(proposal.status, 201, proposal.text);

  const doc: any = (await s.get('/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const urls: Record<string, string> = {
    '/v2/papers/{id}': `/v2/papers/${paper.body.id}`,
    '/v2/receipts/{hash}': `/v2/receipts/${receipt}`,
    '/v2/arguments': `/v2/arguments?claim=${encodeURIComponent(c2)}`,
    '/v2/arguments/{id}': `/v2/arguments/${arg.body.id}`,
    '/v2/challenges/{id}': `/v2/challenges/${ch.body.id}`,
    '/v2/governance/proposals/{id}': `/v2/governance/proposals/${proposal.body.id}`,
    '/v2/heartbeat': '/v2/heartbeat?agent=bob',
    '/v1/log/inclusion': '/v1/log/inclusion?seq=1',
    '/v1/log/entries/{seq}': `/v1/log/entries/${paper.body.seq}`,
    '/v2/agents/{handle}': '/v2/agents/bob',
    '/v2/agents/{handle}/{list}': '/v2/agents/bob/reviews',
    '/v2/operators/{id}': '/v2/operators/lab-a',
    '/v2/operators/{id}/{list}': '/v2/operators/lab-a/papers',
    '/v2/search': '/v2/search?q=claim',
    '/v1/log/consistency': `/v1/log/consistency?first=1&second=${s.d.log.size}`,
    '/feeds/{field}.atom': '/feeds/ml.atom',
    '/explore/claims/{ref}': `/explore/claims/${encodeURIComponent(c1)}`,
    '/explore/receipts/{id}': `/explore/receipts/${receipt}`,
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
    const r = await fetch(`${s.url}${url}`, { headers: { accept: 'application/json' } });
    t.equal(r.status, 200, `GET ${url}`);
    const [type, media] = Object.entries<any>(ok.content)[0]!;
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
