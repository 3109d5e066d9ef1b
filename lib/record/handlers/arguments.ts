// Arguments (arguments/0.1: docs/payloads.md#arguments, ArgumentCheck, ArgumentAnswer; Part 3; the
// settlement rule of docs/credence.md) and the shut-out after three dismissed attacks.
import { conflict, forbidden, notFound } from '../../protocol/errors.js';
import { familiesOf } from '../../protocol/families.js';
import { payloadId } from '../../protocol/ids.js';
import { authorizeMain } from '../signer.js';
import { DAY, pushTo, tierOf, type Argument, type ArgumentStatus, type State } from '../state.js';
import type { Handler } from './handler.js';
import { claimAt } from './papers.js';
import { assertArgumentInView } from './out-of-view.js';
import { completeChallenges } from './challenges.js';

/** Three dismissed attacks on one claim shut the operator out of it for 30 days. */
export const SHUT_OUT_AFTER = 3;
export const SHUT_OUT_FOR = 30 * DAY;

const shutOutKey = (claim: string, operatorId: string): string => `${claim} ${operatorId}`;

/** 403 when `operatorId` is shut out of `claim` at `ts`. */
export function assertNotShutOut(state: State, claim: string, operatorId: string, ts: string): void {
  const s = state.shutOuts.get(shutOutKey(claim, operatorId));
  if (s !== undefined && s.endedSeq === null && Date.parse(ts) < s.until) {
    throw forbidden(`operator ${operatorId} is shut out of ${claim} until ${new Date(s.until).toISOString()} (three dismissed attacks)`);
  }
}

export function argumentAt(state: State, id: string, field: string): Argument {
  const a = state.argumentsById.get(id);
  if (a === undefined) throw notFound(`${field}: no argument ${id} on the record`);
  assertArgumentInView(state, id, field);
  return a;
}

/**
 * The settlement rule (docs/credence.md): the latest check of each verified operator other
 * than the claim's author's, one voice per set of declared families (a check that declares none
 * is a voice of its own); a side with at least two voices that outnumbers the other three to one
 * settles the argument.
 */
export function settlement(state: State, a: Argument): ArgumentStatus {
  const voices = { holds: new Set<string>(), fails: new Set<string>() };
  // The claim's own operator is not independent of it: its checks carry no voice.
  const author = state.claims.get(a.claim)?.operatorId;
  for (const c of a.checks.values()) {
    if (tierOf(state, c.operatorId) !== 'verified' || c.operatorId === author) continue;
    const families = familiesOf(c.models);
    const voice = families.length > 0 ? `families:${families.join(',')}` : `operator:${c.operatorId}`;
    (c.holds ? voices.holds : voices.fails).add(voice);
  }
  const h = voices.holds.size;
  const f = voices.fails.size;
  if (h >= 2 && h >= 3 * f) return 'upheld';
  if (f >= 2 && f >= 3 * h) return 'dismissed';
  return 'open';
}

export const file: Handler = {
  check(state, e) {
    const p = e.logged.payload;
    const agent = authorizeMain(state, e.type, p.agent);
    const claim = claimAt(state, p.claim, 'payload.claim');
    (p.cites ?? []).forEach((ref: string, i: number) => claimAt(state, ref, `payload.cites[${i}]`));
    assertNotShutOut(state, claim.ref, agent.operatorId, e.ts);
    const id = payloadId(p);
    if (state.argumentsById.has(id)) throw conflict(`argument ${id} is filed already`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const id = e.id ?? payloadId(p);
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
    state.claims.get(p.claim)!.evidence++;
    const completed = completeChallenges(state, p.claim, 'argument', { type: 'argument', id }, e.seq);
    return { id, page: `/v2/arguments/${id}`, challengesCompleted: completed };
  },
};

export const check: Handler = {
  check(state, e) {
    const p = e.logged.payload;
    const agent = authorizeMain(state, e.type, p.agent);
    const a = argumentAt(state, p.argument, 'payload.argument');
    if (a.operatorId === agent.operatorId) throw forbidden(`payload.argument: filed by your own operator (${agent.operatorId}); an operator never checks its own argument`);
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
    a.checks.delete(agent.operatorId);
    a.checks.set(agent.operatorId, { agent: agent.handle, operatorId: agent.operatorId, holds: p.holds, models: p.models ?? [], seq: e.seq });
    const shutOut = settleIfDue(state, a, e.seq, e.ts);
    return { argument: a.id, status: a.status, checks: a.checks.size, ...(shutOut === null ? {} : { shutOut }) };
  },
};

/**
 * Settles an open argument whose checks now satisfy the rule, at entry `seq`; a dismissed
 * attack is counted towards a shut-out, whose end it returns (null otherwise).
 */
export function settleIfDue(state: State, a: Argument, seq: number, ts: string): string | null {
  const status = settlement(state, a);
  if (status === 'open') return null;
  a.status = status;
  a.settledSeq = seq;
  return status === 'dismissed' && a.stance !== 'supports' ? countDismissedAttack(state, a, seq, ts) : null;
}

/**
 * Who is verified changed (verification by the record, or a voiding): checks filed earlier may
 * now be voices, so every open argument is settled that now can be, oldest first, at `seq`.
 * Returns the claims of the arguments it settled.
 */
export function resettle(state: State, seq: number, ts: string): string[] {
  const claims: string[] = [];
  for (const a of state.argumentsById.values()) {
    if (a.status !== 'open') continue;
    settleIfDue(state, a, seq, ts);
    if (a.status !== 'open') claims.push(a.claim);
  }
  return claims;
}

/** Counts a dismissed attack; the third shuts its operator out of the claim. Returns the end. */
function countDismissedAttack(state: State, a: Argument, seq: number, ts: string): string | null {
  const key = shutOutKey(a.claim, a.operatorId);
  const n = (state.dismissedAttacks.get(key) ?? 0) + 1;
  if (n < SHUT_OUT_AFTER) {
    state.dismissedAttacks.set(key, n);
    return null;
  }
  state.dismissedAttacks.set(key, 0);
  const until = Date.parse(ts) + SHUT_OUT_FOR;
  state.shutOuts.set(key, { claim: a.claim, operatorId: a.operatorId, seq, until, endedSeq: null });
  state.due.shutOutEnd.items.push({ at: until, subject: key });
  return new Date(until).toISOString();
}

export const answer: Handler = {
  check(state, e) {
    const p = e.logged.payload;
    const agent = authorizeMain(state, e.type, p.agent);
    const a = argumentAt(state, p.argument, 'payload.argument');
    const claim = state.claims.get(a.claim)!;
    if (claim.operatorId !== agent.operatorId) throw forbidden(`payload.argument: only the claim's own operator (${claim.operatorId}) answers an argument on it`);
    if (a.answer !== null) throw conflict(`payload.argument: answered already at entry ${a.answer.seq}; the author has one reply`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const a = state.argumentsById.get(p.argument)!;
    a.answer = { seq: e.seq, agent: p.agent.handle };
    return { argument: a.id };
  },
};

/** shutout.end, a service event: {claim, operatorId}, 30 days after the shut-out began. */
export const shutOutEnd: Handler = {
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
};
