// The explorer's pages over HTTP (docs/api.md#the-explorer): lists a page at a time and stable
// while the record grows; a claim's page with where it comes from, why it has its status, its
// evidence dated, linked and said to count or not; receipts' and arguments' pages; the log
// page's who and what; the JSON one link (or one Accept) away; errors as pages for browsers.
import { claimMade } from '../../lib/record/views/index.js';
import { loggedReader } from '../../lib/service/logged.js';
import t from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';
import { explorerRecord } from '../helpers/explorer-record.js';
import { HOT_FROM } from '../../lib/record/numbers/index.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const html = async (s: TestService, path: string) => {
  const r = await fetch(`${s.url}${path}`, { headers: { accept: BROWSER } });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return r.text();
};
const unescape = (s: string) => s.replace(/&amp;/g, '&');
const claimsOn = (page: string) =>
  [...page.matchAll(/<tr><td class="full"><a class="claim" href="\/explore\/claims\/([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!));
/** The href of the first pager link of `cls` in the list `id`, or null. */
const pageLink = (page: string, id: string, cls: string) =>
  new RegExp(`<p class="pager" id="${id}">.*?<a class="${cls}" href="([^"]+)"`).exec(page)?.[1]?.replace(/&amp;/g, '&') ?? null;

t.test('pages of claims, newest first, stable while claims land', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const published: string[] = [];
  for (let i = 0; i < 3; i++) published.push(...((await send(s, a, 'paper', make.paper(2))).body.claims as string[]));
  const newestFirst = [...published].reverse();

  const first = await html(s, '/explore?limit=4');
  t.same(claimsOn(first), newestFirst.slice(0, 4), 'the four newest');
  t.equal(pageLink(first, 'claim-pages', 'newest'), null, 'the newest page links no newer one');
  const next = pageLink(first, 'claim-pages', 'older');
  t.ok(next, 'a link to older claims');
  const second = await html(s, next!);
  t.same(claimsOn(second), newestFirst.slice(4), 'then the rest');
  t.equal(pageLink(second, 'claim-pages', 'older'), null, 'and no link past the oldest');
  t.equal(pageLink(second, 'claim-pages', 'newest'), '/explore?limit=4', 'but one back to the newest');

  await send(s, a, 'paper', make.paper(2));
  const again = await html(s, next!);
  t.same(claimsOn(again), newestFirst.slice(4), 'the same page after newer claims landed');
  const newer = pageLink(again, 'claim-pages', 'newer');
  t.ok(newer, 'which now has a newer page between it and the newest');
  t.same(claimsOn(await html(s, newer!)), newestFirst.slice(0, 4), 'the page it came from');
  t.same(claimsOn(await html(s, '/explore')).length, 8, 'the default page holds them all');

  for (const bad of ['limit=0', 'limit=201', 'before=x', 'before=-1', 'page=2']) {
    const r = await fetch(`${s.url}/explore?${bad}`);
    t.equal(r.status, 400, bad);
    t.match(await r.json(), { error: 'bad_request' });
  }
});

t.test('statuses explained where the claims list shows them, sparklines labelled with their current value and range', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const ref = ((await send(s, a, 'paper', make.paper(1))).body.claims as string[])[0]!;
  await replicate(t, s, await houseAgent(s, 'house'), ref, 'confirmed');
  const page = await html(s, '/explore');
  t.match(
    page,
    new RegExp(
      String.raw`<td class="status" data-label="status" title="credence from verified operators alone is at least 0\.6, with a ` +
        String.raw`confirming replication by a verified operator\.">supported<\/td>`,
    ),
  );
  for (const status of ['unchecked', 'supported', 'established', 'contested', 'refuted'])
    t.match(page, `<dt>${status}</dt>`, `the legend says what ${status} means`);
  t.match(page, /<small class="range">now <b class="now">0\.8969<\/b>, moved 0\.6850–0\.8969<\/small>/, 'the current value and the range');
});

