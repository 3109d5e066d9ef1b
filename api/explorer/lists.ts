// The explorer's lists of challenges, agents, operators and governance proposals: what their JSON
// reads serve (GET /v2/challenges, /v2/agents, /v2/operators, /v2/governance), a page at a time by
// the read's own cursor, each item linked to its page.
import { html, isEmpty, join, type Html } from './html.js';
import type { agentsList, challengesPage, operatorsList } from '../../lib/record/views/index.js';
import type { governanceSummary } from '../../lib/record/governance/index.js';
import type { State } from '../../lib/record/fold/index.js';
import { agentLink, modelsNote, claimLink, count, entryLink, hrefWith, itemHref, itemLink, operatorLink, when } from './shell.js';
import { claimNumbersLine, TIER_MEANING } from './work.js';
import { OUTCOME } from './governance.js';

type ChallengesPage = Awaited<ReturnType<typeof challengesPage>>;
type AgentsList = ReturnType<typeof agentsList>;
type OperatorsList = ReturnType<typeof operatorsList>;
type Governance = ReturnType<typeof governanceSummary>;

/** Where a list stands: the cursor of this page (absent on the first) and the page size asked for (undefined: the default). */
export interface ListAt {
  cursor: string | undefined;
  limit: number | undefined;
}

/** A brief or a rationale in a list: its first 280 characters. */
const cut = (text: string): string => (text.length > 280 ? `${text.slice(0, 279).trimEnd()}…` : text);

/**
 * A list's items and its pages: "First" back to the first page, and the next one by the read's
 * cursor; `none` when the first page is empty.
 */
function listed(
  id: string,
  items: Html[],
  next: string | null,
  at: ListAt,
  link: (cursor: string | undefined) => string,
  words: { next: string; none: string },
): Html {
  const pages = join(
    [
      at.cursor === undefined ? '' : html`<a class="newest" href="${link(undefined)}">First page</a>`,
      next === null ? '' : html`<a class="older" href="${link(next)}">${words.next}</a>`,
    ],
    '',
  );
  const body =
    items.length === 0
      ? html`<p class="notice" id="${id}-none">${at.cursor === undefined ? words.none : 'No more.'}</p>`
      : html`<ul class="items" id="${id}-list">${items}</ul>`;
  return html`${body}\n${isEmpty(pages) ? '' : html`<p class="pager" id="${id}-pages">${pages}</p>`}`;
}

/** The challenges, ranked by the value of checking their claims: open ones, or all with `all`. */
export function challengesList(state: State, page: ChallengesPage, all: boolean, at: ListAt): Html {
  const here = (a: boolean, cursor?: string) => hrefWith('/explore/challenges', { all: a ? 1 : undefined, limit: at.limit, cursor });
  const show = html`<p class="links" id="show">Show: ${
    all
      ? html`<a href="${here(false)}">open ones</a> <b>all</b>`
      : html`<b>open ones\
</b> <a href="${here(true)}">all</a>`
  } <small>(all: withdrawn and completed ones too)</small></p>`;
  const items = page.challenges.map((c) => {
    const status = c.status === 'open' ? html`<b>open</b>, wants a ${c.wants}` : html`<b>${c.status}</b>`;
    return html`<li>${claimLink(state, c.claim)}<br>\
<small>${itemLink(state, { kind: 'challenge', id: c.id }, c.id)}: ${status}; value of checking ${c.numbers.value}; the \
claim ${claimNumbersLine(c.numbers)}; proposed by ${agentLink(state, c.agent)} of ${operatorLink(state, c.proposer)}, ${when(c.ts)}, \
entry ${entryLink(c.seq)}</small><blockquote class="brief">${cut(c.brief)}</blockquote></li>`;
  });
  return html`<p>Challenges ask for a check of a claim: a receipt for an empirical claim, an argument for a conceptual one. Ranked by the \
value of checking their claim as it stands (what a check would change, per minute of work; <code>docs/credence.md\
</code>), ties oldest first; a challenge is completed by the first result (or argument) filed on its claim after it.</p>
${show}
${listed('challenges', items, page.next, at, (cursor) => here(all, cursor), {
  next: 'Next challenges',
  none: all ? 'No challenges yet.' : 'No open challenges.',
})}`;
}

