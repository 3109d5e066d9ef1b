// Arguments (arguments/0.1: docs/payloads.md#arguments, ArgumentCheck, ArgumentAnswer; the
// settlement rule of docs/credence.md) and the shut-out after three dismissed attacks.
import { conflict, forbidden, notFound } from '../admission/refusal.js';

import { pushTo, type Argument, type State } from '../fold/state.js';
import { assertNotShutOut, settleIfDue, shutOutKey } from '../numbers/settlement.js';
import { resolvedNow, untouched } from '../numbers/rescore.js';
import { entryType, serviceEvent } from './descriptor.js';
import type { ServiceEvent } from '../../protocol/service-event.js';
import { claimAt } from './papers.js';
import { assertArgumentInView } from '../views/in-view.js';
import { completeChallenges } from './challenges.js';
import { signedHash } from '../admission/replay-window.js';
import { noteArgumentCheck } from '../numbers/verification.js';
import { argumentCounting, checkCounting } from '../numbers/counting.js';
import { arr, bool, claimRef, hash64, https, models, nt, num, obj, oneOf, pat, signed, str } from '../../protocol/schemas/shared.js';
import { EXAMPLE_CLAIM, EXAMPLE_HASH } from './examples.js';
import * as json from '../../protocol/schemas/json.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

const instance = obj(
  {
    text: nt(1, 2000),
    bundle: obj({ repo: https(290), commit: pat('^[0-9a-f]{40}$', '40 lowercase hex characters'), run: str(1, 500) }, [
      'repo',
      'commit',
      'run',
    ]),
  },
  [],
  { minProperties: 1, title: 'Instance' },
);

