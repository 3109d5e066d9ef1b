// The parameters of the readers' lists and of the search (docs/api.md#the-records-reads,
// #search), read once for the JSON reads (routes/readers.ts) and the explorer's pages of the same
// lists (routes/explorer-reads.ts), so that a page and its JSON take the same filters and cursors.
import { badRequest } from '../lib/protocol/errors.js';
import { FIELDS } from '../lib/protocol/schemas/index.js';
import { STATUSES, type Filters } from '../lib/record/views/index.js';
import { sha256TextHex } from 'tlog-engine';
import { KINDS, queryWords, type SearchFilters, type SearchPosition } from '../lib/service/search.js';
import { oneOfParam, optionalParam, type Query } from './params.js';
import { isSeq, limitParam, places, type Cursors } from './paging.js';

export const HANDLE = /^[A-Za-z0-9][A-Za-z0-9-]{1,39}$/;
export const OPERATOR = /^\S{2,80}$/;
export const OPERATOR_FORM = 'an operator id (2 to 80 characters, no whitespace)';

/** The filters of the list of papers (and of the search). */
export const FILTERS = ['field', 'agent', 'operator', 'status'] as const;

/** Results a page of the search shows. */
export const SEARCH_PAGE = { default: 20, max: 100 } as const;
/** The longest query, in characters. */
export const QUERY_MAX = 200;

/** The filters of the lists of papers and of the search, each checked (400 naming it). */
export function filtersOf(query: Query): Filters {
  const f: Filters = {};
  const field = oneOfParam(query, 'field', FIELDS);
  const agent = optionalParam(query, 'agent', HANDLE, 'a handle');
  const operator = optionalParam(query, 'operator', OPERATOR, OPERATOR_FORM);
  const status = oneOfParam(query, 'status', STATUSES);
  if (field !== undefined) f.field = field;
  if (agent !== undefined) f.agent = agent;
  if (operator !== undefined) f.operator = operator;
  if (status !== undefined) f.status = status;
  return f;
}

/** The search's cursor: the tree size of its first page, how many items below it were passed, and which search (a hash of the words and filters). */
const searchCursor = (at: unknown[]): at is [number, number, string] =>
  at.length === 3 && isSeq(at[0]) && isSeq(at[1]) && typeof at[2] === 'string';

/** A search as asked: its words, filters, page size and where its page starts. */
export interface SearchAsked {
  q: string;
  /** The words of `q` as the index folds them. */
  words: string[];
  f: SearchFilters;
  limit: number;
  /** Where the page starts: null for the first page (at the tree size of now). */
  at: SearchPosition | null;
  /** The search's name in its cursors. */
  which: string;
}

/** The parameters of a search (`q` required; 400 naming the one that is wrong). */
export function searchAsked(query: Query, cursors: Cursors): SearchAsked {
  const q = query.get('q');
  if (q === undefined) throw badRequest('q: required');
  if (Array.isArray(q)) throw badRequest('q: given more than once');
  const words = queryWords(q);
  if (words.length === 0) throw badRequest(`q: expected words to search for, got ${JSON.stringify(q.slice(0, QUERY_MAX))}`);
  if ([...q].length > QUERY_MAX) throw badRequest(`q: at most ${QUERY_MAX} characters, got ${[...q].length}`);
  const f: SearchFilters = filtersOf(query);
  const kind = oneOfParam(query, 'kind', KINDS);
  if (kind !== undefined) f.kind = kind;
  const limit = limitParam(query, SEARCH_PAGE);
  // A cursor names its search, so that one search's cursor is not read as another's.
  const which = sha256TextHex(
    JSON.stringify([q, f.kind ?? null, f.field ?? null, f.agent ?? null, f.operator ?? null, f.status ?? null]),
  ).slice(0, 12);
  const at = cursors.read(query, places.search, 'search', searchCursor);
  if (at !== null && at[2] !== which) throw badRequest('cursor: a cursor of a search for other words or filters');
  return { q, words, f, limit, at: at === null ? null : { treeSize: at[0], passed: at[1] }, which };
}

/** The cursor of the page after one of search `s`, or null. */
export const searchNext = (cursors: Cursors, s: SearchAsked, next: SearchPosition | null): string | null =>
  next === null ? null : cursors.mint(places.search)('search', next.treeSize, next.passed, s.which);
