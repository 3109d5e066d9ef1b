// The search of GET /v2/search (docs/api.md#search): papers (title, abstract, methods), claims
// (statement and test), external claims (quote, test, source) and agents (handle, operator,
// models), in one FlexSearch index in this process. FlexSearch ranks an item by where the words
// of the query stand in its text (the earlier, the higher: a paper's title before its abstract,
// a claim's statement before its test), items with every word of the query only, ties in the
// order items were indexed; it keeps no statistics over the whole corpus, so an item indexed later
// never moves the order of those indexed before it. Items are indexed in log order and never
// taken out: an item out of view is left out when the index is read, as is an item logged after
// the search's first page (its cursor names that tree size), so pages stay as they were while the
// log grows. An amended claim is indexed again, as of its amendment's entry; its first version
// stays in the index, unread. The index saves itself for a snapshot (`save`, kept by
// search-snapshot.ts) and starts from one when it holds, indexing the entries logged since.
import { createRequire } from 'node:module';
import { grow, owned, type Bytes, type Ints } from '../record/stores/index.js';
import { deserialize, serialize } from 'node:v8';
import type { Index as FlexIndex, IndexOptions } from 'flexsearch';
import type { RecordReader } from '../protocol/log-entry.js';
import { SEARCHED_TYPES, type PayloadOf } from '../record/types/index.js';
import { recordEntry, type RecordEntry, type SignedWrite, type State } from '../record/fold/index.js';
import { entrySubject, claimInView, type Filters, type Logged } from '../record/views/index.js';
import { type Status, servedProbability } from '../record/numbers/index.js';
import { ArchiveError } from '../protocol/errors.js';

// FlexSearch's ES module bundle has no named exports under Node; its CommonJS build has.
const { Index, Charset } = createRequire(import.meta.url)('flexsearch') as typeof import('flexsearch');

export const KINDS = ['paper', 'claim', 'external', 'agent'] as const;
export type Kind = (typeof KINDS)[number];

/** What the search filters by: the lists' filters, and the kind of item. */
export interface SearchFilters extends Filters {
  kind?: Kind;
}

/** Where a search goes on: the tree size of its first page, and how many items indexed below it the previous pages passed. */
export interface SearchPosition {
  treeSize: number;
  passed: number;
}

/** One item of the index: its kind, its id (paper id, claim ref, handle) and the entry that indexed it. */
interface Doc {
  kind: Kind;
  key: string;
  seq: number;
}

/** FlexSearch's options: whole words, case and accents folded (docs/api.md#search). */
const OPTIONS: IndexOptions = { tokenize: 'strict', resolution: 9, encoder: Charset.Normalize };

/** Items indexed between two turns of the event loop while the index is built. */
const BATCH = 2000;
/** How long a search waits for an index being built before it is answered 503 with the build's progress. */
export const SEARCH_WAIT_MS = 2000;

/** A paper's text as indexed: title, abstract and methods. */
const paperText = (p: { title: string; abstract: string; methods?: string }) => [p.title, p.abstract, p.methods ?? ''].join('\n');

/** A claim's text as indexed: its statement and test (an external claim's quote, test and source). */
function claimText(state: State, ref: string): string {
  const c = state.claims.get(ref)!;
  return [c.text, c.test, c.source ?? ''].join('\n');
}

const agentText = (state: State, handle: string): string => {
  const a = state.agents.get(handle)!;
  return [a.handle, a.operatorId, ...a.models].join('\n');
};

/**
 * The items of the index by their number in it, as columns: each one's kind and entry in typed
 * arrays, its id in an array of strings (a million items as objects would cost a million objects
 * in the heap, and seconds to write into a snapshot).
 */
class Docs {
  private kinds = new Uint8Array(16);
  private seqs = new Int32Array(16);
  private keys: string[] = [];

  get length(): number {
    return this.keys.length;
  }

  push(d: Doc): void {
    const n = this.keys.length;
    this.kinds = grow(this.kinds, n + 1);
    this.seqs = grow(this.seqs, n + 1);
    this.kinds[n] = KINDS.indexOf(d.kind);
    this.seqs[n] = d.seq;
    this.keys.push(d.key);
  }

