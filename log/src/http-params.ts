// Strict query parameters for the log router: one spelling per value. An integer is decimal
// digits with no sign, no leading zero and no exponent, within the safe range; a parameter given
// twice, or one the route does not take, is refused. Each refusal is a 400 naming the parameter.
import { badRequest } from './http-errors.js';

const INTEGER = /^(?:0|[1-9][0-9]{0,15})$/;

/** A parsed query: each name with its value, or its values when it was given more than once. */
export type Query = Map<string, string | string[]>;

export interface IntOptions {
  min: number;
  max?: number;
  /** Used when the parameter is absent; without it the parameter is required. */
  default?: number;
}

/** The integer parameter `name`, or a 400 naming it when it is absent (and required), repeated or malformed. */
export function intParam(query: Query, name: string, opts: IntOptions): number {
  const raw = query.get(name);
  if (raw === undefined) {
    if (opts.default !== undefined) return opts.default;
    throw badRequest(`${name}: required`);
  }
  if (Array.isArray(raw)) throw badRequest(`${name}: given more than once`);
  const bounds = opts.max === undefined ? `at least ${opts.min}` : `from ${opts.min} to ${opts.max}`;
  const n = INTEGER.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < opts.min || (opts.max !== undefined && n > opts.max)) {
    throw badRequest(`${name}: expected an integer ${bounds}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** One query component, percent-decoded ('+' is a space); a malformed escape is a 400. */
function decode(s: string): string {
  if (!s.includes('%') && !s.includes('+')) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw badRequest(`query: malformed percent-encoding in ${JSON.stringify(s)}`);
  }
}

/** Parses a query string; a name given twice maps to an array (which intParam refuses). */
export function parseQuery(qs: string): Query {
  const out: Query = new Map();
  if (qs === '') return out;
  for (const part of qs.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    const prev = out.get(name);
    out.set(name, prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value]);
  }
  return out;
}

/** Refuses (400) a parameter not in `allowed`, naming it and what the route takes. */
export function onlyParams(query: Query, allowed: readonly string[]): void {
  for (const name of query.keys()) {
    if (!allowed.includes(name)) {
      throw badRequest(`${name}: unknown parameter${allowed.length ? ` (takes ${allowed.join(', ')})` : ' (takes none)'}`);
    }
  }
}

/** The request's query, parsed once, refusing parameters not in `allowed`. */
export function params(ctx: { querystring: string }, allowed: readonly string[]): Query {
  const query = parseQuery(ctx.querystring);
  onlyParams(query, allowed);
  return query;
}
