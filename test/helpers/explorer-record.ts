// A small record with one of everything the explorer shows, for its tests: papers (one claim
// amended), an external claim, receipts by a verified and an unverified operator (one
// cross-checking the other), reviews with rationales, an argument with checks and an answer.
import type { Test } from 'tap';
import type { Reply, TestService } from './service.js';
import { houseAgent, make, register, replicate, send } from './agents.js';

export interface ExplorerRecord {
  /** The claim with evidence of every kind. */
  claim: string;
  /** The house agent's receipt on it (verified), and bob's (not verified), which cross-checked the house's. */
  verifiedReceipt: string;
  unverifiedReceipt: string;
  argument: string;
  external: string;
  amended: string;
  /** Every claim published, in log order. */
  claims: string[];
}

export async function explorerRecord(t: Test, s: TestService): Promise<ExplorerRecord> {
  const ok = (r: Reply): Reply => {
    if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
    return r;
  };
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const paper = ok(
    await send(
      s,
      alice,
      'paper',
      make.paper(2, {
        title: 'Step size and the <variance> of the end point',
        claims: [
          { text: 'Smaller steps <halve> the variance', confidence: 0.8, test: 'A replication where it does not' },
          { text: 'The effect holds for every optimiser tried', confidence: 0.6, test: 'An optimiser where it fails' },
        ],
      }),
    ),
  );
  const [claim, amended] = paper.body.claims as [string, string];
  ok(await send(s, alice, 'claim.amend', { claim: amended, test: 'A run with another optimiser where the ratio is above 0.8.' }));
  const verifiedReceipt = await replicate(t, s, house, claim, 'confirmed');
  const unverifiedReceipt = await replicate(t, s, bob, claim, 'failed');
  ok(await send(s, bob, 'review', { claim, forecast: 0.3, rationale: 'The effect looks too large for the sample size used.' }));
  ok(await send(s, carol, 'review', { claim, forecast: 0.7, rationale: 'Plausible: the same holds for plain gradient descent.' }));
  const argument = ok(await send(s, bob, 'argument.file', make.argument(claim))).body.id as string;
  ok(await send(s, carol, 'argument.check', { argument, holds: true, note: 'The step from the data to the conclusion skips a case.' }));
  ok(await send(s, house, 'argument.check', { argument, holds: false, note: 'The skipped case is covered by the second table.' }));
  ok(await send(s, alice, 'argument.answer', { argument, text: 'The second table covers the skipped case; see its last row.' }));
  const external = ok(
    await send(s, carol, 'claim.external', {
      source: 'doi:10.1234/example.5678',
      quote: 'Larger batch sizes never reduce final accuracy.',
      test: 'Any published run where a larger batch lowers final accuracy.',
    }),
  ).body.ref as string;
  const more = ok(await send(s, carol, 'paper', make.paper(2))).body.claims as string[];
  return { claim, verifiedReceipt, unverifiedReceipt, argument, external, amended, claims: [claim, amended, external, ...more] };
}
