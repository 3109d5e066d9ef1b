// The search of GET /v2/search and /explore/search: the items the entry types' descriptors say
// their entries make, kept as the record folds in an engine that keeps them on disk (search-sqlite.ts,
// search-pg.ts), ranked by the item alone (docs/api.md#search).
import { createHash } from 'node:crypto';
import { stemmer } from 'stemmer';
import { nextTurn } from 'tlog-engine';
import type { LoggedEntry } from '../protocol/log-entry.js';
import { SEARCH_KINDS, SEARCHED, searchOfKind, type Columns, type SearchHit, type SearchItem } from '../record/types/index.js';
import { recordEntry, type RecordEntry, type State } from '../record/fold/index.js';
import { entryLookup } from './logged.js';
import { claimInView, claimTexts, type ClaimEntries, type Filters, type Logged } from '../record/views/index.js';
import { type Status, servedProbability } from '../record/numbers/index.js';
import { ArchiveError } from '../protocol/errors.js';

/** The kinds of item, as the entry types' descriptors declare them (their `search`), in the order of their codes. */
export const KINDS: readonly string[] = Object.freeze(SEARCH_KINDS.map((k) => k.name));
export type Kind = string;

/** `items` in prose: "a, b and c". */
const inProse = (items: readonly string[]): string =>
  items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/** What the search finds, in prose: "papers, claims, external claims and agents". */
export const KINDS_IN_PROSE = inProse(SEARCH_KINDS.map((k) => k.plural));

/** What the search reads of each kind, in prose: "papers (title, abstract, methods), claims (statement, test), ...". */
export const COLUMNS_IN_PROSE = inProse(SEARCH_KINDS.map((k) => `${k.plural} (${k.columns.filter((c) => c !== '').join(', ')})`));

/** What the search filters by: the lists' filters, and the kind of item. */
export interface SearchFilters extends Filters {
  kind?: Kind;
}

/** Where a search goes on: the tree size of its first page, the tier and rank key of the last item it served. */
export interface SearchPosition {
  treeSize: number;
  tier: number;
  /** The rank key (decimal) after which the page goes on in that tier. */
  after: string;
}

/** An item as of entry `seq`, its text in three columns of falling weight (declared with the entry types' descriptors). */
export type IndexedItem = SearchItem;

/** What an index holds: every item of the log's first `treeSize` entries, whose root is `rootHash` (hex). */
export interface IndexHead {
  treeSize: number;
  rootHash: string;
}

/** One item a tier of a search found: its rank key, id and kind. */
export interface Candidate {
  rank: bigint;
  key: string;
  kind: Kind;
}

/**
 * The engine under the search. It keeps each item's versions (the entry each came with and the
 * entry that replaced it), and its head. Written only by the process that writes the index.
 */
export interface SearchStore {
  /** Where it is, for messages. */
  readonly where: string;
  /** Makes its tables when they are missing; says what it does to an index of an earlier format it brings to its own. */
  open(say?: (line: string) => void): Promise<void>;
  /** The head it holds, or null when it holds none (new, being built, or of another format: `problem` says which). */
  head(): Promise<{ head: IndexHead | null; problem: string | null }>;
  /** Empties it (a build from the state follows). */
  clear(): Promise<void>;
  /** Adds `items` (each replacing the version of its key it finds) and moves the head to `head`, in one transaction. */
  write(items: readonly IndexedItem[], head: IndexHead): Promise<void>;
  /**
   * At most `n` items of tier `tier` of the search for `words`, as the index held them at tree
   * size `treeSize` (each one's version of that size), of kind `kind` if given, in rank key order
   * after `after`.
   */
  candidates(words: readonly string[], tier: Tier, at: { treeSize: number; kind?: Kind }, after: bigint, n: number): Promise<Candidate[]>;
  /**
   * The columns written with the versions of rank keys `ranks` (those it holds), for the snippets of a page; an engine without
   * it has them read from the entries (SQLite keeps them: reading a result's entry reads its whole bundle from the log).
   */
  texts?(ranks: readonly bigint[]): Promise<Map<bigint, Columns>>;
  close(): Promise<void>;
}