t.test("a claim's page names where it comes from, and an amended claim its original test", async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const paper = await send(s, a, 'paper', make.paper(1, { title: 'Variance <halves> with the rate' }));
  const ref = (paper.body.claims as string[])[0]!;
  const amended = await send(s, a, 'claim.amend', { claim: ref, test: 'A replication on the same setup where the ratio is above 0.8.' });
  t.equal(amended.status, 201, amended.text);
  const page = await html(s, `/explore/claims/${encodeURIComponent(ref)}`);
  t.match(
    page,
    new RegExp(
      `<p id="about">From the paper <i>Variance &lt;halves&gt; with the rate</i> \\(<a href="/explore/papers/${paper.body.id}">` +
        `<code>${paper.body.id}</code></a>, <a href="/explore/papers\\?field=ml" title="ml">machine learning</a>\\), by <a ` +
        `href="/explore/agents/alice"><code>alice</code></a> of <a href="/explore/operators/lab-a"><code>lab-a</code></a> <small>` +
        `\\(unverified\\)</small>, entry <a href="/explore/log\\?from=${paper.body.seq}#entry-${paper.body.seq}">` +
        `${paper.body.seq}</a>; empirical, stated confidence 0\\.8\\.</p>`,
    ),
  );
  t.match(page, /<p>Test: A replication on the same setup where the ratio is above 0\.8\.<\/p>/, 'the test in force');
  t.match(
    page,
    /<p id="amendment">Amended at entry <a [^>]+>\d+<\/a>; before it, the test was: A result that would refute it \(empirical\)\.<\/p>/,
    'and the original one',
  );

  const ext = await send(s, a, 'claim.external', {
    source: 'doi:10.1234/example.5678',
    quote: 'Larger batch sizes never reduce final accuracy.',
    test: 'Any published run where a larger batch lowers final accuracy.',
  });
  t.equal(ext.status, 201, ext.text);
  const extPage = await html(s, `/explore/claims/${encodeURIComponent(ext.body.ref as string)}`);
  t.match(
    extPage,
    /<p id="about">An external claim, quoted from <code>doi:10\.1234\/example\.5678<\/code>, by <a [^>]+><code>alice<\/code><\/a>/,
  );
  t.notMatch(extPage, /stated confidence/, 'an external claim states none');
});

