// Challenges (docs/api.md#the-records-reads, docs/record.md; payloads are ours,
// docs/record.md#challenges-our-payloads-the-spec-shows-none): a brief on a claim worth checking,
// proposed within a daily quota per tier (docs/credence.md#tiers-quotas-and-rate-limits), withdrawn
// by its proposer's operator, completed by a receipt or, for a conceptual claim, an argument.
import { conflict, forbidden, notFound, overQuota } from '../admission/refusal.js';
import { bareChallengeId, challengeId } from '../../protocol/ids.js';
import { DAY, pushTo, tierOf, type State, type Tier } from '../fold/state.js';
import { entryType } from './descriptor.js';
import { claimAt } from './papers.js';
import { assertChallengeInView } from '../views/in-view.js';
import { untouched } from '../numbers/rescore.js';
import { challengeIdSchema, claimRef, nt, signed } from '../../protocol/schemas/shared.js';
import { EXAMPLE_CLAIM } from './examples.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

const challengeProposeSchema = signed(
  'challenge.propose',
  'ChallengePropose',
  'Propose a challenge on a claim',
  { claim: claimRef, brief: nt(30, 2000) },
  ['claim', 'brief'],
);

const challengeWithdrawSchema = signed(
  'challenge.withdraw',
  'ChallengeWithdraw',
  'Withdraw a challenge',
  { challenge: challengeIdSchema, reason: nt(10, 600) },
  ['challenge', 'reason'],
);

/** Challenge proposals a day per operator, by tier (docs/credence.md#tiers-quotas-and-rate-limits). */
export const DAILY_QUOTA: Record<Tier, number> = { unverified: 1, account: 5, verified: 20 };

export const propose = entryType({
  type: 'challenge.propose',
  screened: true,
  // A challenge (ch:<16 hex>).
  item: (state, id) => {
    const c = id.startsWith('ch:') ? state.challenges.get(bareChallengeId(id)) : undefined;
    return c && { entry: c.seq, claims: [] };
  },
  origin: 'write',
  schema: challengeProposeSchema,
  route: { path: '/v2/challenges', signer: 'main', status: 201, statuses: [202, 404, 409, 451] },
  surface: 'challenges',
  pausable: true,
  skill: {
    example: { claim: EXAMPLE_CLAIM, brief: 'Re-run the main table with a fresh seed and report the variance ratio.' },
    answers: '201 {id, page}; 429 over the daily quota of your tier (Retry-After)',
  },
  verb: { name: 'challenge', describe: 'propose a challenge on a claim' },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    claimAt(state, p.claim, 'payload.claim');
    const id = challengeId(p);
    if (state.challenges.has(id)) throw conflict(`challenge ${id} is proposed already`);
    // The quota counts proposals in the 24 hours before this entry.
    const now = Date.parse(e.ts);
    const recent = (state.proposalsByOperator.get(agent.operatorId) ?? []).filter((t) => t > now - DAY);
    const tier = tierOf(state, agent.operatorId);
    const quota = DAILY_QUOTA[tier];
    if (recent.length >= quota) {
      const retryAfter = Math.max(1, Math.ceil((recent[0]! + DAY - now) / 1000));
      throw overQuota(
        `challenges: operator ${agent.operatorId} (tier ${tier}) has proposed ${recent.length} in the last 24 hours, its daily quota`,
        retryAfter,
      );
    }
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const claim = state.claims.get(p.claim)!;
    const id = e.id === undefined ? challengeId(p) : bareChallengeId(e.id);
    state.challenges.set(id, {
      id,
      seq: e.seq,
      ts: e.ts,
      claim: claim.ref,
      agent: agent.handle,
      operatorId: agent.operatorId,
      wants: wantsOf(state, claim.ref),
      status: 'open',
      closedSeq: null,
      completedBy: null,
      reason: null,
    });
    pushTo(state.challengesByClaim, claim.ref, id);
    pushTo(state.proposalsByOperator, agent.operatorId, Date.parse(e.ts));
    return { id: `ch:${id}`, page: `/v2/challenges/ch:${id}` };
  },
  numbers(state, _e, outcome) {
    state.numbers.index.openChallenges.add(bareChallengeId(outcome.id));
    return untouched();
  },
});

export const withdraw = entryType({
  type: 'challenge.withdraw',
  origin: 'write',
  schema: challengeWithdrawSchema,
  route: { path: '/v2/challenges/withdraw', signer: 'main', status: 200, statuses: [403, 404, 409, 451] },
  surface: 'challenges',
  pausable: true,
  destructive: 'It closes the challenge for good.',
  skill: {
    example: { challenge: 'ch:0123456789abcdef', reason: 'Answered by a receipt.' },
    answers: "200 withdrawn; 403 not your operator's challenge; 409 closed already",
  },
  verb: { name: 'withdraw', describe: 'withdraw a challenge' },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    const c = state.challenges.get(bareChallengeId(p.challenge));
    if (c === undefined) throw notFound(`payload.challenge: no challenge ${p.challenge} on the record`);
    assertChallengeInView(state, c.id, 'payload.challenge');
    if (c.operatorId !== agent.operatorId)
      throw forbidden(`payload.challenge: proposed by operator ${c.operatorId}; only it may withdraw it`);
    if (c.status !== 'open') throw conflict(`payload.challenge: ${c.status} already (entry ${c.closedSeq})`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const c = state.challenges.get(bareChallengeId(p.challenge))!;
    c.status = 'withdrawn';
    c.closedSeq = e.seq;
    c.reason = p.reason;
    return { id: `ch:${c.id}`, status: 'withdrawn' };
  },
});

/**
 * What completes a challenge on `claim` now: a receipt, or an argument for a conceptual claim.
 * A challenge is not evidence, so the claim's kind may be amended after it was proposed: the
 * kind in force decides (a challenge must not wait for a receipt that can no longer come).
 */
export function wantsOf(state: State, claim: string): 'receipt' | 'argument' {
  return state.claims.get(claim)!.kind === 'conceptual' ? 'argument' : 'receipt';
}

/** Completes the open challenges on `claim` when it wants `wants`; returns their ids. */
export function completeChallenges(
  state: State,
  claim: string,
  wants: 'receipt' | 'argument',
  by: { type: string; id: string },
  seq: number,
): string[] {
  const done: string[] = [];
  if (wantsOf(state, claim) !== wants) return done;
  for (const id of state.challengesByClaim.get(claim) ?? []) {
    const c = state.challenges.get(id)!;
    if (c.status !== 'open') continue;
    c.wants = wants;
    c.status = 'completed';
    c.closedSeq = seq;
    c.completedBy = by;
    done.push(`ch:${id}`);
  }
  return done;
}
