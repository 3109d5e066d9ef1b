// The readers' reads over HTTP (docs/api.md#the-records-reads, #lists-and-cursors, #search,
// #log-reads): a paper with every field, the list of papers and its filters, an agent and an
// operator with their work, the search, one log entry with its proof; pages that stay as they
// were while writes land; items out of view absent from lists and search, and back once restored;
// 400s naming the parameter, 404s.
import t, { type Test } from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';
import { restore, withhold, withSteward } from '../helpers/stewards.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { PROOF_FORMAT, proofProblem } from '../../verify/proof.js';
import { rankKey } from '../../lib/service/search.js';

/** Every page of a list, following `next` (a list that never ends fails the test). */
async function walk(t: Test, s: TestService, path: string, member: string): Promise<any[]> {
  const items: any[] = [];
  let url = path;
  for (let pages = 0; pages < 100; pages++) {
    const r = await s.get(url);
    t.equal(r.status, 200, `${url}: ${r.text.slice(0, 300)}`);
    items.push(...r.body[member]);
    if (r.body.next === null) return items;
    t.type(r.body.next, 'string');
    url = `${path}${path.includes('?') ? '&' : '?'}cursor=${r.body.next}`;
  }
  t.fail(`${path}: no end after 100 pages`);
  return items;
}

const abstract = (topic: string) => `We study ${topic} across many settings and report what holds and what does not, with data.`;

t.test('a paper with every field: abstract, methods, artefacts, claims with numbers, amendments, who, when, its entry', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a', models: ['claude-3.5-sonnet'] });
  const p = await send(
    s,
    alice,
    'paper',
    make.paper(2, {
      title: 'Sparse probes find the feature',
      abstract: abstract('sparse probes'),
      methods: 'Linear probes with an L1 penalty, five seeds each.',
      artefacts: ['https://example.org/code', 'https://example.org/data'],
      field: 'neuro',
      models: ['claude-3.5-sonnet'],
    }),
  );
  t.equal(p.status, 201, p.text);
  const id: string = p.body.id;
  const amend = await send(s, alice, 'claim.amend', { claim: `${id}#C2`, test: 'A probe on held-out layers that finds nothing.' });
  t.equal(amend.status, 201, amend.text);

  const r = await s.get(`/v2/papers/${id}`);
  t.equal(r.status, 200, r.text);
  t.match(r.body, {
    id,
    title: 'Sparse probes find the feature',
    abstract: abstract('sparse probes'),
    methods: 'Linear probes with an L1 penalty, five seeds each.',
    artefacts: ['https://example.org/code', 'https://example.org/data'],
    field: 'neuro',
    models: ['claude-3.5-sonnet'],
    builds_on: [],
    agent: 'alice',
    operatorId: 'lab-a',
    tier: 'unverified',
    seq: p.body.seq,
    ts: String,
    flags: [],
    entry: { seq: p.body.seq, entry: `/v1/log/entries/${p.body.seq}`, proof: `/v1/log/inclusion?seq=${p.body.seq}` },
    amendments: [
      {
        claim: `${id}#C2`,
        seq: amend.body.seq,
        before: { kind: 'empirical', test: 'A result that would refute it' },
        after: { kind: 'empirical', test: 'A probe on held-out layers that finds nothing.' },
      },
    ],
  });
  t.equal(r.body.claims.length, 2);
  t.match(r.body.claims[0], {
    ref: `${id}#C1`,
    text: 'Claim number 1 holds',
    confidence: 0.8,
    numbers: { ref: `${id}#C1`, credence: Number, status: 'unchecked', use: 0 },
  });
  t.match(r.body.claims[1], { amended: { seq: amend.body.seq }, test: 'A probe on held-out layers that finds nothing.' });
  // The entry named is the paper's, and the abstract served is the one logged.
  const entry = (await s.get(r.body.entry.entry)).body.entry;
  t.equal(entry.payload.payload.abstract, r.body.abstract);

  // A paper published without methods or artefacts says so.
  const bare = await send(s, alice, 'paper', make.paper(1));
  t.match((await s.get(`/v2/papers/${bare.body.id}`)).body, { methods: null, artefacts: null });
});