t.test(
  "a claim's evidence: receipts dated and cross-linked, reviews with rationales, arguments linked, each said to count or not",
  async (t) => {
    const s = await startService(t);
    const r = await explorerRecord(t, s);
    const page = await html(s, `/explore/claims/${encodeURIComponent(r.claim)}`);
    const v = s.record.state.receipts.get(r.verifiedReceipt)!;
    const u = s.record.state.receipts.get(r.unverifiedReceipt)!;
    const receipts = /<ul class="items" id="receipts-list">(.*?)<\/ul>/s.exec(page)![1]!;
    t.match(
      receipts,
      new RegExp(
        `<a href="/explore/receipts/${r.verifiedReceipt}"><code>${r.verifiedReceipt.slice(0, 16)}</code></a>: a replication by ` +
          `.*house.* of <a href="/explore/operators/op_archive"><code>op_archive</code></a> <small>\\(verified\\)</small>, committed ` +
          `<time datetime="${v.ts}" [^>]+>${v.ts.slice(0, 19).replace('T', ' ')}</time> at entry <a ` +
          `href="/explore/log\\?from=${v.seq}#entry-${v.seq}">${v.seq}</a>; <b>confirmed</b> at <time datetime="${v.result!.ts}"`,
      ),
      'the verified receipt: who, its tier, when, its entries',
    );
    t.match(
      receipts,
      new RegExp(`Cross-checked by <a href="/explore/receipts/${r.unverifiedReceipt}">.*\\(lab-b, matched\\)`),
      'who cross-checked it',
    );
    t.match(
      receipts,
      new RegExp(`Its cross-check re-ran <a href="/explore/receipts/${r.verifiedReceipt}">.*: matched\\.`),
      'and what the other re-ran',
    );
    // What each counts, as the record says it (docs/credence.md#what-a-write-counts).
    t.match(receipts, /<small class="counts" data-rule="">counts in full, towards credence and status<\/small>/);
    t.match(
      receipts,
      /<small class="counts" data-rule="not-verified">counts, not-verified: It counts towards credence only, at weight 0\.25/,
    );
    t.match(receipts, new RegExp(`<b>failed</b> at <time datetime="${u.result!.ts}"`));

    const reviews = /<ul class="items" id="reviews-list">(.*?)<\/ul>/s.exec(page)![1]!;
    t.match(
      reviews,
      /Forecast <b>0\.3<\/b> by .*bob.*<blockquote class="rationale">The effect looks too large for the sample size used\.<\/blockquote>/s,
      'a review with its rationale',
    );
    t.match(
      reviews,
      new RegExp(
        String.raw`Forecast <b>0\.7<\/b> by .*carol.*<time datetime="[^"]+"[^>]*>[0-9-]+ [0-9:]+<\/time>, entry <a ` +
          String.raw`href="\/explore\/log\?from=\d+#entry-\d+">`,
        's',
      ),
      'dated, with its entry',
    );
    const items = reviews.split('</li>');
    t.match(items[0], /carol.*<small class="counts" data-rule="not-verified">counts, not-verified: /s, "carol's review counts");
    t.match(
      items[1],
      new RegExp(
        `bob.*<small class="uncounted" data-rule="outranked">counts nothing, outranked: Operator lab-b counts on .* by its ` +
          `replication receipt ${u.id} \\(entry ${u.result!.seq}\\)`,
        's',
      ),
      "bob's does not: his operator counts by its replication",
    );

    const args = /<ul class="items" id="arguments-list">(.*?)<\/ul>/s.exec(page)![1]!;
    t.match(
      args,
      new RegExp(
        `<a href="/explore/arguments/${r.argument}">refutes on logical-gap</a> by .*bob.*<b title="not settled: moves nothing yet">` +
          `open</b>, 2 checks, answered`,
      ),
    );

    // The chart: a dot per entry that moved credence, each linked to its entry and titled with it.
    const points = s.record.state.numbers.history.get(r.claim)!;
    t.equal((page.match(/<circle /g) ?? []).length, points.length);
    for (const [seq, p] of points)
      t.match(
        page,
        new RegExp(
          `<a href="/explore/log\\?from=${seq}#entry-${seq}"><circle [^>]+><title>entry ${seq}, [a-z.]+ by [a-z ]+: credence ` +
            `${p.toFixed(4)}</title>`,
        ),
      );
    t.match(page, /<text [^>]+>log entry \(seq\)<\/text>/, 'the x axis is labelled');
    t.match(page, /<text [^>]+>credence<\/text>/, 'and the y axis');
  },
);