  at(id: number): Doc {
    return { kind: KINDS[this.kinds[id]!]!, key: this.keys[id]!, seq: this.seqs[id]! };
  }
  keyAt(id: number): string {
    return this.keys[id]!;
  }
  seqAt(id: number): number {
    return this.seqs[id]!;
  }

  /** The id of the last item of key `key`, or -1. */
  lastOf(key: string): number {
    return this.keys.lastIndexOf(key);
  }

  /** Copies of the columns (the ids one a line: no id holds a line break). */
  pack(): { kinds: Uint8Array; seqs: Int32Array; keys: string } {
    const n = this.keys.length;
    return { kinds: this.kinds.slice(0, n), seqs: this.seqs.slice(0, n), keys: this.keys.join('\n') };
  }

  static unpack(c: { kinds: unknown; seqs: unknown; keys: unknown }): Docs {
    if (!(c.kinds instanceof Uint8Array) || !(c.seqs instanceof Int32Array) || typeof c.keys !== 'string')
      throw new Error('its first part is not its items');
    const keys = c.keys === '' ? [] : c.keys.split('\n');
    if (keys.length !== c.kinds.length || keys.length !== c.seqs.length) throw new Error('its items do not line up');
    for (const k of c.kinds) if (k >= KINDS.length) throw new Error(`an item of an unknown kind (${k})`);
    const d = new Docs();
    d.kinds = owned(c.kinds as Bytes, keys.length);
    d.seqs = owned(c.seqs as Ints, keys.length);
    d.keys = keys;
    return d;
  }
}

interface Built {
  index: FlexIndex;
  docs: Docs;
  /** The versions of each claim indexed more than once (amended), oldest first. */
  versions: Map<string, number[]>;
}

const emptyBuilt = (): Built => ({ index: new Index(OPTIONS), docs: new Docs(), versions: new Map() });

/**
 * The index as it held the items of the log's first `treeSize` entries, in parts serialized with
 * V8's structured clone (lib/service/search-snapshot.ts keeps them, bound to the head of that
 * size): first the items (as columns) and the versions of amended claims, then FlexSearch's
 * map from each word to its items, some words a part (as columns too). Each part is serialized
 * in its own turn of the event loop, at most about PART_IDS items' numbers in one.
 */
export interface SavedSearch {
  treeSize: number;
  items: number;
  parts: Buffer[];
}

/** Where a saved index is read from at a reset (lib/service/search-snapshot.ts). */
export interface SavedSearchSource {
  /** The latest kept, checked against the log, if its size is at most `maxSize`; null when none can be used (it says why). */
  load(maxSize: number): Promise<SavedSearch | null>;
  /** Says that the index it gave cannot be used, and why. */
  discard(why: string): void;
}

/** Items' numbers in one part of a saved index (a word found in every item is one part of its own). */
const PART_IDS = 250_000;

/**
 * FlexSearch's index as it holds its words: `map` from each (encoded) word to its items in 9
 * slots of rank, `reg` the items. Not its public interface: its own export writes the same as
 * JSON text, in chunks too large to write while serving (one of a million items' most common
 * words takes seconds). The FlexSearch build is part of the saved index's `code`, so a saved
 * index is read only by the build that wrote it; `inner` refuses an index of another shape.
 */
type Slots = (number[] | undefined)[];
interface Inner {
  map: Map<string, Slots>;
  reg: Set<number>;
  ctx: Map<string, unknown>;
}

function inner(index: FlexIndex): Inner {
  const i = index as unknown as Partial<Inner> & { fastupdate?: boolean };
  if (!(i.map instanceof Map) || !(i.reg instanceof Set) || !(i.ctx instanceof Map) || i.ctx.size > 0 || i.fastupdate !== false)
    throw new Error('the FlexSearch index is not of the shape a saved index holds');
  return i as Inner;
}

/** The head part: the items as columns (Docs.pack), the versions, and the items FlexSearch registered. */
interface HeadPart {
  docs: ReturnType<Docs['pack']>;
  versions: [key: string, docs: number[]][];
  reg: Int32Array;
}

const headPart = (b: Built): HeadPart => ({ docs: b.docs.pack(), versions: [...b.versions], reg: Int32Array.from(inner(b.index).reg) });

