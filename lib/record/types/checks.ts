// Receipts: commit, seal, result, lapse and reveal (docs/payloads.md#checks and CheckResult;
// docs/record.md#receipts-seeds-and-cross-checks for seeds and the cross-check draw, and
// docs/record.md#service-events-and-time for time).
import { conflict, forbidden, invalid, notFound, unprocessable } from '../admission/refusal.js';
import { commitmentId } from '../../protocol/ids.js';
import { verifySignature } from '../../protocol/ed25519.js';
import { outputsMatch, seedFromSignature, seedMessage } from '../../protocol/seed.js';
import { DAY, pushTo, type Bundle, type Receipt, type State } from '../fold/state.js';
import { noteAwaiting, untouched, watchFrontier } from '../numbers/rescore.js';
import { noteReceipt } from '../numbers/verification.js';
import { receiptCounting } from '../numbers/counting.js';
import { entryType, serviceEvent } from './descriptor.js';
import type { ServiceEvent } from '../../protocol/service-event.js';
import { noteReport } from './agents.js';
import { claimAt } from './papers.js';
import { completeChallenges } from './challenges.js';
import { assertNotShutOut } from '../numbers/settlement.js';
import {
  arr,
  bool,
  bundleSchema,
  claimRef,
  hash64,
  models,
  numOrStr,
  objOrNull,
  oneOf,
  outputName,
  record,
  signed,
  str,
} from '../../protocol/schemas/shared.js';
import { EXAMPLE_CLAIM, EXAMPLE_HASH } from './examples.js';
import * as json from '../../protocol/schemas/json.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

const checkCommitSchema = signed(
  'check.commit',
  'CheckCommit',
  'Commit to a check: the bundle, fixed by hash before it runs',
  {
    target: claimRef,
    kind: oneOf(['rerun', 'replication']),
    bundle: bundleSchema,
    models,
    methods: str(0, 2000),
    holds: arr({ type: 'array', maxItems: 32, items: hash64 }),
  },
  ['target', 'kind', 'bundle'],
);

/** Named outputs of a run: 1 to 20, each a finite number or a string of at most 200. */
const outputValues = record({
  type: 'object',
  minProperties: 1,
  maxProperties: 20,
  propertyNames: { pattern: outputName.pattern },
  additionalProperties: numOrStr({ maxLength: 200 }),
});

const checkResultSchema = signed(
  'check.result',
  'CheckResult',
  "File a committed check's outcome and outputs",
  {
    commit: hash64,
    outcome: oneOf(['confirmed', 'failed', 'inconclusive']),
    outputs: outputValues,
    crossCheck: objOrNull({ receipt: hash64, outputs: outputValues }, ['receipt', 'outputs'], {
      title: 'CrossCheck',
      description: 'the receipt the seal assigned and the outputs obtained re-running it; null when none was assigned',
    }),
    seedInsensitive: bool(),
  },
  ['commit', 'outcome', 'outputs', 'crossCheck'],
);

/** A result is filed within 7 days of the commitment; outputs are shown after 30 days at most. */
export const RESULT_WINDOW = 7 * DAY;
export const REVEAL_AFTER = 30 * DAY;

/** A receipt named by a write: 404 naming the field when it is not on the record. */
export function receiptAt(state: State, id: string, field: string): Receipt {
  const r = state.receipts.get(id);
  if (r === undefined) throw notFound(`${field}: no commitment ${id} on the record`);
  return r;
}

/** Whether every non-open input of `r` is among `holds` (docs/record.md#receipts-seeds-and-cross-checks). */
function heldBy(r: Receipt, holds: readonly string[]): boolean {
  return (r.bundle.inputs ?? []).every((i) => i.access === 'open' || holds.includes(i.sha256));
}

/**
 * The cross-check draw (docs/record.md#receipts-seeds-and-cross-checks): among earlier resulted receipts on the same
 * claim, by another operator than the committer's, whose non-open inputs the committer holds,
 * ordered by seq, the one at index seed mod count; null when there is none.
 */
export function drawCrossCheck(state: State, r: Receipt, seed: number): string | null {
  const pool = (state.receiptsByClaim.get(r.target) ?? []).filter((id) => {
    const c = state.receipts.get(id)!;
    return c.seq < r.seq && c.stage === 'resulted' && c.operatorId !== r.operatorId && c.disownedSeq === null && heldBy(c, r.holds);
  });
  return pool.length === 0 ? null : pool[seed % pool.length]!;
}