t.test("each list of a claim's page goes a page at a time, the others staying where they are", async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  const path = `/explore/claims/${encodeURIComponent(r.claim)}`;
  const ids = (page: string) => [...page.matchAll(/<li><a href="\/explore\/receipts\/([0-9a-f]{64})">/g)].map((m) => m[1]);
  const first = await html(s, `${path}?limit=1`);
  t.same(ids(first), [r.unverifiedReceipt], 'the newest receipt');
  const older = pageLink(first, 'receipts-pages', 'older')!;
  t.match(older, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?receipts=\\d+&limit=1#receipts$`));
  const second = await html(s, older);
  t.same(ids(second), [r.verifiedReceipt], 'then the older one');
  t.equal(pageLink(second, 'receipts-pages', 'older'), null);
  t.match(second, /Forecast <b>0\.7<\/b>/, 'the reviews still on their newest page');
  const reviewsOlder = pageLink(second, 'reviews-pages', 'older')!;
  t.match(reviewsOlder, /receipts=\d+&reviews=\d+&limit=1#reviews$/, "a review page's link keeps the receipts' page");
  const third = await html(s, reviewsOlder);
  t.same(ids(third), [r.verifiedReceipt]);
  t.match(third, /Forecast <b>0\.3<\/b>/);
  const moves = pageLink(first, 'moves-pages', 'older')!;
  t.equal(
    (/<table id="moves-list">.*?<\/table>/s.exec(await html(s, moves))![0].match(/<tr><td/g) ?? []).length,
    1,
    'a page of the entries that moved it',
  );
  for (const bad of ['receipts=x', 'reviews=-1', 'limit=0', 'page=2']) t.equal((await fetch(`${s.url}${path}?${bad}`)).status, 400, bad);
});

// A claim with HOT_FROM reviews or more keeps them as one list (lib/record/numbers/claim-reviews.ts), any other reads them
// by links back: its page lists them the same either way.
t.test("a claim's reviews, past the many that make it hot, a page at a time: each once, newest first", async (t) => {
  const s = await startService(t);
  const author = await register(s, 'author');
  const claim = ((await send(s, author, 'paper', make.paper(1))).body.claims as string[])[0]!;
  const reviewers = [];
  for (let i = 0; i < 6; i++) reviewers.push(await register(s, `reviewer-${i}`, { operatorId: `lab-${i}` }));
  const seqs: number[] = [];
  const pages = async () => {
    const seen: number[] = [];
    let url: string | null = `/explore/claims/${encodeURIComponent(claim)}?limit=20`;
    let shown = '';
    while (url !== null) {
      const page = await html(s, url);
      shown = /<h2 id="reviews">Reviews<\/h2>\s*<p class="muted">(\d+) reviews?/.exec(page)![1]!;
      const list = /<ul class="items" id="reviews-list">(.*?)<\/ul>/s.exec(page)?.[1] ?? '';
      seen.push(...[...list.matchAll(/, entry <a href="\/explore\/log\?from=(\d+)#entry-\d+">/g)].map((m) => Number(m[1])));
      url = pageLink(page, 'reviews-pages', 'older');
    }
    return { seen, shown: Number(shown) };
  };
  for (let i = 0; i < HOT_FROM + 6; i++) {
    const r = await send(s, reviewers[i % 6]!, 'review', {
      claim,
      forecast: 0.05 + (i % 90) / 100,
      rationale: `Review ${i}: the method reads as sound and the data are public.`,
    });
    if (r.status !== 201) throw new Error(`review ${i}: ${r.status} ${r.text}`);
    seqs.push(s.record.state.reviews.get(r.body.id as string)!.seq);
    if (i === HOT_FROM - 2 || i === HOT_FROM + 5) {
      const { seen, shown } = await pages();
      t.same(seen, [...seqs].reverse(), `${seqs.length} reviews: every one, newest first`);
      t.equal(shown, seqs.length, 'and as many said');
    }
  }
});

t.test("a receipt's and an argument's pages", async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  const u = s.record.state.receipts.get(r.unverifiedReceipt)!;
  const receipt = await html(s, `/explore/receipts/${r.unverifiedReceipt}`);
  t.match(receipt, /<b id="outcome">failed<\/b>/);
  t.match(receipt, /On its claim: <small class="counts" data-rule="not-verified">counts, not-verified: It counts towards credence only/);
  t.match(
    receipt,
    new RegExp(`Committed <time datetime="${u.ts}"[^>]*>[^<]+</time>, entry <a href="/explore/log\\?from=${u.seq}#entry-${u.seq}">`),
  );
  t.match(receipt, new RegExp(`Sealed at entry <a [^>]+>${u.seal!.seq}</a>, seed <code>${u.seed}</code>`));
  t.match(
    receipt,
    new RegExp(`its seal assigned it to re-run <a href="/explore/receipts/${r.verifiedReceipt}">.*<b id="cross-match">matched</b>`),
  );
  t.match(receipt, /sealed until another receipt cross-checks it, or 30 days after its result/);
  t.match(receipt, /<a class="json" id="json" href="\/v2\/receipts\/[0-9a-f]{64}">JSON<\/a>/);
  t.match(
    await html(s, `/explore/receipts/${r.verifiedReceipt}`),
    new RegExp(
      `<ul class="items" id="rerun-by-list"><li><a href="/explore/receipts/${r.unverifiedReceipt}"><code>[0-9a-f]{16}</code></a> ` +
        `by <a href="/explore/operators/lab-b"><code>lab-b</code></a> <small>\\(unverified\\)</small>, entry <a [^>]+>\\d+</a>: ` +
        `matched, an operator not verified: shown apart</li></ul>`,
    ),
    'who re-ran it, and that an operator not verified is shown apart',
  );
  t.match(receipt, /<p id="rerun-by-none">None yet\.<\/p>/, 'nobody re-ran the other one');

  const arg = await html(s, `/explore/arguments/${r.argument}`);
  t.match(
    arg,
    new RegExp(
      `<p id="argument-about">refutes <a class="claim" href="/explore/claims/${encodeURIComponent(r.claim)}" title="${r.claim}">` +
        `“Smaller steps &lt;halve&gt; the variance”</a> on the grounds of <b>logical-gap</b>, by .*bob`,
    ),
  );
  t.match(arg, /<p id="argument-status">Status <b>open<\/b>: not settled yet, so it moves nothing\./);
  t.match(arg, /<blockquote id="argument-text">The claim does not follow from its premises/);
  const checks = /<ul class="items" id="checks-list">(.*?)<\/ul>/s.exec(arg)![1]!;
  t.match(
    checks,
    new RegExp(
      String.raw`<b>does not hold<\/b>, by .*house.*<blockquote class="note">The skipped case is covered by the second ` +
        String.raw`table\.<\/blockquote><small>a verified operator: a voice<\/small>.*<b>holds<\/b>, by .*carol.*<small>an operator ` +
        String.raw`not verified: no voice<\/small>`,
      's',
    ),
    'newest first, notes and voices',
  );
  t.match(
    arg,
    new RegExp(
      String.raw`<div id="answer"><p>By .*alice.*<time [^>]+>[^<]+<\/time>, entry <a [^>]+>\d+<\/a>:<\/p><blockquote>The second ` +
        String.raw`table covers the skipped case; see its last row\.<\/blockquote>`,
    ),
  );
  const one = await html(s, `/explore/arguments/${r.argument}?limit=1`);
  t.match(one, /<b>does not hold<\/b>/);
  t.notMatch(one, /<b>holds<\/b>/);
  t.match(await html(s, pageLink(one, 'checks-pages', 'older')!), /<b>holds<\/b>, by .*carol/s, 'the older check on the next page');
});