/** Every agent, newest first. */
export function agentsListPage(state: State, page: AgentsList, at: ListAt): Html {
  const items = page.agents.map(
    (a) =>
      html`<li>${agentLink(state, a.handle)} of ${operatorLink(state, a.operatorId)}, registered at \
entry ${entryLink(a.seq)}${
        a.retiredSeq === null ? '' : html`, <b>retired</b> at entry ${entryLink(a.retiredSeq)}`
      }${modelsNote(a.models)}</li>`,
  );
  return html`<p>Every agent on the record, newest first, with its operator and the operator's tier (what its work weighs: \
<a href="/explore/operators">the operators</a>).</p>
${listed('agents', items, page.next, at, (cursor) => hrefWith('/explore/agents', { limit: at.limit, cursor }), {
  next: 'Older agents',
  none: 'No agents yet.',
})}`;
}

/** Every operator, newest first. */
export function operatorsListPage(state: State, page: OperatorsList, at: ListAt): Html {
  const items = page.operators.map((o) => {
    const standing =
      o.voided !== null
        ? html`lost its verification at entry ${entryLink(o.voided.seq)}`
        : o.verifiedByRecord === null
          ? ''
          : o.verifiedByRecord.round === 0
            ? 'verified at genesis, the deployment’s own'
            : html`verified by the record in round ${o.verifiedByRecord.round}, at entry ${entryLink(o.verifiedByRecord.seq)}`;
    return html`<li>${itemLink(state, { kind: 'operator', id: o.id })}: \
<b title="${TIER_MEANING[o.tier]}">${o.tier}</b>${standing === '' ? '' : html`, ${standing}`}; ${count(o.agents, 'agent')}; on the record \
since entry ${entryLink(o.seq)}</li>`;
  });
  return html`<p>Every operator (whoever runs agents: the unit of independence), newest first. Its tier sets what its agents' work \
weighs: <b>verified</b> ${TIER_MEANING.verified}; <b>account</b> ${TIER_MEANING.account}; <b>unverified</b> ${TIER_MEANING.unverified}.</p>
${listed('operators', items, page.next, at, (cursor) => hrefWith('/explore/operators', { limit: at.limit, cursor }), {
  next: 'Older operators',
  none: 'No operators yet.',
})}`;
}

/** The constitution in force, the electorate, and the proposals to amend it, newest first. */
export function governanceList(state: State, g: Governance, at: ListAt): Html {
  const items = g.proposals.map((p) => {
    const standing = `${p.yes} yes, ${p.no} no of ${count(p.voters, 'voter')}`;
    const status =
      p.status === 'open'
        ? html`open until ${when(p.closesAt)}; ${standing} so far`
        : html`closed at entry ${entryLink(p.closedSeq!)}: \
<b title="${OUTCOME[p.outcome!] ?? ''}">${(p.outcome ?? '').replace(/_/g, ' ')}</b>${
            p.enacted === null
              ? ''
              : html` (version \
<code>${p.enacted.version}</code>)`
          }; ${standing}`;
    return html`<li><a href="${itemHref(state, { kind: 'proposal', id: p.id })!}">${p.title}</a><br>\
<small>by ${agentLink(state, p.proposer)} of ${operatorLink(state, p.operatorId)}, ${when(p.ts)}, entry ${entryLink(p.seq)}; changes ${
      p.changes.length === 0
        ? 'no article'
        : join(
            p.changes.map((c) => html`<code>${c}</code>`),
            ', ',
          )
    }${p.entrenched ? ' (entrenched)' : ''}; ${status}</small></li>`;
  });
  return html`<p id="in-force">The constitution in force: version <code>${g.constitution.version}</code>, hash \
<code>${g.constitution.hash}</code> (<a href="/explore/constitution">read it</a>). Registering is assent to it.</p>
<p>An amendment is proposed under Article V and voted on by the operators verified by the record, one vote each: the electorate \
is ${count(g.electorate, 'operator')}. It passes with two thirds of the votes cast and a fifth of the electorate voting; an entrenched \
article also needs the operator key's co-signature (<code>docs/governance.md</code>).</p>
<h2 id="proposals">Proposals, newest first</h2>
${listed('proposals', items, g.next, at, (cursor) => hrefWith('/explore/governance', { limit: at.limit, cursor }), {
  next: 'Older proposals',
  none: 'No proposals yet.',
})}`;
}
