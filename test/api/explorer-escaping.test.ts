// Markup posted in every text field a page shows (docs/api.md#the-explorer) comes back escaped on
// every page: never a tag or an attribute, never escaped twice. Each field carries its own number,
// so that each is found, escaped, on some page; the pages are every kind the explorer serves.
import t from 'tap';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { startService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';
import { withSteward } from '../helpers/stewards.js';
import type { Reply } from '../helpers/service.js';

/** Markup in a field: a script, an attribute broken out of, an image with a handler, an entity, quotes. */
const mark = (n: number) => `<script>alert(${n})</script>"><img src=x onerror=alert(${n})>&amp; 'q' end ${n}`;
/** The same without whitespace, for the fields that allow none (operator ids, sources, parents' ids). */
const markWord = (n: number) => `<script>alert(${n})</script>"><img/src=x/onerror=alert(${n})>&amp;'q'`;
/** How a field's markup reads in the page once escaped: its script, as text. */
const escaped = (n: number) => `&lt;script&gt;alert(${n})&lt;/script&gt;&quot;&gt;&lt;img`;
const pad = (s: string, min: number) =>
  s.length >= min ? s : `${s} ${'and some words to reach the length the field asks for '.repeat(3)}`.slice(0, Math.max(min, s.length + 1));

/** The tags of a page (a value in an attribute never holds a quote or a `>`: they are escaped). */
const tags = (page: string) =>
  [...page.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"]|"[^"]*")*)>/g)].map((m) => ({ name: m[1]!.toLowerCase(), attrs: m[2]! }));

