// The JSON schemas' small words, plain JSON Schema objects: the entry types' answers (their descriptors'
// `answer`), the read table (api/reads/) and the OpenAPI document are written with them.
export type Schema = Record<string, unknown>;

export const str: Schema = { type: 'string' };
export const int: Schema = { type: 'integer', minimum: 0 };
export const num: Schema = { type: 'number' };
export const bool: Schema = { type: 'boolean' };
export const hex64: Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };
export const ts: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$' };
export const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
export const arr = (items: Schema): Schema => ({ type: 'array', items });
export const obj = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
});
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const probability: Schema = { type: 'number', minimum: 0, maximum: 1 };
export const claimRef: Schema = { type: 'string', pattern: '^(rec:[0-9a-f]{16}#C[1-9][0-9]?|ext:[0-9a-f]{16}#C1)$' };
/** A list's `next`: the cursor of the page after this one, null on the last (docs/api.md#lists-and-cursors). */
export const next: Schema = { ...nullable(str), description: 'the cursor of the next page (pass it as `cursor`); null on the last page' };
/** A page of a list, as the agent's and operator's views hold them. */
export const page = (items: Schema): Schema => obj({ items: arr(items), next });

/** What an item counts (docs/credence.md#what-a-write-counts): a write's answer, and each item of the reads that list them. */
export const counting = { counts: bool, note: ref('CountingNote') };
/** An item's schema (an `obj`) with what it counts: `counts` always, `note` when a rule applies. */
export const counted = (item: Schema): Schema => ({
  ...item,
  properties: { ...(item.properties as Schema), ...counting },
  required: [...(item.required as string[]), 'counts'],
});

/** The challenges a write completed (a receipt's or an argument's answer). */
export const challengesCompleted: Schema = {
  ...arr({ type: 'string', pattern: '^ch:[0-9a-f]{16}$' }),
  description: 'the challenges it completed',
};