t.test('the list of papers: newest first, filters, pages that stay put while papers land, out of view left out', async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const house = await houseAgent(s, 'house');
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const who = i % 2 === 0 ? alice : bob;
    const r = await send(s, who, 'paper', make.paper(1, { title: `Paper number ${i}`, field: i < 4 ? 'ml' : 'econ' }));
    t.equal(r.status, 201, r.text);
    ids.push(r.body.id);
  }
  // One of alice's claims confirmed by a verified operator: supported.
  await replicate(t, s, house, `${ids[2]}#C1`, 'confirmed');
  t.equal(s.record.state.numbers.scores.get(`${ids[2]}#C1`)!.status, 'supported');

  const all = await s.get('/v2/papers');
  t.same(
    all.body.papers.map((p: any) => p.id),
    [...ids].reverse(),
    'newest first',
  );
  t.equal(all.body.next, null);
  t.match(all.body.papers[0], { id: ids[6], title: 'Paper number 6', field: 'econ', agent: 'alice', operatorId: 'lab-a', seq: Number });
  t.match(all.body.papers[0].claims, [{ ref: `${ids[6]}#C1`, status: 'unchecked', credence: Number }]);

  const ids_ = async (q: string) => (await s.get(`/v2/papers?${q}`)).body.papers.map((p: any) => p.id);
  t.same(await ids_('field=econ'), [ids[6], ids[5], ids[4]]);
  t.same(await ids_('agent=bob'), [ids[5], ids[3], ids[1]]);
  t.same(await ids_('operator=lab-a&field=ml'), [ids[2], ids[0]]);
  t.same(await ids_('status=supported'), [ids[2]]);
  t.same(await ids_('agent=nobody'), [], 'an agent not on the record has no papers');

  // Pages of 3, with papers landing between pages: nothing repeated, nothing skipped.
  const first = await s.get('/v2/papers?limit=3');
  t.same(
    first.body.papers.map((p: any) => p.id),
    [ids[6], ids[5], ids[4]],
  );
  const late = await send(s, bob, 'paper', make.paper(1, { title: 'A paper that lands between pages' }));
  const second = await s.get(`/v2/papers?limit=3&cursor=${first.body.next}`);
  t.same(
    second.body.papers.map((p: any) => p.id),
    [ids[3], ids[2], ids[1]],
    'the next page is where it was',
  );
  const third = await s.get(`/v2/papers?limit=3&cursor=${second.body.next}`);
  t.same(
    third.body.papers.map((p: any) => p.id),
    [ids[0]],
  );
  t.equal(third.body.next, null, 'no empty page at the end');
  t.equal((await walk(t, s, '/v2/papers?limit=2', 'papers')).length, 8);

  // Out of view: gone from the list (and from a filtered list), back once restored.
  t.equal((await withhold(s, sam, ids[3]!)).status, 201);
  t.notOk((await ids_('')).includes(ids[3]), 'withheld: not listed');
  t.notOk((await ids_('agent=bob')).includes(ids[3]));
  t.equal((await restore(s, sam, ids[3]!)).status, 201);
  t.ok((await ids_('agent=bob')).includes(ids[3]), 'restored: listed again');
  t.ok((await ids_('')).includes(late.body.id));

  for (const [q, detail] of [
    ['field=physics', /^field: expected one of mat, pro, math, clim, ml, neuro, astro, econ, other, got "physics"/],
    ['status=true', /^status: expected one of established, supported, unchecked, contested, refuted/],
    ['agent=-x', /^agent: expected a handle/],
    ['operator=a%20b', /^operator: expected an operator id/],
    ['limit=0', /^limit: expected an integer from 1 to 200/],
    ['limit=201', /^limit: expected an integer from 1 to 200/],
    ['cursor=nope!', /^cursor: not a cursor of this list/],
    // A cursor of another list is not one of this list.
    [`cursor=${Buffer.from(JSON.stringify(['flags', 3])).toString('base64url')}`, /^cursor: not a cursor of this list/],
    [`cursor=${Buffer.from(JSON.stringify(['papers', -1])).toString('base64url')}`, /^cursor: not a cursor of this list/],
    ['page=2', /^page: unknown parameter/],
    ['field=ml&field=econ', /^field: given more than once/],
  ] as const) {
    const r = await s.get(`/v2/papers?${q}`);
    t.equal(r.status, 400, `${q}: ${r.text}`);
    t.match(r.body, { error: 'bad_request', detail }, q);
  }
});

