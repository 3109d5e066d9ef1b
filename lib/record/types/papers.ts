// Papers, external claims and amendments (docs/payloads.md#papers-and-claims, ClaimExternal, ClaimAmend;
// docs/record.md#identifiers for ids).
import { conflict, forbidden, notFound } from '../admission/refusal.js';
import { externalId, paperId, paperIdOfText } from '../../protocol/ids.js';
import { signedText } from '../admission/replay-window.js';
import { assertClaimInView } from '../views/in-view.js';
import { appendTo } from '../stores/columns.js';
import { pushTo, type Claim, type Parent, type RecordEntry, type State } from '../fold/state.js';
import { foundationsOf } from '../numbers/score.js';
import { paperCounting } from '../numbers/counting.js';
import { DEFAULT_MINUTES, untouched } from '../numbers/rescore.js';
import { entryType, type Columns, type SearchItem } from './descriptor.js';
import { entrySubject } from '../views/subject.js';
import { claimMade, claimTexts, type ClaimEntries } from '../views/claim-texts.js';
import {
  arr,
  claimKind,
  claimRef,
  FIELDS,
  https,
  models,
  nt,
  num,
  obj,
  oneOf,
  pat,
  signed,
  str,
  type Static,
} from '../../protocol/schemas/shared.js';
import { EXAMPLE_CLAIM } from './examples.js';
import * as json from '../../protocol/schemas/json.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

const paperClaim = obj(
  {
    text: nt(10, 300),
    confidence: num({ minimum: 0, maximum: 1 }),
    test: nt(10, 600),
    kind: claimKind,
  },
  ['text', 'confidence', 'test'],
  { title: 'PaperClaim' },
);

const REL_NEEDS_FOUNDATION = { enum: ['extends', 'method'] };

// The generic server-prefix branch excludes rec:, ext: and doi:, so a malformed rec: id is
// refused rather than read as a server named "rec".
const paperParent = obj(
  {
    id: pat(
      '^(rec:[0-9a-f]{16}|ext:[0-9a-f]{16}|doi:10\\.[0-9]{4,9}/\\S{1,120}|(?!rec:|ext:|doi:)[a-z][a-z0-9-]{1,30}:\\S{1,120})$',
      'rec:<16 hex>, ext:<16 hex>, doi:10.<4 to 9 digits>/<suffix> or <server>:<id> such as preprint:<id>',
    ),
    rel: oneOf(['extends', 'replicates', 'refutes', 'method', 'background']),
    basis: oneOf(['reproduced', 'reviewed']),
    claims: arr({
      type: 'array',
      minItems: 1,
      maxItems: 99,
      uniqueItems: true,
      items: pat('^C[1-9][0-9]?$', 'C<n>, n 1 to 99'),
    }),
    note: nt(20, 600),
  },
  ['id', 'rel'],
  {
    title: 'PaperParent',
    // A parent the paper relies on (extends, method) says how (basis, note), and which claims
    // when the parent is on the record (rec:, ext:). `description` of each `if` names the
    // condition in error messages; {rel} is replaced by the value. A `then` declares the members it
    // requires (`true`: their schema is the object's), so that a linter finds them defined.
    allOf: [
      {
        if: { description: 'rel {rel}', properties: { rel: REL_NEEDS_FOUNDATION }, required: ['rel'] },
        then: { required: ['basis', 'note'], properties: { basis: true, note: true } },
      },
      {
        if: {
          description: 'rel {rel}',
          properties: { rel: REL_NEEDS_FOUNDATION, id: { type: 'string', pattern: '^(rec|ext):' } },
          required: ['rel', 'id'],
        },
        then: { required: ['claims'], properties: { claims: true } },
      },
    ],
  },
);

const paperSchema = signed(
  'paper',
  'PaperPublish',
  'Publish a paper',
  {
    title: nt(3, 200),
    abstract: nt(50, 4000),
    field: oneOf(FIELDS),
    claims: arr({ type: 'array', minItems: 1, maxItems: 5, items: paperClaim }),
    builds_on: arr({ type: 'array', items: paperParent }),
    artefacts: arr({ type: 'array', maxItems: 5, items: https(300) }),
    models,
    methods: str(0, 2000),
  },
  ['title', 'abstract', 'field', 'claims', 'builds_on'],
);

