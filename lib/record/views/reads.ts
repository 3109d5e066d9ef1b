// The readers' views (docs/api.md#the-records-reads): pure functions of the state, its read index (list-index.ts) and a reader of
// logged entries for the text the state does not keep. Items out of view (docs/stewardship.md#out-of-view) never appear in a list.
import type { Status } from '../numbers/indexes.js';
import { claimNumbers, claimScore, operatorCalibration } from '../numbers/served.js';
import { argumentInView, claimInView } from './in-view.js';
import { agentWork, operatorWork, type ReadIndex, type Work } from './list-index.js';
import { mapPage, mapPageAsync, newestFirst, oldestFirst, served, type Mint, type Page } from './paging.js';
import { argumentsInView, argumentView, challengeView, paperView, rankedChallenges, type Logged } from './items.js';
import { tierOf, type Agent, type Argument, type Receipt, type RecordEntry, type State } from '../fold/state.js';
import { claimValue } from '../numbers/served.js';
import { CREDENCE_VERSION } from '../numbers/rules.js';
import { holdItem } from '../types/out-of-view.js';
import { commitmentId, externalId, paperId, challengeId } from '../../protocol/ids.js';
import { signedHash } from '../admission/replay-window.js';
import { argumentCounting, receiptCounting, reviewCounting } from '../numbers/counting.js';

/** A claim's statuses (docs/credence.md#status), as the lists' `status` filter takes them. */
export const STATUSES: readonly Status[] = ['established', 'supported', 'unchecked', 'contested', 'refuted'];

/** Where an entry is read and proved (docs/api.md#log-reads). */
export const entryLinks = (seq: number) => ({ seq, entry: `/v1/log/entries/${seq}`, proof: `/v1/log/inclusion?seq=${seq}` });

/** A paper with every field it was published with, its claims with their numbers, and its amendments. */
export async function paperRead(state: State, id: string, logged: Logged) {
  const paper = state.papers.get(id);
  if (paper === undefined) return undefined;
  // The paper's entry, read once for its abstract and its claims' texts.
  const [view, p] = await Promise.all([paperView(state, id, logged), logged(paper.seq, 'paper')]);
  if (view === undefined) return undefined;
  const amendments = view.claims
    .filter((c) => c.amended !== null)
    .map((c) => ({ claim: c.ref, seq: c.amended!.seq, before: c.amended!.before, after: { kind: c.kind, test: c.test } }));
  return {
    ...view,
    tier: tierOf(state, view.operatorId),
    abstract: p.abstract,
    // As the payload has them: null when it has none.
    methods: p.methods ?? null,
    artefacts: p.artefacts ?? null,
    claims: view.claims.map((c) => ({ ...c, numbers: claimScore(state, c.ref) })),
    amendments,
    entry: entryLinks(view.seq),
  };
}

/** The paper at `row` of state.papers as a list shows it: the paper read serves the rest. */
export function paperItem(state: State, row: number) {
  const p = state.papers.at(row);
  return {
    id: p.id,
    seq: p.seq,
    ts: p.ts,
    title: p.title,
    field: p.field,
    agent: p.agent,
    operatorId: p.operatorId,
    claims: p.claims.map((ref) => ({ ref, ...claimNumbers(state, ref) })),
  };
}

/** What the list of papers (and the search) filters by; each absent means any. */
export interface Filters {
  field?: string;
  agent?: string;
  operator?: string;
  /** A paper is of a status when one of its claims is. */
  status?: Status;
}

const statusOf = (state: State, ref: string): Status => state.numbers.scores.get(ref)!.status;

/** Whether the paper at `row` of state.papers is in view and of `f`. */
function paperOf(state: State, row: number, f: Filters): boolean {
  const p = state.papers.at(row);
  if (state.outOfView.has(p.id)) return false;
  if (f.field !== undefined && p.field !== f.field) return false;
  if (f.agent !== undefined && p.agent !== f.agent) return false;
  if (f.operator !== undefined && p.operatorId !== f.operator) return false;
  return f.status === undefined || p.claims.some((ref) => statusOf(state, ref) === f.status);
}

/** The papers of `f`, newest first, below seq `before`: walked along the shortest list that holds them all. */
export function papersPage(state: State, ix: ReadIndex, f: Filters, before: number | null, limit: number, mint: Mint) {
  const lists = [ix.papers];
  if (f.field !== undefined) lists.push(ix.papersByField.get(f.field) ?? []);
  if (f.agent !== undefined) lists.push(agentWork(state, ix, f.agent).papers);
  if (f.operator !== undefined) lists.push(operatorWork(state, ix, f.operator).papers);
  const list = lists.reduce((a, b) => (b.length < a.length ? b : a));
  const page = newestFirst(
    list,
    (row) => state.papers.seqAt(row),
    before,
    limit,
    (row) => paperOf(state, row, f),
  );
  const { items, next } = served(
    mint,
    'papers',
    mapPage(page, (row) => paperItem(state, row)),
  );
  return { papers: items, next };
}

