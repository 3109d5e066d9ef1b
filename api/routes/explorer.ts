// The record explorer for people, served by the same process with no build step: HTML rendered on the server from the same views
// as the JSON reads. What each page shows: docs/api.md#the-explorer.
import { claimScore } from '../../lib/record/numbers/index.js';
import { argumentView, summary, assertArgumentInView, assertClaimInView, claimInView } from '../../lib/record/views/index.js';
import { badRequest, notFound } from '../../lib/protocol/errors.js';
import { intParam } from '../params.js';
import type { Handler, ReadEnv } from '../reads/read.js';
import { empty, html, isEmpty, join, type Html } from '../explorer/html.js';
import { entryLookup } from '../../lib/service/logged.js';
import { claimSparkline } from '../explorer/charts.js';
import { LOG_CHECK_SCRIPT } from '../explorer/browser-check.js';
import { agentLink, claimLink, claimStatement, compactTs, count, hrefWith, itemLink, page, pager, respond } from '../explorer/shell.js';
import { noVerifiedNotice, STATUS_MEANING, statusLegend } from '../explorer/status.js';
import { CLAIM_LISTS, claimJson, claimPage, LIMIT, type ClaimQuery } from '../explorer/claim.js';
import { argumentPage, CHECKS_LIMIT, receiptPage, RERUNS_LIMIT } from '../explorer/items.js';
import { aboutEntry } from '../explorer/entries.js';
import { constitutionPage } from '../explorer/constitution.js';
import { constitutionInForce } from '../../lib/record/governance/index.js';

/** Claims a page of the explorer shows unless `limit` says otherwise. */
const EXPLORE_PAGE = 100;
/** Entries a page of the log shows unless `limit` says otherwise. */
const LOG_PAGE = 50;

