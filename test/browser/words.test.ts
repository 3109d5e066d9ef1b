// Words stay whole in the explorer (headless Chromium, as explorer.test.ts): on the claims list,
// the log page after its in-browser checks, a paper's page and an agent's page, at 1280 and 390 px
// wide, no word is drawn over two lines unless it is wider than the page's column (a hash, a key):
// each word's boxes (a Range over it, getClientRects) lie on one line. And still no sideways
// scroll at 390 px, with long unbroken tokens on the pages.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startService } from '../helpers/service.js';
import { explorerRecord } from '../helpers/explorer-record.js';
import { make, register, send } from '../helpers/agents.js';

const executablePath = execFileSync(join(process.cwd(), 'scripts', 'chromium.sh'), { encoding: 'utf8' }).trim();

/**
 * The words of the page's text drawn over more than one line, each with its width: a word is a
 * run of non-spaces within one text node; one wider than the body's column may wrap. In prose a
 * line may end after a word's hyphen (co-/signature), as in print; never in an id or a name
 * (<code>: climate-/lab), where each piece between hyphens is not a word of its own.
 */
const BROKEN_WORDS = `(() => {
  const style = getComputedStyle(document.body);
  const column = document.body.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const lines = (node, start, end) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    const boxes = [...range.getClientRects()].filter((b) => b.width > 0 && b.height > 0);
    return { lines: new Set(boxes.map((b) => Math.round(b.top))).size, width: boxes.reduce((sum, b) => sum + b.width, 0) };
  };
  const broken = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node !== null; node = walk.nextNode()) {
    if (node.parentElement.closest('script, style, svg')) continue;
    const prose = node.parentElement.closest('code') === null;
    for (const m of node.data.matchAll(/\\S+/g)) {
      const word = lines(node, m.index, m.index + m[0].length);
      if (word.lines < 2 || word.width > column) continue;
      // In prose, each piece up to and with a hyphen on one line is enough.
      let at = m.index;
      const pieces = prose ? m[0].match(/[^-]+-*|-+/g) : [m[0]];
      if (pieces.every((piece) => lines(node, at, (at += piece.length)).lines < 2)) continue;
      broken.push(m[0] + ' (' + word.lines + ' lines, ' + Math.round(word.width) + ' of ' + Math.round(column) +
        ' px, in <' + node.parentElement.tagName.toLowerCase() + '>)');
    }
  }
  return broken;
})()`;

t.test('no word broken inside, no sideways scroll', async (t) => {
  const s = await startService(t);
  const r = await explorerRecord(t, s);
  // A hyphenated handle and operator (the kind that broke at its hyphen on a phone), and a paper
  // with long unbroken tokens: they may wrap only where they would overflow.
  const climate = await register(s, 'climate-lab-bot', { operatorId: 'climate-lab' });
  const token = `sha256:${'0123456789abcdef'.repeat(4)}`;
  const paper = await send(
    s,
    climate,
    'paper',
    make.paper(2, {
      title: 'Regional warming estimates reproduced',
      field: 'clim',
      abstract: `The estimates hold across the regional ensemble; the data is pinned by ${token} and the run is described in full.`,
      methods: `Ensemble runs pinned by ${token}, then ${'https://example.org/a/very/long/path/to/the/ensemble/output/files/of/the/run'}.`,
      claims: [
        {
          text: 'Warming over land exceeds warming over sea by a third in every region',
          confidence: 0.7,
          test: 'A region where it does not',
        },
        { text: 'The regional estimates are unchanged under the second ensemble', confidence: 0.6, test: 'A region that changes' },
      ],
    }),
  );
  t.equal(paper.status, 201, paper.text);
  await send(s, climate, 'review', { claim: r.claim, forecast: 0.55, rationale: `Plausible; the runs pinned by ${token} agree.` });
  const challenge = await send(s, climate, 'challenge.propose', { claim: r.amended, brief: `Re-run the second table pinned by ${token}.` });
  t.equal(challenge.status, 201, challenge.text);

  const browser: Browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  t.teardown(() => browser.close());
  const pages: [string, string][] = [
    ['the claims list', '/explore'],
    ['the log', '/explore/log?from=0'],
    ["a paper's page", `/explore/papers/${paper.body.id}`],
    ["another paper's page", `/explore/papers/${r.paper}`],
    ["an agent's page", '/explore/agents/climate-lab-bot'],
    ["another agent's page", '/explore/agents/bob'],
    ['the landing page', '/'],
    ['the challenges', '/explore/challenges?all=1'],
    ['the operators', '/explore/operators'],
    ['the constitution', '/explore/constitution'],
  ];
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page: Page = await context.newPage();
    for (const [name, path] of pages) {
      t.equal((await page.goto(`${s.url}${path}`))!.status(), 200, `${name} at ${width} px`);
      if (path.startsWith('/explore/log')) {
        // The checks' results are the longest texts of the log's rows.
        await page.click('#check-head');
        await page.waitForSelector('#head .result.ok');
        for (const seq of [1, 3, 5, 8]) {
          await page.click(`#entry-${seq} button.check`);
          await page.waitForSelector(`#entry-${seq} .result.ok`);
        }
      }
      t.same(await page.evaluate(BROKEN_WORDS), [], `${name} at ${width} px: no word broken inside`);
      const [scrollWidth, innerWidth] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [
        number,
        number,
      ];
      t.ok(scrollWidth <= innerWidth, `${name} at ${width} px: no sideways scroll (${scrollWidth} <= ${innerWidth})`);
    }
    await context.close();
  }
});
