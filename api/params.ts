// Strict query parameters: one spelling per value. An integer is
// decimal digits with no sign, no leading zero and no exponent, within the safe range. The
// parsing is the engine's (tlog-engine/http, docs/engine.md), its refusals the record's 400s.
import { badRequest } from '../lib/protocol/errors.js';
import * as engine from 'tlog-engine/http';

export type Query = engine.Query;
export type IntOptions = engine.IntOptions;

/** `f`, its refusal (the engine's strict parameters: docs/engine.md) answered as the record's 400. */
function strict<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof engine.LogHttpError) throw badRequest(err.detail);
    throw err;
  }
}

/** Reads integer query parameter `name`, answering 400 naming it when it is malformed. */
export function intParam(query: Query, name: string, opts: engine.IntOptions): number {
  return strict(() => engine.intParam(query, name, opts));
}

/** Parses a query string; a name given twice maps to an array (which intParam refuses); malformed escapes answer 400. */
export function parseQuery(qs: string): Query {
  return strict(() => engine.parseQuery(qs));
}

/**
 * The request's query, refusing parameters the endpoint does not take. Parsed once, here:
 * Koa's ctx.query parses again on every access.
 */
export function params(ctx: { querystring: string }, allowed: readonly string[]): Query {
  return strict(() => engine.params(ctx, allowed));
}

/** Refuses query parameters an endpoint does not take. */
export function onlyParams(query: Query, allowed: readonly string[]): void {
  strict(() => engine.onlyParams(query, allowed));
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
