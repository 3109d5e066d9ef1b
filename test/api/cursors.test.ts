// Cursors over HTTP (docs/api.md#lists-and-cursors): on every list that takes a cursor (every
// operation of /openapi.json with a `cursor` parameter or a list's own), a genuine cursor pages on
// correctly; a cursor altered in any way (a position of -1, 1.5 or 1e300, a search's tree size of
// 1e300, a byte changed, cut or added, the bare cursors of before) or of another list (another
// agent's, other filters, another deployment's) answers 400 {error, detail} naming the parameter.
// A cursor outlives a restart.
import t from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send, type TestAgent } from '../helpers/agents.js';
import { withSteward } from '../helpers/stewards.js';

interface List {
  /** The operation of /openapi.json that serves it. */
  op: string;
  /** The list and its place. */
  id: string;
  /** The list's first page, one item a page. */
  url: string;
  /** Where its first cursor is taken from (default: `url`). */
  source?: string;
  /** The parameter its cursor goes in. */
  param: string;
  /** Where its cursor is in the first page's body, and where its items are (JSON reads). */
  next: (body: any) => string | null;
  items?: (body: any) => unknown[];
}

const ok = async (r: Promise<{ status: number; text: string; body: any }>) => {
  const got = await r;
  if (![200, 201, 202].includes(got.status)) throw new Error(`${got.status} ${got.text}`);
  return got.body;
};

/** A record with at least two items in every list, for two agents and two operators. */
async function record(s: TestService) {
  const house = await houseAgent(s, 'house');
  await houseAgent(s, 'house-two');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const sam = await withSteward(s);
  const papers: Record<string, string[]> = {};
  for (const a of [alice, bob, carol]) {
    papers[a.handle] = [];
    for (let i = 0; i < 2; i++)
      papers[a.handle]!.push((await ok(send(s, a, 'paper', make.paper(2, { title: `Quasar paper ${a.handle} ${i}` })))).id);
  }
  const claim = (handle: string, i: number, c = 1) => `${papers[handle]![i]}#C${c}`;
  const t0 = { equal: () => undefined } as never;
  for (const [a, on] of [
    [house, 'alice'],
    [bob, 'alice'],
    [alice, 'bob'],
  ] as [TestAgent, string][]) {
    for (let i = 0; i < 2; i++) {
      await replicate(t0, s, a, claim(on, i), 'confirmed');
      await ok(send(s, a, 'review', { claim: claim(on, i, 2), forecast: 0.4, rationale: 'Few seeds; the effect may not hold.' }));
      await ok(send(s, a, 'argument.file', make.argument(claim(on, 0, 2))));
    }
  }
  for (let i = 0; i < 2; i++) {
    await ok(
      send(s, house, 'challenge.propose', { claim: claim('bob', i, 2), brief: 'Re-run the main table with a fresh seed and report.' }),
    );
    await ok(send(s, sam, 'item.flag', { subject: papers.alice![i], reason: 'Its second claim restates an earlier claim.' }));
    await ok(send(s, sam, 'hold.escalate', { subject: papers.carol![i], reason: 'A hazard the operator must judge.' }));
  }
  const articles = (await s.get('/v1/constitution')).body.articles;
  for (const [i, a] of [alice, bob].entries()) {
    const amended = articles.map((x: { id: string; text: string }) => (x.id === 'V' ? { ...x, text: `${x.text}\n8. Clause ${i}.` } : x));
    await ok(
      send(s, a, 'governance.propose', {
        title: `A clause ${i} for Article V`,
        rationale: 'A clause the procedure was missing.',
        articles: amended,
      }),
    );
  }
  return { claim: claim('alice', 0, 2) };
}

/**
 * Every list that takes a cursor, each at two places at least (two agents, two operators, filters
 * or none); `id` names the list and its place: an explorer page takes its JSON read's cursors.
 */
