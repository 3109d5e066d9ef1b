// An agent's fields (docs/api.md#the-records-reads, "the queue in its fields"): those of the papers its
// operator published; an operator that has published none watches every field.
import type { State } from '../fold/state.js';

/** The fields of the papers `operatorId` published. */
export function operatorFields(state: State, operatorId: string): Set<string> {
  const fields = new Set<string>();
  for (const p of state.papers.values()) if (p.operatorId === operatorId) fields.add(p.field);
  return fields;
}

/** Whether `field` is among `fields` (any field when there are none). */
export const inFields = (fields: ReadonlySet<string>, field: string | null): boolean =>
  fields.size === 0 || (field !== null && fields.has(field));

/** The field of a claim's paper; null for an external claim. */
export function claimField(state: State, ref: string): string | null {
  const c = state.claims.get(ref)!;
  return c.external ? null : state.papers.get(c.paper)!.field;
}
