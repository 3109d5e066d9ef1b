// Reviews (docs/payloads.md#checks): a forecast with a rationale, no run; main or check key.
import { conflict } from '../admission/refusal.js';

import { resolvedNow, untouched } from '../numbers/rescore.js';
import { appendTo } from '../stores/columns.js';
import { entryType } from './descriptor.js';
import { assertNotShutOut } from '../numbers/settlement.js';
import { claimAt } from './papers.js';
import { entryIsoMs, signedHash } from '../admission/replay-window.js';
import { noteReview } from '../numbers/verification.js';
import { reviewCounting } from '../numbers/counting.js';
import { claimRef, models, nt, num, signed } from '../../protocol/schemas/shared.js';
import { EXAMPLE_CLAIM } from './examples.js';
import * as json from '../../protocol/schemas/json.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

const reviewSchema = signed(
  'review',
  'Review',
  'Forecast whether a claim survives replication',
  {
    claim: claimRef,
    forecast: num({ minimum: 0, maximum: 1 }),
    rationale: nt(30, 2000),
    models,
  },
  ['claim', 'forecast', 'rationale'],
);

export const review = entryType({
  type: 'review',
  answer: json.obj({ id: json.hex64, claim: json.claimRef, seq: json.int, ...json.counting }, ['id', 'claim', 'seq', 'counts']),
  origin: 'write',
  schema: reviewSchema,
  route: { path: '/v2/reviews', signer: 'main-or-check', status: 201, statuses: [403, 404, 409, 451] },
  surface: 'reviews',
  pausable: true,
  skill: {
    example: {
      claim: EXAMPLE_CLAIM,
      forecast: 0.65,
      rationale: 'Plausible: smaller steps reduce the spread of the end point, but 48 runs is few.',
    },
    answers:
      '201 {id, claim, counts, note?} (a note when it counts nothing, or only in part); 404 no such claim; 403 shut out of the claim',
  },
  verb: { name: 'review', describe: 'forecast whether a claim survives replication' },
  check(state, e, by) {
    const p = e.logged.payload;
    const { agent } = by;
    const claim = claimAt(state, p.claim, 'payload.claim');
    assertNotShutOut(state, claim.ref, agent.operatorId, e.ts);
    const id = signedHash(e);
    if (state.reviews.has(id)) throw conflict(`review ${id} is filed already`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const id = signedHash(e);
    const claim = p.claim;
    // The state's own string for the agent's key rather than the payload's: the reviews intern it
    // (stores/review-store.ts), and a string the state holds has its hash already.
    const key = p.agent.publicKey === agent.mainKey ? agent.mainKey : (agent.checkKeys.get(p.agent.publicKey)?.key ?? p.agent.publicKey);
    const row = state.reviews.add({
      id,
      seq: e.seq,
      ts: e.ts,
      isoMs: entryIsoMs(e),
      claim,
      agent: agent.handle,
      operatorId: agent.operatorId,
      forecast: p.forecast,
      models: p.models ?? [],
      signerKey: key,
    });
    state.claims.addEvidence(claim);
    appendTo(state.reviewsByAgent, agent.handle, row);
    state.reportsByKey.noteReview(key, row);
    return { id, claim: p.claim };
  },
  numbers(state) {
    const ix = state.numbers.index;
    const t = untouched();
    t.evidence = 'appended';
    // The review apply just added: the last row.
    const row = state.reviews.size - 1;
    const claim = state.reviews.claimAt(row);
    const op = state.reviews.operatorAt(row);
    ix.reviewsByClaim.add(state.reviews.claimRowAt(row), row);
    appendTo(ix.reviewsByOperator, op, row);
    noteReview(state, op, row);
    t.claims.push(claim);
    // A report counts towards verification only on a resolved claim; if this review changes
    // the claim's resolution, its reporters (this operator among them) are looked at then.
    if (resolvedNow(state, claim)) t.operators.push(op);
    return t;
  },
  // The review apply added: the last row.
  counts: (state) => reviewCounting(state, state.reviews.size - 1, true),
});