/** The log as the index reads it. */
export interface SearchLog {
  readonly size: number;
  records(from: number, count: number): Promise<LoggedEntry[]>;
  rootAt(size: number): Promise<Uint8Array>;
  waitFor(size: number): Promise<void>;
}

/**
 * The tiers of rank, best first (docs/api.md#search): where the query's words stand in an item.
 * `columns` are the columns searched (a, the first; abc, all), `phrase` whether the words must
 * stand together in that order, `not` the tiers whose items this one leaves out (so each item is
 * in one tier, its best). The phrase tiers are skipped for a query of one word.
 */
export interface Tier {
  columns: 'a' | 'ab' | 'abc';
  phrase: boolean;
  not: number[];
}
export const TIERS: readonly Tier[] = [
  { columns: 'a', phrase: true, not: [] },
  { columns: 'a', phrase: false, not: [0] },
  { columns: 'ab', phrase: true, not: [1] },
  { columns: 'ab', phrase: false, not: [1, 2] },
  { columns: 'abc', phrase: false, not: [3] },
];

/** The tiers a search for `words` reads, by number. */
const tiersOf = (words: readonly string[]): number[] => TIERS.flatMap((t, i) => (t.phrase && words.length < 2 ? [] : [i]));

/** Tier `i` of a search that reads `used`: it leaves out only the items of tiers read. */
const tierIn = (i: number, used: readonly number[]): Tier => ({ ...TIERS[i]!, not: TIERS[i]!.not.filter((j) => used.includes(j)) });

/** Bits of an item's rank key below its hash: its version (a claim is amended at most once). */
const VERSION_BITS = 7n;

/** The rank key of version `version` of item `key`: 56 bits of the SHA-256 of the key, then the version; below 2^63. */
export function rankKey(key: string, version = 0): bigint {
  const h = createHash('sha256').update(key).digest().readBigUInt64BE(0) >> 8n;
  return (h << VERSION_BITS) | BigInt(version);
}

/** The rank key of the version after the one of rank key `rank`. */
export const nextVersion = (rank: bigint): bigint => rank + 1n;

/** Entries' items written at a time while the index is built or brought up to date. */
const BATCH = 2000;
/**
 * Items listed a turn when the index is built anew: the list of every item is made in slices, so that serving goes on
 * beside it (at ten million entries, 10 million items took 16 s of one turn before serving began).
 */
const LIST_SLICE = 20_000;
/** How long after a failed write of the index the next is tried. */
const RETRY_MS = 1000;
/** Entries read from the log at a time when the index is brought up to date. */
const TAIL_PAGE = 1000;
/** How long a search waits for the index (being built, or behind this node's state) before it is answered 503. */
export const SEARCH_WAIT_MS = 2000;

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

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export interface SearchIndexOptions {
  /** Whether this process writes the index (default true; on a shared database, the node that leads: `lead` and `follow`). */
  writes?: boolean;
  /** Where its one-line notices go (default: console.log). */
  say?: (line: string) => void;
}

