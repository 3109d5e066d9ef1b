// Pages of the record's lists: a page is named by the seq of its last item, and `next` is an opaque cursor made by a `Mint` the
// caller gives (api/paging.ts). The rules: docs/api.md#lists-and-cursors.

/** A page: its items, and the seq from which the next page goes on (null: this was the last). */
export interface Page<T> {
  items: T[];
  next: number | null;
}

/** `limit` of the lists that have no default of their own: 1 to 200, 50 when absent (docs/api.md#lists-and-cursors). */
export const PAGE = { default: 50, max: 200 } as const;

/** Makes the cursor of list `list` whose next page starts at `at` (api/paging.ts). */
export type Mint = (list: string, ...at: (number | string)[]) => string;

/** A page as served: its items and the cursor of the page after it (null on the last page). */
export function served<T>(mint: Mint, list: string, page: Page<T>): { items: T[]; next: string | null } {
  return { items: page.items, next: page.next === null ? null : mint(list, page.next) };
}

/** A list a page walks: an array, a column of rows, or a store that makes each item when read (stores/short-keys.ts). */
export interface Listed<T> {
  readonly length: number;
  at(i: number): T | undefined;
}

/** The index of the first id of `ids` (seq ascending) whose seq is at least `seq`. */
function firstAtLeast<T>(ids: Listed<T>, seqOf: (id: T) => number, seq: number): number {
  let lo = 0;
  for (let hi = ids.length; lo < hi;) {
    const mid = (lo + hi) >> 1;
    if (seqOf(ids.at(mid)!) < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Newest first: the ids of `ids` (in log order) below seq `before` (all when null) that `keep`
 * takes, at most `limit` of them; `next` is the seq of the last one taken when another one
 * that `keep` takes lies further down.
 */
export function newestFirst<T>(
  ids: Listed<T>,
  seqOf: (id: T) => number,
  before: number | null,
  limit: number,
  keep: (id: T) => boolean,
): Page<T> {
  const items: T[] = [];
  let i = (before === null ? ids.length : firstAtLeast(ids, seqOf, before)) - 1;
  for (; i >= 0 && items.length < limit; i--) {
    const id = ids.at(i)!;
    if (keep(id)) items.push(id);
  }
  for (; i >= 0; i--) if (keep(ids.at(i)!)) return { items, next: seqOf(items[items.length - 1]!) };
  return { items, next: null };
}

/** Oldest first: as `newestFirst`, from the first id above seq `after` (the start when null). */
export function oldestFirst<T>(
  ids: Listed<T>,
  seqOf: (id: T) => number,
  after: number | null,
  limit: number,
  keep: (id: T) => boolean,
): Page<T> {
  const items: T[] = [];
  let i = after === null ? 0 : firstAtLeast(ids, seqOf, after + 1);
  for (; i < ids.length && items.length < limit; i++) {
    const id = ids.at(i)!;
    if (keep(id)) items.push(id);
  }
  for (; i < ids.length; i++) if (keep(ids.at(i)!)) return { items, next: seqOf(items[items.length - 1]!) };
  return { items, next: null };
}

/** The page's items made into what is served. */
export function mapPage<A, B>(page: Page<A>, f: (a: A) => B): Page<B> {
  return { items: page.items.map(f), next: page.next };
}

/** As mapPage, for views that read the log. */
export async function mapPageAsync<A, B>(page: Page<A>, f: (a: A) => Promise<B>): Promise<Page<B>> {
  return { items: await Promise.all(page.items.map(f)), next: page.next };
}