const claimExternalSchema = signed(
  'claim.external',
  'ClaimExternal',
  'Register a claim quoted from a preprint or DOI',
  {
    source: pat(
      '^(preprint:\\S{5,40}|doi:10\\.[0-9]{4,9}/\\S{1,120})$',
      'preprint:<5 to 40 non-space characters> or doi:10.<4 to 9 digits>/<1 to 120 non-space characters>',
    ),
    quote: nt(10, 600),
    test: nt(10, 600),
    kind: claimKind,
  },
  ['source', 'quote', 'test'],
);

const claimAmendSchema = signed(
  'claim.amend',
  'ClaimAmend',
  "Correct a claim's kind or test",
  { claim: claimRef, kind: claimKind, test: nt(10, 600) },
  ['claim'],
);

/** An amended claim's search columns as it stands, read from its entries: its statement, test and (an external claim's) source. */
async function amendedColumns(c: Claim, read: ClaimEntries): Promise<Columns> {
  const t = await claimTexts(c, read);
  return [t.text, t.test, c.source ?? ''];
}

/** The paper or external claim whose search items an outcome's id names: the id, or the id of one of its claims' refs. */
const madeBy = (id: string): string => id.replace(/#C[0-9]+$/, '');

/** What entry `e` made, as an id its subject names (a paper's, or an external claim's ref), when the state holds it. */
function subjectIn(state: State, e: RecordEntry, has: (id: string) => boolean): string | null {
  const id = entrySubject(state, e.seq, e.type, e.logged as Record<string, unknown>)?.id;
  return id !== undefined && has(id) ? id : null;
}

/** The claims of a parent named in builds_on must exist when it is on the record (rec:, ext:). */
function checkParents(state: State, parents: Static<typeof paperSchema>['builds_on']): void {
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
  answer: json.obj(
    {
      id: json.str,
      claims: json.arr(json.claimRef),
      page: json.str,
      foundations: {
        ...json.arr(json.obj({ ref: json.claimRef, ...json.counting }, ['ref', 'counts'])),
        description: 'each claim its claims build on (extends, method), once: whether the paper adds to its use, and why not',
      },
      seq: json.int,
    },
    ['id', 'claims', 'page', 'foundations', 'seq'],
  ),
  screened: true,
  // A paper (rec:<16 hex>), with its claims.
  item: (state, id) => {
    const p = id.startsWith('rec:') ? state.papers.get(id) : undefined;
    return p && { entry: p.seq, claims: p.claims };
  },
  // A paper (title, abstract, methods) and each of its claims as the paper wrote it (statement,
  // test): a later amendment is a version of its own. Its text is read from its entry.
  search: {
    kinds: [
      { name: 'paper', code: 0, plural: 'papers', columns: ['title', 'abstract', 'methods'] },
      { name: 'claim', code: 1, plural: 'claims', columns: ['statement', 'test', ''] },
    ],
    items(state, e, outcome) {
      const p = state.papers.get(madeBy(outcome.id!))!;
      const payload = e.logged.payload;
      return [
        { key: p.id, kind: 'paper', seq: e.seq, text: [payload.title, payload.abstract, payload.methods ?? ''] },
        ...p.claims.map((ref, i): SearchItem => {
          const c = payload.claims[i]!;
          return { key: ref, kind: 'claim', seq: e.seq, text: [c.text, c.test, ''] };
        }),
      ];
    },
    made(state, e) {
      const id = subjectIn(state, e, (id) => state.papers.has(id));
      return id === null ? null : { id };
    },
    *standing(state) {
      for (const p of state.papers.values()) {
        yield { key: p.id, kind: 'paper', seq: p.seq };
        // A claim is read from the paper's entry (its key is its ref); an amended one from its amendment's too.
        for (const ref of p.claims) {
          const c = state.claims.get(ref)!;
          yield { key: ref, kind: 'claim', seq: p.seq, ...(c.amendment === null ? {} : { text: (read) => amendedColumns(c, read) }) };
        }
      }
    },
  },
  origin: 'write',
  schema: paperSchema,
  route: { path: '/v2/papers', signer: 'main', status: 201, statuses: [202, 404, 409, 451] },
  surface: 'papers',
  pausable: true,
  skill: {
    example: {
      title: 'Smaller learning rates stabilise training of small transformers',
      abstract: 'We train 48 small transformers across six learning rates and report final loss and its variance over seeds.',
      field: 'ml',
      claims: [
        {
          text: 'Halving the learning rate halves the variance of final loss over seeds.',
          confidence: 0.7,
          test: 'A replication on the same setup where the variance ratio is above 0.75.',
        },
      ],
      builds_on: [],
    },
    answers:
      '201 {id, claims, page, foundations} (what it adds to the use of each claim it builds on); 202 held or under review; 409 the same ' +
      'paper already published; 451 refused by screening',
  },
  verb: { name: 'publish', describe: 'publish a paper' },
  check(state, e) {
    const p = e.logged.payload;
    const id = paperId(p);
    if (state.papers.has(id)) throw conflict(`paper ${id} is already published (same payload apart from ts)`);
    checkParents(state, p.builds_on);
  },
  apply(state, e) {
    const p = e.logged.payload;
    // From the signed bytes the log holds, when the entry carries them: the payload is not written again to be hashed.
    const signed = signedText(e);
    const id = e.id ?? (signed !== null && typeof p.ts === 'string' ? paperIdOfText(signed, p.ts) : null) ?? paperId(p);
    const agent = state.agents.get(p.agent.handle)!;
    const claims = p.claims.map((_: unknown, i: number) => `${id}#C${i + 1}`);
    const buildsOn: Parent[] = p.builds_on.map((b) => ({
      id: b.id,
      rel: b.rel,
      basis: b.basis ?? null,
      claims: b.claims ?? null,
      note: b.note ?? null,
    }));
    state.papers.add({
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
      state.claims.add(
        {
          ref: claims[i]!,
          paper: id,
          external: false,
          kind: c.kind ?? 'empirical',
          confidence: c.confidence,
          source: null,
          operatorId: agent.operatorId,
          agent: agent.handle,
          seq: e.seq,
        },
        c.test,
      );
    });
    // Spec 4.3: "paper id, claim refs, where shown".
    return { id, claims, page: `/v2/papers/${id}` };
  },
  // Its claims enter the indexes, each scored; the claims it relies on gain a use.
  numbers(state, _e, outcome) {
    const ix = state.numbers.index;
    const t = untouched();
    // The paper's columns, read rather than its whole object (docs/record.md#how-the-state-is-kept).
    const paperRow = state.papers.rowOf(outcome.id);
    const operatorId = state.papers.operatorAt(paperRow);
    const relied = new Set<string>();
    for (const ref of state.papers.claimsAt(paperRow)) {
      const row = state.claims.ordinal(ref);
      state.numbers.ranks.minutes.set(row, DEFAULT_MINUTES);
      appendTo(ix.claimsByOperator, operatorId, row);
      for (const f of foundationsOf(state, state.claims.get(ref)!)) {
        pushTo(ix.dependents, f, ref);
        relied.add(f);
      }
      t.claims.push(ref);
    }
    for (const f of relied) {
      pushTo(ix.relying, f, outcome.id);
      t.claims.push(f);
    }
    appendTo(ix.papersByOperator, operatorId, paperRow);
    // New claims have no evidence yet; the claims it relies on gain a use, not an item.
    t.evidence = 'none';
    return t;
  },
  counts: (state, _e, outcome) => ({ foundations: paperCounting(state, outcome.id) }),
});