t.test("an agent and an operator: their work in pages, keys' history, calibration, tier", async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-b', sponsor: bob });
  const papers: string[] = [];
  for (let i = 0; i < 3; i++) papers.push((await send(s, alice, 'paper', make.paper(1))).body.id);
  const claim = `${papers[0]}#C1`;
  const commit = await send(s, bob, 'check.commit', make.commit(claim));
  t.equal(commit.status, 201, commit.text);
  const review = await send(s, bob, 'review', {
    claim: `${papers[1]}#C1`,
    forecast: 0.3,
    rationale: 'The effect is small and the seeds are few.',
  });
  t.equal(review.status, 201, review.text);
  const arg = await send(s, bob, 'argument.file', make.argument(`${papers[2]}#C1`));
  t.equal(arg.status, 201, arg.text);
  const check = generateKeyPair();
  t.equal((await send(s, bob, 'key.delegate', { key: check.publicKey, scope: 'reports', label: 'the runner' })).status, 201);
  const revoked = await send(s, bob, 'key.revoke', { key: check.publicKey });
  t.equal(revoked.status, 200, revoked.text);

  const b = await s.get('/v2/agents/bob');
  t.equal(b.status, 200, b.text);
  t.match(b.body, {
    handle: 'bob',
    operatorId: 'lab-b',
    tier: 'unverified',
    models: [],
    retiredSeq: null,
    calibration: { rho: Number, resolved: 0 },
    verifiedByRecord: null,
    voided: null,
    doorbell: null,
    entry: { seq: b.body.seq },
    papers: { items: [], next: null },
    receipts: { items: [{ id: commit.body.id, target: claim, kind: 'replication', stage: 'sealed', agent: 'bob' }], next: null },
    reviews: {
      items: [{ id: review.body.id, claim: `${papers[1]}#C1`, forecast: 0.3, rationale: 'The effect is small and the seeds are few.' }],
      next: null,
    },
    arguments: { items: [{ id: arg.body.id, claim: `${papers[2]}#C1`, stance: 'refutes', status: 'open' }], next: null },
  });
  t.same(
    b.body.keys.map((k: any) => [k.role, k.key, k.revokedSeq]),
    [
      ['main', bob.publicKey, null],
      ['check', check.publicKey, revoked.body.seq],
    ],
    "keys' history: registered, delegated, revoked",
  );
  t.match(b.body.keys[1], { scope: 'reports', label: 'the runner' });

  // Alice's papers, a page of 2 and the next.
  const a = await s.get('/v2/agents/alice?limit=2');
  t.same(
    a.body.papers.items.map((p: any) => p.id),
    [papers[2], papers[1]],
  );
  const rest = await s.get(`/v2/agents/alice/papers?limit=2&cursor=${a.body.papers.next}`);
  t.match(rest.body, { agent: 'alice', list: 'papers', items: [{ id: papers[0] }], next: null });

  // Out of view: the withheld paper, and what stands on its claims, leave every list.
  t.equal((await withhold(s, sam, papers[0]!)).status, 201);
  t.same((await s.get('/v2/agents/bob/receipts')).body.items, [], 'a receipt on a claim out of view is not listed');
  t.same(
    (await s.get('/v2/agents/alice/papers')).body.items.map((p: any) => p.id),
    [papers[2], papers[1]],
  );
  t.equal((await withhold(s, sam, arg.body.id)).status, 201);
  t.same((await s.get('/v2/operators/lab-b/arguments')).body.items, []);
  t.equal((await restore(s, sam, papers[0]!)).status, 201);
  t.equal((await s.get('/v2/agents/bob/receipts')).body.items.length, 1, 'listed again once restored');

  const op = await s.get('/v2/operators/lab-b');
  t.equal(op.status, 200, op.text);
  t.match(op.body, {
    id: 'lab-b',
    tier: 'unverified',
    verifiedByRecord: null,
    agents: { items: [{ handle: 'carol' }, { handle: 'bob' }], next: null },
    reviews: { items: [{ id: review.body.id, agent: 'bob' }] },
    receipts: { items: [{ id: commit.body.id }] },
  });
  const house = await s.get(`/v2/operators/${encodeURIComponent(s.record.state.operator)}`);
  t.match(house.body, { tier: 'verified', verifiedByRecord: { round: 0 } }, "the deployment's own operator, verified at genesis");
  t.match((await s.get('/v2/operators/lab-b/agents?limit=1')).body, { operator: 'lab-b', list: 'agents', items: [{ handle: 'carol' }] });
  void carol;

  for (const [path, status, detail] of [
    ['/v2/agents/nobody', 404, /^no agent nobody on the record/],
    ['/v2/agents/-x', 400, /^path: expected a handle/],
    ['/v2/agents/bob/checks', 400, /^path: expected a list, one of papers, receipts, reviews, arguments, got "checks"/],
    ['/v2/agents/nobody/papers', 404, /^no agent nobody/],
    ['/v2/agents/bob?cursor=x', 400, /^cursor: unknown parameter \(takes limit\)/],
    ['/v2/agents/bob/papers?limit=201', 400, /^limit: expected an integer from 1 to 200/],
    ['/v2/agents/bob/papers?cursor=abc', 400, /^cursor: not a cursor of this list/],
    ['/v2/operators/nobody', 404, /^no operator nobody on the record/],
    ['/v2/operators/lab-b/papers?x=1', 400, /^x: unknown parameter/],
  ] as const) {
    const r = await s.get(path);
    t.equal(r.status, status, `${path}: ${r.text}`);
    t.match(r.body, { detail }, path);
  }
});

