// The log router's error answers (docs/engine.md, "The log's reads over HTTP"): a status and a
// JSON body {error, detail}. Bad input is 400 `bad_request` naming the parameter, what the tree
// does not hold 404 `not_found`, a guard's refusal its own status (429 from a rate limit), and
// anything else 500 `internal`, whose detail says nothing more.
import { STATUS_CODES } from 'node:http';
import type { Middleware } from 'koa';
import { LogError } from './errors.js';

/** A refusal of the log router, with the status and the body `{error: code, detail}` it answers. */
export class LogHttpError extends Error {
  /** Koa's convention: the detail may be shown to the client (all but a 5xx). */
  readonly expose: boolean;

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    opts: { retryAfter?: number; cause?: unknown } = {},
  ) {
    super(`${code}: ${detail}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'LogHttpError';
    this.expose = status < 500;
    if (opts.retryAfter !== undefined) this.retryAfter = opts.retryAfter;
  }

  /** Seconds until the client may ask again (the Retry-After header). */
  readonly retryAfter?: number;
}

/** 400 `bad_request`; the detail starts with the parameter's name. */
export const badRequest = (detail: string): LogHttpError => new LogHttpError(400, 'bad_request', detail);
/** 404 `not_found`. */
export const notFound = (detail: string): LogHttpError => new LogHttpError(404, 'not_found', detail);

/** The router's own refusals: its LogHttpErrors, and the log's LogErrors of bad input or outside the tree; null for anything else. */
export function refusalOf(err: unknown): LogHttpError | null {
  if (err instanceof LogHttpError) return err;
  if (err instanceof LogError) {
    if (err.code === 'bad_argument') return new LogHttpError(400, 'bad_request', err.message, { cause: err });
    if (err.code === 'out_of_range') return new LogHttpError(404, 'not_found', err.message, { cause: err });
  }
  return null;
}

/**
 * A refusal by a guard (a rate limit, say), by Koa's convention: an error with a 4xx `status`
 * and `expose`. Its code is its own `code` when that is a lower-case word (`rate_limited`),
 * else the status's name (`too_many_requests`); its Retry-After its `retryAfter` or its headers'.
 */
function guardRefusal(err: unknown): LogHttpError | null {
  const e = err as {
    status?: unknown;
    expose?: unknown;
    code?: unknown;
    detail?: unknown;
    message?: unknown;
    retryAfter?: unknown;
    headers?: unknown;
  };
  if (typeof e?.status !== 'number' || e.status < 400 || e.status > 499 || e.expose !== true) return null;
  const code =
    typeof e.code === 'string' && /^[a-z][a-z_]*$/.test(e.code)
      ? e.code
      : (STATUS_CODES[e.status] ?? 'error').toLowerCase().replace(/[^a-z]+/g, '_');
  const detail = typeof e.detail === 'string' ? e.detail : String(e.message);
  const header = (e.headers as Record<string, unknown> | undefined)?.['Retry-After'];
  const retryAfter = typeof e.retryAfter === 'number' ? e.retryAfter : typeof header === 'number' ? header : Number(header ?? NaN);
  return new LogHttpError(e.status, code, detail, { cause: err, ...(Number.isFinite(retryAfter) ? { retryAfter } : {}) });
}

/**
 * The router's error middleware. 'answer': every error becomes an answer (500 `internal` for
 * what is not a refusal, given to `report`). 'throw': the router's own refusals are thrown as
 * LogHttpError and everything else as it came, for the application's error middleware to answer.
 */
export function logErrors(mode: 'answer' | 'throw', report: (err: unknown) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const refusal = refusalOf(err);
      if (mode === 'throw') throw refusal ?? err;
      let e = refusal ?? guardRefusal(err);
      if (e === null) {
        report(err);
        e = new LogHttpError(500, 'internal', 'internal error', { cause: err });
      }
      ctx.status = e.status;
      ctx.body = { error: e.code, detail: e.detail };
      if (e.retryAfter !== undefined) ctx.set('Retry-After', String(e.retryAfter));
    }
  };
}
