// The application's error type: a refusal with a code from a closed set and a detail that names the field. The record, the
// service and the API throw it; the API alone turns a code into a status (docs/api.md#statuses-and-error-codes).
// The engine below has its own, LogError, since it stands alone.

/** Every error code: the `error` member of a refusal's body. */
export const CODES = Object.freeze([
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'gone',
  'payload_too_large',
  'unprocessable',
  'precondition_required',
  'rate_limited',
  'unavailable_for_legal_reasons',
  'internal',
  'paused',
  'unavailable',
  'insufficient_storage',
] as const);

export type ErrorCode = (typeof CODES)[number];

export interface ErrorExtra {
  /** rate_limited, unavailable: seconds until the client may retry (the Retry-After header). */
  retryAfter?: number;
  /** The underlying error, kept for the log, never shown. */
  cause?: unknown;
}

export class ArchiveError extends Error {
  readonly code: ErrorCode;
  /** Human-readable reason; shown to the client only when `expose`. */
  readonly detail: string;
  /** Whether `detail` may be written into a response (false for internal errors). */
  readonly expose: boolean;
  readonly retryAfter?: number;

  constructor(code: ErrorCode, detail: string, extra?: ErrorExtra) {
    super(`${code}: ${detail}`, extra?.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'ArchiveError';
    this.code = code;
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
export const paused = (detail: string): ArchiveError => new ArchiveError('paused', detail);
export const rateLimited = (detail: string, retryAfter: number): ArchiveError => new ArchiveError('rate_limited', detail, { retryAfter });