export class SearchIndex {
  /** The state the items are read from; its size is how many entries were told. */
  private state: State | null = null;
  /** How many entries of the log were told (applied), and whose items wait, committed or not, to be written. */
  private told = 0;
  private queue: IndexedItem[] = [];
  /** The items of told entries that read their text from other entries (an amendment's), until read: written with the queue's. */
  private pending: { seq: number; items: Promise<IndexedItem[]> }[] = [];
  /**
   * Reads a claim's entries for the items whose text their own entry does not carry (an amended claim's statement), as the
   * routes read entries (logged.ts): once durable, those asked for together read together.
   */
  private readonly read: ClaimEntries;
  /** The head the store holds, as this process last wrote or read it. */
  private head: IndexHead | null = null;
  /** Entries below this size were written before the state was rebuilt: told again, they are passed over. */
  private written = 0;
  private writes: boolean;
  private generation = 0;
  /** Whether the index is being built or brought up to date (nothing else is written meanwhile). */
  private bringing = false;
  private flushing: Promise<void> | null = null;
  private flushWanted = false;
  /** Why the last write failed, until one succeeds; and the timer of the next try. */
  private failure: string | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  /** Items taken from the queue whose write has not succeeded yet. */
  private unwritten = 0;
  private waitingForCommit = false;
  private readonly say: (line: string) => void;
  /** Resolves once the index holds every item of the state (again after each bring-up). */
  ready: Promise<void> = Promise.resolve();
  /** How long the last bring-up took, how many items it wrote, and the index's tree size it started from (null: built anew). */
  lastBuild: { ms: number; items: number; from: number | null } | null = null;
  /** The bring-up under way: entries (or items, when built anew) done of all it will do. */
  progress: { done: number; total: number; unit: 'items' | 'entries' } = { done: 0, total: 0, unit: 'items' };

  constructor(
    private readonly log: SearchLog,
    readonly store: SearchStore,
    opts: SearchIndexOptions = {},
  ) {
    this.read = entryLookup(log).logged;
    this.writes = opts.writes ?? true;
    this.say = opts.say ?? ((line) => console.log(line));
  }

  /** The tree size the index holds, as this process knows it. */
  get size(): number {
    return this.head?.treeSize ?? 0;
  }

  /**
   * The state starts over from `state` (at start, or rebuilt after writes went off): the entries
   * from its size on will be told again. At the first, and whenever this process writes and the
   * index is not up, the index is brought up to date (or built anew) in the background.
   */
  reset(state: State): void {
    this.generation++;
    this.state = state;
    this.told = state.size;
    this.queue = [];
    this.pending = [];
    if (this.head === null || this.bringing) this.bringUp();
  }

  /** This process now writes the index (it took the sequencer lease): brings it up to date from its head. */
  lead(): void {
    if (this.writes) return;
    this.writes = true;
    this.generation++;
    this.queue = [];
    this.pending = [];
    this.bringUp();
  }

  /** This process no longer writes the index (another node leads). */
  follow(): void {
    this.writes = false;
    this.generation++;
    this.queue = [];
    this.pending = [];
  }

  private bringUp(): void {
    const generation = this.generation;
    const t0 = performance.now();
    this.bringing = true;
    this.progress = { done: 0, total: 0, unit: 'items' };
    this.ready = this.start(generation).then((r) => {
      if (r === null || generation !== this.generation) return;
      this.lastBuild = { ms: performance.now() - t0, ...r };
    });
    // A bring-up that fails (the store closed under it) fails the searches that wait for it, never the process.
    this.ready.catch(() => undefined);
  }

  /** Brings the index up to the state: from its head when that holds, else anew. */
  private async start(generation: number): Promise<{ items: number; from: number | null } | null> {
    await this.store.open(this.say);
    if (!this.writes) {
      // A node that follows reads what the leader wrote.
      this.head = (await this.store.head()).head;
      this.bringing = false;
      return null;
    }
    const state = this.state!;
    // The state may hold a write applied but not yet committed (one in flight as this node takes the lead): the index's head
    // is a size of the log, so the bring-up waits for the log to hold the state's entries; those applied later are told.
    const size = state.size;
    await this.log.waitFor(size);
    const { head, problem } = await this.store.head();
    const why = problem ?? (head === null ? 'it holds nothing yet' : await this.headProblem(head, size));
    if (generation !== this.generation) return null;
    let r: { items: number; from: number | null } | null;
    if (why === null) r = await this.catchUp(generation, state, head!, size);
    else {
      // A new deployment's index, with nothing to index yet, goes without saying.
      if (head !== null || problem !== null || state.agents.size > 0)
        this.say(`archive: the search index ${this.store.where} is not used, ${why}; indexing the state's items`);
      r = await this.build(generation, state, size);
    }
    if (r === null || generation !== this.generation) return null;
    this.bringing = false;
    this.flushSoon();
    return r;
  }