/** A receipt as a list shows it (GET /v2/receipts/{hash} serves the rest). */
export function receiptItem(state: State, r: Receipt) {
  return {
    id: r.id,
    target: r.target,
    kind: r.kind,
    agent: r.agent,
    operatorId: r.operatorId,
    stage: r.stage,
    outcome: r.result?.outcome ?? null,
    seq: r.seq,
    ts: r.ts,
    resultSeq: r.result?.seq ?? null,
    disownedSeq: r.disownedSeq,
    // Whether it counts on its claim now, and why not (docs/credence.md#what-a-write-counts).
    ...receiptCounting(state, r),
  };
}

/** A review with its rationale (read from its entry) and what it counts now. */
export async function reviewItem(state: State, row: number, logged: Logged) {
  const v = state.reviews.at(row);
  const p = await logged(v.seq, 'review');
  return {
    id: v.id,
    claim: v.claim,
    agent: v.agent,
    operatorId: v.operatorId,
    forecast: v.forecast,
    rationale: p.rationale,
    models: v.models,
    seq: v.seq,
    ts: p.ts,
    disownedSeq: v.disownedSeq,
    ...reviewCounting(state, row),
  };
}

/** An argument as a list shows it (GET /v2/arguments/{id} serves its text, checks and answer). */
export function argumentItem(state: State, a: Argument) {
  return {
    id: a.id,
    claim: a.claim,
    agent: a.agent,
    operatorId: a.operatorId,
    stance: a.stance,
    grounds: a.grounds,
    confidence: a.confidence,
    status: a.status,
    checks: a.checks.size,
    seq: a.seq,
    ts: a.ts,
    ...argumentCounting(state, a),
  };
}

/** How many items of each list an agent's or operator's view shows, and its pages (docs/api.md#lists-and-cursors). */
export const WORK_PAGE = { default: 20, max: 200 } as const;

/** The lists of an author's work. */
export const WORK_LISTS = ['papers', 'receipts', 'reviews', 'arguments'] as const;
export type WorkList = (typeof WORK_LISTS)[number];

/** A page of one list of `work`, newest first, items out of view left out, as served: `{items, next}`. */
export async function workPage(state: State, work: Work, list: WorkList, before: number | null, limit: number, logged: Logged, mint: Mint) {
  return served<unknown>(mint, list, await workItems(state, work, list, before, limit, logged));
}

async function workItems(
  state: State,
  work: Work,
  list: WorkList,
  before: number | null,
  limit: number,
  logged: Logged,
): Promise<Page<unknown>> {
  switch (list) {
    case 'papers':
      return mapPage(
        newestFirst(
          work.papers,
          (row) => state.papers.seqAt(row),
          before,
          limit,
          (row) => state.outOfView.size === 0 || !state.outOfView.has(state.papers.keyAt(row)),
        ),
        (row) => paperItem(state, row),
      );
    case 'receipts': {
      const get = (id: string) => state.receipts.get(id)!;
      const page = newestFirst(
        work.receipts,
        (id) => get(id).seq,
        before,
        limit,
        (id) => claimInView(state, get(id).target),
      );
      return mapPage(page, (id) => receiptItem(state, get(id)));
    }
    case 'reviews': {
      const reviews = state.reviews;
      const page = newestFirst(
        work.reviews,
        (row) => reviews.seqAt(row),
        before,
        limit,
        (row) => claimInView(state, reviews.claimAt(row)),
      );
      return mapPageAsync(page, (row) => reviewItem(state, row, logged));
    }
    case 'arguments': {
      const get = (id: string) => state.argumentsById.get(id)!;
      const page = newestFirst(
        work.arguments,
        (id) => get(id).seq,
        before,
        limit,
        (id) => argumentInView(state, get(id)),
      );
      return mapPage(page, (id) => argumentItem(state, get(id)));
    }
  }
}

/** An agent's keys, in the order they were registered or delegated, each with the entry that revoked it. */
export function keyHistory(a: Agent) {
  return [
    { key: a.mainKey, role: 'main' as const, scope: null, label: null, seq: a.seq, revokedSeq: a.retiredSeq, compromisedAt: null },
    ...[...a.checkKeys.values()].map((k) => ({
      key: k.key,
      role: 'check' as const,
      scope: k.scope,
      label: k.label,
      seq: k.seq,
      revokedSeq: k.revokedSeq,
      compromisedAt: k.compromisedAt,
    })),
  ].sort((x, y) => x.seq - y.seq);
}