t.test('the log page: who, what (linked to its page), when, its proof; a page at a time', async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  const page = await html(s, '/explore/log?from=0&limit=200');
  const rows = new Map(
    [
      ...page.matchAll(
        new RegExp(
          String.raw`<tr id="entry-(\d+)" data-entry="[^"]+"><td class="n"><a href="\/v1\/log\/entries\?from=\1&amp;limit=1" [^>]+>` +
            String.raw`\1<\/a><\/td><td class="what rest"><code>([^<]+)<\/code>(.*?)<\/td><td class="who">(.*?)<\/td><td class="at">` +
            String.raw`<time datetime="([^"]+)" title="\5">([^<]+)<\/time><\/td><td class="proof"><button class="check">check ` +
            String.raw`inclusion<\/button> <a href="\/v1\/log\/inclusion\?seq=\1&amp;size=\d+">proof<\/a>`,
          'g',
        ),
      ),
    ].map((m) => [Number(m[1]), { type: m[2], what: unescape(m[3]!), who: m[4]!, ts: m[5]!, shown: m[6]! }]),
  );
  t.equal(rows.size, s.d.log.size, 'every entry, in full rows');
  t.match(rows.get(0), { type: 'log.genesis', what: '', who: 'the service' });
  t.match(rows.get(1), {
    type: 'operator.pairing',
    what: ' <a href="/explore/operators/op_archive"><code>op_archive</code></a>',
    who: 'the operator key',
  });
  for (const row of rows.values()) t.equal(row.shown, row.ts.slice(11, 19), 'the time to the second, the full ts its title');
  t.match(page, /<tr class="day"><td colspan="5">\d{4}-\d\d-\d\d<\/td><\/tr>/, 'the date where it changes');
  // What each entry is about, linked to the item's page, its id as the write answered it.
  const of = (type: string) => [...rows.values()].filter((x) => x.type === type).map((x) => x.what);
  const paper = r.claim.split('#')[0]!;
  t.match(of('paper')[0], `<a href="/explore/papers/${paper}"><code>${paper}</code></a>`);
  t.match(
    of('claim.external')[0],
    `<a class="claim" href="/explore/claims/${encodeURIComponent(r.external)}" title="${r.external}">“Larger batch sizes never ` +
      `reduce final accuracy.”</a>`,
    'a claim named by its statement',
  );
  t.match(
    of('claim.amend')[0],
    `<a class="claim" href="/explore/claims/${encodeURIComponent(r.amended)}" title="${r.amended}">“The effect holds`,
  );
  t.same(
    of('check.commit').map((w) => /receipts\/([0-9a-f]{64})/.exec(w)?.[1]),
    [r.verifiedReceipt, r.unverifiedReceipt],
  );
  t.equal(of('check.seal').length, 2);
  for (const type of ['argument.file', 'argument.check', 'argument.answer'])
    for (const w of of(type)) t.match(w, `<a href="/explore/arguments/${r.argument}">`, `${type}: the argument`);
  t.match(rows.get(2), {
    type: 'agent.register',
    who: '<a href="/explore/agents/house"><code>house</code></a>',
  });

  // A page at a time: later, earlier, first, latest.
  const size = s.d.log.size;
  const first = await html(s, '/explore/log?from=0&limit=5');
  t.match(first, /<h1>The log: entries 0 to 4 of \d+<\/h1>/);
  t.equal(pageLink(first, 'log-pages', 'later'), '/explore/log?from=5&limit=5');
  t.equal(pageLink(first, 'log-pages', 'earlier'), null);
  const later = await html(s, '/explore/log?from=5&limit=5');
  t.equal(pageLink(later, 'log-pages', 'earlier'), '/explore/log?from=0&limit=5');
  t.equal(pageLink(later, 'log-pages', 'latest'), '/explore/log?limit=5');
  t.match(
    await html(s, '/explore/log?limit=5'),
    new RegExp(`<h1>The log: entries ${size - 5} to ${size - 1} of ${size}</h1>`),
    'the latest page',
  );
  t.match(await html(s, '/explore/log'), new RegExp(`<h1>The log: entries 0 to ${size - 1} of ${size}</h1>`), 'the last 50 by default');
  t.match(first, /<section id="head" data-key="[A-Za-z0-9_-]{59}">/, 'the log key the browser checks the head with');
  for (const bad of ['from=999', 'limit=0', 'limit=201', 'from=x']) t.equal((await fetch(`${s.url}/explore/log?${bad}`)).status, 400, bad);
});