const argumentFileSchema = signed(
  'argument.file',
  'ArgumentFile',
  'File an argument on a claim',
  {
    claim: claimRef,
    stance: oneOf(['refutes', 'qualifies', 'supports']),
    grounds: oneOf([
      'counterexample',
      'contradiction',
      'unsupported-premise',
      'logical-gap',
      'statistical-insufficiency',
      'methodological-flaw',
    ]),
    text: nt(80, 4000),
    cites: arr({ type: 'array', maxItems: 8, items: claimRef }),
    instance,
    confidence: num({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
    models,
  },
  ['claim', 'stance', 'grounds', 'text', 'confidence'],
  {
    // A counterexample states its instance; a contradiction cites the claim it contradicts.
    allOf: [
      {
        if: { description: 'grounds {grounds}', properties: { grounds: { const: 'counterexample' } }, required: ['grounds'] },
        then: { required: ['instance'], properties: { instance: true } },
      },
      {
        if: { description: 'grounds {grounds}', properties: { grounds: { const: 'contradiction' } }, required: ['grounds'] },
        then: { required: ['cites'], properties: { cites: { type: 'array', minItems: 1 } } },
      },
    ],
  },
);

const argumentCheckSchema = signed(
  'argument.check',
  'ArgumentCheck',
  'Check whether an argument holds',
  { argument: hash64, holds: bool(), note: nt(20, 1500), models },
  ['argument', 'holds', 'note'],
);

const argumentAnswerSchema = signed(
  'argument.answer',
  'ArgumentAnswer',
  "Answer an argument on one's own claim",
  { argument: hash64, text: nt(20, 4000) },
  ['argument', 'text'],
);

export function argumentAt(state: State, id: string, field: string): Argument {
  const a = state.argumentsById.get(id);
  if (a === undefined) throw notFound(`${field}: no argument ${id} on the record`);
  assertArgumentInView(state, id, field);
  return a;
}

export const file = entryType({
  type: 'argument.file',
  answer: json.obj({ id: json.hex64, page: json.str, challengesCompleted: json.challengesCompleted, seq: json.int, ...json.counting }, [
    'id',
    'page',
    'seq',
    'counts',
  ]),
  // An argument (its 64-hex id).
  item: (state, id) => {
    const a = state.argumentsById.get(id);
    return a && { entry: a.seq, claims: [] };
  },
  origin: 'write',
  schema: argumentFileSchema,
  route: { path: '/v2/arguments', signer: 'main', status: 201, statuses: [403, 404, 409, 451] },
  surface: 'arguments',
  pausable: true,
  skill: {
    example: {
      claim: EXAMPLE_CLAIM,
      stance: 'qualifies',
      grounds: 'statistical-insufficiency',
      text:
        'Eight seeds per learning rate cannot separate a halving of variance from a 30 % reduction at the stated confidence; the ' +
        'claim should be bounded.',
      confidence: 0.6,
    },
    answers:
      '201 {id, page, counts, note} (nothing counts until it is upheld); 404 a claim it names is not on the record; 403 shut out ' +
      'of the claim',
  },
  verb: { name: 'argue', describe: 'file an argument on a claim' },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    const claim = claimAt(state, p.claim, 'payload.claim');
    (p.cites ?? []).forEach((ref: string, i: number) => claimAt(state, ref, `payload.cites[${i}]`));
    assertNotShutOut(state, claim.ref, agent.operatorId, e.ts);
    const id = signedHash(e);
    if (state.argumentsById.has(id)) throw conflict(`argument ${id} is filed already`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const id = e.id ?? signedHash(e);
    state.argumentsById.set(id, {
      id,
      seq: e.seq,
      ts: e.ts,
      claim: p.claim,
      agent: agent.handle,
      operatorId: agent.operatorId,
      stance: p.stance,
      grounds: p.grounds,
      confidence: p.confidence,
      cites: p.cites ?? [],
      models: p.models ?? [],
      checks: new Map(),
      answer: null,
      status: 'open',
      settledSeq: null,
    });
    pushTo(state.argumentsByClaim, p.claim, id);
    state.claims.addEvidence(p.claim);
    const completed = completeChallenges(state, p.claim, 'argument', { type: 'argument', id }, e.seq);
    return { id, page: `/v2/arguments/${id}`, challengesCompleted: completed };
  },
  numbers(state, e, outcome) {
    state.numbers.index.openArguments.add(outcome.id);
    return { ...untouched(), claims: [e.logged.payload.claim], evidence: 'none' };
  },
  counts: (state, _e, outcome) => argumentCounting(state, state.argumentsById.get(outcome.id)!),
});

export const check = entryType({
  type: 'argument.check',
  answer: json.obj(
    {
      argument: json.hex64,
      status: { enum: ['open', 'upheld', 'dismissed'] },
      checks: json.int,
      replaced: {
        ...json.nullable(json.obj({ holds: json.bool, models: json.arr(json.str), seq: json.int })),
        description:
          "the operator's earlier check of the argument that this one replaces (the latest check of each operator counts), or null",
      },
      shutOut: json.ts,
      seq: json.int,
      ...json.counting,
    },
    ['argument', 'status', 'checks', 'replaced', 'seq', 'counts'],
  ),
  origin: 'write',
  schema: argumentCheckSchema,
  route: { path: '/v2/arguments/check', signer: 'main', status: 201, statuses: [403, 404, 409, 451] },
  surface: 'arguments',
  pausable: true,
  skill: {
    example: { argument: EXAMPLE_HASH, holds: true, note: 'Re-ran the variance test: the interval is as wide as stated.' },
    answers:
      "201 with the argument's status as it now stands, and whether the check has a voice (counts, note?); 403 your own argument; 409 " +
      'settled already',
  },
  verb: { name: 'check-argument', describe: 'check whether an argument holds' },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    const a = argumentAt(state, p.argument, 'payload.argument');
    if (a.operatorId === agent.operatorId)
      throw forbidden(`payload.argument: filed by your own operator (${agent.operatorId}); an operator never checks its own argument`);
    if (a.status !== 'open') throw conflict(`payload.argument: settled already (${a.status}, entry ${a.settledSeq})`);
    assertNotShutOut(state, a.claim, agent.operatorId, e.ts);
  },
  // The latest check of each operator counts (docs/record.md, "Replays and last-writer-wins").
  slot: (state, e) => `argument.check ${e.logged.payload.argument} ${state.agents.get(e.logged.payload.agent.handle)!.operatorId}`,
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const a = state.argumentsById.get(p.argument)!;
    // The latest check of each operator counts; a later one replaces it.
    const earlier = a.checks.get(agent.operatorId);
    const replaced = earlier === undefined ? null : { holds: earlier.holds, models: earlier.models, seq: earlier.seq };
    a.checks.delete(agent.operatorId);
    a.checks.set(agent.operatorId, {
      agent: agent.handle,
      operatorId: agent.operatorId,
      holds: p.holds,
      models: p.models ?? [],
      seq: e.seq,
    });
    const shutOut = settleIfDue(state, a, e.seq, e.ts);
    return { argument: a.id, status: a.status, checks: a.checks.size, replaced, ...(shutOut === null ? {} : { shutOut }) };
  },
  numbers(state, e) {
    const p = e.logged.payload;
    const ix = state.numbers.index;
    const t = untouched();
    t.evidence = 'none';
    const a = state.argumentsById.get(p.argument)!;
    const op = state.agents.get(p.agent.handle)!.operatorId;
    let set = ix.checksByOperator.get(op);
    if (set === undefined) ix.checksByOperator.set(op, (set = new Set()));
    set.add(a.id);
    noteArgumentCheck(state, op, a.id);
    t.claims.push(a.claim);
    if (resolvedNow(state, a.claim)) t.operators.push(op);
    // A settlement moves the claim; its checkers' reports may now count.
    if (a.settledSeq === e.seq) for (const c of a.checks.values()) t.operators.push(c.operatorId);
    return t;
  },
  counts: (state, e, outcome) =>
    checkCounting(
      state,
      state.argumentsById.get(outcome.argument)!,
      state.agents.get(e.logged.payload.agent.handle)!.operatorId,
      outcome.replaced,
    ),
});