/**
 * Some words of FlexSearch's map: the words, how many items each has in each of its 9 slots, and
 * the items' numbers, slot after slot, word after word. Typed arrays: V8 writes and reads them as
 * their bytes, where arrays of numbers with holes cost it about a tenth of a microsecond a number.
 */
interface WordsPart {
  words: string[];
  counts: Int32Array;
  ids: Int32Array;
}

/** Slots of rank a word's items are in (FlexSearch's resolution). */
const SLOTS = OPTIONS.resolution!;

function wordsPart(words: [string, Slots][], total: number): WordsPart {
  const counts = new Int32Array(words.length * SLOTS);
  const ids = new Int32Array(total);
  let o = 0;
  words.forEach(([, slots], w) => {
    for (let k = 0; k < SLOTS; k++) {
      const slot = slots[k];
      if (slot === undefined) continue;
      counts[w * SLOTS + k] = slot.length;
      ids.set(slot, o);
      o += slot.length;
    }
  });
  return { words: words.map(([word]) => word), counts, ids };
}

function wordsOf(part: WordsPart): [string, Slots][] {
  const { words, counts, ids } = part;
  if (!Array.isArray(words) || !(counts instanceof Int32Array) || !(ids instanceof Int32Array) || counts.length !== words.length * SLOTS)
    throw new Error('a part is not words');
  let o = 0;
  return words.map((word, w) => {
    const slots: Slots = [];
    for (let k = 0; k < SLOTS; k++) {
      const n = counts[w * SLOTS + k]!;
      if (n === 0) continue;
      if (n < 0 || o + n > ids.length) throw new Error('a part holds fewer items than it counts');
      slots[k] = Array.from(ids.subarray(o, o + n));
      o += n;
    }
    return [word, slots];
  });
}

/** The index the parts of a saved index hold; throws on parts of another shape. */
async function fromParts(parts: Buffer[], turn: () => Promise<boolean>): Promise<Built | null> {
  const head = deserialize(parts[0]!) as HeadPart;
  if (typeof head !== 'object' || head === null || !Array.isArray(head.versions) || !(head.reg instanceof Int32Array))
    throw new Error('its first part is not its items');
  const docs = Docs.unpack(head.docs ?? {});
  const index = new Index(OPTIONS);
  const { map, reg } = inner(index);
  for (const id of head.reg) reg.add(id);
  for (const part of parts.slice(1)) {
    if (!(await turn())) return null;
    for (const [word, slots] of wordsOf(deserialize(part) as WordsPart)) map.set(word, slots);
  }
  return { index, docs, versions: new Map(head.versions) };
}

/** Entries read from the log at a time when the index is brought from a saved size to the state's. */
const TAIL_PAGE = 1000;
/** The entry types that add items to the index (note): their descriptors' `search` says so. */
const INDEXED = SEARCHED_TYPES;

