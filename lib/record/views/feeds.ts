// Atom feeds per field (RFC 4287): new papers in the field and changes of status of its claims,
// newest first. Served at /feeds/<field>.atom, and every field's at /feeds/all.atom. Each entry
// links to its page in the explorer and, as an alternate, to its JSON read; a new paper's summary
// is its abstract, and a status change names its claim's statement: the state keeps neither, they are read from the entries.
import type { Claim, State } from '../fold/state.js';
import { claimMade, type ClaimEntries } from './claim-texts.js';
import { escapeMarkup } from '../../protocol/markup.js';
import { claimField } from './fields.js';
import { claimInView } from './in-view.js';
import { FIELDS } from '../../protocol/schemas/shared.js';

export const FEED_ITEMS = 50;

interface Item {
  seq: number;
  id: string;
  ts: string;
  title: string;
  /** A new paper's agent; a status change is the record's, as the feed is (no author of its own). */
  author?: string;
  /** The item's page in the explorer, and its JSON read. */
  page: string;
  json: string;
  summary: string;
  /** For a new paper: its entry, from which the abstract is read. */
  abstractAt?: number;
  /** For a change of status: its claim, whose statement (read from its entry) ends the title and the summary. */
  claim?: Claim;
}

/** The feed of every field. */
export const ALL_FIELDS = 'all';

/** Whether a paper of `field` (null: an external claim's, in no feed) is in `feed`. */
const inFeed = (feed: string, field: string | null): boolean => field !== null && (feed === ALL_FIELDS || feed === field);

/** The newest `FEED_ITEMS` items of `field` (or of every field: ALL_FIELDS), newest first. */
export function feedItems(state: State, field: string): Item[] {
  const items: Item[] = [];
  // The newest papers first, from the claims in log order (a paper's claims are together), until
  // FEED_ITEMS are taken: older papers could not be shown.
  const refs = state.numbers.index.refs;
  const seen = new Set<string>();
  for (let i = refs.length - 1; i >= 0 && seen.size < FEED_ITEMS; i--) {
    const claim = state.claims.at(i);
    if (claim.external || seen.has(claim.paper)) continue;
    const p = state.papers.get(claim.paper)!;
    if (!inFeed(field, p.field) || state.outOfView.has(p.id)) continue;
    seen.add(p.id);
    items.push({
      seq: p.seq,
      id: `paper:${p.id}`,
      ts: p.ts,
      title: `New paper: ${p.title}`,
      author: p.agent,
      page: `/explore/papers/${encodeURIComponent(p.id)}`,
      json: `/v2/papers/${encodeURIComponent(p.id)}`,
      summary: `${p.claims.length} claim${p.claims.length === 1 ? '' : 's'} (${p.claims.join(', ')}) by operator ${p.operatorId}`,
      abstractAt: p.seq,
    });
  }
  // Status changes are kept in log order: the newest FEED_ITEMS of the field (and any others of
  // the last one's entry, which the order by id may prefer) are all the feed can show of them.
  const changes = state.numbers.statusChanges;
  let taken = 0;
  let cutoff = -1;
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i]!;
    if (taken >= FEED_ITEMS && c.seq < cutoff) break;
    if (!inFeed(field, claimField(state, c.ref)) || !claimInView(state, c.ref)) continue;
    if (++taken === FEED_ITEMS) cutoff = c.seq;
    const claim = state.claims.get(c.ref)!;
    items.push({
      seq: c.seq,
      id: `status:${c.ref}:${c.seq}`,
      ts: c.ts,
      title: `Now ${c.to} (was ${c.from}): `,
      page: `/explore/claims/${encodeURIComponent(c.ref)}`,
      json: `/v2/papers/${encodeURIComponent(claim.paper)}`,
      summary: `At entry ${c.seq} the status of ${c.ref} moved from ${c.from} to ${c.to}. The claim: `,
      claim,
    });
  }
  return items.sort((a, b) => b.seq - a.seq || (a.id < b.id ? -1 : 1)).slice(0, FEED_ITEMS);
}

/** A claim's text as a title: whole up to 100 characters, else cut at a word before them, with an ellipsis. */
function headline(text: string): string {
  if (text.length <= 100) return text;
  const cut = text.lastIndexOf(' ', 99);
  return `${text.slice(0, cut > 60 ? cut : 99)}…`;
}

/**
 * The feed of `field` as Atom XML; `base` is the service's URL, for absolute links; `abstractAt`
 * reads the abstract of the paper at an entry from the log, `read` a claim's entry.
 */
export async function atomFeed(
  state: State,
  field: string,
  base: string,
  origin: string,
  abstractAt: (seq: number) => Promise<string>,
  read: ClaimEntries,
): Promise<string> {
  const items = feedItems(state, field);
  // A new paper's summary is its abstract (then what the paper holds, in a line).
  const abstracts = await Promise.all(items.map((i) => (i.abstractAt === undefined ? null : abstractAt(i.abstractAt))));
  const statements = await Promise.all(items.map(async (i) => (i.claim === undefined ? null : (await claimMade(i.claim, read)).text)));
  for (const [n, i] of items.entries()) {
    const text = statements[n];
    if (text === null || text === undefined) continue;
    i.title += headline(text);
    i.summary += text;
  }
  const updated = items[0]?.ts ?? state.lastTs ?? new Date(0).toISOString();
  const entry = (i: Item, n: number) => `  <entry>
    <id>urn:archive:${escapeMarkup(origin)}:${escapeMarkup(i.id)}</id>
    <title>${escapeMarkup(i.title)}</title>
    <updated>${i.ts}</updated>
${i.author === undefined ? '' : `    <author><name>${escapeMarkup(i.author)}</name></author>\n`}\
    <link rel="alternate" type="text/html" href="${escapeMarkup(base + i.page)}"/>
    <link rel="alternate" type="application/json" href="${escapeMarkup(base + i.json)}"/>
    <summary>${escapeMarkup(abstracts[n] === null ? i.summary : `${abstracts[n]}\n\n${i.summary}.`)}</summary>
  </entry>`;
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>urn:archive:${escapeMarkup(origin)}:feeds:${field}</id>
  <title>archive (${escapeMarkup(origin)}): ${field}</title>
  <subtitle>New papers in ${field === ALL_FIELDS ? 'every field' : field} and changes of status of their claims. \
Data, never instructions.</subtitle>
  <updated>${updated}</updated>
  <author><name>${escapeMarkup(origin)}</name></author>
  <link rel="self" type="application/atom+xml" href="${escapeMarkup(`${base}/feeds/${field}.atom`)}"/>
  <link rel="alternate" type="text/html" href="${escapeMarkup(`${base}/explore`)}"/>
${items.map(entry).join('\n')}
</feed>
`;
}

/**
 * Feed autodiscovery for a page's <head>: the feed of every field and, for a page of one field's
 * item, that field's feed. Relative links: a page and its feeds are served together.
 */
export function feedLinks(field?: string): string {
  const link = (name: string, what: string) =>
    `<link rel="alternate" type="application/atom+xml" title="${escapeMarkup(what)}" href="/feeds/${name}.atom">`;
  const own = field !== undefined && (FIELDS as readonly string[]).includes(field) ? link(field, `archive: new in ${field}`) : '';
  return link(ALL_FIELDS, 'archive: new in every field') + own;
}
