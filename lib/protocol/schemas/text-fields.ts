// The text fields of a payload: the strings its schema marks NT (`x-nt`), found by walking the
// payload alongside its schema. Screening reads them; an item out of view is served with them null.
type Schema = { 'x-nt'?: boolean; properties?: Record<string, Schema>; items?: Schema };

/**
 * Calls `visit(path, text)` for every text field of `payload` (a payload `schema` accepts), paths
 * from `payload` on, such as `payload.claims[0].text`; a visit that returns true sets that field
 * to null in place.
 */
export function eachTextIn(schema: object, payload: object, visit: (path: string, text: string) => boolean): void {
  walk(payload, schema as Schema, 'payload', visit);
}

/** True when `value` itself is a text field that `visit` nulls. */
function walk(value: unknown, schema: Schema | undefined, path: string, visit: (path: string, text: string) => boolean): boolean {
  if (schema === undefined || value === null || value === undefined) return false;
  if (schema['x-nt'] === true) return typeof value === 'string' && visit(path, value);
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (walk(v, schema.items, `${path}[${i}]`, visit)) value[i] = null;
    });
  } else if (typeof value === 'object' && schema.properties !== undefined) {
    const members = value as Record<string, unknown>;
    for (const [k, s] of Object.entries(schema.properties)) if (walk(members[k], s, `${path}.${k}`, visit)) members[k] = null;
  }
  return false;
}
