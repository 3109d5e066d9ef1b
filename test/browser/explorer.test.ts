// The explorer end to end in headless Chromium (Debian's `chromium`, installed by
// scripts/chromium.sh when missing, driven by playwright-core): the landing page, claims with
// credence and a chart of how it moved, a claim's evidence, a receipt, and the log with an
// entry's inclusion proof checked in the browser, and refused when the proof is altered.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';

const executablePath = execFileSync(join(process.cwd(), 'scripts', 'chromium.sh'), { encoding: 'utf8' }).trim();

t.test('the explorer in a real browser', async (t) => {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const paper = await send(
    s,
    alice,
    'paper',
    make.paper(1, { claims: [{ text: 'Smaller steps <halve> the variance', confidence: 0.8, test: 'A replication where it does not' }] }),
  );
  const [c1] = paper.body.claims as [string];
  const receipt = await replicate(t, s, house, c1, 'confirmed');
  await replicate(t, s, bob, c1, 'failed');
  await send(s, bob, 'review', { claim: c1, forecast: 0.3, rationale: 'The effect looks too large for the sample size used.' });

  const browser: Browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage();

  // The landing page: live counts and the signed head.
  await page.goto(`${s.url}/`);
  t.match(await page.textContent('#counts'), /claims\s*1/);
  t.match(await page.textContent('#sth'), new RegExp(`Size ${s.d.log.size}`));

  // Claims: credence, status, a chart; text escaped, never markup.
  await page.click('a[href="/explore"]');
  t.equal(await page.textContent('#claims td.credence'), '0.8475');
  t.equal(await page.textContent('#claims td.status'), 'supported');
  t.equal(await page.locator('#claims svg.chart').count(), 1, 'a chart of credence');
  t.match(await page.textContent('#claims'), /Smaller steps <halve> the variance/, 'shown as text');

  // A claim's page: the chart has a point per entry that moved it; evidence listed.
  await page.click(`a[href="/explore/claims/${encodeURIComponent(c1)}"]`);
  // The prior 0.685, the verified replication (0.8969), bob's failed one (0.8475); bob's review
  // moves nothing, his operator already counts by its replication.
  t.equal(await page.locator('svg.chart').getAttribute('data-points'), '3', 'a point per entry that moved it');
  t.match(await page.textContent('main, body'), /entry \d+: 0\.6850 · entry \d+: 0\.8969 · entry \d+: 0\.8475/);
  t.match(await page.textContent('#numbers'), /credence 0\.8\d{3}/);
  t.equal(await page.locator('#receipts li').count(), 2);
  t.match(await page.textContent('#reviews'), /lab-b: forecast 0.3/);
  await page.click(`a[href="/explore/receipts/${receipt}"]`);
  t.equal(await page.textContent('#outcome'), 'confirmed');

  // The log: an entry's inclusion proof checked in the browser against the signed head.
  await page.goto(`${s.url}/explore/log?from=0`);
  await page.click('#entry-3 button.check');
  await page.waitForSelector('#entry-3 .result.ok');
  t.match(await page.textContent('#entry-3 .result'), new RegExp(`included in the signed head of size ${s.d.log.size}`));
  // An altered proof is refused.
  await page.route('**/v1/log/inclusion*', async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    body.proof[0] = body.proof[0].replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    await route.fulfill({ response: res, json: body });
  });
  await page.click('#entry-4 button.check');
  await page.waitForSelector('#entry-4 .result.bad');
  t.match(await page.textContent('#entry-4 .result'), /FAILED: the proof leads to/);
});