const CLAIM = /^(rec:[0-9a-f]{16}#C[1-9][0-9]?|ext:[0-9a-f]{16}#C1)$/;
const HASH = /^[0-9a-f]{64}$/;

/** The handlers of the rows of these pages (api/reads/explorer.ts). */
export function explorerReads({ d, record }: ReadEnv) {
  const state = record.state;
  const entries = entryLookup(d.log);

  const claims: Handler = async (ctx, query) => {
    const all = state.numbers.index.refs;
    // Newest first, a page at a time: `before` is the place (in log order) of the last claim of
    // the previous page, so a page stays the same while newer claims land.
    const before = intParam(query, 'before', { min: 0, max: all.length, default: all.length });
    const limit = intParam(query, 'limit', { min: 1, max: 200, default: EXPLORE_PAGE });
    await respond(ctx, '/v2/credence', () => {
      const refs: string[] = [];
      let i = before - 1;
      for (; i >= 0 && refs.length < limit; i--) if (claimInView(state, all.at(i))) refs.push(all.at(i));
      // The next page starts below the last claim shown, if any claim in view is left there.
      while (i >= 0 && !claimInView(state, all.at(i))) i--;
      // The previous page holds the `limit` claims in view just above this one.
      let j = before;
      for (let n = 0; j < all.length && n < limit; j++) if (claimInView(state, all.at(j))) n++;
      while (j < all.length && !claimInView(state, all.at(j))) j++;
      const link = (b: number | undefined) => hrefWith('/explore', { before: b, limit: limit === EXPLORE_PAGE ? undefined : limit });
      const newer = j === before ? null : j >= all.length ? undefined : j;
      const pages = (id: string) =>
        pager({ shown: [], older: i >= 0 ? i + 1 : null, newer }, link, id, { newer: 'Newer claims', older: 'Older claims' });
      const rows = refs.map((ref) => {
        const c = claimScore(state, ref);
        return html`<tr><td class="full">${claimLink(state, ref, 'whole')} <small><code>${ref}</code></small></td>\
<td class="n credence" data-label="credence">${c.credence.toFixed(4)}</td>\
<td class="status" data-label="status" title="${STATUS_MEANING[c.status] ?? ''}">${c.status}</td>\
<td>${claimSparkline(state.numbers.history, ref)}</td></tr>`;
      });
      const s = summary(state);
      const sth = d.log.sth();
      return page(
        'Claims',
        html`<p id="counts">${count(s.claims, 'claim')}, ${s.external} \
external, ${count(s.receipts, 'receipt')}, ${count(s.reviews, 'review')}, ${count(s.arguments, 'argument')}, ${count(s.agents, 'agent')}.\
</p>
<p id="sth">Signed head: size <code>${sth.treeSize}</code>, root <code>${sth.rootHash}</code>, at <code>${sth.timestamp}</code> (\
<a href="/explore/log">check it in the log</a>).</p>
${noVerifiedNotice(state)}
${pages('claim-pages')}
<table id="claims" class="reflow"><thead><tr><th>claim (newest first)</th><th class="n">credence</th><th>status</th>\
<th>credence, entry by entry</th></tr></thead><tbody>
${join(rows, '\n')}</tbody></table>
${pages('claim-pages-end')}
<h2>What the statuses mean</h2>
${statusLegend()}`,
        { json: '/v2/credence' },
      );
    });
  };

  const claim: Handler = async (ctx, query) => {
    const ref = ctx.params.ref!;
    if (!CLAIM.test(ref)) throw badRequest(`path: expected a claim ref, got ${JSON.stringify(ref)}`);
    const claim = state.claims.get(ref);
    if (claim === undefined) throw notFound(`no claim ${ref} on the record`);
    assertClaimInView(state, ref, 'path');
    const q: ClaimQuery = { before: {}, limit: intParam(query, 'limit', { min: 1, max: 200, default: LIMIT }) };
    for (const list of CLAIM_LISTS) if (query.has(list)) q.before[list] = intParam(query, list, { min: 0 });
    const json = claimJson(claim);
    await respond(ctx, json, async () => page(claimStatement(state, ref), await claimPage(state, entries, claim, q), { json }));
  };

  const receipt: Handler = async (ctx, query) => {
    const id = ctx.params.id!;
    if (!HASH.test(id)) throw badRequest(`path: expected a commitment id (64 lowercase hex), got ${JSON.stringify(id)}`);
    const r = state.receipts.get(id);
    if (r === undefined) throw notFound(`no receipt ${id} on the record`);
    assertClaimInView(state, r.target, 'path');
    const before = query.has('before') ? intParam(query, 'before', { min: 0 }) : undefined;
    const limit = intParam(query, 'limit', { min: 1, max: 200, default: RERUNS_LIMIT });
    const json = `/v2/receipts/${id}`;
    await respond(ctx, json, () => page(`Receipt ${id.slice(0, 16)}`, receiptPage(state, r, { before, limit }), { json }));
  };

  const argument: Handler = async (ctx, query) => {
    const id = ctx.params.id!;
    if (!HASH.test(id)) throw badRequest(`path: expected an argument id (64 lowercase hex), got ${JSON.stringify(id)}`);
    const a = state.argumentsById.get(id);
    if (a === undefined) throw notFound(`no argument ${id} on the record`);
    assertArgumentInView(state, id, 'path');
    const before = query.has('before') ? intParam(query, 'before', { min: 0 }) : undefined;
    const limit = intParam(query, 'limit', { min: 1, max: 200, default: CHECKS_LIMIT });
    const json = `/v2/arguments/${id}`;
    await respond(ctx, json, async () =>
      page(
        `Argument ${id.slice(0, 16)}`,
        await argumentPage(state, entries, await argumentView(state, a, entries.logged), { before, limit }),
        { json },
      ),
    );
  };

  const constitution: Handler = async (ctx) => {
    const json = '/v1/constitution';
    await respond(ctx, json, () => page('Constitution', constitutionPage(constitutionInForce(state)), { json }));
  };

  const log: Handler = async (ctx, query) => {
    const size = d.log.size;
    const limit = intParam(query, 'limit', { min: 1, max: 200, default: LOG_PAGE });
    const from = intParam(query, 'from', { min: 0, default: Math.max(0, size - limit) });
    if (from >= size) throw badRequest(`from: ${from} is beyond the log (size ${size})`);
    const json = `/v1/log/entries?from=${from}&limit=${limit}`;
    await respond(ctx, json, async () => {
      const list = await d.log.entries(from, Math.min(limit, size - from));
      const sth = d.log.sth();
      let day = '';
      const rows: Html[] = [];
      for (const e of list) {
        // Times to the second; the date once, where it changes.
        if (e.ts.slice(0, 10) !== day) {
          day = e.ts.slice(0, 10);
          rows.push(html`<tr class="day"><td colspan="5">${day}</td></tr>`);
        }
        const data = JSON.stringify({
          seq: e.seq,
          ts: e.ts,
          type: e.type,
          payloadHash: e.payloadHash,
          prevHash: e.prevHash,
          entryHash: e.entryHash,
        });
        const about = aboutEntry(state, e);
        const who = about.agent === null ? about.who : agentLink(state, about.agent);
        const what = html`<code>${e.type}</code>${about.subject === null ? '' : html` ${itemLink(state, about.subject)}`}`;
        rows.push(
          html`<tr id="entry-${e.seq}" data-entry="${data}"><td class="n">\
<a href="/v1/log/entries?from=${e.seq}&amp;limit=1" title="the entry as JSON">${e.seq}</a></td><td class="what rest">${what}</td>\
<td class="who">${who}</td><td class="at"><time datetime="${e.ts}" title="${e.ts}">${compactTs(e.ts).slice(11)}</time></td>\
<td class="proof"><button class="check">check inclusion</button> <a href="/v1/log/inclusion?seq=${e.seq}&amp;size=${sth.treeSize}">proof\
</a> <span class="result"></span></td></tr>`,
        );
      }
      const link = (f: number) => hrefWith('/explore/log', { from: f, limit: limit === LOG_PAGE ? undefined : limit });
      const end = from + list.length;
      const nav = join(
        [
          from > 0 ? html`<a class="first" href="${link(0)}">First</a>` : '',
          from > 0 ? html`<a class="earlier" href="${link(Math.max(0, from - limit))}">Earlier entries</a>` : '',
          end < size ? html`<a class="later" href="${link(end)}">Later entries</a>` : '',
          end < size
            ? html`<a class="latest" href="${hrefWith('/explore/log', { limit: limit === LOG_PAGE ? undefined : limit })}">Latest</a>`
            : '',
        ],
        '',
      );
      const pages = (id: string) => (isEmpty(nav) ? empty : html`<p class="pager" id="${id}">${nav}</p>`);
      return page(
        `The log: entries ${from} to ${end - 1} of ${size}`,
        html`<section id="head" data-key="${d.logKeyString}"><p>Signed head: size <code>${sth.treeSize}</code>, root \
<code>${sth.rootHash}</code>, at <code>${sth.timestamp}</code>, signed by the log key <code>${d.logKeyString}</code> (\
<a href="/v1/log/key">JSON</a>).</p>
<p><button id="check-head">check the signature</button> <span class="result"></span></p></section>
<p>Checking an entry verifies the head's Ed25519 signature with the log key, recomputes the entry's hash and verifies its inclusion proof \
against the head (RFC 9162), all in this browser. Times are UTC.</p>
${pages('log-pages')}
<table id="log" class="reflow"><thead><tr><th class="n">entry</th><th>what</th><th>by</th><th>at</th><th>proof</th></tr></thead><tbody>
${join(rows, '\n')}</tbody></table>
${pages('log-pages-end')}`,
        { json, script: LOG_CHECK_SCRIPT },
      );
    });
  };

  return { claims, claim, receipt, argument, constitution, log };
}