  /** Why head `h` cannot be brought up to date from the log (null: it can). */
  private async headProblem(h: IndexHead, stateSize: number): Promise<string | null> {
    if (h.treeSize > this.log.size) return `it holds ${h.treeSize} entries, beyond the log's ${this.log.size}`;
    if (h.treeSize > stateSize) return `it holds ${h.treeSize} entries, beyond the state's ${stateSize}`;
    const root = hex(await this.log.rootAt(h.treeSize));
    if (root !== h.rootHash) return `its head (size ${h.treeSize}, root ${h.rootHash}) is not a prefix of this log`;
    return null;
  }

  /** Writes the items of the entries after `head` up to `end` (the state's size, which the log holds), read from the log. */
  private async catchUp(generation: number, state: State, head: IndexHead, end: number): Promise<{ items: number; from: number } | null> {
    this.head = head;
    this.progress = { done: 0, total: end - head.treeSize, unit: 'entries' };
    let items = 0;
    for (let from = head.treeSize; from < end;) {
      const page = await this.log.records(from, Math.min(TAIL_PAGE, end - from));
      if (generation !== this.generation) return null;
      if (page.length === 0) throw new Error(`entry ${from} is missing from the log`);
      const batch: IndexedItem[] = [];
      for (const r of page) {
        const searched = SEARCHED.get(r.type);
        if (searched === undefined) continue;
        const e = recordEntry(r);
        const made = searched.made(state, e);
        if (made !== null) batch.push(...(await searched.items(state, e, made, this.read)));
      }
      from += page.length;
      await this.writeHead(batch, from);
      items += batch.length;
      this.progress.done = from - head.treeSize;
      if (generation !== this.generation) return null;
    }
    return { items, from: head.treeSize };
  }

  /**
   * Builds the index anew from `state` at `size`: every item its searched types say it holds (each as of the
   * entry that made it; a paper's text read from its entry), in log order; the head is written with the last batch.
   */
  private async build(generation: number, state: State, size: number): Promise<{ items: number; from: null } | null> {
    await this.store.clear();
    this.head = null;
    const todo: { item: Omit<IndexedItem, 'text'>; text?: Columns | ((read: ClaimEntries) => Promise<Columns>) }[] = [];
    let listed = 0;
    for (const searched of SEARCHED.values())
      for (const { text, ...item } of searched.standing?.(state) ?? []) {
        // Entries that land meanwhile are past `size`: the log brings them after the build, as it does any after its head.
        if (item.seq < size) todo.push({ item, text });
        if (++listed % LIST_SLICE === 0) {
          await nextTurn();
          if (generation !== this.generation) return null;
        }
      }
    todo.sort((a, b) => a.item.seq - b.item.seq);
    this.progress = { done: 0, total: todo.length, unit: 'items' };
    for (let i = 0; i < todo.length; i += BATCH) {
      const batch = todo.slice(i, i + BATCH);
      await this.readTexts(state, batch);
      if (generation !== this.generation) return null;
      const items = batch.map(({ item, text }) => ({ ...item, text: text as Columns }));
      if (i + BATCH < todo.length) await this.store.write(items, { treeSize: 0, rootHash: '' });
      else await this.writeHead(items, size);
      this.progress.done += batch.length;
      await nextTurn();
      if (generation !== this.generation) return null;
    }
    if (todo.length === 0) await this.writeHead([], size);
    return { items: todo.length, from: null };
  }

