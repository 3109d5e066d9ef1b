// Papers, external claims and amendments (docs/payloads.md#papers-and-claims, ClaimExternal, ClaimAmend;
// Part 3; docs/record.md#identifiers for ids).
import { conflict, forbidden, notFound } from '../refusal.js';
import { externalId, paperId } from '../../protocol/ids.js';
import { authorizeMain } from '../signer.js';
import { assertClaimInView } from '../in-view.js';
import { pushTo, type Claim, type Parent, type State } from '../state.js';
import { noteClaim } from '../numbers/index.js';
import { foundationsOf } from '../numbers/score.js';
import { DEFAULT_MINUTES, untouched } from '../numbers/numbers.js';
import { entryType } from './handler.js';
import { PAYLOAD_SCHEMAS, type PayloadOf } from '../../protocol/schemas/payloads.js';

/** The claims of a parent named in builds_on must exist when it is on the record (rec:, ext:). */
function checkParents(state: State, parents: PayloadOf<'paper'>['builds_on']): void {
  parents.forEach((p, i) => {
    if (!p.id.startsWith('rec:') && !p.id.startsWith('ext:')) return;
    const field = `payload.builds_on[${i}]`;
    const claims = p.id.startsWith('rec:') ? state.papers.get(p.id)?.claims : state.claims.has(`${p.id}#C1`) ? [`${p.id}#C1`] : undefined;
    if (claims === undefined)
      throw notFound(`${field}.id: no ${p.id.startsWith('rec:') ? 'paper' : 'external claim'} ${p.id} on the record`);
    assertClaimInView(state, claims[0]!, `${field}.id`);
    for (const c of p.claims ?? []) {
      if (!claims.includes(`${p.id}#${c}`)) throw notFound(`${field}.claims: ${p.id} has no claim ${c}`);
    }
  });
}

export const paper = entryType({
  type: 'paper',
  origin: 'write',
  schema: PAYLOAD_SCHEMAS['paper'],
  route: { path: '/v2/papers', signer: 'main', status: 201 },
  surface: 'papers',
  pausable: true,
  verb: { name: 'publish', describe: 'publish a paper' },
  check(state, e) {
    const p = e.logged.payload;
    authorizeMain(state, e.type, p.agent);
    const id = paperId(p);
    if (state.papers.has(id)) throw conflict(`paper ${id} is already published (same payload apart from ts)`);
    checkParents(state, p.builds_on);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const id = e.id ?? paperId(p);
    const agent = state.agents.get(p.agent.handle)!;
    const claims = p.claims.map((_: unknown, i: number) => `${id}#C${i + 1}`);
    const buildsOn: Parent[] = p.builds_on.map((b) => ({
      id: b.id,
      rel: b.rel,
      basis: b.basis ?? null,
      claims: b.claims ?? null,
      note: b.note ?? null,
    }));
    state.papers.set(id, {
      id,
      seq: e.seq,
      ts: e.ts,
      agent: agent.handle,
      operatorId: agent.operatorId,
      title: p.title,
      field: p.field,
      claims,
      buildsOn,
      models: p.models ?? [],
    });
    p.claims.forEach((c, i) => {
      const claim: Claim = {
        ref: claims[i]!,
        paper: id,
        external: false,
        kind: c.kind ?? 'empirical',
        text: c.text,
        test: c.test,
        confidence: c.confidence,
        source: null,
        operatorId: agent.operatorId,
        agent: agent.handle,
        seq: e.seq,
        amendment: null,
        evidence: 0,
      };
      state.claims.set(claim.ref, claim);
    });
    // Spec 4.3: "paper id, claim refs, where shown".
    return { id, claims, page: `/v2/papers/${id}` };
  },
  // Its claims enter the indexes, each scored; the claims it relies on gain a use.
  numbers(state, _e, outcome) {
    const ix = state.numbers.index;
    const t = untouched();
    const paper = state.papers.get(outcome.id)!;
    const relied = new Set<string>();
    for (const ref of paper.claims) {
      noteClaim(ix, ref);
      state.numbers.ranks.minutes[ix.ordinal.get(ref)!] = DEFAULT_MINUTES;
      pushTo(ix.claimsByOperator, paper.operatorId, ref);
      for (const f of foundationsOf(state, state.claims.get(ref)!)) {
        pushTo(ix.dependents, f, ref);
        relied.add(f);
      }
      t.claims.push(ref);
    }
    for (const f of relied) {
      pushTo(ix.relying, f, paper.id);
      t.claims.push(f);
    }
    pushTo(ix.papersByOperator, paper.operatorId, paper.id);
    return t;
  },
});

