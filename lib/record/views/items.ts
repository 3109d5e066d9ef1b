// What the reads of docs/api.md#the-records-reads show of the record, as pure functions of the state (the
// offline verifier compares a service's answers with these). Text that the state does not keep
// (briefs, argument texts, notes, claims' statements and tests) is read from the logged entry by the caller: `logged(seq)`.
import { type PayloadOf, type WriteType } from '../types/registry.js';
import { DOORBELL_CADENCES, DOORBELL_KINDS } from '../types/agents.js';
import { tierOf, type Argument, type Challenge, type Receipt, type State } from '../fold/state.js';
import { openOnly } from '../numbers/indexes.js';
import { wantsOf } from '../types/challenges.js';
import { claimNumbers, claimValue, operatorCalibration, verifiedByRecord } from '../numbers/served.js';
import { frontier } from '../numbers/frontier.js';
import { settings } from '../types/stewards.js';
import { flagsOn, withheldList } from '../types/out-of-view.js';
import { argumentInView, challengeInView } from './in-view.js';
import { acknowledgementOwed } from '../admission/standing.js';
import { claimField, inFields, operatorFields } from './fields.js';
import { argumentCounting, checkCounting, receiptCounting } from '../numbers/counting.js';
import { claimTexts } from './claim-texts.js';

/** The payload of the signed write at `seq`, which the state knows to be of type `type` (read from the log by the caller). */
export type Logged = <T extends WriteType>(seq: number, type: T) => Promise<PayloadOf<T>>;

/** The record summary (docs/api.md#the-records-reads). */
export function summary(state: State) {
  const { external, resulted } = state.numbers.index.counts;
  return {
    constitution: { version: state.constitution.version, hash: state.constitution.hash },
    agents: state.agents.size,
    operators: state.operators.size,
    papers: state.papers.size,
    claims: state.claims.size - external,
    external,
    checks: state.receipts.size,
    receipts: resulted,
    reviews: state.reviews.size,
    arguments: state.argumentsById.size,
    challenges: state.challenges.size,
    findings: state.findings.length,
    voidedOperators: state.voided.size,
    withheld: withheldList(state),
    holds: { open: state.holds.filter((h) => h.decision === null).length, all: state.holds.length },
    flags: state.flags.length,
    verifiedByRecord: verifiedByRecord(state),
    settings: settings(state),
    stewards: [...state.stewards].map(([handle, v]) => ({ handle, seq: v.seq })),
  };
}

export async function paperView(state: State, id: string, logged: Logged) {
  const p = state.papers.get(id);
  if (p === undefined) return undefined;
  return {
    id: p.id,
    seq: p.seq,
    ts: p.ts,
    agent: p.agent,
    operatorId: p.operatorId,
    title: p.title,
    field: p.field,
    builds_on: p.buildsOn,
    models: p.models,
    claims: await Promise.all(p.claims.map((ref) => claimView(state, ref, logged))),
    flags: flagsOn(state, p.id),
  };
}

export async function claimView(state: State, ref: string, logged: Logged) {
  const c = state.claims.get(ref)!;
  const t = await claimTexts(c, logged);
  return {
    ref: c.ref,
    paper: c.paper,
    external: c.external,
    kind: c.kind,
    text: t.text,
    test: t.test,
    confidence: c.confidence,
    source: c.source,
    operatorId: c.operatorId,
    seq: c.seq,
    // Both versions are shown (docs/record.md).
    amended: c.amendment === null ? null : { seq: c.amendment.seq, before: t.before! },
    receipts: (state.receiptsByClaim.get(ref) ?? []).length,
    arguments: (state.argumentsByClaim.get(ref) ?? []).length,
  };
}

/** Outputs are withheld until someone cross-checks the receipt or 30 days pass (docs/record.md#receipts-seeds-and-cross-checks). */
export const outputsShown = (r: Receipt): boolean => r.revealedSeq !== null;