  /** Reads the text of the items of `batch` that have none from the entries that made them. */
  private async readTexts(
    state: State,
    batch: { item: Omit<IndexedItem, 'text'>; text?: Columns | ((read: ClaimEntries) => Promise<Columns>) }[],
  ): Promise<void> {
    // An item that reads its own text (an amended claim's, from two entries) reads it; the rest from the entries that made them.
    for (const x of batch) if (typeof x.text === 'function') x.text = await x.text(this.read);
    const untold = batch.filter((x) => x.text === undefined);
    for (let i = 0; i < untold.length;) {
      // Entries near one another are read in one go.
      let j = i + 1;
      while (j < untold.length && untold[j]!.item.seq - untold[j - 1]!.item.seq < 64) j++;
      const from = untold[i]!.item.seq;
      const records = await this.log.records(from, untold[j - 1]!.item.seq - from + 1);
      for (const x of untold.slice(i, j)) {
        const e = recordEntry(records[x.item.seq - from]!);
        x.text = (await SEARCHED.get(e.type)!.items(state, e, { id: x.item.key }, this.read)).find((it) => it.key === x.item.key)!.text;
      }
      i = j;
    }
  }

  /** Writes `items` with the head at `size` (its root read from the log). */
  private async writeHead(items: IndexedItem[], size: number): Promise<void> {
    const head = { treeSize: size, rootHash: hex(await this.log.rootAt(size)) };
    await this.store.write(items, head);
    this.head = head;
    this.written = Math.max(this.written, size);
  }

  /** Entry `e` was folded into `state` and reported `outcome`: its items are written once it is committed. */
  applied(state: State, e: RecordEntry, outcome: { readonly id?: string }): void {
    this.told = e.seq + 1;
    if (!this.writes || e.seq < this.written) return;
    const searched = SEARCHED.get(e.type);
    const items = searched?.items(state, e, outcome, this.read);
    if (items instanceof Promise) {
      // Read and written with the entries committed after it; a read that fails fails that write (and is logged).
      items.catch(() => undefined);
      this.pending.push({ seq: e.seq, items });
    } else if (items !== undefined) this.queue.push(...items);
    this.flushSoon();
  }

  /** Writes what was told once the log has committed it (one write at a time; entries told meanwhile wait for the next). */
  private flushSoon(): void {
    if (!this.writes || this.bringing) return;
    if (this.flushing !== null || this.retry !== null) {
      this.flushWanted = true;
      return;
    }
    const want = this.told;
    if (this.log.size < want) {
      if (!this.waitingForCommit) {
        this.waitingForCommit = true;
        // A log that stops refuses its waiters: the state is then rebuilt and its entries told again.
        this.log.waitFor(want).then(
          () => {
            this.waitingForCommit = false;
            this.flushSoon();
          },
          () => (this.waitingForCommit = false),
        );
      }
      // What is committed already is written now, without waiting for the rest (a search may wait for it).
      if (this.log.size <= this.size) return;
    }
    const generation = this.generation;
    const flushing = this.flush(generation);
    this.flushing = flushing;
    flushing.then(
      () => {
        this.flushing = null;
        if (generation !== this.generation) return;
        if (this.failure !== null) this.say(`archive: the search index is written again (it failed: ${this.failure})`);
        this.failure = null;
        if (this.flushWanted || this.log.size > this.size) {
          this.flushWanted = false;
          this.flushSoon();
        }
      },
      (err: unknown) => {
        this.flushing = null;
        if (generation !== this.generation) return;
        // Said once, then tried again every RETRY_MS (a full disk, say): tried again at once, it would hold the event loop.
        if (this.failure === null)
          console.error(`archive: writing the search index failed; trying again every ${RETRY_MS / 1000} s until it works:`, err);
        this.failure = (err as Error)?.message ?? String(err);
        this.flushWanted = false;
        this.retry = setTimeout(() => {
          this.retry = null;
          this.flushSoon();
        }, RETRY_MS);
      },
    );
  }

