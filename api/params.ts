// Strict query parameters (STYLE.md practice 5): one spelling per value. An integer is
// decimal digits with no sign, no leading zero and no exponent, within the safe range.
import { parse, type ParsedUrlQuery } from 'node:querystring';
import { badRequest } from '../lib/errors.js';

const INTEGER = /^(?:0|[1-9][0-9]{0,15})$/;

export interface IntOptions {
  min: number;
  max?: number;
  /** Used when the parameter is absent; without it the parameter is required. */
  default?: number;
}

/** Reads integer query parameter `name`, answering 400 naming it when it is malformed. */
export function intParam(query: ParsedUrlQuery, name: string, opts: IntOptions): number {
  const raw = query[name];
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

/**
 * The request's query, refusing parameters the endpoint does not take. Parsed here with
 * node:querystring, once: Koa's ctx.query is slower and parses again on every access.
 */
export function params(ctx: { querystring: string }, allowed: readonly string[]): ParsedUrlQuery {
  const query = parse(ctx.querystring);
  onlyParams(query, allowed);
  return query;
}

/** Refuses query parameters an endpoint does not take. */
export function onlyParams(query: ParsedUrlQuery, allowed: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (!allowed.includes(name)) {
      throw badRequest(`${name}: unknown parameter${allowed.length ? ` (takes ${allowed.join(', ')})` : ' (takes none)'}`);
    }
  }
}