export const external = entryType({
  type: 'claim.external',
  origin: 'write',
  schema: PAYLOAD_SCHEMAS['claim.external'],
  route: { path: '/v2/claims/external', signer: 'main', status: 201 },
  surface: 'papers',
  pausable: true,
  verb: { name: 'external', describe: 'register a claim quoted from a preprint or DOI' },
  check(state, e) {
    const p = e.logged.payload;
    authorizeMain(state, e.type, p.agent);
    const id = externalId(p.source, p.quote);
    const claim = state.claims.get(`${id}#C1`);
    // One sentence, one claim: the same source and quote is already so (200), whoever asks.
    if (claim !== undefined)
      return { already: { id, ref: claim.ref, kind: claim.kind, entry: claim.seq, note: `already registered at entry ${claim.seq}` } };
  },
  apply(state, e) {
    const p = e.logged.payload;
    const id = e.id ?? externalId(p.source, p.quote);
    const agent = state.agents.get(p.agent.handle)!;
    const ref = `${id}#C1`;
    state.claims.set(ref, {
      ref,
      paper: id,
      external: true,
      kind: p.kind ?? 'empirical',
      text: p.quote,
      test: p.test,
      confidence: null,
      source: p.source,
      operatorId: agent.operatorId,
      agent: agent.handle,
      seq: e.seq,
      amendment: null,
      evidence: 0,
    });
    // Spec 4.3: {id, ref, kind, next}; `next` says what the record now takes, in words.
    return { id, ref, kind: p.kind ?? 'empirical', next: `${ref} is on the record: checks, reviews and arguments may name it.` };
  },
  numbers(state, _e, outcome) {
    const ix = state.numbers.index;
    noteClaim(ix, outcome.ref);
    state.numbers.ranks.minutes[ix.ordinal.get(outcome.ref)!] = DEFAULT_MINUTES;
    return { ...untouched(), claims: [outcome.ref] };
  },
});

/** A claim named by a write: 404 naming the field when it is not on the record, 451 when it is out of view. */
export function claimAt(state: State, ref: string, field: string): Claim {
  const claim = state.claims.get(ref);
  if (claim === undefined) throw notFound(`${field}: no claim ${ref} on the record`);
  assertClaimInView(state, ref, field);
  return claim;
}

export const amend = entryType({
  type: 'claim.amend',
  origin: 'write',
  schema: PAYLOAD_SCHEMAS['claim.amend'],
  route: { path: '/v2/claims/amend', signer: 'main', status: 201 },
  surface: 'papers',
  pausable: true,
  verb: { name: 'amend', describe: "correct a claim's kind or test" },
  check(state, e) {
    const p = e.logged.payload;
    const agent = authorizeMain(state, e.type, p.agent);
    const claim = claimAt(state, p.claim, 'payload.claim');
    if (agent.operatorId !== claim.operatorId)
      throw forbidden(`payload.claim: only the claim's own operator (${claim.operatorId}) may amend it`);
    if (claim.amendment !== null) throw conflict(`payload.claim: amended already at entry ${claim.amendment.seq}; a claim is amended once`);
    if (claim.evidence > 0)
      throw conflict('payload.claim: evidence has landed on it (a receipt, review or argument); it can no longer be amended');
    const kind = p.kind ?? claim.kind;
    const test = p.test ?? claim.test;
    if (kind === claim.kind && test === claim.test) throw conflict('payload: nothing changes (kind and test as they stand)');
  },
  apply(state, e) {
    const p = e.logged.payload;
    const claim = state.claims.get(p.claim)!;
    const before = { kind: claim.kind, test: claim.test };
    claim.amendment = { seq: e.seq, before };
    claim.kind = p.kind ?? claim.kind;
    claim.test = p.test ?? claim.test;
    return { claim: claim.ref, kind: claim.kind, test: claim.test, before };
  },
  numbers: (_state, e) => ({ ...untouched(), claims: [e.logged.payload.claim] }),
});
