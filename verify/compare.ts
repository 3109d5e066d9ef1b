// Served reads against the replay: every number the service serves must be the one the log
// gives. The views are the service's own functions of the state (lib/record), so a verifier
// that replayed the same log computes the same bodies, member by member.
import { ArchiveClient, type Reply, type Served } from '../lib/client/http.js';
import { canonicalize } from '../lib/protocol/canonical-json.js';
import { claimScore, inView, frontier } from '../lib/record/numbers/index.js';
import {
  receiptView,
  summary,
  type Logged,
  agentRead,
  challengesPage,
  claimArgumentsPage,
  paperRead,
  papersPage,
  WORK_PAGE,
  readIndexOf,
  PAGE,
  type Mint,
} from '../lib/record/views/index.js';
import type { State } from '../lib/record/fold/index.js';
import { governanceSummary, proposalView } from '../lib/record/governance/index.js';
import type { LogCopy } from './source.js';
import type { Problems } from './report.js';

/** At most this many receipts, and this many claims' arguments, are read one by one (evenly spread). */
export const SAMPLE = 200;

/**
 * A list's cursor is opaque, authenticated by a key the service keeps (docs/api.md#lists-and-cursors):
 * the replay puts this mark where the service serves one, and a served cursor there is taken as it is.
 */
const CURSOR = '(the cursor of a next page)';
const opaque: Mint = () => CURSOR;

/** The first path at which `a` (served) and `b` (from the log) differ, or null when they are the same JSON. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (b === CURSOR) return typeof a === 'string' && a !== '' ? null : `${path}: served ${JSON.stringify(a)}, the log gives ${CURSOR}`;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return canonicalize(a ?? null) === canonicalize(b ?? null)
      ? null
      : `${path || '(body)'}: served ${JSON.stringify(a)}, the log gives ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: served ${JSON.stringify(a)}, the log gives ${JSON.stringify(b)}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length)
        return `${path}[${i}]: missing from what is served (the log gives ${a.length < b.length ? b.length : a.length} items)`;
      if (i >= b.length) return `${path}[${i}]: served, but the log gives only ${b.length} items`;
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const k of keys) {
    const d = firstDifference((a as Served)[k], (b as Served)[k], path === '' ? k : `${path}.${k}`);
    if (d !== null) return d;
  }
  return null;
}

/** Evenly spread picks of at most `n` items. */
function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

/** Reads asked for at once: the service answers the next while this side compares one. */
export const AHEAD = 8;

/**
 * Reads what the service serves and compares it with the replayed state; returns the names of
 * the reads compared. A read the service answers with an error is a problem too. The reads are
 * asked for AHEAD at a time and compared one by one in their order, so the problems are those,
 * in the same order, that reading them one at a time would find.
 */