t.test('the lists of agents and of operators: newest first, with tiers, pages that stay put while agents register', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  await register(s, 'alice', { operatorId: 'lab-a', models: ['gpt-4o'] });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const bob2 = await register(s, 'bob-two', { operatorId: 'lab-b', sponsor: bob });
  t.equal((await send(s, bob2, 'key.revoke', { key: bob2.publicKey })).status, 200, 'bob-two retired');

  const agents = await walk(t, s, '/v2/agents?limit=2', 'agents');
  t.same(
    agents.map((a) => a.handle),
    ['bob-two', 'bob', 'alice', 'house'],
    'newest first, over pages of two',
  );
  t.match(agents[2], {
    handle: 'alice',
    operatorId: 'lab-a',
    tier: 'unverified',
    models: ['gpt-4o'],
    seq: s.d.log.size - 4,
    retiredSeq: null,
  });
  t.match(agents[3], { handle: house.handle, operatorId: 'op_archive', tier: 'verified' });
  t.type(agents[0].retiredSeq, 'number', 'a retired agent says when');

  const operators = await walk(t, s, '/v2/operators?limit=2', 'operators');
  t.same(
    operators.map((o) => o.id),
    ['lab-b', 'lab-a', 'op_archive'],
    "newest first: the deployment's own operator, made at genesis, last",
  );
  t.match(operators[0], { id: 'lab-b', tier: 'unverified', agents: 2, verifiedByRecord: null, voided: null });
  t.match(operators[2], { id: 'op_archive', tier: 'verified', seq: 0, agents: 1, verifiedByRecord: { round: 0, seq: 0 } });

  // A page stays as it was while agents (and their operators) land.
  const first = await s.get('/v2/agents?limit=2');
  await register(s, 'carol', { operatorId: 'lab-c' });
  t.same(
    (await s.get(`/v2/agents?limit=2&cursor=${first.body.next}`)).body.agents.map((a: { handle: string }) => a.handle),
    ['alice', 'house'],
    'the next page as it was',
  );
  t.same(
    ((await s.get('/v2/operators?limit=1')).body.operators as { id: string }[]).map((o) => o.id),
    ['lab-c'],
    'a new operator first',
  );
  for (const bad of ['limit=0', 'limit=201', 'cursor=nope', 'x=1'])
    for (const list of ['agents', 'operators']) t.equal((await s.get(`/v2/${list}?${bad}`)).status, 400, `${list}: ${bad}`);
  t.equal((await s.get(`/v2/operators?cursor=${first.body.next}`)).status, 400, "another list's cursor");
});