  /** Writes the items of the committed entries told, with the head at that size. */
  private async flush(generation: number): Promise<void> {
    const size = Math.min(this.log.size, this.told);
    if (size <= this.size) return;
    // The items that read their text are read first, kept pending meanwhile (a search waits for them); one that fails is left out.
    const read = this.pending.filter((p) => p.seq < size);
    const texts = await Promise.all(
      read.map((p) =>
        p.items.catch((err: unknown) => {
          console.error(`archive: reading the search items of entry ${p.seq} failed:`, err);
          return [];
        }),
      ),
    );
    if (generation !== this.generation) return;
    this.pending = this.pending.filter((p) => !read.includes(p));
    const items: IndexedItem[] = texts.flat();
    const rest: IndexedItem[] = [];
    for (const it of this.queue) (it.seq < size ? items : rest).push(it);
    this.queue = rest;
    // In log order, as told: an amended claim's version after the claim's own (a stable sort keeps an entry's items in order).
    if (read.length > 0) items.sort((a, b) => a.seq - b.seq);
    // Until written, these items are in neither the queue nor the store.
    this.unwritten += items.length;
    const head = { treeSize: size, rootHash: '' };
    try {
      head.rootHash = hex(await this.log.rootAt(size));
      if (generation !== this.generation) return;
      await this.store.write(items, head);
    } catch (err) {
      // A write is whole or nothing (the store's head did not move): its items go back to the queue, written by the next flush.
      if (generation === this.generation) this.queue = [...items, ...this.queue];
      throw err;
    } finally {
      this.unwritten -= items.length;
    }
    if (generation !== this.generation) return;
    this.head = head;
    this.written = Math.max(this.written, size);
  }

  /** Waits until the index holds the first `size` entries (this process writing them, or another node), at most until `deadline`. */
  private async holds(size: number, deadline: number): Promise<boolean> {
    for (;;) {
      if (this.size >= size && !this.bringing) return true;
      if (this.writes) {
        // No item of an entry below `size` waits to be written: the index as it stands holds them all
        // (the entries since its head made no items), so the search need not wait for it to move its head.
        if (
          !this.bringing &&
          this.head !== null &&
          this.told >= size &&
          this.unwritten === 0 &&
          !this.queue.some((it) => it.seq < size) &&
          !this.pending.some((it) => it.seq < size)
        )
          return true;
        if (this.bringing) {
          if (!(await settledWithin(this.ready, deadline - Date.now()))) return false;
          continue;
        }
        this.flushSoon();
        const f = this.flushing;
        if (
          f !== null &&
          (await settledWithin(
            f.catch(() => undefined),
            deadline - Date.now(),
          ))
        )
          continue;
        if (f === null) await new Promise((r) => setTimeout(r, 5));
      } else {
        if (!(await settledWithin(this.ready, deadline - Date.now()))) return false;
        this.head = (await this.store.head()).head;
        if (this.size >= size) return true;
        await new Promise((r) => setTimeout(r, 20));
      }
      if (Date.now() >= deadline) return this.size >= size && !this.bringing;
    }
  }