t.test('markup in every text field is shown escaped on every page', async (t) => {
  const s = await startService(t);
  const ok = (r: Reply, what: string): Reply => {
    if (r.status !== 201 && r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text}`);
    return r;
  };
  const fields = new Map<number, string>();
  let n = 0;
  const field = (what: string, word = false) => {
    fields.set(++n, what);
    return word ? markWord(n) : mark(n);
  };

  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: field('operator id', true), models: [field('agent model')] });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const sam = await withSteward(s);
  ok(await send(s, alice, 'key.delegate', { key: generateKeyPair().publicKey, scope: 'reports', label: field('check key label') }), 'key');
  const paper = ok(
    await send(
      s,
      alice,
      'paper',
      make.paper(2, {
        title: field('paper title'),
        abstract: pad(field('paper abstract'), 50),
        methods: field('paper methods'),
        models: [field('paper model')],
        artefacts: [`https://example.org/${field('artefact', true)}`],
        builds_on: [{ id: `doi:10.1234/${field("parent's id", true)}`, rel: 'background', note: pad(field("parent's note"), 20) }],
        claims: [
          { text: field('claim text'), confidence: 0.7, test: field('claim test') },
          { text: 'A second claim, challenged and withdrawn', confidence: 0.6, test: 'A result that would refute it' },
        ],
      }),
    ),
    'paper',
  );
  const [claim, second] = paper.body.claims as [string, string];
  ok(await send(s, alice, 'claim.amend', { claim: second, test: field('amended test') }), 'amend');
  ok(
    await send(s, bob, 'claim.external', {
      source: `doi:10.1234/${field('external source', true)}`,
      quote: field('external quote'),
      test: field('external test'),
    }),
    'external',
  );
  await replicate(t, s, house, claim, 'confirmed');
  ok(
    await send(
      s,
      bob,
      'check.commit',
      make.commit(claim, { bundle: make.bundle({ repo: `https://example.org/${field('bundle repo', true)}`, run: field('bundle run') }) }),
    ),
    'commit',
  );
  ok(await send(s, bob, 'review', { claim, forecast: 0.4, rationale: pad(field('review rationale'), 30) }), 'review');
  const argument = ok(
    await send(
      s,
      bob,
      'argument.file',
      make.argument(claim, { text: pad(field('argument text'), 80), instance: { text: field('argument instance') } }),
    ),
    'argument',
  ).body.id as string;
  ok(
    await send(s, house, 'argument.check', { argument, holds: true, note: pad(field('check note'), 20), models: [field('check model')] }),
    'check',
  );
  ok(await send(s, alice, 'argument.answer', { argument, text: pad(field('answer text'), 20) }), 'answer');
  const challenge = ok(await send(s, bob, 'challenge.propose', { claim, brief: pad(field('challenge brief'), 30) }), 'challenge').body
    .id as string;
  const withdrawn = ok(
    await send(s, house, 'challenge.propose', { claim: second, brief: pad('Re-run it with another seed, please.', 30) }),
    'challenge',
  ).body.id as string;
  ok(await send(s, house, 'challenge.withdraw', { challenge: withdrawn, reason: pad(field('withdrawal reason'), 10) }), 'withdraw');
  ok(await send(s, sam, 'item.flag', { subject: paper.body.id, reason: pad(field("paper flag's reason"), 10) }), 'flag');
  ok(
    await send(s, sam, 'item.flag', { subject: `ch:${challenge.replace(/^ch:/, '')}`, reason: pad(field("challenge flag's reason"), 10) }),
    'flag',
  );
  ok(await send(s, sam, 'item.flag', { subject: argument, reason: pad(field("argument flag's reason"), 10) }), 'flag');
  const articles = (await s.get('/v1/constitution')).body.articles.map((a: { id: string; text: string }) =>
    a.id === 'V' ? { ...a, text: `${a.text}\n8. ${field('article text')}` } : a,
  );
  const proposal = ok(
    await send(s, bob, 'governance.propose', {
      title: pad(field('proposal title'), 10),
      rationale: pad(field('proposal rationale'), 30),
      articles,
    }),
    'proposal',
  ).body.id as string;

  const state = s.record.state;
  const pages = [
    '/',
    '/explore',
    '/explore/log?from=0&limit=200',
    '/explore/papers',
    `/explore/papers?agent=alice`,
    `/explore/papers/${paper.body.id}`,
    '/explore/agents',
    '/explore/operators',
    '/explore/challenges?all=1',
    `/explore/challenges/${challenge}`,
    `/explore/challenges/${withdrawn}`,
    `/explore/arguments/${argument}`,
    '/explore/governance',
    `/explore/proposals/${proposal}`,
    '/explore/constitution',
    '/explore/search?q=alert',
    '/explore/search?q=script%20end',
    ...[...state.claims.keys()].map((ref) => `/explore/claims/${encodeURIComponent(ref)}`),
    ...[...state.receipts.keys()].map((id) => `/explore/receipts/${id}`),
    ...[...state.agents.keys()].map((h) => `/explore/agents/${encodeURIComponent(h)}`),
    ...[...state.operators.keys()].map((id) => `/explore/operators/${encodeURIComponent(id)}`),
    // Error pages name what was asked for.
    `/explore/claims/${encodeURIComponent(markWord(0))}`,
    `/explore/nothing/${encodeURIComponent(markWord(0))}`,
  ];
  const seen = new Map<number, string[]>();
  for (const path of pages) {
    const res = await fetch(`${s.url}${path}`, { headers: { accept: 'text/html' } });
    const page = await res.text();
    t.match(res.headers.get('content-type') ?? '', /^text\/html/, `${path} is a page (${res.status})`);
    const found = tags(page);
    const scripts = found.filter((x) => x.name === 'script');
    t.equal(scripts.length, path.startsWith('/explore/log') ? 1 : 0, `${path}: no script but the page's own`);
    t.same(
      found.filter((x) => x.name === 'img'),
      [],
      `${path}: no image`,
    );
    t.same(
      found.filter((x) => /(^|\s)on[a-z]+\s*=/i.test(x.attrs)).map((x) => x.name),
      [],
      `${path}: no handler attribute`,
    );
    t.notMatch(page, /<script>alert|<img|&amp;lt;|&amp;quot;/, `${path}: markup never unescaped, never escaped twice`);
    if (path.startsWith('/explore/claims/%3Cscript'))
      t.match(page, '&lt;script&gt;alert(0)', `${path}: the error names what was asked for, escaped`);
    for (const k of fields.keys()) if (page.includes(escaped(k))) seen.set(k, [...(seen.get(k) ?? []), path]);
  }
  for (const [k, what] of fields) t.ok(seen.has(k), `the ${what} (${k}) is shown, escaped, on ${seen.get(k)?.join(', ') ?? 'no page'}`);
});