t.test('search: ranked, with snippets and filters; pages stay put; out of view never found, found again once restored', async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const tokamak = await send(
    s,
    alice,
    'paper',
    make.paper(1, {
      title: 'Tokamak plasma confinement at low field',
      abstract: `${abstract('confinement')} The plasma stays confined for longer when the field ramps slowly, which few expected.`,
      field: 'pro',
    }),
  );
  const gradient = await send(
    s,
    bob,
    'paper',
    make.paper(1, {
      title: 'Gradient noise in small transformers',
      abstract: `${abstract('gradient noise')} We also note in passing that plasma physics has the same problem.`,
      claims: [{ text: 'Gradient noise scales with the inverse batch size', confidence: 0.6, test: 'A run where it does not' }],
    }),
  );
  const ext = await send(s, bob, 'claim.external', {
    source: 'doi:10.1234/plasma.5678',
    quote: 'Plasma turbulence is suppressed by sheared flows.',
    test: 'A sheared flow with no less turbulence',
  });
  t.equal(ext.status, 201, ext.text);
  await s.get('/v2/search?q=x'); // the index is built

  const r = await s.get('/v2/search?q=plasma');
  t.equal(r.status, 200, r.text);
  // The word in the first column (a title, an external claim's quote) before the word in the
  // abstract; alike in that, by rank key.
  const first = [ext.body.ref as string, tokamak.body.id as string].sort((a, b) => (rankKey(a) < rankKey(b) ? -1 : 1));
  t.same(
    r.body.results.map((x: any) => x.id),
    [...first, gradient.body.id],
    'the word in a title or quote first, then in an abstract',
  );
  const byId = (id: string) => r.body.results.find((x: any) => x.id === id);
  t.match(byId(tokamak.body.id), {
    kind: 'paper',
    title: 'Tokamak plasma confinement at low field',
    snippet: /plasma stays confined/,
    agent: 'alice',
    operatorId: 'lab-a',
    field: 'pro',
    seq: tokamak.body.seq,
  });
  t.match(r.body.results[2].snippet, /^….*plasma physics has the same problem/, 'a snippet around the word, cut where text was');
  t.match(byId(ext.body.ref), {
    kind: 'external',
    title: 'doi:10.1234/plasma.5678',
    status: 'unchecked',
    credence: Number,
    paper: ext.body.id,
  });

  const ids = async (q: string) => (await s.get(`/v2/search?${q}`)).body.results.map((x: any) => x.id);
  t.same(await ids('q=PLASMA&kind=external'), [ext.body.ref], 'case folded; kind');
  t.same(await ids('q=plasmas'), await ids('q=plasma'), 'another form of the word finds the same');
  t.same(await ids('q=confined%20tokamaks'), [tokamak.body.id], 'each word in any of its forms');
  t.same(await ids('q=plasma&agent=bob'), [ext.body.ref, gradient.body.id]);
  t.same(await ids('q=plasma&field=ml'), [gradient.body.id]);
  t.same(await ids('q=plasma&operator=lab-a'), [tokamak.body.id]);
  t.same(await ids('q=gradient%20batch'), [`${gradient.body.id}#C1`], 'every word, in one item');
  t.same(await ids('q=alice'), ['alice'], 'agents by handle');
  t.same(await ids('q=nothing%20here'), []);

  // Pages of one, with a better match landing in between: the next page is where it was.
  const p1 = await s.get('/v2/search?q=plasma&limit=1');
  t.same(
    p1.body.results.map((x: any) => x.id),
    [first[0]],
  );
  const better = await send(s, alice, 'paper', make.paper(1, { title: 'Plasma first', abstract: abstract('plasma') }));
  t.equal(better.status, 201);
  const p2 = await s.get(`/v2/search?q=plasma&limit=1&cursor=${p1.body.next}`);
  t.same(
    p2.body.results.map((x: any) => x.id),
    [first[1]],
  );
  const p3 = await s.get(`/v2/search?q=plasma&limit=1&cursor=${p2.body.next}`);
  t.same(
    p3.body.results.map((x: any) => x.id),
    [gradient.body.id],
  );
  t.equal(p3.body.next, null);
  t.ok((await ids('q=plasma')).includes(better.body.id), 'a new search finds the new paper');

  // Out of view: never found (its claims neither), found again once restored.
  t.equal((await withhold(s, sam, tokamak.body.id)).status, 201);
  t.notOk((await ids('q=plasma')).includes(tokamak.body.id));
  t.same(await ids('q=tokamak'), [], 'nor its claim');
  t.equal((await restore(s, sam, tokamak.body.id)).status, 201);
  t.same((await ids('q=tokamak'))[0], tokamak.body.id, 'found again once restored');

  // An amended claim is found by its new test, not its old one.
  const paper = await send(s, alice, 'paper', make.paper(1, { abstract: abstract('amendments') }));
  await s.get('/v2/search?q=x');
  const amended = await send(s, alice, 'claim.amend', { claim: `${paper.body.id}#C1`, test: 'A zebrafish study that finds nothing.' });
  t.equal(amended.status, 201, amended.text);
  t.same(await ids('q=zebrafish'), [`${paper.body.id}#C1`]);

  for (const [q, detail] of [
    ['', /^q: required/],
    ['q=%20-%20', /^q: expected words to search for/],
    [`q=${'a'.repeat(201)}`, /^q: at most 200 characters/],
    ['q=a&q=b', /^q: given more than once/],
    ['q=plasma&kind=paperz', /^kind: expected one of paper, claim, external, agent/],
    ['q=plasma&limit=101', /^limit: expected an integer from 1 to 100/],
    [`q=tokamak&cursor=${p1.body.next}`, /^cursor: a cursor of a search for other words or filters/],
    ['q=plasma&cursor=AAAA', /^cursor: not a cursor of this list/],
  ] as const) {
    const res = await s.get(`/v2/search?${q}`);
    t.equal(res.status, 400, `${q}: ${res.text}`);
    t.match(res.body, { error: 'bad_request', detail }, q);
  }
});

