// How the record refuses an entry: a domain code and a detail naming the field, never an HTTP
// status. The API maps each code to its status in one place (api/error-middleware.ts; the
// statuses are in docs/api.md#statuses-and-error-codes).

/** Why the record refuses an entry. */
export type RefusalCode =
  /** Malformed for the record: out of order, a value the rules refuse, a ts outside its window. */
  | 'invalid'
  /** The signer is not who the entry says, or not an agent in force. */
  | 'unauthorized'
  /** The signer may not do this. */
  | 'forbidden'
  /** The entry names something not on the record. */
  | 'not_found'
  /** It clashes with what is on the record (a copy, a duplicate, a closed item). */
  | 'conflict'
  /** Well formed, but it does not fit what it names (a check's outputs and its bundle). */
  | 'unprocessable'
  /** The agent has not acknowledged the constitution in force. */
  | 'unacknowledged'
  /** Over a quota; `retryAfter` says in how many seconds a proposal would fit. */
  | 'quota'
  /** The item it names is out of view. */
  | 'out_of_view'
  /** A steward's switch pauses it. */
  | 'paused';

export class RecordRefusal extends Error {
  readonly code: RefusalCode;
  readonly detail: string;
  /** quota: seconds until the quota has room again (from the entry's ts). */
  readonly retryAfter?: number;

  constructor(code: RefusalCode, detail: string, retryAfter?: number) {
    super(`${code}: ${detail}`);
    this.name = 'RecordRefusal';
    this.code = code;
    this.detail = detail;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

/** True for a refusal of the record. */
export const isRefusal = (e: unknown): e is RecordRefusal => e instanceof RecordRefusal;

export const invalid = (detail: string): RecordRefusal => new RecordRefusal('invalid', detail);
export const unauthorized = (detail: string): RecordRefusal => new RecordRefusal('unauthorized', detail);
export const forbidden = (detail: string): RecordRefusal => new RecordRefusal('forbidden', detail);
export const notFound = (detail: string): RecordRefusal => new RecordRefusal('not_found', detail);
export const conflict = (detail: string): RecordRefusal => new RecordRefusal('conflict', detail);
export const unprocessable = (detail: string): RecordRefusal => new RecordRefusal('unprocessable', detail);
export const unacknowledged = (detail: string): RecordRefusal => new RecordRefusal('unacknowledged', detail);
export const overQuota = (detail: string, retryAfter: number): RecordRefusal => new RecordRefusal('quota', detail, retryAfter);
export const outOfView = (detail: string): RecordRefusal => new RecordRefusal('out_of_view', detail);
export const paused = (detail: string): RecordRefusal => new RecordRefusal('paused', detail);
