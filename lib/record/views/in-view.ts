// Whether an item is in view (docs/stewardship.md; docs/record.md): read by the writes that
// name an item (451 while it is out of view), by the reads and by the numbers served. The acts
// that take an item out of view and bring it back are entry types (types/out-of-view.ts).
import { outOfView } from '../admission/refusal.js';
import type { OutOfView, State } from '../fold/state.js';

export const describeOutOfView = (o: OutOfView): string => {
  const by =
    o.by === 'hold' ? 'held under R1' : o.by === 'screening' ? 'referred to the stewards by screening' : `withheld by steward ${o.by}`;
  return `${o.subject} is out of view (${o.status}, ${by}, since entry ${o.seq})`;
};

/** Why a claim is out of view (its paper or external claim is), or undefined. */
export function claimHidden(state: State, ref: string): OutOfView | undefined {
  const c = state.claims.get(ref);
  return c === undefined ? undefined : state.outOfView.get(c.paper);
}

/** Whether a claim is in view (shown in /v2/credence, the frontier and the lists). */
export const claimInView = (state: State, ref: string): boolean => state.outOfView.size === 0 || claimHidden(state, ref) === undefined;

/** 451 naming `field` when the claim `ref` is out of view. */
export function assertClaimInView(state: State, ref: string, field: string): void {
  const o = claimHidden(state, ref);
  if (o !== undefined) throw outOfView(`${field}: ${ref}: ${describeOutOfView(o)}`);
}

/** 451 naming `field` when the item `subject` itself is out of view. */
export function assertItemInView(state: State, subject: string, field: string): void {
  const o = state.outOfView.get(subject);
  if (o !== undefined) throw outOfView(`${field}: ${describeOutOfView(o)}`);
}

/** 451 naming `field` when argument `id`, or the claim it is on, is out of view. */
export function assertArgumentInView(state: State, id: string, field: string): void {
  assertItemInView(state, id, field);
  const a = state.argumentsById.get(id);
  if (a !== undefined) assertClaimInView(state, a.claim, field);
}

/** 451 naming `field` when challenge `id` (bare 16 hex), or its claim, is out of view. */
export function assertChallengeInView(state: State, id: string, field: string): void {
  assertItemInView(state, `ch:${id}`, field);
  const c = state.challenges.get(id);
  if (c !== undefined) assertClaimInView(state, c.claim, field);
}

/** Whether an argument is in view: it, and the claim it is on. */
export const argumentInView = (state: State, a: { id: string; claim: string }): boolean =>
  !state.outOfView.has(a.id) && claimInView(state, a.claim);

/** Whether a challenge is in view: it, and the claim it is on. */
export const challengeInView = (state: State, id: string, claim: string): boolean =>
  !state.outOfView.has(`ch:${id}`) && claimInView(state, claim);
