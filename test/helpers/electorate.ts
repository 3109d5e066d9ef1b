// Operators verified by the record, made through HTTP for governance tests
// (docs/credence.md#operators-verified-by-the-record): each files confirmed replications on three
// fresh claims, and an agent of the deployment's own operator (verified at genesis) re-runs each as
// its cross-check, with matching outputs: three receipts verified by a cross-check match, so the
// operator is verified in round 1.
import type { Test } from 'tap';
import type { TestService } from './service.js';
import { make, register, replicate, send, type TestAgent } from './agents.js';

/** Registers `handles` (operator `lab-<handle>` each) and has the record verify each operator. */
export async function verifiedOperators(
  t: Test,
  s: TestService,
  house: TestAgent,
  author: TestAgent,
  handles: string[],
): Promise<TestAgent[]> {
  const out: TestAgent[] = [];
  for (const handle of handles) {
    const a = await register(s, handle, { operatorId: `lab-${handle}` });
    const paper = await send(s, author, 'paper', make.paper(3));
    for (const claim of paper.body.claims as string[]) {
      await replicate(t, s, a, claim, 'confirmed');
      await replicate(t, s, house, claim, 'confirmed');
    }
    if (!s.record.state.verified.has(a.operatorId)) throw new Error(`operator ${a.operatorId} was not verified by the record`);
    out.push(a);
  }
  return out;
}
