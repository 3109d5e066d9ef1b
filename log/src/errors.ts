// The one error type of the log layer. Callers branch on `code`, never on the message;
// api/error-middleware.ts maps the codes to statuses.

/** The closed set of log error codes. */
export type LogErrorCode =
  | 'bad_argument' // malformed input: not a safe integer, wrong byte length, bad encoding
  | 'out_of_range' // well-formed but outside the tree: index >= size, first > second
  | 'corrupt' // stored data contradicts itself or is missing
  | 'closed' // the log was closed
  | 'failed' // the log stopped after a failed commit
  | 'fenced' // a commit found the stored head moved by another writer, or the lease taken, and wrote nothing
  | 'unavailable' // a log, witness or mirror read over HTTP gave no answer, or not the one the protocol promises
  | 'unknown'; // a commit's outcome could not be learnt (the store stopped answering after it was sent): it may have landed

/** An error raised by log/, carrying a code from a closed set. */
export class LogError extends Error {
  readonly code: LogErrorCode;

  constructor(code: LogErrorCode, message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'LogError';
    this.code = code;
  }
}