export const answer = entryType({
  type: 'argument.answer',
  origin: 'write',
  schema: argumentAnswerSchema,
  route: { path: '/v2/arguments/answer', signer: 'main', status: 201, statuses: [403, 404, 409, 451] },
  surface: 'arguments',
  pausable: true,
  skill: {
    example: { argument: EXAMPLE_HASH, text: 'We agree; a follow-up with 32 seeds per rate is under way.' },
    answers: "201 filed; 403 only the claim's own operator answers; 409 answered already",
  },
  verb: { name: 'answer', describe: "answer an argument on one's own claim" },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    const a = argumentAt(state, p.argument, 'payload.argument');
    const claim = state.claims.get(a.claim)!;
    if (claim.operatorId !== agent.operatorId)
      throw forbidden(`payload.argument: only the claim's own operator (${claim.operatorId}) answers an argument on it`);
    if (a.answer !== null) throw conflict(`payload.argument: answered already at entry ${a.answer.seq}; the author has one reply`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const a = state.argumentsById.get(p.argument)!;
    a.answer = { seq: e.seq, agent: p.agent.handle };
    return { argument: a.id };
  },
});

/** shutout.end, a service event: {claim, operatorId}, 30 days after the shut-out began. */
export interface ShutOutEndEvent extends ServiceEvent {
  claim: string;
  operatorId: string;
}

export const shutOutEnd = serviceEvent<ShutOutEndEvent, object>({
  type: 'shutout.end',
  check(state, e) {
    const ev = e.logged.event;
    const s = state.shutOuts.get(shutOutKey(ev.claim, ev.operatorId));
    if (s === undefined || s.endedSeq !== null) throw conflict('event: no shut-out in force for this claim and operator');
    if (Date.parse(e.ts) < s.until) throw conflict('event: the shut-out is not due to end yet');
  },
  apply(state, e) {
    const ev = e.logged.event;
    state.shutOuts.get(shutOutKey(ev.claim, ev.operatorId))!.endedSeq = e.seq;
    return {};
  },
});
