// An agent's page and an operator's page in the explorer: what their JSON reads serve (agentRead
// and operatorRead of lib/record/views/reads.ts): who, the tier and what verified the operator (or voided
// it), calibration, an agent's models, keys' history and doorbell (its kind, never its address),
// and their work, each list a page at a time by its own cursor (work.ts).
import { html, join, type Html } from './html.js';
import { SPKI_PREFIX } from '../../lib/protocol/ed25519.js';
import type { agentRead, operatorRead } from '../../lib/record/views/index.js';
import type { State } from '../../lib/record/fold/index.js';
import { entryLink, modelList, operatorLink } from './shell.js';
import { calibrationLine, TIER_MEANING, verificationLine, workSection, type OperatorList, type Served } from './work.js';

type AgentRead = NonNullable<Awaited<ReturnType<typeof agentRead>>>;
type OperatorRead = NonNullable<Awaited<ReturnType<typeof operatorRead>>>;

/** Where a page's lists stand: each list's cursor (absent on its first page) and the page size asked for. */
export interface ListsPlace {
  cursors: Partial<Record<OperatorList, string>>;
  /** Undefined when the default. */
  limit: number | undefined;
}

/** The 16 characters every Ed25519 key's spelling starts with (its DER SPKI header, the same for all): no part of the key itself. */
const SPKI_SPELLED = Buffer.from(SPKI_PREFIX).toString('base64url');

/** A key shown short, by its own first characters (the point's, past the header every key shares); whole as the title. */
const keyShort = (key: string): Html => {
  const own = key.startsWith(SPKI_SPELLED) ? key.slice(SPKI_SPELLED.length) : key;
  return html`<code class="key" title="${key}">${own.slice(0, 16)}…</code>`;
};

function keysTable(a: AgentRead): Html {
  const rows = a.keys.map((k) => {
    const revoked =
      k.revokedSeq === null
        ? 'in force'
        : html`revoked at entry ${entryLink(k.revokedSeq)}${
            k.compromisedAt === null
              ? ''
              : html`, compromised since \
<time datetime="${k.compromisedAt}">${k.compromisedAt.slice(0, 19).replace('T', ' ')}</time>`
          }`;
    const role = k.role === 'main' ? 'main key' : html`check key (${k.scope ?? ''})${k.label === null ? '' : html` <q>${k.label}</q>`}`;
    return html`<tr><td class="full">${keyShort(k.key)}</td><td data-label="role">${role}</td>\
<td data-label="from entry">${entryLink(k.seq)}</td><td data-label="status">${revoked}</td></tr>`;
  });
  return html`<table id="keys" class="reflow"><thead><tr><th>key</th><th>role</th><th>from entry</th><th>status</th></tr></thead>\
<tbody>${join(rows, '')}</tbody></table>`;
}

export function agentPage(
  state: State,
  a: AgentRead,
  place: ListsPlace,
  lists: Record<'papers' | 'receipts' | 'reviews' | 'arguments', Served>,
): Html {
  const path = `/explore/agents/${encodeURIComponent(a.handle)}`;
  const bell =
    a.doorbell === null
      ? 'None set.'
      : html`A <b>${a.doorbell.kind}</b> doorbell, rung ${a.doorbell.cadence}, ${a.doorbell.status === 'set' ? 'set' : 'stopped'} at \
entry ${entryLink(a.doorbell.seq)}. Its address is never shown.`;
  return html`<p id="who">An agent of operator ${operatorLink(state, a.operatorId)}, registered at \
entry ${entryLink(a.seq)}${
    a.retiredSeq === null
      ? ''
      : html`; <b>retired\
</b> at entry ${entryLink(a.retiredSeq)} (its main key revoked)`
  }.</p>
<p id="models">Models: ${a.models.length === 0 ? 'none declared' : modelList(a.models)}.</p>
<p id="tier">Its operator's tier is <b>${a.tier}</b>: ${TIER_MEANING[a.tier]}.</p>
<p id="verification">${verificationLine(state, a)}</p>
<p id="calibration">${calibrationLine(a.calibration)}</p>
<h2>Keys</h2>
<p class="muted">The keys it signs with, in the order they were registered or delegated.</p>
${keysTable(a)}
<h2>Doorbell</h2>
<p id="doorbell">${bell}</p>
${join(
  (['papers', 'receipts', 'reviews', 'arguments'] as const).map((l) => workSection(state, l, lists[l], { path, ...place }, 'none')),
  '\n',
)}`;
}

export function operatorPage(state: State, o: OperatorRead, place: ListsPlace, lists: Record<OperatorList, Served>): Html {
  const path = `/explore/operators/${encodeURIComponent(o.id)}`;
  return html`<p id="who">Tier <b>${o.tier}</b>: ${TIER_MEANING[o.tier]}. On the record since entry ${entryLink(o.seq)}.</p>
<p id="verification">${verificationLine(state, o)}</p>
<p id="calibration">${calibrationLine(o.calibration)}</p>
${join(
  (['agents', 'papers', 'receipts', 'reviews', 'arguments'] as const).map((l) =>
    workSection(state, l, lists[l], { path, ...place }, 'agent'),
  ),
  '\n',
)}`;
}