function lists(claim: string): List[] {
  const next = (b: any) => b.next;
  const json = (op: string, url: string, member: string): List => ({
    op,
    id: url.replace(/[?&]limit=1$/, ''),
    url,
    param: 'cursor',
    next,
    items: (b) => b[member],
  });
  const out: List[] = [
    json('list_papers', '/v2/papers?limit=1', 'papers'),
    json('list_papers', '/v2/papers?field=ml&limit=1', 'papers'),
    json('list_papers', '/v2/papers?agent=bob&limit=1', 'papers'),
    json('search', '/v2/search?q=quasar&limit=1', 'results'),
    json('search', '/v2/search?q=quasar&kind=paper&limit=1', 'results'),
    json('list_arguments', `/v2/arguments?claim=${encodeURIComponent(claim)}&limit=1`, 'arguments'),
    json('list_challenges', '/v2/challenges?limit=1', 'challenges'),
    json('list_challenges', '/v2/challenges?all=1&limit=1', 'challenges'),
    json('list_flags', '/v2/flags?limit=1', 'flags'),
    json('list_holds', '/v2/holds?limit=1', 'holds'),
    json('get_governance', '/v2/governance?limit=1', 'proposals'),
    json('get_credence', '/v2/credence?limit=1', 'claims'),
    json('list_agents', '/v2/agents?limit=1', 'agents'),
    json('list_operators', '/v2/operators?limit=1', 'operators'),
    { op: 'explore_papers', id: '/v2/papers', url: '/explore/papers?limit=1', source: '/v2/papers?limit=1', param: 'cursor', next },
    { op: 'explore_agents', id: '/v2/agents', url: '/explore/agents?limit=1', source: '/v2/agents?limit=1', param: 'cursor', next },
    {
      op: 'explore_operators',
      id: '/v2/operators',
      url: '/explore/operators?limit=1',
      source: '/v2/operators?limit=1',
      param: 'cursor',
      next,
    },
    {
      op: 'explore_challenges',
      id: '/v2/challenges',
      url: '/explore/challenges?limit=1',
      source: '/v2/challenges?limit=1',
      param: 'cursor',
      next,
    },
    {
      op: 'explore_challenges',
      id: '/v2/challenges?all=1',
      url: '/explore/challenges?all=1&limit=1',
      source: '/v2/challenges?all=1&limit=1',
      param: 'cursor',
      next,
    },
    {
      op: 'explore_governance',
      id: '/v2/governance',
      url: '/explore/governance?limit=1',
      source: '/v2/governance?limit=1',
      param: 'cursor',
      next,
    },
    {
      op: 'explore_search',
      id: '/v2/search?q=quasar',
      url: '/explore/search?q=quasar&limit=1',
      source: '/v2/search?q=quasar&limit=1',
      param: 'cursor',
      next,
    },
  ];
  for (const handle of ['alice', 'bob'])
    for (const list of ['papers', 'receipts', 'reviews', 'arguments']) {
      out.push(json('list_agent_work', `/v2/agents/${handle}/${list}?limit=1`, 'items'));
      out.push({
        op: 'explore_agent',
        id: `/v2/agents/${handle}/${list}`,
        url: `/explore/agents/${handle}?limit=1`,
        source: `/v2/agents/${handle}?limit=1`,
        param: list,
        next: (b) => b[list].next,
      });
    }
  for (const [id, list] of [
    ['op_archive', 'agents'],
    ['op_archive', 'receipts'],
    ['lab-b', 'receipts'],
    ['lab-a', 'reviews'],
    ['lab-b', 'arguments'],
    ['lab-a', 'papers'],
  ] as [string, string][]) {
    out.push(json('list_operator_work', `/v2/operators/${id}/${list}?limit=1`, 'items'));
    out.push({
      op: 'explore_operator',
      id: `/v2/operators/${id}/${list}`,
      url: `/explore/operators/${id}?limit=1`,
      source: `/v2/operators/${id}?limit=1`,
      param: list,
      next: (b) => b[list].next,
    });
  }
  return out;
}

const withParam = (url: string, name: string, value: string) => `${url}&${name}=${encodeURIComponent(value)}`;

/** Alterations of a genuine cursor: none of them is a cursor of any list. */
function altered(c: string): [string, string][] {
  const bytes = Buffer.from(c, 'base64url');
  const body = JSON.parse(bytes.subarray(16).toString('utf8')) as unknown[];
  const at = (i: number, v: unknown) => {
    const b = [...body];
    b[i] = v;
    return Buffer.concat([bytes.subarray(0, 16), Buffer.from(JSON.stringify(b))]).toString('base64url');
  };
  const flip = (i: number) => {
    const b = Buffer.from(bytes);
    b[i] = b[i]! ^ 1;
    return b.toString('base64url');
  };
  return [
    ['the position -1', at(1, -1)],
    ['the position 1.5', at(1, 1.5)],
    ['the position 1e300', at(1, 1e300)],
    // The search's second number, and the challenges': how far it went, the seq of the last.
    ...(typeof body[2] === 'number'
      ? ([
          ['its second number -1', at(2, -1)],
          ['its second number 1.5', at(2, 1.5)],
          ['its second number 1e300', at(2, 1e300)],
        ] as [string, string][])
      : []),
    ['a bit of the tag flipped', flip(0)],
    ['a bit of the body flipped', flip(bytes.length - 2)],
    ['cut short', c.slice(0, -2)],
    ['a character added', `${c}A`],
    ['without its tag', Buffer.from(JSON.stringify(body)).toString('base64url')],
    ['the tag alone', bytes.subarray(0, 16).toString('base64url')],
    ['not base64url', `${c.slice(0, -1)}!`],
    ['empty', ''],
  ];
}