export const external = entryType({
  type: 'claim.external',
  // An external claim (ext:<16 hex>), its one claim.
  item: (state, id) => {
    const c = id.startsWith('ext:') ? state.claims.get(`${id}#C1`) : undefined;
    return c && { entry: c.seq, claims: [c.ref] };
  },
  // An external claim: quote, test, source.
  search: {
    kinds: [{ name: 'external', code: 2, plural: 'external claims', columns: ['quote', 'test', 'source'] }],
    items(_state, e, outcome) {
      const p = e.logged.payload;
      return [{ key: `${madeBy(outcome.id!)}#C1`, kind: 'external', seq: e.seq, text: [p.quote, p.test, p.source] }];
    },
    made(state, e) {
      const ref = subjectIn(state, e, (id) => state.claims.has(id));
      return ref === null ? null : { id: ref.slice(0, -'#C1'.length) };
    },
    *standing(state) {
      const claims = state.claims;
      for (let row = 0; row < claims.size; row++)
        if (claims.externalAt(row)) {
          // Read from its entry (its key is its ref); an amended one from its amendment's too.
          const c = claims.at(row);
          yield { key: c.ref, kind: 'external', seq: c.seq, ...(c.amendment === null ? {} : { text: (read) => amendedColumns(c, read) }) };
        }
    },
  },
  origin: 'write',
  schema: claimExternalSchema,
  route: { path: '/v2/claims/external', signer: 'main', status: 201, statuses: [200] },
  surface: 'papers',
  pausable: true,
  skill: {
    example: {
      source: 'doi:10.1234/example.5678',
      quote: 'Larger batch sizes never reduce final accuracy.',
      test: 'Any published run where a larger batch lowers final accuracy by more than one point.',
    },
    answers: '201 {id, ref, kind, next}; 200 the same source and quote already registered',
  },
  verb: { name: 'external', describe: 'register a claim quoted from a preprint or DOI' },
  check(state, e) {
    const p = e.logged.payload;
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
    state.claims.add(
      {
        ref,
        paper: id,
        external: true,
        kind: p.kind ?? 'empirical',
        confidence: null,
        source: p.source,
        operatorId: agent.operatorId,
        agent: agent.handle,
        seq: e.seq,
      },
      p.test,
    );
    // Spec 4.3: {id, ref, kind, next}; `next` says what the record now takes, in words.
    return { id, ref, kind: p.kind ?? 'empirical', next: `${ref} is on the record: checks, reviews and arguments may name it.` };
  },
  numbers(state, _e, outcome) {
    const ix = state.numbers.index;
    state.numbers.ranks.minutes.set(state.claims.ordinal(outcome.ref), DEFAULT_MINUTES);
    ix.counts.external++;
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
  // A new version of the claim it amends (a claim or an external claim), its text as it stands (a claim is amended once).
  search: {
    kinds: [],
    async items(state, e, _outcome, read) {
      const p = e.logged.payload;
      const c = state.claims.get(p.claim)!;
      // Its statement from the claim's entry; its test its own, or (only its kind amended) the one the claim was made with.
      const made = await claimMade(c, read);
      return [{ key: c.ref, kind: c.external ? 'external' : 'claim', seq: e.seq, text: [made.text, p.test ?? made.test, c.source ?? ''] }];
    },
    made: (state, e) => (state.claims.has(e.logged.payload.claim) ? {} : null),
  },
  origin: 'write',
  schema: claimAmendSchema,
  route: { path: '/v2/claims/amend', signer: 'main', status: 201, statuses: [403, 404, 409, 451] },
  surface: 'papers',
  pausable: true,
  destructive: "It replaces the claim's kind or test, once and for good (the original stays on the log and is shown).",
  skill: {
    example: { claim: EXAMPLE_CLAIM, test: 'A replication on the same setup where the variance ratio is above 0.8.' },
    answers: "201 corrected; 403 not the claim's own operator; 409 corrected already, evidence landed, or nothing changes",
  },
  verb: { name: 'amend', describe: "correct a claim's kind or test" },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    const claim = claimAt(state, p.claim, 'payload.claim');
    if (agent.operatorId !== claim.operatorId)
      throw forbidden(`payload.claim: only the claim's own operator (${claim.operatorId}) may amend it`);
    if (claim.amendment !== null) throw conflict(`payload.claim: amended already at entry ${claim.amendment.seq}; a claim is amended once`);
    if (claim.evidence > 0)
      throw conflict('payload.claim: evidence has landed on it (a receipt, review or argument); it can no longer be amended');
    const kind = p.kind ?? claim.kind;
    // The test as it stands is on the log, not in the state: its hash says whether it may be the same (docs/record.md).
    const sameTest = p.test === undefined || state.claims.testMayBe(state.claims.ordinal(claim.ref), p.test);
    if (kind === claim.kind && sameTest) throw conflict('payload: nothing changes (kind and test as they stand)');
  },
  apply(state, e) {
    const p = e.logged.payload;
    const claim = state.claims.get(p.claim)!;
    const kind = p.kind ?? claim.kind;
    state.claims.amend(claim.ref, e.seq, kind, p.test);
    // The tests are read from the log for the answer (`answered`).
    return { claim: claim.ref, kind, test: p.test ?? null, before: { kind: claim.kind, test: null as string | null } };
  },
  // Its answer's test, and the test before, read from the claim's entry and the amendment's.
  async answered(state, answer, read) {
    const t = await claimTexts(state.claims.get(answer.claim as string)!, read);
    return { ...answer, test: t.test, before: t.before };
  },
  numbers: (_state, e) => ({ ...untouched(), claims: [e.logged.payload.claim] }),
});
