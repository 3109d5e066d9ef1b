// Strict query parameters (STYLE.md practice 5): one spelling per value. An integer is
// decimal digits with no sign, no leading zero and no exponent, within the safe range.
import { badRequest } from '../lib/protocol/errors.js';

const INTEGER = /^(?:0|[1-9][0-9]{0,15})$/;

/** A parsed query: each name with its value, or its values when it was given more than once. */
export type Query = Map<string, string | string[]>;

export interface IntOptions {
  min: number;
  max?: number;
  /** Used when the parameter is absent; without it the parameter is required. */
  default?: number;
}

/** Reads integer query parameter `name`, answering 400 naming it when it is malformed. */
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

/** One query component, percent-decoded ('+' is a space); malformed escapes answer 400. */
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
  // A Map, not an object: storing fresh name strings as object keys showed up in profiles.
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

/**
 * The request's query, refusing parameters the endpoint does not take. Parsed once, here:
 * Koa's ctx.query parses again on every access.
 */
export function params(ctx: { querystring: string }, allowed: readonly string[]): Query {
  const query = parseQuery(ctx.querystring);
  onlyParams(query, allowed);
  return query;
}

/** Refuses query parameters an endpoint does not take. */
export function onlyParams(query: Query, allowed: readonly string[]): void {
  for (const name of query.keys()) {
    if (!allowed.includes(name)) {
      throw badRequest(`${name}: unknown parameter${allowed.length ? ` (takes ${allowed.join(', ')})` : ' (takes none)'}`);
    }
  }
}

/** A string parameter given at most once and matching `pattern` (400 naming it otherwise); undefined when absent. */
export function optionalParam(query: Query, name: string, pattern: RegExp, what: string): string | undefined {
  const v = query.get(name);
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw badRequest(`${name}: given more than once`);
  if (!pattern.test(v)) throw badRequest(`${name}: expected ${what}, got ${JSON.stringify(v.slice(0, 200))}`);
  return v;
}

/** A parameter given at most once that is one of `values` (400 naming it otherwise); undefined when absent. */
export function oneOfParam<T extends string>(query: Query, name: string, values: readonly T[]): T | undefined {
  const v = query.get(name);
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw badRequest(`${name}: given more than once`);
  if (!(values as readonly string[]).includes(v))
    throw badRequest(`${name}: expected one of ${values.join(', ')}, got ${JSON.stringify(v.slice(0, 200))}`);
  return v as T;
}