t.test('the search index is made again at start, from the log or from a snapshot', async (t) => {
  const dataDir = (await import('../helpers/tmp.js')).tempDir(t);
  const snapshot = `${dataDir}/state.snapshot`;
  const s = await startService(t, { dataDir, snapshot });
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const p = await send(s, alice, 'paper', make.paper(1, { title: 'Axion searches with haloscopes', abstract: abstract('axions') }));
  const early = await send(s, bob, 'review', {
    claim: `${p.body.id}#C1`,
    forecast: 0.3,
    rationale: 'Written before the snapshot was taken.',
  });
  t.equal(early.status, 201, early.text);
  t.ok(await s.record.snapshot(snapshot));
  const late = await send(s, alice, 'paper', make.paper(1, { title: 'Axion dark matter bounds', abstract: abstract('bounds') }));
  const after = await send(s, bob, 'review', {
    claim: `${late.body.id}#C1`,
    forecast: 0.6,
    rationale: 'Written after the snapshot was taken.',
  });
  t.equal(after.status, 201, after.text);
  await s.stop();
  const lines: string[] = [];
  const again = await startService(t, { dataDir, snapshot, say: (l) => lines.push(l) });
  t.match(lines.join('\n'), /starting from the snapshot/);
  const r = await again.get('/v2/search?q=axion');
  t.same(
    r.body.results.map((x: any) => x.id),
    [p.body.id, late.body.id].sort((a, b) => (rankKey(a) < rankKey(b) ? -1 : 1)),
    'both: the word in each title, by rank key',
  );
  t.match((await again.get('/v2/papers')).body.papers, [{ id: late.body.id }, { id: p.body.id }], 'the read index too');
  for (const path of ['/v2/agents/bob/reviews', '/v2/operators/lab-b/reviews'])
    t.match(
      (await again.get(path)).body.items,
      [
        { id: after.body.id, rationale: 'Written after the snapshot was taken.' },
        { id: early.body.id, rationale: 'Written before the snapshot was taken.' },
      ],
      `${path}: the reviews of the snapshot's state and of the entries replayed after it`,
    );
});

t.test('GET /v1/log/entries/{seq}: the entry, its proof against the head it comes with, and what it records', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const p = await send(s, alice, 'paper', make.paper(1));
  const commit = await send(s, bob, 'check.commit', make.commit(`${p.body.id}#C1`));
  const key = (await s.get('/v1/log/key')).body;
  const expect = [
    [p.body.seq, { type: 'paper', subject: p.body.id, agent: 'alice' }],
    [commit.body.seq, { type: 'check.commit', subject: commit.body.id, agent: 'bob' }],
    [commit.body.sealSeq, { type: 'check.seal', subject: commit.body.id, agent: null }],
    [1, { type: 'agent.register', subject: 'alice', agent: 'alice' }],
    [0, { type: 'log.genesis', subject: null, agent: null }],
  ] as const;
  for (const [seq, records] of expect) {
    const r = await s.get(`/v1/log/entries/${seq}`);
    t.equal(r.status, 200, r.text);
    t.same(r.body.records, records, `entry ${seq} records`);
    t.equal(r.body.entry.seq, seq);
    t.same(r.body.head, (await s.get('/v1/log/sth')).body, 'the current head');
    const bundle = { format: PROOF_FORMAT, origin: key.origin, entry: r.body.entry, inclusion: r.body.inclusion, sth: r.body.head };
    t.equal(proofProblem(bundle as any, { key: key.key, origin: null }), null, `entry ${seq}: its proof verifies against the head's root`);
  }
  for (const [path, status, detail] of [
    [`/v1/log/entries/${s.d.log.size}`, 404, new RegExp(`^no entry ${s.d.log.size}: the tree has ${s.d.log.size} entries`)],
    ['/v1/log/entries/01', 400, /^path: expected a seq/],
    ['/v1/log/entries/-1', 400, /^path: expected a seq/],
    ['/v1/log/entries/1?x=1', 400, /^x: unknown parameter/],
  ] as const) {
    const r = await s.get(path);
    t.equal(r.status, status, `${path}: ${r.text}`);
    t.match(r.body, { detail }, path);
  }
});

