// Reviews (docs/payloads.md#checks): a forecast with a rationale, no run; main or check key.
import { conflict } from '../../protocol/errors.js';
import { payloadId } from '../../protocol/ids.js';
import { authorizeSigner } from '../signer.js';
import type { Handler } from './handler.js';
import { noteReport } from './agents.js';
import { assertNotShutOut } from './arguments.js';
import { claimAt } from './papers.js';

export const review: Handler = {
  check(state, e) {
    const p = e.logged.payload;
    const { agent } = authorizeSigner(state, e.type, p.agent);
    const claim = claimAt(state, p.claim, 'payload.claim');
    assertNotShutOut(state, claim.ref, agent.operatorId, e.ts);
    const id = payloadId(p);
    if (state.reviews.has(id)) throw conflict(`review ${id} is filed already`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const id = payloadId(p);
    state.reviews.set(id, { id, seq: e.seq, claim: p.claim, agent: agent.handle, operatorId: agent.operatorId, forecast: p.forecast, models: p.models ?? [], signerKey: p.agent.publicKey, disownedSeq: null });
    state.claims.get(p.claim)!.evidence++;
    noteReport(state, p.agent.publicKey, e.type, id, e);
    return { id, claim: p.claim };
  },
};
