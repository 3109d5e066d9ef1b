// The one place where an error becomes a response: the application's ArchiveError and the engine's
// LogError map to the statuses of docs/api.md#statuses-and-error-codes with a body {error, detail};
// anything else is a bug, logged and answered 500 without detail.
import type Koa from 'koa';
import { ArchiveError, isArchiveError, type ErrorCode } from '../lib/protocol/errors.js';
import { LogError } from 'tlog-engine';
import { LogHttpError } from 'tlog-engine/http';
import { escapeMarkup as h } from '../lib/protocol/markup.js';
import { navigation } from './explorer/shell.js';

/** The HTTP status of each error code (docs/api.md#statuses-and-error-codes). */
export const STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unprocessable: 422,
  precondition_required: 428,
  rate_limited: 429,
  unavailable_for_legal_reasons: 451,
  internal: 500,
  paused: 503,
  unavailable: 503,
  insufficient_storage: 507,
});

/** Maps errors from below the API onto the closed set of ArchiveError codes. */
export function toArchiveError(err: unknown): ArchiveError {
  if (isArchiveError(err)) return err;
  // The refusals of the engine's log router (api/routes/log.ts): 400, 404, or a guard's.
  if (err instanceof LogHttpError && err.expose && err.code in STATUS)
    return new ArchiveError(err.code as ErrorCode, err.detail, { retryAfter: err.retryAfter, cause: err });
  if (err instanceof LogError) {
    if (err.code === 'out_of_range') return new ArchiveError('not_found', err.message);
    if (err.code === 'bad_argument') return new ArchiveError('bad_request', err.message);
  }
  // Koa's own client errors (for example a malformed URL) carry a 4xx status.
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: boolean }).expose) {
    return new ArchiveError(status === 404 ? 'not_found' : 'bad_request', (err as Error).message);
  }
  return new ArchiveError('internal', 'internal error', { cause: err });
}

/** Codes of a connection the client closed or spoke malformed HTTP on: not a fault of the service. */
const CLIENT_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * True when `err` says that the client of `ctx` went away (or broke HTTP) rather than that the
 * service failed: a connection error, and the request's connection is closed.
 */
export function clientWentAway(ctx: Koa.Context, err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (CLIENT_GONE.has(code) || code.startsWith('HPE_')) && (ctx.req.destroyed || ctx.req.socket.destroyed);
}

/** Notes once per request, in one line without a stack, that its client went away. */
export function noteClientGone(ctx: Koa.Context, err: unknown, note: (line: string) => void): void {
  if (ctx.state.clientGone === true) return;
  ctx.state.clientGone = true;
  note(`archive: ${ctx.method} ${ctx.path}: the client went away (${(err as { code?: string }).code})`);
}

/**
 * An error as a page, for a browser that asked for one (a GET whose Accept prefers text/html):
 * the same status, code and detail as the JSON body, with the way back (docs/api.md#statuses-and-error-codes).
 */
function errorPage(status: number, code: string, detail: string, path: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${status} ${h(code)}</title><link rel="icon" href="data:,">
<style>body { font: 15px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #222; overflow-wrap: anywhere; }
code { font-size: 0.9em; } nav a { margin-right: 1rem; } header { display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; align-items: center; }
form.search { display: flex; flex: 1; gap: 0.3rem; min-width: 12rem; max-width: 24rem; margin: 0; } form.search input { flex: 1; min-width: 0; font: inherit; }</style></head>
<body><header>${navigation()}</header>
<h1>${status} <code>${h(code)}</code></h1>
<p>${h(detail)}</p>
<p><small>Asked for <code>${h(path)}</code>. The same answer is JSON (<code>{error, detail}</code>) for a client that asks for it.</small></p>
</body></html>
`;
}

/** Whether the request is a browser's page view: a GET or HEAD whose Accept prefers HTML to JSON. */
const wantsPage = (ctx: Koa.Context): boolean => (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.accepts('json', 'html') === 'html';

/** Response headers a page on another origin may read: the entry a write landed in, when to retry, caching. */
const EXPOSED_HEADERS = 'Archive-Seq, Retry-After, ETag, Last-Modified, Location';

/** The outermost middleware: CORS for every answer (preflights included), and the one place errors become bodies. */
export function errorMiddleware(
  report: (err: unknown) => void = (e) => console.error(e),
  note: (line: string) => void = (l) => console.warn(l),
): Koa.Middleware {
  return async (ctx, next) => {
    // Everything served is public data, readable from any origin (errors included), with the
    // headers a client reads (docs/api.md#requests-and-refusals). No credentials are ever taken.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    // A browser's preflight: any method the service answers, with any header the page asks to send.
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, POST');
      const asked = ctx.get('Access-Control-Request-Headers');
      if (asked !== '') ctx.set('Access-Control-Allow-Headers', asked);
      ctx.set('Access-Control-Max-Age', '86400');
      ctx.status = 204;
      return;
    }
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) {
        throw new ArchiveError('not_found', `no such endpoint: ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      if (clientWentAway(ctx, err)) {
        // Nobody is left to read an answer; a 4xx all the same, so that it is never counted as a 500.
        noteClientGone(ctx, err, note);
        ctx.status = 400;
        ctx.body = { error: 'bad_request', detail: 'body: the connection closed before the body was complete' };
        return;
      }
      const e = toArchiveError(err);
      if (!e.expose) report(e.cause ?? err);
      ctx.status = STATUS[e.code];
      const detail = e.expose ? e.detail : 'internal error';
      ctx.vary('Accept');
      if (wantsPage(ctx)) {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = errorPage(STATUS[e.code], e.code, detail, ctx.path);
      } else ctx.body = { error: e.code, detail };
      if (e.retryAfter !== undefined) ctx.set('Retry-After', String(e.retryAfter));
    }
  };
}