export async function compareReads(client: ArchiveClient, log: LogCopy, state: State, problems: Problems): Promise<string[]> {
  const logged: Logged = async (seq, type) => {
    // An incremental run from a cache holds the older entries there (LogCopy.older).
    const e = log.entries[seq] ?? (await log.older!(seq));
    if (e.type !== type) throw new Error(`entry ${seq} is a ${e.type}, not the ${type} the replay names there`);
    return e.payload.payload;
  };
  const compared: string[] = [];
  /** Each read in order: its path, and the check of what the service answered. */
  const reads: { path: string; check: (r: Reply) => unknown }[] = [];
  const served = (path: string, r: Reply): Served => {
    if (r.status === 200) return r.body;
    problems.add('numbers', null, `GET ${path} answered ${r.status}`);
    return undefined;
  };
  const against = (name: string, path: string, expected: () => unknown | Promise<unknown>) =>
    reads.push({
      path,
      check: async (r) => {
        const body = served(path, r);
        if (body === undefined) return;
        compared.push(name);
        const d = firstDifference(body, await expected());
        if (d !== null) problems.add('numbers', null, `GET ${path}: ${d}`);
      },
    });

  // credence: claim by claim, so that a difference names its claim.
  reads.push({
    path: '/v2/credence',
    check: (r) => {
      const credence = served('/v2/credence', r);
      if (credence === undefined) return;
      compared.push('credence');
      const claims = new Map<string, unknown>((credence.claims ?? []).map((c: Served) => [c.ref, c]));
      if (credence.version !== 'credence/0.3')
        problems.add('numbers', null, `GET /v2/credence: version ${JSON.stringify(credence.version)}, expected "credence/0.3"`);
      for (const ref of state.numbers.index.refs) {
        if (!inView(state, ref)) continue;
        const c = claims.get(ref);
        if (c === undefined) {
          problems.add('numbers', state.claims.get(ref)!.seq, `GET /v2/credence: claim ${ref} is on the log but not served`);
          continue;
        }
        claims.delete(ref);
        const d = firstDifference(c, claimScore(state, ref));
        if (d !== null) problems.add('numbers', state.claims.get(ref)!.seq, `GET /v2/credence: claim ${ref}: ${d}`);
      }
      for (const ref of claims.keys()) problems.add('numbers', null, `GET /v2/credence: claim ${ref} is served but not on the log`);
    },
  });
  against('record', '/v2/record', () => summary(state));
  against('frontier', '/v2/frontier?limit=50', () => frontier(state, 50));
  against('governance', '/v2/governance', () => governanceSummary(state, opaque));
  for (const p of spread([...state.governance.proposals.values()], SAMPLE)) {
    against('governance', `/v2/governance/proposals/${p.id}`, () => proposalView(state, p));
  }
  against('challenges', '/v2/challenges?all=1&limit=200', () => challengesPage(state, true, null, 200, logged, opaque));
  // What stands on a claim out of view answers 451.
  const outOfView = (path: string) =>
    reads.push({
      path,
      check: (r) => {
        if (r.status !== 451) problems.add('numbers', null, `GET ${path} answered ${r.status}; the record holds it out of view (451)`);
      },
    });
  for (const r of spread([...state.receipts.values()], SAMPLE)) {
    if (!inView(state, r.target)) outOfView(`/v2/receipts/${r.id}`);
    else against('receipts', `/v2/receipts/${r.id}`, () => receiptView(state, r));
  }
  for (const claim of spread([...state.argumentsByClaim.keys()], SAMPLE)) {
    const path = `/v2/arguments?claim=${encodeURIComponent(claim)}`;
    if (!inView(state, claim)) outOfView(path);
    else against('arguments', path, () => claimArgumentsPage(state, claim, null, PAGE.default, logged, opaque));
  }
  // The readers' reads: the list of papers, papers one by one, agents with their work.
  const ix = readIndexOf(state);
  against('papers', '/v2/papers', () => papersPage(state, ix, {}, null, PAGE.default, opaque));
  for (const p of spread([...state.papers.values()], SAMPLE)) {
    const path = `/v2/papers/${p.id}`;
    if (state.outOfView.has(p.id)) outOfView(path);
    else against('papers', path, () => paperRead(state, p.id, logged));
  }
  for (const a of spread([...state.agents.values()], SAMPLE)) {
    against('agents', `/v2/agents/${a.handle}`, () => agentRead(state, ix, a.handle, WORK_PAGE.default, logged, opaque));
  }
  const asked: (Promise<Reply> | undefined)[] = [];
  const ask = (i: number) => {
    const r = client.get(reads[i]!.path);
    r.catch(() => undefined); // thrown where it is awaited, if it is
    asked[i] = r;
  };
  for (let i = 0; i < reads.length; i++) {
    for (let j = asked.length; j < Math.min(reads.length, i + AHEAD); j++) ask(j);
    const r = await asked[i]!;
    asked[i] = undefined;
    await reads[i]!.check(r);
  }
  return [...new Set(compared)];
}
