// Canonical JSON (RFC 8785, JCS) of the values JSON.parse gives: object members sorted by their
// names' UTF-16 code units, no whitespace, strings and numbers as JSON.stringify writes them
// (which is what RFC 8785 prescribes). One value, one spelling: what is signed and what is logged.

/** How deeply a statement may nest: deeper values are refused, not recursed into. */
export const MAX_DEPTH = 32;

/** The canonical JSON text of `v`; throws a RangeError past MAX_DEPTH, a TypeError for what JSON cannot hold. */
export function canonicalize(v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new RangeError(`nested deeper than ${MAX_DEPTH}`);
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError('not a finite number');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map((x) => canonicalize(x, depth + 1)).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalize(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  throw new TypeError(`${typeof v} is not a JSON value`);
}
