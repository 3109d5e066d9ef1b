// Lists and cursors (docs/api.md#lists-and-cursors): every list the API serves is a page of at
// most `limit` items with `next`, an opaque cursor for the page after it (null on the last page;
// lib/record/paging.ts makes them). Clients pass a cursor back as it came: one that is not a
// cursor of that list answers 400 naming `cursor`.
import { badRequest } from '../lib/protocol/errors.js';
import { intParam, type Query } from './params.js';
import { cursor, PAGE } from '../lib/record/paging.js';

/** The `limit` parameter of a list (400 naming it when it is not an integer within bounds). */
export const limitParam = (query: Query, page: { default: number; max: number } = PAGE): number =>
  intParam(query, 'limit', { min: 1, max: page.max, default: page.default });

const CURSOR = /^[A-Za-z0-9_-]{1,400}$/;

/**
 * The `cursor` parameter of list `list`: where its page starts (the members after the list's
 * name), or null when absent. `shape` says whether those members are what this list's cursors hold.
 */
export function cursorParam<T extends unknown[]>(query: Query, list: string, shape: (at: unknown[]) => at is T): T | null {
  const raw = query.get('cursor');
  if (raw === undefined) return null;
  if (Array.isArray(raw)) throw badRequest('cursor: given more than once');
  const bad = () =>
    badRequest(
      `cursor: not a cursor of this list; pass the \`next\` of the previous page as it came, got ${JSON.stringify(raw.slice(0, 80))}`,
    );
  if (!CURSOR.test(raw)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value[0] !== list) throw bad();
  const at = value.slice(1);
  if (!shape(at) || cursor(list, ...(at as (number | string)[])) !== raw) throw bad();
  return at;
}

const isSeq = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** A cursor that holds one seq: the lists in log order. */
export const oneSeq = (at: unknown[]): at is [number] => at.length === 1 && isSeq(at[0]);

/** The seq a list's page starts from (its cursor), or null for the first page. */
export function seqCursor(query: Query, list: string): number | null {
  return cursorParam(query, list, oneSeq)?.[0] ?? null;
}

/** A cursor of seqs and numbers. */
export const numbers =
  (n: number) =>
  (at: unknown[]): at is number[] =>
    at.length === n && at.every((x) => typeof x === 'number' && Number.isFinite(x));

export { isSeq };