/** Whether `p` settles within `ms` (its rejection is the caller's to see: it is thrown). */
async function settledWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), Math.max(0, ms))));
  try {
    return await Promise.race([p.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

export class SearchIndex {
  private built: Built = emptyBuilt();
  /** Entries applied while the index is being built, added once it is. */
  private pending: { e: RecordEntry; outcome: { readonly id?: string } }[] | null = null;
  private generation = 0;
  private state: State | null = null;
  /** Resolves once the index holds every item of the state (again after each reset). */
  ready: Promise<void> = Promise.resolve();
  /** How long the last build took, how many items it indexed, and the saved index it started from (its tree size), if any. */
  lastBuild: { ms: number; items: number; from: number | null } | null = null;
  /** The build under way: items indexed of all it will hold (done === total once built). */
  progress = { done: 0, total: 0 };

  constructor(
    private readonly log: RecordReader,
    private readonly saved?: SavedSearchSource,
  ) {}

  /** Items indexed (a claim amended counts twice). */
  get size(): number {
    return this.built.docs.length;
  }

  /** Builds the index anew from `state` (papers' text read from the log), in batches between turns of the event loop. */
  reset(state: State): void {
    const generation = ++this.generation;
    this.state = state;
    this.pending = [];
    const t0 = performance.now();
    // Every agent, paper and claim (a paper's or external) is one item.
    this.progress = { done: 0, total: state.agents.size + state.papers.size + state.claims.size };
    this.ready = this.start(generation, state).then((from) => {
      this.lastBuild = { ms: performance.now() - t0, items: this.built.docs.length, from };
    });
    // A build that fails (the store closed under it) fails the searches that wait for it, never the process.
    this.ready.catch(() => undefined);
  }

  /**
   * Makes the index of `state`: from a saved index when one holds (its entries since read from
   * the log), else built from the state. Returns the saved index's tree size, or null.
   */
  private async start(generation: number, state: State): Promise<number | null> {
    // The state's size now: what is applied from here on waits in `pending`.
    const size = state.size;
    const saved = this.saved === undefined ? null : await this.saved.load(size);
    if (generation !== this.generation) return null;
    if (saved !== null && (await this.restore(generation, state, size, saved))) return saved.treeSize;
    if (generation !== this.generation) return null;
    const todo = itemsOf(state, size);
    this.progress = { done: 0, total: todo.length };
    await this.build(generation, state, todo);
    return null;
  }

  /**
   * The index of `saved`, then the items of the entries [saved.treeSize, size) read from the log,
   * then what was applied meanwhile. False if it was given up (a reset meanwhile).
   */
  private async restore(generation: number, state: State, size: number, saved: SavedSearch): Promise<boolean> {
    this.progress = { done: 0, total: saved.items };
    let built: Built | null;
    try {
      built = await fromParts(saved.parts, async () => {
        await new Promise((r) => setImmediate(r));
        return generation === this.generation;
      });
    } catch (err) {
      this.saved?.discard(`its index cannot be read (${(err as Error).message})`);
      return false;
    }
    if (built === null) return false;
    this.progress.done = saved.items;
    for (let from = saved.treeSize; from < size; from += TAIL_PAGE) {
      const records = await this.log.records(from, Math.min(TAIL_PAGE, size - from));
      if (generation !== this.generation) return false;
      for (const r of records) {
        if (!INDEXED.has(r.type)) continue;
        const e = recordEntry(r);
        const made = madeBy(state, e);
        if (made !== null) note(built, state, e, made);
      }
    }
    this.built = built;
    this.flush(state);
    return true;
  }

  /** Adds what was applied while the index was being made or saved, and indexes as entries come from now on. */
  private flush(state: State): void {
    const pending = this.pending ?? [];
    this.pending = null;
    for (const { e, outcome } of pending) note(this.built, state, e, outcome);
  }

  /**
   * The index as it holds the items of the state's entries now, for a snapshot; null while it is
   * being made or saved. Entries applied meanwhile are indexed once it is read (between turns of
   * the event loop, chunk by chunk: the service answers meanwhile).
   */
  async save(): Promise<SavedSearch | null> {
    if (this.pending !== null || this.state === null) return null;
    const generation = this.generation;
    const state = this.state;
    const treeSize = state.size;
    const b = this.built;
    this.pending = [];
    try {
      const parts = [serialize(headPart(b))];
      let words: [string, Slots][] = [];
      let ids = 0;
      for (const [word, slots] of inner(b.index).map) {
        words.push([word, slots]);
        for (const slot of slots) ids += slot?.length ?? 0;
        if (ids < PART_IDS) continue;
        parts.push(serialize(wordsPart(words, ids)));
        [words, ids] = [[], 0];
        await new Promise((r) => setImmediate(r));
        if (generation !== this.generation) return null;
      }
      if (words.length > 0) parts.push(serialize(wordsPart(words, ids)));
      return { treeSize, items: b.docs.length, parts };
    } finally {
      if (generation === this.generation) this.flush(state);
    }
  }

  private async build(generation: number, state: State, todo: { doc: Doc; text?: string }[]): Promise<void> {
    const built = emptyBuilt();
    for (let i = 0; i < todo.length; i += BATCH) {
      const batch = todo.slice(i, i + BATCH);
      await this.readPapers(batch);
      if (generation !== this.generation) return;
      for (const { doc, text } of batch)
        add(built, doc, text ?? (doc.kind === 'agent' ? agentText(state, doc.key) : claimText(state, doc.key)));
      this.progress.done += batch.length;
      await new Promise((r) => setImmediate(r));
      if (generation !== this.generation) return;
    }
    this.built = built;
    this.flush(state);
  }

  /** Reads the text of the papers of `batch` from their entries. */
  private async readPapers(batch: { doc: Doc; text?: string }[]): Promise<void> {
    const papers = batch.filter((x) => x.doc.kind === 'paper');
    for (let i = 0; i < papers.length;) {
      // Entries near one another are read in one go.
      let j = i + 1;
      while (j < papers.length && papers[j]!.doc.seq - papers[j - 1]!.doc.seq < 64) j++;
      const from = papers[i]!.doc.seq;
      const records = await this.log.records(from, papers[j - 1]!.doc.seq - from + 1);
      for (const x of papers.slice(i, j)) {
        const logged = JSON.parse(records[x.doc.seq - from]!.payload) as SignedWrite<PayloadOf<'paper'>>;
        x.text = paperText(logged.payload);
      }
      i = j;
    }
  }

  /** Indexes what entry `e` made (`outcome` is what its apply reported). */
  applied(state: State, e: RecordEntry, outcome: { readonly id?: string }): void {
    if (this.pending !== null) this.pending.push({ e, outcome });
    else note(this.built, state, e, outcome);
  }

  /**
   * A page of the search for `q` of `f`: items best first, in view and indexed below the tree size
   * of the search's first page, `limit` of them after the `at.passed` such items the previous pages
   * went through; `next` says where the following page goes on, null when none is left.
   */
  async search(
    q: string,
    f: SearchFilters,
    at: SearchPosition,
    limit: number,
  ): Promise<{ results: { kind: Kind; key: string }[]; next: SearchPosition | null }> {
    // A reset meanwhile (writes went off and the state was rebuilt) makes a new index: wait for
    // that one, a little; an index still being built after that (a start on a large record) is
    // said so, with how far it got, rather than held for a minute.
    const deadline = Date.now() + SEARCH_WAIT_MS;
    for (let r = this.ready; ; r = this.ready) {
      if (!(await settledWithin(r, deadline - Date.now()))) {
        const { done, total } = this.progress;
        throw new ArchiveError(
          'unavailable',
          `q: the search index is being built (${done} of ${total} items indexed); every other read is served meanwhile, try again in a few seconds`,
          { retryAfter: 5 },
        );
      }
      if (r === this.ready) break;
    }
    const state = this.state!;
    const { index, docs, versions } = this.built;
    const results: { kind: Kind; key: string }[] = [];
    let passed = 0;
    let next: SearchPosition | null = null;
    // The index is read in growing chunks until the page (and one more, to know there is a next) is found.
    let chunk = Math.max(100, 2 * (at.passed + limit + 1));
    for (let offset = 0; ; offset += chunk, chunk *= 2) {
      const ids = index.search(q, { limit: chunk, offset }) as number[];
      for (const id of ids) {
        if (docs.seqAt(id) >= at.treeSize) continue;
        passed++;
        if (passed <= at.passed) continue;
        if (!isRead(docs, versions, id, at.treeSize)) continue;
        const doc = docs.at(id);
        if (!shown(state, doc, f)) continue;
        if (results.length === limit) {
          next = { treeSize: at.treeSize, passed: passed - 1 };
          return { results, next };
        }
        results.push({ kind: doc.kind, key: doc.key });
      }
      if (ids.length < chunk) return { results, next };
    }
  }
}

/**
 * The items of the state's first `size` entries, in log order: agents, papers with their claims,
 * external claims (the state holds them all still: nothing is taken out of its maps; those of
 * later entries wait in `pending`).
 */
function itemsOf(state: State, size: number): { doc: Doc; text?: string }[] {
  const todo: { doc: Doc; text?: string }[] = [];
  const keep = (doc: Doc) => doc.seq < size && todo.push({ doc });
  for (const a of state.agents.values()) keep({ kind: 'agent', key: a.handle, seq: a.seq });
  for (const p of state.papers.values()) {
    keep({ kind: 'paper', key: p.id, seq: p.seq });
    for (const ref of p.claims) keep({ kind: 'claim', key: ref, seq: p.seq });
  }
  for (const c of state.claims.values()) if (c.external) keep({ kind: 'external', key: c.ref, seq: c.seq });
  // Stable: a paper before its claims, all of one entry.
  return todo.sort((a, b) => a.doc.seq - b.doc.seq);
}

function add(b: Built, doc: Doc, text: string): void {
  b.index.add(b.docs.length, text);
  b.docs.push(doc);
}

/** Indexes what entry `e` made (`outcome` is what its apply reported). */
function note(b: Built, state: State, e: RecordEntry, outcome: { readonly id?: string }): void {
  switch (e.type) {
    case 'agent.register': {
      const handle = (e.logged as { handle: string }).handle;
      add(b, { kind: 'agent', key: handle, seq: e.seq }, agentText(state, handle));
      break;
    }
    case 'paper': {
      const p = state.papers.get(outcome.id!)!;
      add(b, { kind: 'paper', key: p.id, seq: e.seq }, paperText((e.logged as SignedWrite<PayloadOf<'paper'>>).payload));
      for (const ref of p.claims) add(b, { kind: 'claim', key: ref, seq: e.seq }, claimText(state, ref));
      break;
    }
    case 'claim.external': {
      const ref = `${outcome.id}#C1`;
      add(b, { kind: 'external', key: ref, seq: e.seq }, claimText(state, ref));
      break;
    }
    case 'claim.amend': {
      const ref = (e.logged as SignedWrite<PayloadOf<'claim.amend'>>).payload.claim;
      const first = b.docs.lastOf(ref);
      const versions = b.versions.get(ref) ?? [first];
      b.versions.set(ref, [...versions, b.docs.length]);
      add(b, { kind: state.claims.get(ref)!.external ? 'external' : 'claim', key: ref, seq: e.seq }, claimText(state, ref));
      break;
    }
  }
}

/**
 * What an entry of the log made, as its apply reported it (the id of its paper or external
 * claim), read from the entry alone: for the entries after a saved index. Null when the state
 * holds nothing of it.
 */
function madeBy(state: State, e: RecordEntry): { id?: string } | null {
  const logged = e.logged as Record<string, unknown>;
  switch (e.type) {
    case 'agent.register':
      return state.agents.has(logged.handle as string) ? {} : null;
    case 'claim.amend':
      return state.claims.has((e.logged as SignedWrite<PayloadOf<'claim.amend'>>).payload.claim) ? {} : null;
    default: {
      const id = entrySubject(state, e.seq, e.type, logged)?.id;
      if (e.type === 'paper') return id !== undefined && state.papers.has(id) ? { id } : null;
      return id !== undefined && state.claims.has(id) ? { id: id.slice(0, -'#C1'.length) } : null;
    }
  }
}

/** Whether doc `id` is the version of its item a search at `treeSize` reads: the latest indexed below that size. */
function isRead(docs: Docs, versions: Map<string, number[]>, id: number, treeSize: number): boolean {
  const v = versions.get(docs.keyAt(id));
  if (v === undefined) return true;
  return v.findLast((i) => docs.seqAt(i) < treeSize) === id;
}

/** Whether an item is in view and of the filters. */
function shown(state: State, doc: Doc, f: SearchFilters): boolean {
  if (f.kind !== undefined && f.kind !== doc.kind) return false;
  switch (doc.kind) {
    case 'agent': {
      if (f.field !== undefined || f.status !== undefined) return false;
      const a = state.agents.get(doc.key);
      if (a === undefined) return false;
      return (f.agent === undefined || f.agent === a.handle) && (f.operator === undefined || f.operator === a.operatorId);
    }
    case 'paper': {
      const p = state.papers.get(doc.key);
      if (p === undefined || state.outOfView.has(p.id)) return false;
      if (f.field !== undefined && f.field !== p.field) return false;
      if ((f.agent !== undefined && f.agent !== p.agent) || (f.operator !== undefined && f.operator !== p.operatorId)) return false;
      return f.status === undefined || p.claims.some((ref) => statusOf(state, ref) === f.status);
    }
    default: {
      const c = state.claims.get(doc.key);
      if (c === undefined || !claimInView(state, c.ref)) return false;
      if (f.field !== undefined && (c.external || state.papers.get(c.paper)!.field !== f.field)) return false;
      if ((f.agent !== undefined && f.agent !== c.agent) || (f.operator !== undefined && f.operator !== c.operatorId)) return false;
      return f.status === undefined || statusOf(state, c.ref) === f.status;
    }
  }
}

const statusOf = (state: State, ref: string): Status => state.numbers.scores.get(ref)!.status;

/** The words of `q` as the index folds them: lower case, accents off. */
export function queryWords(q: string): string[] {
  return [
    ...new Set(
      fold(q)
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w !== ''),
    ),
  ];
}

/** `s` lower-cased with accents off, one UTF-16 unit for one, so places in it are places in `s`. */
function fold(s: string): string {
  // ASCII has no accents to take off: lower case is all.
  if (/^[ -~\t\n\r]*$/.test(s)) return s.toLowerCase();
  let out = '';
  for (const ch of s) {
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    out += f.length === ch.length ? f : ch.toLowerCase().length === ch.length ? ch.toLowerCase() : ch;
  }
  return out;
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/** Where each of `words` stands in `text` as a whole word, case and accents folded: [start, end) spans in order, none overlapping. */
export function wordSpans(text: string, words: readonly string[]): [number, number][] {
  const folded = fold(text);
  const spans: [number, number][] = [];
  for (const w of words)
    for (let i = folded.indexOf(w); i >= 0; i = folded.indexOf(w, i + 1))
      if (!isWordChar(folded[i - 1]) && !isWordChar(folded[i + w.length])) spans.push([i, i + w.length]);
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  return spans.filter((s, k) => k === 0 || s[0] >= spans[k - 1]![1]);
}

/** Where the first of `words` stands in `text` as a whole word, or -1. */
function firstWord(text: string, words: string[]): number {
  const folded = fold(text);
  let best = -1;
  for (const w of words) {
    for (let i = folded.indexOf(w); i >= 0; i = folded.indexOf(w, i + 1)) {
      if (!isWordChar(folded[i - 1]) && !isWordChar(folded[i + w.length])) {
        if (best < 0 || i < best) best = i;
        break;
      }
    }
  }
  return best;
}

/** About this many characters of text around the first word found. */
const SNIPPET = 200;

/**
 * The snippet of an item: the stretch of the first of `texts` that holds a word of the query,
 * around that word, cut at spaces, `…` where text was cut; the start of the first text when none does.
 */
export function snippet(texts: string[], words: string[]): string {
  let text = texts[0] ?? '';
  let at = 0;
  for (const t of texts) {
    const i = firstWord(t, words);
    if (i >= 0) {
      text = t;
      at = i;
      break;
    }
  }
  let start = Math.max(0, at - SNIPPET / 4);
  let end = Math.min(text.length, start + SNIPPET);
  if (start > 0) start = text.indexOf(' ', start) + 1 || start;
  if (end < text.length) end = text.lastIndexOf(' ', end) > start ? text.lastIndexOf(' ', end) : end;
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

/** A search result as served: what it is, a snippet around the words found, and its numbers. */
export async function searchResult(state: State, r: { kind: Kind; key: string }, words: string[], logged: Logged) {
  switch (r.kind) {
    case 'agent': {
      const a = state.agents.get(r.key)!;
      return {
        kind: r.kind,
        id: a.handle,
        title: a.handle,
        snippet: snippet([[a.handle, a.operatorId, ...a.models].join(' ')], words),
        seq: a.seq,
        agent: a.handle,
        operatorId: a.operatorId,
        paper: null,
        field: null,
        status: null,
        credence: null,
      };
    }
    case 'paper': {
      const p = state.papers.get(r.key)!;
      const payload = await logged(p.seq, 'paper');
      return {
        kind: r.kind,
        id: p.id,
        title: p.title,
        // Around the word in the abstract or methods; the abstract's start when only the title holds it.
        snippet: snippet([payload.abstract, payload.methods ?? ''], words),
        seq: p.seq,
        agent: p.agent,
        operatorId: p.operatorId,
        paper: p.id,
        field: p.field,
        status: null,
        credence: null,
      };
    }
    default: {
      const c = state.claims.get(r.key)!;
      const s = state.numbers.scores.get(c.ref)!;
      return {
        kind: r.kind,
        id: c.ref,
        title: c.external ? c.source! : state.papers.get(c.paper)!.title,
        snippet: snippet(c.external ? [c.text, c.test, c.source!] : [c.text, c.test], words),
        seq: c.seq,
        agent: c.agent,
        operatorId: c.operatorId,
        paper: c.paper,
        field: c.external ? null : state.papers.get(c.paper)!.field,
        status: s.status,
        credence: servedProbability(s.credence),
      };
    }
  }
}