  /**
   * A page of the search for `words` of `f`: items best first, in view, as the index held them at
   * the tree size of the search's first page (`at`, or now: the state's committed size), `limit`
   * of them after where `at` says the previous page stopped; `next` says where the following page
   * goes on, null when none is left.
   */
  async search(
    words: readonly string[],
    f: SearchFilters,
    at: SearchPosition | null,
    limit: number,
  ): Promise<{ results: Found[]; next: SearchPosition | null }> {
    // The tree size this page is of: the cursor's, or all this node has committed and folded.
    const treeSize = at?.treeSize ?? Math.min(this.log.size, this.told);
    const deadline = Date.now() + SEARCH_WAIT_MS;
    // A cursor of another node may be ahead of this one's state: it waits for it, as Min-Seq does.
    while ((this.told < treeSize || this.log.size < treeSize) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const state = this.state;
    if (state === null || !(await this.holds(treeSize, deadline)) || this.told < treeSize || this.log.size < treeSize) {
      const { done, total, unit } = this.progress;
      throw new ArchiveError(
        'unavailable',
        this.bringing || state === null
          ? `q: the search index is being built (${done} of ${total} ${unit} indexed); every other read is served meanwhile, try again ` +
              `in a few seconds`
          : `q: the search index holds the log up to entry ${this.size - 1}, not yet entry ${treeSize - 1} of this node's state; try ` +
              `again in a few seconds`,
        { retryAfter: 5 },
      );
    }
    const tiers = tiersOf(words);
    const results: (Found & { rank: bigint })[] = [];
    // Where the last item served stands: the next page goes on after it.
    let lastAt: { tier: number; rank: bigint } | null = null;
    let k = at === null ? 0 : tiers.indexOf(at.tier);
    if (k < 0) k = tiers.length;
    let after = at === null ? -1n : BigInt(at.after);
    for (; k < tiers.length; k++, after = -1n) {
      const tier = tiers[k]!;
      // The tier is read in growing chunks until the page (and one more, to know there is a next) is found.
      for (let chunk = 2 * (limit + 1); ; chunk = Math.min(chunk * 4, 20_000)) {
        const found = await this.store.candidates(words, tierIn(tier, tiers), { treeSize, kind: f.kind }, after, chunk);
        for (const c of found) {
          after = c.rank;
          if (!shown(state, c, f)) continue;
          if (results.length === limit)
            return { results: await this.withTexts(results), next: { treeSize, tier: lastAt!.tier, after: lastAt!.rank.toString() } };
          results.push({ kind: c.kind, key: c.key, rank: c.rank });
          lastAt = { tier, rank: c.rank };
        }
        if (found.length < chunk) break;
      }
    }
    return { results: await this.withTexts(results), next: null };
  }

  /** The results with the columns their versions were indexed with, when the store keeps them. */
  private async withTexts(results: (Found & { rank: bigint })[]): Promise<Found[]> {
    const texts = results.length === 0 ? undefined : await this.store.texts?.(results.map((r) => r.rank));
    return results.map(({ kind, key, rank }) => ({ kind, key, ...(texts?.has(rank) ? { text: texts.get(rank)! } : {}) }));
  }

  /** Stops writing; closes the store. */
  async close(): Promise<void> {
    this.generation++;
    this.writes = false;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    await this.flushing?.catch(() => undefined);
    await this.store.close();
  }
}

/** An item a search found: its kind and id, and the columns its version found was indexed with when the store keeps them. */
export interface Found {
  kind: Kind;
  key: string;
  text?: Columns;
}

/** Whether an item is in view and of the filters. */
function shown(state: State, doc: { kind: Kind; key: string }, f: SearchFilters): boolean {
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
    case 'claim':
    case 'external': {
      const c = state.claims.get(doc.key);
      if (c === undefined || !claimInView(state, c.ref)) return false;
      if (f.field !== undefined && (c.external || state.papers.get(c.paper)!.field !== f.field)) return false;
      if ((f.agent !== undefined && f.agent !== c.agent) || (f.operator !== undefined && f.operator !== c.operatorId)) return false;
      return f.status === undefined || statusOf(state, c.ref) === f.status;
    }
    default: {
      // A kind of another entry type, as its descriptor finds it: field and status are those of the claim it is about.
      const hit = hitOf(state, doc);
      if (hit === null) return false;
      if ((f.agent !== undefined && f.agent !== hit.agent) || (f.operator !== undefined && f.operator !== hit.operatorId)) return false;
      if (f.field === undefined && f.status === undefined) return true;
      const c = hit.claim === null ? undefined : state.claims.get(hit.claim);
      if (c === undefined || !claimInView(state, c.ref)) return false;
      if (f.field !== undefined && (c.external || state.papers.get(c.paper)!.field !== f.field)) return false;
      return f.status === undefined || statusOf(state, c.ref) === f.status;
    }
  }
}

/** A found item of a kind its descriptor serves (`search.hit`), or null when the state holds none in view. */
function hitOf(state: State, doc: { kind: Kind; key: string }): SearchHit | null {
  const hit = searchOfKind(doc.kind)?.hit?.(state, doc.key) ?? null;
  return hit !== null && (hit.claim === null || claimInView(state, hit.claim)) ? hit : null;
}

/** A paper's abstract and methods, read from its entry. */
async function paperTexts(seq: number, logged: Logged): Promise<[string, string]> {
  const payload = await logged(seq, 'paper');
  return [payload.abstract, payload.methods ?? ''];
}