export function receiptView(state: State, r: Receipt) {
  const shown = outputsShown(r);
  const res = r.result;
  // Whether the cross-checking operator is verified now: the record's rounds may verify it later.
  const by = (verified: boolean, match: boolean) =>
    r.crossCheckedBy.filter((c) => state.verified.has(c.operatorId) === verified && (verified ? c.match === match : true));
  return {
    id: r.id,
    target: r.target,
    kind: r.kind,
    bundle: r.bundle,
    models: r.models,
    agent: r.agent,
    operatorId: r.operatorId,
    tier: tierOf(state, r.operatorId),
    stage: r.stage,
    seq: r.seq,
    ts: r.ts,
    deadline: new Date(r.deadline).toISOString(),
    seed: r.seed,
    sealSeq: r.seal?.seq ?? null,
    crossCheck:
      r.crossCheck === null
        ? null
        : {
            receipt: r.crossCheck,
            match: res?.crossMatch ?? null,
            outputs: res === null || res.crossCheck === null ? null : res.crossCheck.outputs,
          },
    outcome: res?.outcome ?? null,
    resultSeq: res?.seq ?? null,
    outputs: res === null ? null : shown ? res.outputs : null,
    withheld: res === null || shown ? [] : ['outputs'],
    revealedSeq: r.revealedSeq,
    seedInsensitive: res?.seedInsensitive ?? null,
    // Only a verified operator's cross-check verifies or disputes; re-runs by others apart.
    verifiedBy: by(true, true).map((c) => ({ receipt: c.receipt, operatorId: c.operatorId, seq: c.seq })),
    disputedBy: by(true, false).map((c) => ({ receipt: c.receipt, operatorId: c.operatorId, seq: c.seq })),
    unverifiedReruns: by(false, false).map((c) => ({ receipt: c.receipt, operatorId: c.operatorId, match: c.match, seq: c.seq })),
    findings: state.findings.filter((f) => f.receipt === r.id || f.by === r.id),
    lapsedSeq: r.lapsedSeq,
    disownedSeq: r.disownedSeq,
    // Whether it counts on its claim now, and why not (docs/credence.md#what-a-write-counts).
    ...receiptCounting(state, r),
  };
}

export async function argumentView(state: State, a: Argument, logged: Logged) {
  const p = await logged(a.seq, 'argument.file');
  const checks = await Promise.all(
    [...a.checks.values()].map(async (c) => {
      // Whether it has a voice now, and why not; `note` is the check's own text, so the rule's is `countsNote`.
      const { counts, note } = checkCounting(state, a, c.operatorId);
      return {
        agent: c.agent,
        operatorId: c.operatorId,
        tier: tierOf(state, c.operatorId),
        holds: c.holds,
        models: c.models,
        note: (await logged(c.seq, 'argument.check')).note,
        seq: c.seq,
        counts,
        ...(note === undefined ? {} : { countsNote: note }),
      };
    }),
  );
  const answer =
    a.answer === null ? null : { agent: a.answer.agent, text: (await logged(a.answer.seq, 'argument.answer')).text, seq: a.answer.seq };
  return {
    id: a.id,
    claim: a.claim,
    agent: a.agent,
    operatorId: a.operatorId,
    stance: a.stance,
    grounds: a.grounds,
    text: p.text,
    cites: a.cites,
    instance: p.instance ?? null,
    flags: flagsOn(state, a.id),
    confidence: a.confidence,
    models: a.models,
    seq: a.seq,
    ts: a.ts,
    status: a.status,
    settledSeq: a.settledSeq,
    ...argumentCounting(state, a),
    checks,
    answer,
  };
}

/** The open challenges, in log order, without walking the closed ones. */
const openChallenges = (state: State): Iterable<Challenge> =>
  openOnly(
    state.numbers.index.openChallenges,
    (id) => state.challenges.get(id),
    (c) => c.status === 'open',
  );

/** The open arguments, in log order, without walking the settled ones. */
const openArguments = (state: State): Iterable<Argument> =>
  openOnly(
    state.numbers.index.openArguments,
    (id) => state.argumentsById.get(id),
    (a) => a.status === 'open',
  );

/** Challenges ranked by the value of checking their claim, ties oldest first; open ones unless `all`. */
export function rankedChallenges(state: State, all: boolean): Challenge[] {
  const list = all ? state.challenges.values() : openChallenges(state);
  return [...list]
    .filter((c) => challengeInView(state, c.id, c.claim))
    .map((c) => ({ c, v: claimValue(state, c.claim) }))
    .sort((a, b) => b.v - a.v || a.c.seq - b.c.seq)
    .map((x) => x.c);
}

/** A claim's arguments, oldest first; frozen ones (docs/api.md#the-records-reads: those a steward took out of view) left out. */
export function argumentsInView(state: State, claim: string): Argument[] {
  return (state.argumentsByClaim.get(claim) ?? []).filter((id) => !state.outOfView.has(id)).map((id) => state.argumentsById.get(id)!);
}

