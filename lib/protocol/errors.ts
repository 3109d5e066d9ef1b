// The project's one error type (STYLE.md practice 4): a closed set of codes, each with its
// HTTP status. Bad input is a typed 4xx whose detail may be shown; a broken invariant is
// `internal`, logged and never shown (expose = false).

/** Every error code, with the HTTP status it maps to. */
export const STATUS = Object.freeze({
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

export type ErrorCode = keyof typeof STATUS;

export interface ErrorExtra {
  /** rate_limited, unavailable: seconds until the client may retry (the Retry-After header). */
  retryAfter?: number;
  /** The underlying error, kept for the log, never shown. */
  cause?: unknown;
}

export class ArchiveError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Human-readable reason; shown to the client only when `expose`. */
  readonly detail: string;
  /** Whether `detail` may be written into a response (false for internal errors). */
  readonly expose: boolean;
  readonly retryAfter?: number;

  constructor(code: ErrorCode, detail: string, extra?: ErrorExtra) {
    super(`${code}: ${detail}`, extra?.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'ArchiveError';
    this.code = code;
    this.status = STATUS[code];
    this.detail = detail;
    this.expose = code !== 'internal';
    if (extra?.retryAfter !== undefined) this.retryAfter = extra.retryAfter;
  }
}

/** True for an ArchiveError, optionally of the given code. */
export function isArchiveError(e: unknown, code?: ErrorCode): e is ArchiveError {
  return e instanceof ArchiveError && (code === undefined || e.code === code);
}

export const badRequest = (detail: string): ArchiveError => new ArchiveError('bad_request', detail);
export const notFound = (detail: string): ArchiveError => new ArchiveError('not_found', detail);
export const forbidden = (detail: string): ArchiveError => new ArchiveError('forbidden', detail);
export const conflict = (detail: string): ArchiveError => new ArchiveError('conflict', detail);
export const gone = (detail: string): ArchiveError => new ArchiveError('gone', detail);
export const internal = (detail: string, cause?: unknown): ArchiveError => new ArchiveError('internal', detail, { cause });
export const unauthorized = (detail: string): ArchiveError => new ArchiveError('unauthorized', detail);
export const unprocessable = (detail: string): ArchiveError => new ArchiveError('unprocessable', detail);
export const outOfView = (detail: string): ArchiveError => new ArchiveError('unavailable_for_legal_reasons', detail);
export const preconditionRequired = (detail: string): ArchiveError => new ArchiveError('precondition_required', detail);
export const rateLimited = (detail: string, retryAfter: number): ArchiveError => new ArchiveError('rate_limited', detail, { retryAfter });