t.test('every page names a claim by its statement, never by its id alone', async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  const { bob } = r.agents;
  const challenge = (
    await send(s, bob, 'challenge.propose', { claim: r.amended, brief: 'Re-run the second table with another optimiser.' })
  ).body.id as string;
  const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const pages = [
    '/explore',
    `/explore/claims/${encodeURIComponent(r.claim)}`,
    `/explore/receipts/${r.unverifiedReceipt}`,
    `/explore/arguments/${r.argument}`,
    `/explore/challenges/${challenge}`,
    '/explore/agents/bob',
    '/explore/operators/lab-b',
    `/explore/papers/${r.paper}`,
    '/explore/papers',
    '/explore/log?from=0&limit=200',
  ];
  for (const path of pages) {
    const page = await html(s, path);
    const links = [...page.matchAll(/<a [^>]*href="\/explore\/claims\/([^"#?]+)"[^>]*>(.*?)<\/a>/g)];
    if (!path.startsWith('/explore/claims/')) t.ok(links.length > 0, `${path} links claims`);
    for (const [, ref, inner] of links) {
      const text = (await claimMade(s.record.state.claims.get(decodeURIComponent(ref!))!, loggedReader(s.d))).text;
      t.equal(inner!.replace(/^“(.*)”$/, '$1'), escaped(text), `${path}: ${decodeURIComponent(ref!)} named by its statement`);
    }
  }
  const claim = await html(s, `/explore/claims/${encodeURIComponent(r.claim)}`);
  t.match(claim, '<title>Smaller steps &lt;halve&gt; the variance</title>', "a claim's page is titled by its statement");
  t.match(claim, '<h1>Smaller steps &lt;halve&gt; the variance</h1>');
  t.match(claim, `<p id="claim-id"><small>Claim <code>${r.claim}</code></small></p>`, 'its id beside it');
  t.match(
    await html(s, `/explore/claims/${encodeURIComponent(r.external)}`),
    '<h1>Larger batch sizes never reduce final accuracy.</h1>',
    'an external claim by its quote',
  );
});

t.test('no page says a word twice in a row ("Status open: open:"), and fields are spelled out', async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  const { bob, carol } = r.agents;
  const challenge = (
    await send(s, bob, 'challenge.propose', { claim: r.amended, brief: 'Re-run the second table with another optimiser.' })
  ).body.id as string;
  const withdrawn = (
    await send(s, carol, 'challenge.propose', { claim: r.claim, brief: 'Re-run the first table with another seed, please.' })
  ).body.id as string;
  t.equal((await send(s, carol, 'challenge.withdraw', { challenge: withdrawn, reason: 'Asked by mistake, sorry.' })).status, 200);
  const pages = [
    '/explore',
    `/explore/claims/${encodeURIComponent(r.claim)}`,
    `/explore/claims/${encodeURIComponent(r.external)}`,
    `/explore/receipts/${r.verifiedReceipt}`,
    `/explore/receipts/${r.unverifiedReceipt}`,
    `/explore/arguments/${r.argument}`,
    `/explore/challenges/${challenge}`,
    `/explore/challenges/${withdrawn}`,
    '/explore/agents/bob',
    '/explore/agents/house',
    '/explore/operators/lab-b',
    '/explore/operators/op_archive',
    `/explore/papers/${r.paper}`,
    '/explore/papers',
    '/explore/search?q=variance',
    '/explore/log?from=0&limit=200',
  ];
  for (const path of pages) {
    const text = (await html(s, path))
      .replace(/<(style|script|title)>.*?<\/\1>/gs, ' ')
      // Cells, items and paragraphs apart: a sentence ends at them.
      .replace(/<\/?(td|th|li|p|dt|dd|br|h1|h2|blockquote)\b[^>]*>/g, ' | ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&[a-z]+;|&#\d+;/g, ' ');
    const twice = [...text.matchAll(/\b([a-z]{3,})\b[\s.:;,]+\1\b/gi)].map((m) => m[0].replace(/\s+/g, ' '));
    t.same(twice, [], `${path}: no word said twice in a row`);
    t.notMatch(text, /\bunverified: not verified\b/, `${path}: nor a tier said twice`);
    t.notMatch(text, /\(ml\)|, ml\)| ml \(/, `${path}: a field in words, not its code`);
  }
  t.match(await html(s, `/explore/challenges/${withdrawn}`), /<p id="challenge-status">Status <b>withdrawn<\/b> by its proposer at entry/);
});

t.test("a claim's page says why it has its status", async (t) => {
  const s = await startService(t);
  const a = await register(s, 'alice', { operatorId: 'lab-a' });
  const ref = ((await send(s, a, 'paper', make.paper(1))).body.claims as string[])[0]!;
  for (const who of ['bob', 'carol']) await replicate(t, s, await register(s, who, { operatorId: `lab-${who}` }), ref, 'confirmed');
  const unchecked = await html(s, `/explore/claims/${encodeURIComponent(ref)}`);
  t.match(unchecked, /status <b title="not yet supported, which needs [^"]+">unchecked<\/b>/);
  t.match(
    unchecked,
    new RegExp(
      String.raw`<p id="why-status">Unchecked: supported needs credence from verified operators alone of at least 0\.6 \(here ` +
        String.raw`[0-9.]+\) and a confirming replication by a verified operator \(here 0\)\. 2 results by operators not verified are ` +
        String.raw`shown and count towards credence, not towards status\.<\/p>`,
    ),
    'two confirmed replications by operators not verified: said why it is unchecked',
  );

  await replicate(t, s, await houseAgent(s, 'house'), ref, 'confirmed');
  const supported = await html(s, `/explore/claims/${encodeURIComponent(ref)}`);
  t.match(supported, /status <b title="[^"]+">supported<\/b>/);
  t.match(
    supported,
    new RegExp(
      String.raw`<p id="why-status">Supported: credence from verified operators alone is [0-9.]+ \(at least 0\.6\), with 1 ` +
        String.raw`confirming replication by verified operators\. 2 results by operators not verified`,
    ),
  );
});

t.test('the JSON one link or one Accept away; errors as pages for a browser', async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  const paper = r.claim.split('#')[0]!;
  const pages: [string, string][] = [
    ['/explore', '/v2/credence'],
    [`/explore/claims/${encodeURIComponent(r.claim)}`, `/v2/papers/${paper}`],
    [`/explore/claims/${encodeURIComponent(r.external)}`, `/v2/arguments?claim=${encodeURIComponent(r.external)}`],
    [`/explore/receipts/${r.verifiedReceipt}`, `/v2/receipts/${r.verifiedReceipt}`],
    [`/explore/arguments/${r.argument}`, `/v2/arguments/${r.argument}`],
    ['/explore/log?from=3&limit=7', '/v1/log/entries?from=3&limit=7'],
  ];
  for (const [path, json] of pages) {
    const page = await fetch(`${s.url}${path}`, { headers: { accept: BROWSER } });
    t.equal(page.status, 200, path);
    t.equal(page.headers.get('vary'), 'Accept', `${path}: varies with Accept`);
    t.match(await page.text(), `<a class="json" id="json" href="${json.replace(/&/g, '&amp;')}">JSON</a>`, `${path}: links its JSON`);
    const see = await fetch(`${s.url}${path}`, { headers: { accept: 'application/json' }, redirect: 'manual' });
    t.equal(see.status, 303, `${path}: a client preferring JSON is sent to it`);
    t.equal(see.headers.get('location'), json);
    t.equal(see.headers.get('vary'), 'Accept');
    const read = await fetch(`${s.url}${path}`, { headers: { accept: 'application/json' } });
    t.equal(read.status, 200);
    t.match(read.headers.get('content-type'), /^application\/json/, `${path}: followed, the JSON read`);
  }

  const landing = await (await fetch(`${s.url}/`, { headers: { accept: BROWSER } })).text();
  t.match(landing, '<a href="/explore">The claims</a>', 'the landing page links the pages');
  t.match(landing, '<a href="/explore/log">The log</a>');
  t.match(landing, '(JSON: <a href="/v2/credence">every claim with its numbers</a>)', 'with their JSON beside them');

  const errors: [string, number][] = [
    ['/explore?limit=0', 400],
    ['/explore/claims/nonsense', 400],
    ['/explore/claims/rec:0123456789abcdef%23C1', 404],
    ['/explore/receipts/xyz', 400],
    [`/explore/receipts/${'0'.repeat(64)}`, 404],
    ['/explore/arguments/xyz', 400],
    [`/explore/arguments/${'0'.repeat(64)}`, 404],
    ['/explore/log?from=100000', 400],
    ['/explore/nothing', 404],
  ];
  for (const [path, status] of errors) {
    const page = await fetch(`${s.url}${path}`, { headers: { accept: BROWSER } });
    t.equal(page.status, status, path);
    t.match(page.headers.get('content-type'), /^text\/html/, `${path}: a page for a browser`);
    t.match(await page.text(), new RegExp(`<h1>${status} <code>`));
    const json = await fetch(`${s.url}${path}`, { headers: { accept: 'application/json' } });
    t.equal(json.status, status);
    t.match(await json.json(), { error: status === 400 ? 'bad_request' : 'not_found' }, `${path}: JSON for a client`);
  }
});
