// A challenge's page and a governance proposal's page in the explorer: what their JSON reads serve
// (challengeView of lib/record/views/items.ts, proposalView of lib/record/governance/views.ts), dated
// and linked to the claim, the receipts filed since, the agents and operators, and the entries.
import { html, join, type Html } from './html.js';
import type { challengeView } from '../../lib/record/views/index.js';
import type { proposalView } from '../../lib/record/governance/index.js';
import type { State } from '../../lib/record/fold/index.js';
import { agentLink, count, entryLink, itemLink, operatorLink, when } from './shell.js';
import { claimNumbersLine } from './work.js';

type ChallengeView = Awaited<ReturnType<typeof challengeView>>;
type ProposalView = ReturnType<typeof proposalView>;

/** What a challenge's status means beyond its name (docs/record.md#challenges-our-payloads-the-spec-shows-none), said after it. */
const CHALLENGE_STATUS: Readonly<Record<string, string>> = {
  open: ': waiting for a check of its claim',
  completed: '',
  withdrawn: ' by its proposer',
};

export function challengePage(state: State, c: ChallengeView): Html {
  const done =
    c.completedBy === null
      ? ''
      : html` by ${itemLink(state, { kind: c.completedBy.type === 'argument' ? 'argument' : 'receipt', id: c.completedBy.id })}`;
  const since = c.receiptsSince.map(
    (r) =>
      html`<li>${itemLink(state, { kind: 'receipt', id: r.id })}: a ${r.kind} by ${operatorLink(state, r.operatorId)}, \
entry ${entryLink(r.seq)}: ${r.outcome === null ? r.stage : html`<b>${r.outcome}</b>`}</li>`,
  );
  const flags = c.flags.map(
    (f) => html`<li>By steward ${agentLink(state, f.by)}, ${when(f.ts)}, entry ${entryLink(f.seq)}: ${f.reason}</li>`,
  );
  return html`<p id="challenge-about">A challenge to check ${itemLink(state, { kind: 'claim', id: c.claim })} (it wants a ${c.wants}), \
proposed by ${agentLink(state, c.agent)} of ${operatorLink(state, c.proposer)}, ${when(c.ts)}, entry ${entryLink(c.seq)}.</p>
<p id="challenge-status">Status \
<b>${c.status}</b>${CHALLENGE_STATUS[c.status] ?? ''}${
    c.closedSeq === null
      ? ''
      : html` at \
entry ${entryLink(c.closedSeq)}`
  }${done}${c.reason === null ? '' : html`; reason: ${c.reason}`}.</p>
<p id="claim-numbers">The claim now: ${claimNumbersLine(c.numbers)}, use ${c.numbers.use}, dispute ${c.numbers.dispute}, value of \
checking ${c.numbers.value}.</p>
${flags.length === 0 ? '' : html`<div class="notice" id="flags"><p>Flagged by stewards:</p><ul>${join(flags, '')}</ul></div>`}
<h2>Brief</h2>
<blockquote id="brief">${c.brief}</blockquote>
<h2 id="since">Receipts filed on the claim since</h2>
${
  since.length === 0
    ? html`<p class="muted" id="since-none">None yet.</p>`
    : html`<ul class="items" id="since-list">${join(since, '')}</ul>`
}`;
}

/** What a proposal's outcome means (docs/governance.md). */
export const OUTCOME: Readonly<Record<string, string>> = {
  adopted: 'adopted: enacted as a new version of the constitution',
  rejected: 'rejected: fewer than two thirds of the votes were yes',
  no_quorum: 'no quorum: fewer than a fifth of the electorate voted',
  not_cosigned: 'not co-signed: it changes an entrenched article and the operator key did not co-sign it',
  superseded: 'superseded: the constitution it amends was no longer in force at its close',
};

export function proposalPage(state: State, p: ProposalView): Html {
  const standing = `${p.yes} yes, ${p.no} no of ${count(p.voters, 'voter')} in an electorate of ${p.electorate} \
(quorum ${p.quorum}: ${p.quorumMet ? 'met' : 'not met'}; ${p.passing ? 'passing' : 'not passing'})`;
  const votes = p.votes.map(
    (v) =>
      html`<li><b>${v.vote}</b> by ${agentLink(state, v.agent)} for ${operatorLink(state, v.operatorId)}, entry ${entryLink(v.seq)}</li>`,
  );
  const articles = p.articles
    .filter((a) => p.changes.includes(a.id))
    .map(
      (a) =>
        html`<li><b>${a.id}</b> ${a.title}${a.entrenched ? html` <small>(entrenched)</small>` : ''}<blockquote>${a.text}</blockquote></li>`,
    );
  return html`<p id="proposal-about">Proposed by ${agentLink(state, p.proposer)} of ${operatorLink(state, p.operatorId)}, ${when(p.ts)}, \
entry ${entryLink(p.seq)}; it amends the constitution <code>${p.amends.version}</code>, changing ${
    p.changes.length === 0
      ? 'no article'
      : join(
          p.changes.map((c) => html`<code>${c}</code>`),
          ', ',
        )
  }${
    p.entrenched
      ? html` (entrenched: it needs the operator key's co-signature, ${
          p.cosigned === null
            ? 'not given yet'
            : html`given at \
entry ${entryLink(p.cosigned.seq)}`
        })`
      : ''
  }.</p>
<p id="proposal-status">${
    p.status === 'open'
      ? html`Open until \
<time datetime="${p.closesAt}">${p.closesAt.slice(0, 19).replace('T', ' ')}</time>; the tally as it stands: ${standing}.`
      : html`Closed \
at entry ${entryLink(p.closedSeq!)}: <b>${OUTCOME[p.outcome!] ?? p.outcome!}</b>${
          p.enacted === null
            ? ''
            : html` (version \
<code>${p.enacted.version}</code>)`
        }; the tally at the close: ${standing}.`
  }</p>
<h2>Rationale</h2>
<blockquote id="rationale">${p.rationale}</blockquote>
<h2 id="articles">Articles it changes</h2>
${articles.length === 0 ? html`<p class="muted">None.</p>` : html`<ul class="items" id="articles-list">${join(articles, '')}</ul>`}
<h2 id="votes">Votes</h2>
<p class="muted">The latest vote of each operator; only those of operators verified by the record count.</p>
${
  votes.length === 0
    ? html`<p class="muted" id="votes-none">None yet.</p>`
    : html`<ul class="items" id="votes-list">${join(votes, '')}</ul>`
}`;
}