export async function challengeView(state: State, c: Challenge, logged: Logged) {
  const p = await logged(c.seq, 'challenge.propose');
  const since = (state.receiptsByClaim.get(c.claim) ?? [])
    .map((id) => state.receipts.get(id)!)
    .filter((r) => r.seq > c.seq)
    .map((r) => ({
      id: r.id,
      kind: r.kind,
      stage: r.stage,
      outcome: r.result?.outcome ?? null,
      operatorId: r.operatorId,
      seq: r.seq,
      ...receiptCounting(state, r),
    }));
  return {
    id: `ch:${c.id}`,
    claim: c.claim,
    brief: p.brief,
    proposer: c.operatorId,
    agent: c.agent,
    // An open challenge wants what can check its claim as it now stands (kinds can be amended).
    wants: c.status === 'open' ? wantsOf(state, c.claim) : c.wants,
    status: c.status,
    seq: c.seq,
    ts: c.ts,
    closedSeq: c.closedSeq,
    completedBy: c.completedBy,
    reason: c.reason,
    flags: flagsOn(state, `ch:${c.id}`),
    numbers: claimNumbers(state, c.claim),
    receiptsSince: since,
  };
}

/** The heartbeat of an agent: what it owes, its queue, its standing, its doorbell (never the address). */
export function heartbeat(state: State, handle: string) {
  const agent = state.agents.get(handle);
  if (agent === undefined) return undefined;
  const mine = (state.numbers.index.receiptsByOperator.get(agent.operatorId) ?? [])
    .map((id) => state.receipts.get(id)!)
    .filter((r) => r.agent === handle);
  const owed = mine
    .filter((r) => r.stage === 'sealed' || r.stage === 'committed')
    .map((r) => ({ commit: r.id, target: r.target, stage: r.stage, deadline: new Date(r.deadline).toISOString() }));
  const fields = operatorFields(state, agent.operatorId);
  const challenges = [...openChallenges(state)]
    .filter(
      (c) =>
        challengeInView(state, c.id, c.claim) &&
        state.claims.get(c.claim)!.operatorId !== agent.operatorId &&
        inFields(fields, claimField(state, c.claim)),
    )
    .map((c) => ({ id: `ch:${c.id}`, claim: c.claim, wants: wantsOf(state, c.claim) }));
  const open = [...openArguments(state)]
    .filter((a) => argumentInView(state, a) && a.operatorId !== agent.operatorId && !a.checks.has(agent.operatorId))
    .map((a) => ({ id: a.id, claim: a.claim, stance: a.stance, grounds: a.grounds }));
  const shutOuts = [...state.shutOuts.values()]
    .filter((s) => s.operatorId === agent.operatorId && s.endedSeq === null)
    .map((s) => ({ claim: s.claim, until: new Date(s.until).toISOString() }));
  // Claims worth checking in its fields (all fields while it has published none), not its operator's own.
  const worth = frontier(state, 50)
    .claims.filter((c) => {
      const claim = state.claims.get(c.ref)!;
      return claim.operatorId !== agent.operatorId && inFields(fields, claimField(state, c.ref));
    })
    .slice(0, 10);
  const verified = state.verified.get(agent.operatorId);
  const voided = state.voided.get(agent.operatorId);
  const bell = agent.doorbell;
  return {
    agent: handle,
    operatorId: agent.operatorId,
    tier: tierOf(state, agent.operatorId),
    retired: agent.retiredSeq !== null,
    owed,
    // After an amendment is enacted: the version to acknowledge before any other write (428 until then).
    acknowledge: acknowledgementOwed(state, handle),
    queue: { fields: [...fields].sort(), claims: worth, challenges, arguments: open },
    standing: {
      tier: tierOf(state, agent.operatorId),
      // Its operator's calibration over its resolved claims (credence/0.3), and what verified it.
      calibration: operatorCalibration(state, agent.operatorId),
      verifiedByRecord: verified === undefined ? null : { round: verified.round, seq: verified.seq },
      voided: voided === undefined ? null : voided,
      commitments: mine.length,
      results: mine.filter((r) => r.result !== null).length,
      lapsed: mine.filter((r) => r.stage === 'lapsed').length,
      shutOuts,
    },
    doorbell:
      bell === null ? { kind: null, status: 'unset', cadence: null } : { kind: bell.kind, status: bell.status, cadence: bell.cadence },
    doorbellKinds: DOORBELL_KINDS,
    doorbellCadences: DOORBELL_CADENCES,
  };
}