t.test('every paged list: a genuine cursor pages on; an altered or foreign one answers 400 naming its parameter', async (t) => {
  const s = await startService(t);
  const { claim } = await record(s);
  const all = lists(claim);

  // Every operation that takes a cursor is here.
  const doc = (await s.get('/openapi.json')).body;
  const paged = new Set<string>();
  for (const ops of Object.values(doc.paths) as any[])
    for (const op of Object.values(ops) as any[])
      if ((op.parameters ?? []).some((p: any) => p.name === 'cursor' || /^where the \w+ list goes on/.test(p.description ?? '')))
        paged.add(op.operationId);
  t.same([...new Set(all.map((l) => l.op))].sort(), [...paged].sort(), 'every operation of /openapi.json that takes a cursor');

  // The first cursor of each list; every list has a second page.
  const cursors: string[] = [];
  for (const l of all) {
    const first = await s.get(l.source ?? l.url);
    t.equal(first.status, 200, `${l.source ?? l.url}: ${first.text.slice(0, 200)}`);
    const c = l.next(first.body);
    t.type(c, 'string', `${l.url}: a second page`);
    cursors.push(c!);
  }
  t.equal(new Set(cursors).size, new Set(all.map((l) => l.id)).size, 'a cursor of its own for each list at each place');

  for (const [i, l] of all.entries()) {
    const c = cursors[i]!;
    // Genuine: one item a page, walked by the cursors, is the list in one page.
    if (l.items !== undefined) {
      const whole = await s.get(l.url.replace('limit=1', 'limit=100'));
      const walked: unknown[] = [];
      let url = l.url;
      for (let n = 0; n < 50; n++) {
        const r = await s.get(url);
        t.equal(r.status, 200, `${url}: ${r.text.slice(0, 200)}`);
        walked.push(...l.items(r.body));
        if (r.body.next === null) break;
        url = withParam(l.url, l.param, r.body.next);
      }
      t.ok(walked.length >= 2, `${l.url}: two pages at least`);
      t.same(walked, l.items(whole.body), `${l.url}: walked a page at a time, the same items as in one page`);
    } else {
      const r = await s.get(withParam(l.url, l.param, c));
      t.equal(r.status, 200, `${l.url} with its cursor: ${r.text.slice(0, 200)}`);
    }

    const refused = async (what: string, value: string) => {
      const r = await s.get(withParam(l.url, l.param, value));
      t.equal(r.status, 400, `${l.url}, ${what}: 400 (${r.text.slice(0, 200)})`);
      t.same(Object.keys(r.body ?? {}).sort(), ['detail', 'error'], `${l.url}, ${what}: {error, detail}`);
      t.equal(r.body?.error, 'bad_request');
      t.match(r.body?.detail, new RegExp(`^${l.param}: `), `${l.url}, ${what}: names ${l.param}`);
    };
    for (const [what, value] of altered(c)) await refused(what, value);
    // Another list's cursor, or the same list's at another place: not this list's.
    for (const [j, other] of all.entries()) if (other.id !== l.id) await refused(`the cursor of ${other.id}`, cursors[j]!);
  }
});

t.test("a cursor outlives a restart; another deployment's cursor of the same list is not one of this list", async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  for (let i = 0; i < 3; i++) await ok(send(s, alice, 'paper', make.paper(1, { title: `Paper ${i}` })));
  const first = await s.get('/v2/papers?limit=1');
  const second = await s.get(`/v2/papers?limit=1&cursor=${first.body.next}`);
  t.equal(second.status, 200);

  // Another deployment (its own keys) with the same papers at the same seqs.
  const other = await startService(t);
  const alice2 = await register(other, 'alice', { operatorId: 'lab-a' });
  for (let i = 0; i < 3; i++) await ok(send(other, alice2, 'paper', make.paper(1, { title: `Paper ${i}` })));
  const theirs = (await other.get('/v2/papers?limit=1')).body.next as string;
  t.equal(Buffer.from(theirs, 'base64url').subarray(16).toString(), Buffer.from(first.body.next, 'base64url').subarray(16).toString());
  const foreign = await s.get(`/v2/papers?limit=1&cursor=${theirs}`);
  t.equal(foreign.status, 400, foreign.text);
  t.match(foreign.body, { error: 'bad_request', detail: /^cursor: not a cursor of this list/ });

  await s.stop();
  const again = await startService(t, { dataDir: s.dataDir });
  const after = await again.get(`/v2/papers?limit=1&cursor=${first.body.next}`);
  t.equal(after.status, 200, after.text);
  t.same(after.body, second.body, 'the same page after a restart');
});