t.test('the older lists page too: challenges, flags, holds, governance, credence, arguments on a claim', async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const claims: string[] = [];
  for (let i = 0; i < 3; i++) claims.push(...(await send(s, alice, 'paper', make.paper(2))).body.claims);
  // One challenge a day per operator not verified: five operators.
  for (const [i, c] of claims.slice(0, 5).entries()) {
    const who = await register(s, `proposer-${i}`, { operatorId: `lab-p${i}` });
    const r = await send(s, who, 'challenge.propose', { claim: c, brief: `Re-run ${c} with a fresh seed and report the spread.` });
    t.equal(r.status, 201, r.text);
  }
  for (let i = 0; i < 3; i++) {
    t.equal((await send(s, sam, 'item.flag', { subject: claims[0]!.split('#')[0], reason: `A public note number ${i}.` })).status, 201);
    t.equal((await send(s, bob, 'argument.file', make.argument(claims[1]!))).status, 201);
  }
  const challenges = await walk(t, s, '/v2/challenges?limit=2', 'challenges');
  t.same(
    challenges.map((c: any) => c.id),
    (await s.get('/v2/challenges?limit=200')).body.challenges.map((c: any) => c.id),
    'pages of 2 give the ranking',
  );
  t.equal(challenges.length, 5);
  const flags = await walk(t, s, '/v2/flags?limit=2', 'flags');
  t.same(
    flags.map((f: any) => f.reason),
    ['A public note number 2.', 'A public note number 1.', 'A public note number 0.'],
  );
  t.equal((await walk(t, s, `/v2/arguments?claim=${encodeURIComponent(claims[1]!)}&limit=1`, 'arguments')).length, 3);
  t.equal((await walk(t, s, '/v2/credence?limit=4', 'claims')).length, 6);
  t.same(
    (await walk(t, s, '/v2/credence?limit=4', 'claims')).map((c: any) => c.ref),
    (await s.get('/v2/credence')).body.claims.map((c: any) => c.ref),
    'pages of credence give the whole body, in log order',
  );
  t.equal((await walk(t, s, '/v2/holds?limit=1', 'holds')).length, 0);
  t.equal((await walk(t, s, '/v2/governance?limit=1', 'proposals')).length, 0);
  const bad = await s.get('/v2/challenges?cursor=eyJ4Ijox');
  t.match(bad, { status: 400, body: { detail: /^cursor: not a cursor of this list/ } });
});

t.test('a search of two words, walked a page at a time while better matches land, gives the ranking of its first page', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
  for (let i = 0; i < 12; i++) {
    // The two words at places that vary from paper to paper, so the ranking mixes them.
    const text = `${filler((i * 7) % 11)} magnetar ${filler((i * 5) % 13)} flare ${filler(20)}`;
    t.equal((await send(s, alice, 'paper', make.paper(1, { title: `Paper ${i}`, abstract: text }))).status, 201);
  }
  const whole = (await s.get('/v2/search?q=flare%20magnetar&kind=paper&limit=100')).body.results.map((r: any) => r.id);
  t.equal(whole.length, 12);
  const walked: string[] = [];
  let url = '/v2/search?q=flare%20magnetar&kind=paper&limit=3';
  for (let page = 0; page < 10; page++) {
    const r = await s.get(url);
    walked.push(...r.body.results.map((x: any) => x.id));
    // A better match lands between pages: both words first.
    await send(s, alice, 'paper', make.paper(1, { title: `Magnetar flare ${page}`, abstract: `magnetar flare ${filler(30)}` }));
    if (r.body.next === null) break;
    url = `/v2/search?q=flare%20magnetar&kind=paper&limit=3&cursor=${r.body.next}`;
  }
  t.same(walked, whole, 'nothing repeated, nothing skipped, nothing new');
});
