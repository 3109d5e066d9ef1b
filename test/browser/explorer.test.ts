// The explorer end to end in headless Chromium (Debian's `chromium`, installed by
// scripts/chromium.sh when missing, driven by playwright-core), one browser for every page:
// each page kind at 1280 and 390 px wide, screenshots written to a temp dir
// (archive-explorer-shots, to look at), no horizontal scroll and no console error on any page;
// pagination clicked through; the search box used and its results paged through; a walk from a
// paper to its agent and its operator by clicking; the signed head's signature and an entry's
// inclusion proof checked in the browser, and an altered head and an altered proof refused.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startService } from '../helpers/service.js';
import { explorerRecord } from '../helpers/explorer-record.js';
import { send } from '../helpers/agents.js';

const executablePath = execFileSync(join(process.cwd(), 'scripts', 'chromium.sh'), { encoding: 'utf8' }).trim();
const SHOTS = join(tmpdir(), 'archive-explorer-shots');

t.test('the explorer in a real browser', async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  const { bob, carol } = r.agents;
  const challenge = (
    await send(s, bob, 'challenge.propose', { claim: r.amended, brief: 'Re-run the second table with another optimiser and report it.' })
  ).body.id as string;
  const articles = (await s.get('/v1/constitution')).body.articles.map((a: { id: string; text: string }) =>
    a.id === 'V' ? { ...a, text: `${a.text}\n8. A clause added.` } : a,
  );
  const proposal = (
    await send(s, carol, 'governance.propose', {
      title: 'A clause added to Article V',
      rationale: 'The amendment procedure was missing a clause.',
      articles,
    })
  ).body.id as string;
  const browser: Browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  t.teardown(() => browser.close());
  mkdirSync(SHOTS, { recursive: true });

  const pages: Record<string, string> = {
    landing: '/',
    claims: '/explore',
    claim: `/explore/claims/${encodeURIComponent(r.claim)}`,
    external: `/explore/claims/${encodeURIComponent(r.external)}`,
    receipt: `/explore/receipts/${r.unverifiedReceipt}`,
    argument: `/explore/arguments/${r.argument}`,
    log: '/explore/log?from=0',
    papers: '/explore/papers',
    paper: `/explore/papers/${r.paper}`,
    agent: '/explore/agents/bob',
    operator: '/explore/operators/op_archive',
    search: '/explore/search?q=variance',
    'search-empty': '/explore/search',
    challenges: '/explore/challenges?all=1',
    agents: '/explore/agents',
    operators: '/explore/operators',
    governance: '/explore/governance',
    constitution: '/explore/constitution',
    challenge: `/explore/challenges/${challenge}`,
    proposal: `/explore/proposals/${proposal}`,
    error: '/explore/claims/rec:0123456789abcdef%23C1',
  };
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(`${page.url()}: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    for (const [name, path] of Object.entries(pages)) {
      const res = await page.goto(`${s.url}${path}`);
      t.equal(res!.status(), name === 'error' ? 404 : 200, `${name} at ${width} px`);
      const [scrollWidth, innerWidth] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [
        number,
        number,
      ];
      t.ok(scrollWidth <= innerWidth, `${name} at ${width} px: no horizontal scroll (${scrollWidth} <= ${innerWidth})`);
      await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    // The error page's own 404 is the one error a console may show.
    t.same(
      errors.filter((e) => !e.includes('rec:0123456789abcdef')),
      [],
      `no console errors at ${width} px`,
    );
    await context.close();
  }

  const page: Page = await browser.newPage();
  // The landing page: live counts, the signed head, links to the pages.
  await page.goto(`${s.url}/`);
  t.match(await page.textContent('#counts'), /claims\s*4/);
  t.match(await page.textContent('#sth'), new RegExp(`Size ${s.d.log.size}`));

  // Claims: credence, status, a sparkline; text escaped, never markup; clicked through a page at a time.
  await page.click('a[href="/explore"]');
  t.match(await page.textContent('#claims'), /Smaller steps <halve> the variance/, 'shown as text');
  await page.goto(`${s.url}/explore?limit=2`);
  const seen: string[] = [];
  for (;;) {
    seen.push(...(await page.locator('#claims td.full small code').allTextContents()));
    if ((await page.locator('#claim-pages a.older').count()) === 0) break;
    await page.click('#claim-pages a.older');
  }
  t.same(seen, [...r.claims].reverse(), 'every claim once, newest first, over three pages');
  await page.click('#claim-pages a.newest');
  t.same(await page.locator('#claims td.full small code').allTextContents(), [...r.claims].reverse().slice(0, 2), 'and back to the newest');

  // A claim's page: the chart has a dot per entry that moved it; a list clicked through.
  await page.goto(`${s.url}/explore/claims/${encodeURIComponent(r.claim)}`);
  t.equal(await page.locator('svg.chart').getAttribute('data-points'), '4', 'a point per entry that moved it');
  t.equal(await page.locator('svg.chart circle').count(), 4);
  t.match(await page.textContent('#numbers'), /credence 0\.8\d{3}/);
  t.match(await page.textContent('#reviews-list'), /The effect looks too large for the sample size used\./);
  await page.goto(`${s.url}/explore/claims/${encodeURIComponent(r.claim)}?limit=1`);
  await page.click('#receipts-pages a.older');
  t.equal(await page.locator('#receipts-list > li').count(), 1);
  t.match(await page.textContent('#receipts-list'), /confirmed/, 'the older receipt, on the next page');
  await page.click(`#receipts-list a[href="/explore/receipts/${r.verifiedReceipt}"]`);
  t.equal(await page.textContent('#outcome'), 'confirmed');
  await page.click(`#receipt-about a.claim[title="${r.claim}"]`);
  await page.waitForURL(`**/explore/claims/${encodeURIComponent(r.claim)}`);
  t.equal(await page.textContent('h1'), 'Smaller steps <halve> the variance', 'back on the claim, titled by its statement');
  await page.click(`a[href="/explore/arguments/${r.argument}"]`);
  t.match(await page.textContent('#checks-list'), /The skipped case is covered by the second table\./);

  // The search box of the header used, and its results paged through by clicking.
  await page.fill('header input[name=q]', 'holds');
  await page.press('header input[name=q]', 'Enter');
  await page.waitForURL('**/explore/search?q=holds');
  const found = await page.locator('#results > li > a').allTextContents();
  t.ok(found.length >= 3, `results found: ${found.join(' | ')}`);
  t.equal(await page.locator('#results mark').first().textContent(), 'holds', 'the word marked');
  await page.goto(`${s.url}/explore/search?q=holds&limit=1`);
  const clicked: string[] = [];
  for (;;) {
    clicked.push(...(await page.locator('#results > li > a').allTextContents()));
    if ((await page.locator('#result-pages a.older').count()) === 0) break;
    await page.click('#result-pages a.older');
  }
  t.same(clicked, found, 'the same results a page at a time, in the same order');
  await page.selectOption('#search-form select[name=kind]', 'agent');
  await page.fill('#search-form input[name=q]', 'carol');
  await page.click('#search-form button');
  t.same(await page.locator('#results > li > a').allTextContents(), ['carol'], 'the form: an agent found by its handle');

  // A paper, its agent, its operator: a walk by clicking.
  await page.click('header a[href="/explore/papers"]');
  await page.click(`#papers-list a[href="/explore/papers/${r.paper}"]`);
  t.match(await page.textContent('h1'), 'Step size and the <variance> of the end point');
  await page.click('#byline a[href="/explore/agents/alice"]');
  t.equal(await page.textContent('h1'), 'Agent alice');
  await page.click('#who a[href="/explore/operators/lab-a"]');
  t.equal(await page.textContent('h1'), 'Operator lab-a');
  t.same(await page.locator('#agents-list > li a code').allTextContents(), ['alice']);

  // The log: clicked through a page at a time.
  await page.goto(`${s.url}/explore/log?from=0&limit=10`);
  let pagesOfLog = 1;
  while ((await page.locator('#log-pages a.later').count()) > 0) {
    await page.click('#log-pages a.later');
    pagesOfLog++;
  }
  t.equal(pagesOfLog, Math.ceil(s.d.log.size / 10), 'every page of the log');

  // The head's signature and an entry's inclusion proof, checked in the browser.
  await page.goto(`${s.url}/explore/log?from=0`);
  await page.click('#check-head');
  await page.waitForSelector('#head .result.ok');
  t.match(await page.textContent('#head .result'), new RegExp(`the head of size ${s.d.log.size} .* is signed by the log key`));
  await page.click('#entry-3 button.check');
  await page.waitForSelector('#entry-3 .result.ok');
  t.match(
    await page.textContent('#entry-3 .result'),
    new RegExp(`included in the signed head of size ${s.d.log.size} .*its signature verified with the log key`),
  );
  // A head altered (its timestamp) is refused: its signature does not verify.
  await page.route('**/v1/log/sth', async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    body.timestamp = body.timestamp.replace(/\d(?=Z$)/, (c: string) => String((Number(c) + 1) % 10));
    await route.fulfill({ response: res, json: body });
  });
  await page.click('#check-head');
  await page.waitForSelector('#head .result.bad');
  t.match(await page.textContent('#head .result'), /FAILED: the signature of the head of size \d+ does not verify with the log key/);
  await page.click('#entry-4 button.check');
  await page.waitForSelector('#entry-4 .result.bad');
  t.match(await page.textContent('#entry-4 .result'), /FAILED: the signature of the head/, 'and no entry is checked against it');
  await page.unroute('**/v1/log/sth');
  // An altered proof is refused.
  await page.route('**/v1/log/inclusion*', async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    body.proof[0] = body.proof[0].replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    await route.fulfill({ response: res, json: body });
  });
  await page.click('#entry-5 button.check');
  await page.waitForSelector('#entry-5 .result.bad');
  t.match(await page.textContent('#entry-5 .result'), /FAILED: the proof leads to/);
});