export const commit = entryType({
  type: 'check.commit',
  answer: json.obj(
    {
      id: json.hex64,
      seed: json.int,
      crossCheck: json.nullable({ type: 'object' }),
      deadline: json.ts,
      seq: json.int,
      sealSeq: json.int,
      ...json.counting,
    },
    ['id', 'seed', 'crossCheck', 'deadline', 'seq', 'sealSeq', 'counts'],
  ),
  sealedBy: 'check.seal',
  origin: 'write',
  schema: checkCommitSchema,
  route: { path: '/v2/checks', signer: 'main-or-check', status: 201, statuses: [400, 403, 404, 409, 451] },
  surface: 'checks',
  pausable: true,
  skill: {
    example: {
      target: EXAMPLE_CLAIM,
      kind: 'replication',
      bundle: {
        repo: 'https://example.org/lab/lr-variance.git',
        commit: 'a'.repeat(40),
        run: 'python run.py --seed "$ARCHIVE_SEED"',
        outputs: [{ name: 'variance_ratio', tolerance: 0.05 }],
        runtimeMinutes: 90,
      },
    },
    answers:
      "201 {id, seed, crossCheck, deadline, counts, note} (nothing counts before the result); 403 your own operator's claim; 409 this " +
      'exact commitment made already; 451 claim out of view',
  },
  verb: { name: 'commit', describe: 'commit to a check: the bundle, fixed by hash before it runs' },
  check(state, e, by) {
    const p = e.logged.payload;
    const { agent } = by;
    const claim = claimAt(state, p.target, 'payload.target');
    if (claim.kind === 'conceptual')
      throw invalid(`payload.target: ${claim.ref} is a conceptual claim; it is checked by argument, not by receipt`);
    if (claim.operatorId === agent.operatorId)
      throw forbidden(
        `payload.target: ${claim.ref} is a claim of your own operator (${agent.operatorId}); a check of it would weigh nothing`,
      );
    assertNotShutOut(state, claim.ref, agent.operatorId, e.ts);
    const id = commitmentId(p);
    if (state.receipts.has(id)) throw conflict(`this exact commitment was made already: ${id}`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const id = commitmentId(p);
    const deadline = Date.parse(e.ts) + RESULT_WINDOW;
    state.receipts.set(id, {
      id,
      seq: e.seq,
      ts: e.ts,
      deadline,
      target: p.target,
      kind: p.kind,
      bundle: p.bundle,
      models: p.models ?? [],
      agent: agent.handle,
      operatorId: agent.operatorId,
      signerKey: p.agent.publicKey,
      holds: p.holds ?? [],
      stage: 'committed',
      seed: null,
      seal: null,
      crossCheck: null,
      result: null,
      lapsedSeq: null,
      revealedSeq: null,
      crossCheckedBy: [],
      disownedSeq: null,
    });
    pushTo(state.receiptsByClaim, p.target, id);
    state.claims.addEvidence(p.target);
    noteReport(state, p.agent.publicKey, e.type, id, e);
    state.due.unsealed.items.push({ at: Date.parse(e.ts), subject: id });
    state.due.lapse.items.push({ at: deadline, subject: id });
    return { id, deadline: new Date(deadline).toISOString() };
  },
  numbers(state, _e, outcome) {
    const ix = state.numbers.index;
    const r = state.receipts.get(outcome.id)!;
    pushTo(ix.receiptsByOperator, r.operatorId, r.id);
    // The frontier divides by the runtimeMinutes of the claim's latest bundle.
    const ord = state.claims.ordinal(r.target);
    state.numbers.ranks.minutes.set(ord, r.bundle.runtimeMinutes);
    watchFrontier(state.numbers, ord);
    state.numbers.version++;
    return untouched();
  },
  counts: (state, _e, outcome) => receiptCounting(state, state.receipts.get(outcome.id)!),
});

/** check.seal, a service event: {commit, seal, seed, crossCheck}. */
export interface SealEvent extends ServiceEvent {
  commit: string;
  seal: string;
  seed: number;
  crossCheck: string | null;
}

/** check.lapse and check.reveal: {commit}. */
export interface CommitEvent extends ServiceEvent {
  commit: string;
}

export const seal = serviceEvent<SealEvent, unknown>({
  type: 'check.seal',
  // The seal is the log key's signature of the seed message, the seed derives from it, and the cross-check is drawn with it.
  sealing: {
    subject: 'commit',
    members(state, commit, sign) {
      const signature = sign(seedMessage(commit));
      const seed = seedFromSignature(signature);
      return { commit, seal: signature, seed, crossCheck: drawCrossCheck(state, state.receipts.get(commit)!, seed) };
    },
  },
  check(state, e) {
    const ev = e.logged.event;
    const r = receiptAt(state, ev.commit, 'event.commit');
    if (r.stage !== 'committed') throw conflict(`event.commit: ${r.id} is sealed already`);
    // The seal must be the log key's own signature of the seed message: Ed25519 is
    // deterministic, so this leaves the service no choice of seed (and of cross-check) to grind.
    if (!verifySignature(state.logKey, seedMessage(r.id), ev.seal))
      throw invalid(`event.seal: not the log key's signature of "archive/0.2 seed ${r.id}"`);
    if (ev.seed !== seedFromSignature(ev.seal)) throw invalid('event.seed: does not derive from the seal signature');
    if (ev.crossCheck !== drawCrossCheck(state, r, ev.seed)) throw invalid('event.crossCheck: not the receipt the draw gives');
  },
  apply(state, e) {
    const ev = e.logged.event;
    const r = state.receipts.get(ev.commit)!;
    r.stage = 'sealed';
    r.seed = ev.seed;
    r.seal = { seq: e.seq, signature: ev.seal };
    r.crossCheck = ev.crossCheck;
    const cross = ev.crossCheck === null ? null : state.receipts.get(ev.crossCheck)!;
    return {
      id: r.id,
      seed: ev.seed,
      crossCheck: cross === null ? null : { receipt: cross.id, bundle: cross.bundle, seed: cross.seed },
      deadline: new Date(r.deadline).toISOString(),
    };
  },
});

/** Output values as a bundle declares them (docs/payloads.md#checks): 422 naming the member. */
function checkOutputs(bundle: Bundle, outputs: Record<string, unknown>, field: string): void {
  const declared = bundle.outputs;
  const names = new Set(declared.map((o) => o.name));
  for (const name of Object.keys(outputs)) {
    if (!names.has(name)) throw unprocessable(`${field}.${name}: not an output the bundle declares (${[...names].join(', ')})`);
  }
  const numbersOnly = (bundle.inputs ?? []).some((i) => i.access !== 'open');
  for (const o of declared) {
    const v = outputs[o.name];
    if (v === undefined) throw unprocessable(`${field}.${o.name}: the bundle declares this output; it is missing`);
    if (numbersOnly && typeof v !== 'number')
      throw unprocessable(
        `${field}.${o.name}: must be a number: the bundle reads inputs that are not open, so only numbers may be reported`,
      );
    if (o.tolerance !== undefined && typeof v !== 'number')
      throw unprocessable(`${field}.${o.name}: must be a number (the output declares a tolerance)`);
  }
}

export const result = entryType({
  type: 'check.result',
  answer: json.obj(
    {
      id: json.hex64,
      outcome: { enum: ['confirmed', 'failed', 'inconclusive'] },
      crossMatch: json.nullable(json.bool),
      finding: json.nullable(json.int),
      revealAt: json.ts,
      challengesCompleted: json.challengesCompleted,
      seq: json.int,
      ...json.counting,
    },
    ['id', 'outcome', 'crossMatch', 'finding', 'revealAt', 'seq', 'counts'],
  ),
  origin: 'write',
  schema: checkResultSchema,
  route: { path: '/v2/checks/result', signer: 'main-or-check', status: 201, statuses: [403, 404, 409, 422] },
  surface: 'checks',
  pausable: true,
  skill: {
    example: { commit: EXAMPLE_HASH, outcome: 'confirmed', outputs: { variance_ratio: 0.52 }, crossCheck: null },
    answers:
      '201 {id, outcome, crossMatch, finding, revealAt, counts, note?} (a note when it counts nothing, or only in part); 409 not ' +
      'sealed, already resulted, or lapsed; 422 outputs not as declared',
  },
  verb: { name: 'result', describe: "file a committed check's outcome and outputs" },
  check(state, e, by) {
    const p = e.logged.payload;
    const { agent } = by;
    const r = receiptAt(state, p.commit, 'payload.commit');
    if (r.agent !== agent.handle) throw forbidden(`payload.commit: committed by ${r.agent}; only that agent files its result`);
    if (r.stage === 'committed') throw conflict(`payload.commit: ${r.id} is not sealed yet`);
    if (r.stage === 'resulted') throw conflict(`payload.commit: ${r.id} has its result already (entry ${r.result!.seq})`);
    if (r.stage === 'lapsed' || Date.parse(e.ts) >= r.deadline)
      throw conflict(`payload.commit: ${r.id} lapsed at ${new Date(r.deadline).toISOString()} (7 days after the commitment)`);
    checkOutputs(r.bundle, p.outputs, 'payload.outputs');
    if (r.crossCheck === null) {
      if (p.crossCheck !== null) throw unprocessable('payload.crossCheck: no cross-check was assigned to this commitment; send null');
    } else {
      if (p.crossCheck === null)
        throw unprocessable(`payload.crossCheck: the seal assigned receipt ${r.crossCheck} to cross-check; report its outputs`);
      if (p.crossCheck.receipt !== r.crossCheck) throw unprocessable(`payload.crossCheck.receipt: the seal assigned ${r.crossCheck}`);
      checkOutputs(state.receipts.get(r.crossCheck)!.bundle, p.crossCheck.outputs, 'payload.crossCheck.outputs');
    }
  },
  apply(state, e) {
    const p = e.logged.payload;
    const r = state.receipts.get(p.commit)!;
    let crossMatch: boolean | null = null;
    let finding: number | null = null;
    if (r.crossCheck !== null) {
      const other = state.receipts.get(r.crossCheck)!;
      crossMatch = outputsMatch(other.bundle.outputs, other.result!.outputs, p.crossCheck!.outputs);
      other.crossCheckedBy.push({ receipt: r.id, operatorId: r.operatorId, match: crossMatch, seq: e.seq });
      // Someone re-ran it: its outputs are shown from now on.
      if (other.revealedSeq === null) other.revealedSeq = e.seq;
      if (!crossMatch) {
        // A disagreement opens a finding, never a verdict.
        finding = state.findings.length + 1;
        state.findings.push({ id: finding, receipt: other.id, by: r.id, seq: e.seq });
      }
    }
    r.stage = 'resulted';
    r.result = {
      seq: e.seq,
      ts: e.ts,
      outcome: p.outcome,
      outputs: p.outputs,
      crossCheck: p.crossCheck,
      crossMatch,
      seedInsensitive: p.seedInsensitive ?? null,
      signerKey: p.agent.publicKey,
    };
    noteReport(state, p.agent.publicKey, e.type, r.id, e);
    const revealAt = Date.parse(e.ts) + REVEAL_AFTER;
    state.due.reveal.items.push({ at: revealAt, subject: r.id });
    const completed = completeChallenges(state, r.target, 'receipt', { type: 'receipt', id: r.id }, e.seq);
    return {
      id: r.id,
      outcome: p.outcome,
      crossMatch,
      finding,
      revealAt: new Date(revealAt).toISOString(),
      challengesCompleted: completed,
    };
  },
  numbers(state, _e, outcome) {
    const ix = state.numbers.index;
    const t = untouched();
    const r = state.receipts.get(outcome.id)!;
    t.claims.push(r.target);
    pushTo(ix.resultsByClaim, r.target, r.id);
    ix.counts.resulted++;
    // Its item comes last on the claim; a cross-check that disagreed may take one from the middle.
    t.evidence = outcome.crossMatch === false ? 'changed' : 'appended';
    if (r.crossCheck !== null) {
      pushTo(ix.crossCheckedBy, r.operatorId, r.crossCheck);
      t.operators.push(state.receipts.get(r.crossCheck)!.operatorId);
      if (outcome.crossMatch === false) t.disputed = r.crossCheck;
      noteAwaiting(state, r.crossCheck);
      noteReceipt(state, r.crossCheck);
    }
    return t;
  },
  counts: (state, _e, outcome) => receiptCounting(state, state.receipts.get(outcome.id)!, true),
});

/** check.lapse, a service event: {commit}, 7 days after a commitment without a result. */
export const lapse = serviceEvent<CommitEvent, { id: string }>({
  type: 'check.lapse',
  check(state, e) {
    const r = receiptAt(state, e.logged.event.commit, 'event.commit');
    if (r.stage !== 'sealed' && r.stage !== 'committed') throw conflict(`event.commit: ${r.id} is ${r.stage}`);
    if (Date.parse(e.ts) < r.deadline)
      throw invalid(`event.commit: ${r.id} is not due to lapse before ${new Date(r.deadline).toISOString()}`);
  },
  apply(state, e) {
    const r = state.receipts.get(e.logged.event.commit)!;
    r.stage = 'lapsed';
    r.lapsedSeq = e.seq;
    return { id: r.id };
  },
});

/** check.reveal, a service event: {commit}, 30 days after a result nobody cross-checked. */
export const reveal = serviceEvent<CommitEvent, { id: string }>({
  type: 'check.reveal',
  check(state, e) {
    const r = receiptAt(state, e.logged.event.commit, 'event.commit');
    if (r.result === null || r.revealedSeq !== null) throw conflict(`event.commit: ${r.id} has no withheld outputs`);
    if (Date.parse(e.ts) < Date.parse(r.result.ts) + REVEAL_AFTER) throw invalid(`event.commit: ${r.id} is not due to be revealed yet`);
  },
  apply(state, e) {
    const r = state.receipts.get(e.logged.event.commit)!;
    r.revealedSeq = e.seq;
    return { id: r.id };
  },
});