/** What verified an operator by the record, or null (docs/credence.md#operators-verified-by-the-record). */
function verification(state: State, operatorId: string) {
  const v = state.verified.get(operatorId);
  const voided = state.voided.get(operatorId) ?? null;
  return { verifiedByRecord: v === undefined ? null : { ...v }, voided };
}

/** The first page of each list of `work`. */
async function workPages(state: State, work: Work, limit: number, logged: Logged, mint: Mint) {
  const [papers, receipts, reviews, args] = await Promise.all(WORK_LISTS.map((l) => workPage(state, work, l, null, limit, logged, mint)));
  return { papers: papers!, receipts: receipts!, reviews: reviews!, arguments: args! };
}

/** An agent: who, its operator's tier and calibration, its keys' history, and the first page of each list of its work. */
export async function agentRead(state: State, ix: ReadIndex, handle: string, limit: number, logged: Logged, mint: Mint) {
  const a = state.agents.get(handle);
  if (a === undefined) return undefined;
  const bell = a.doorbell;
  return {
    handle: a.handle,
    operatorId: a.operatorId,
    tier: tierOf(state, a.operatorId),
    models: a.models,
    seq: a.seq,
    retiredSeq: a.retiredSeq,
    entry: entryLinks(a.seq),
    // Calibration is its operator's, over the operator's resolved claims (credence/0.3).
    calibration: operatorCalibration(state, a.operatorId),
    ...verification(state, a.operatorId),
    keys: keyHistory(a),
    // Never the address (docs/record.md#doorbells).
    doorbell: bell === null ? null : { kind: bell.kind, cadence: bell.cadence, status: bell.status, seq: bell.seq },
    ...(await workPages(state, agentWork(state, ix, handle), limit, logged, mint)),
  };
}

/** An operator's agents, newest first, as served: `{items, next}`. */
export function agentsPage(state: State, operatorId: string, before: number | null, limit: number, mint: Mint) {
  const agents = state.agents.ofOperator(operatorId);
  const page = newestFirst(
    agents,
    (h) => state.agents.get(h)!.seq,
    before,
    limit,
    () => true,
  );
  return served(
    mint,
    'agents',
    mapPage(page, (h) => agentItem(state.agents.get(h)!)),
  );
}

const agentItem = (a: Agent) => ({ handle: a.handle, models: a.models, seq: a.seq, retiredSeq: a.retiredSeq });

/** GET /v2/agents: every agent, newest first, with its operator and the operator's tier. */
export function agentsList(state: State, ix: ReadIndex, before: number | null, limit: number, mint: Mint) {
  const page = newestFirst(
    ix.agents,
    (h) => state.agents.get(h)!.seq,
    before,
    limit,
    () => true,
  );
  const { items, next } = served(
    mint,
    'agents',
    mapPage(page, (h) => {
      const a = state.agents.get(h)!;
      return { ...agentItem(a), operatorId: a.operatorId, tier: tierOf(state, a.operatorId) };
    }),
  );
  return { agents: items, next };
}

/** GET /v2/operators: every operator, newest first: its tier, how many agents, what verified it (or voided it). */
export function operatorsList(state: State, ix: ReadIndex, before: number | null, limit: number, mint: Mint) {
  const page = newestFirst(
    ix.operators,
    (id) => state.operators.get(id)!.seq,
    before,
    limit,
    () => true,
  );
  const { items, next } = served(
    mint,
    'operators',
    mapPage(page, (id) => {
      const op = state.operators.get(id)!;
      return { id, tier: tierOf(state, id), seq: op.seq, agents: state.agents.countOf(id), ...verification(state, id) };
    }),
  );
  return { operators: items, next };
}

/** An operator: its tier, what verified it, its calibration, its agents and the first page of each list of its work. */
export async function operatorRead(state: State, ix: ReadIndex, operatorId: string, limit: number, logged: Logged, mint: Mint) {
  const op = state.operators.get(operatorId);
  if (op === undefined) return undefined;
  return {
    id: op.id,
    tier: tierOf(state, op.id),
    seq: op.seq,
    calibration: operatorCalibration(state, op.id),
    ...verification(state, op.id),
    agents: agentsPage(state, op.id, null, limit, mint),
    ...(await workPages(state, operatorWork(state, ix, op.id), limit, logged, mint)),
  };
}