const statusOf = (state: State, ref: string): Status => state.numbers.scores.get(ref)!.status;

/** The words of `q` as the index folds them: lower case, accents off; a word is a run of letters and digits. */
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
export function fold(s: string): string {
  // ASCII has no accents to take off: lower case is all.
  if (/^[ -~\t\n\r]*$/.test(s)) return s.toLowerCase();
  let out = '';
  for (const ch of s) {
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    out += f.length === ch.length ? f : ch.toLowerCase().length === ch.length ? ch.toLowerCase() : ch;
  }
  return out;
}

/** A word's stem (Porter's, as the index's tokenizer has it for English words); other words as they are. */
const stem = (w: string): string => (/^[a-z]+$/.test(w) ? stemmer(w) : w);

/**
 * Where the words of `text` that are forms of `words` stand (the same stem, case and accents
 * folded: "rates" for "rate"): [start, end) spans in order.
 */
export function wordSpans(text: string, words: readonly string[]): [number, number][] {
  if (words.length === 0) return [];
  const stems = new Set(words.map(stem));
  const folded = fold(text);
  const spans: [number, number][] = [];
  for (const m of folded.matchAll(/[\p{L}\p{N}]+/gu)) if (stems.has(stem(m[0]))) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

/** About this many characters of text around the first word found. */
const SNIPPET = 200;

/**
 * The snippet of an item: the stretch of the first of `texts` that holds a word of the query,
 * around that word, cut at spaces, `…` where text was cut; the start of the first text when none does.
 */
export function snippet(texts: string[], words: readonly string[]): string {
  let text = texts[0] ?? '';
  let at = 0;
  for (const t of texts) {
    const spans = wordSpans(t, words);
    if (spans.length > 0) {
      text = t;
      at = spans[0]![0];
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
export async function searchResult(state: State, r: Found, words: readonly string[], logged: Logged) {
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
      // A paper is never amended: the columns it was indexed with are its entry's (title, abstract, methods).
      const [abstract, methods] = r.text === undefined ? await paperTexts(p.seq, logged) : [r.text[1], r.text[2]];
      return {
        kind: r.kind,
        id: p.id,
        title: p.title,
        // Around the word in the abstract or methods; the abstract's start when only the title holds it.
        snippet: snippet([abstract, methods], words),
        seq: p.seq,
        agent: p.agent,
        operatorId: p.operatorId,
        paper: p.id,
        field: p.field,
        status: null,
        credence: null,
      };
    }
    case 'claim':
    case 'external': {
      const c = state.claims.get(r.key)!;
      const s = state.numbers.scores.get(c.ref)!;
      // The columns it was indexed with are its texts as they stand while it is not amended (an amendment is a version of its own).
      const t = r.text !== undefined && c.amendment === null ? { text: r.text[0], test: r.text[1] } : await claimTexts(c, logged);
      return {
        kind: r.kind,
        id: c.ref,
        title: c.external ? c.source! : state.papers.get(c.paper)!.title,
        snippet: snippet(c.external ? [t.text, t.test, c.source!] : [t.text, t.test], words),
        seq: c.seq,
        agent: c.agent,
        operatorId: c.operatorId,
        paper: c.paper,
        field: c.external ? null : state.papers.get(c.paper)!.field,
        status: s.status,
        credence: servedProbability(s.credence),
      };
    }
    default: {
      // Its key, its first column as title, a snippet of the rest; the claim it is about, if any.
      const hit = hitOf(state, r)!;
      const c = hit.claim === null ? undefined : state.claims.get(hit.claim);
      return {
        kind: r.kind,
        id: r.key,
        title: hit.text[0],
        snippet: snippet(
          [...hit.text].filter((t) => t !== ''),
          words,
        ),
        seq: hit.seq,
        agent: hit.agent,
        operatorId: hit.operatorId,
        paper: c?.paper ?? null,
        field: c === undefined || c.external ? null : state.papers.get(c.paper)!.field,
        status: null,
        credence: null,
      };
    }
  }
}
