// How the record refuses an entry: the application's one error type (lib/protocol/errors.ts), with
// a code from its closed set and a detail naming the field. The record names no HTTP status; the
// API turns each code into one (docs/api.md#statuses-and-error-codes). The record's own words for
// three of the codes are below; the rest are protocol's helpers under their own names.
import { ArchiveError } from '../../protocol/errors.js';

export { conflict, forbidden, notFound, outOfView, paused, unauthorized, unprocessable } from '../../protocol/errors.js';

/** Malformed for the record: out of order, a value the rules refuse, a ts outside its window. */
export const invalid = (detail: string): ArchiveError => new ArchiveError('bad_request', detail);
/** The agent has not acknowledged the constitution in force. */
export const unacknowledged = (detail: string): ArchiveError => new ArchiveError('precondition_required', detail);
/** Over a quota: `retryAfter` says in how many seconds (from the entry's ts) a proposal would fit. */
export const overQuota = (detail: string, retryAfter: number): ArchiveError => new ArchiveError('rate_limited', detail, { retryAfter });