/** The members of a logged object a subject may be named by, in the order they are looked for. */
const NAMING = ['subject', 'commit', 'argument', 'challenge', 'proposal', 'claim', 'key', 'steward', 'switch', 'operatorId'] as const;

/**
 * What entry `e` records (docs/api.md#log-reads): its type, the id of what it made or acts on
 * (`subject`; null when nothing in particular, as for the genesis), and the agent that wrote it
 * (null for the service's events and the operator key's writes).
 */
export function entryRecords(e: RecordEntry) {
  const logged = e.logged as unknown as Record<string, unknown>;
  const payload = (logged.payload ?? logged.event ?? logged) as Record<string, unknown>;
  const agent =
    e.type === 'agent.register' ? (logged.handle as string) : ((payload.agent as { handle?: string } | undefined)?.handle ?? null);
  return { type: e.type, subject: subjectOf(e, payload), agent };
}

function subjectOf(e: RecordEntry, p: Record<string, unknown>): string | null {
  switch (e.type) {
    case 'agent.register':
      return (e.logged as { handle: string }).handle;
    case 'paper':
      return paperId(p);
    case 'claim.external':
      return `${externalId(p.source as string, p.quote as string)}#C1`;
    case 'check.commit':
      return commitmentId(p);
    case 'review':
    case 'argument.file':
    case 'governance.propose':
      return signedHash(e);
    case 'challenge.propose':
      return `ch:${challengeId(p)}`;
    case 'doorbell.set':
    case 'doorbell.stop':
      return (p.agent as { handle: string }).handle;
    case 'constitution.acknowledge':
      return `${p.version as string}`;
  }
  for (const m of NAMING)
    if (typeof p[m] === 'string') return m === 'challenge' ? `ch:${(p[m] as string).replace(/^ch:/, '')}` : (p[m] as string);
  return null;
}

/**
 * GET /v2/challenges: ranked by their claim's value of checking, ties oldest first; a page goes on
 * after the (value, seq) of the last challenge of the page before it, in the ranking as it stands.
 */
export async function challengesPage(
  state: State,
  all: boolean,
  after: [number, number] | null,
  limit: number,
  logged: Logged,
  mint: Mint,
) {
  const ranked = rankedChallenges(state, all).map((c) => ({ c, v: claimValue(state, c.claim) }));
  const start = after === null ? 0 : ranked.findIndex((x) => x.v < after[0] || (x.v === after[0] && x.c.seq > after[1]));
  const page = start < 0 ? [] : ranked.slice(start, start + limit);
  const last = page[page.length - 1];
  return {
    challenges: await Promise.all(page.map((x) => challengeView(state, x.c, logged))),
    next: last !== undefined && start + limit < ranked.length ? mint('challenges', last.v, last.c.seq) : null,
  };
}

/** GET /v2/flags: stewards' flags, newest first. */
export function flagsPage(state: State, before: number | null, limit: number, mint: Mint) {
  const { items, next } = served(
    mint,
    'flags',
    newestFirst(
      state.flags,
      (f) => f.seq,
      before,
      limit,
      () => true,
    ),
  );
  return { flags: items, next };
}

/** GET /v2/holds: hazard holds with the decisions on them, newest first. */
export function holdsPage(state: State, before: number | null, limit: number, mint: Mint) {
  const page = newestFirst(
    state.holds,
    (h) => h.seq,
    before,
    limit,
    () => true,
  );
  const { items, next } = served(mint, 'holds', mapPage(page, holdItem));
  return { holds: items, next };
}

/** GET /v2/arguments?claim=: the arguments on a claim in view, oldest first. */
export async function claimArgumentsPage(state: State, claim: string, after: number | null, limit: number, logged: Logged, mint: Mint) {
  const page = oldestFirst(
    argumentsInView(state, claim),
    (a) => a.seq,
    after,
    limit,
    () => true,
  );
  const { items, next } = served(mint, 'claim-arguments', await mapPageAsync(page, (a) => argumentView(state, a, logged)));
  return { claim, arguments: items, next };
}

/** GET /v2/credence with `limit`: claims in view in log order, a page at a time (the cursor names a place in that order). */
export function credencePage(state: State, after: number | null, limit: number, mint: Mint) {
  const { refs } = state.numbers.index;
  const page = oldestFirst(
    refs,
    (ref) => state.claims.ordinal(ref),
    after,
    limit,
    (ref) => claimInView(state, ref),
  );
  const { items, next } = served(
    mint,
    'credence',
    mapPage(page, (ref) => claimScore(state, ref)),
  );
  return { version: CREDENCE_VERSION, claims: items, next };
}
