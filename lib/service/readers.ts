// What the readers' routes read beside the state (docs/api.md#the-records-reads): the read index
// of each author's work and the papers by field (lib/record/views/list-index.ts) and the search index
// (search.ts). Both follow the live record: made from its state at start (after a replay or from
// a snapshot) and again after a rebuild, then kept entry by entry as entries are applied.
import type { RecordReader } from '../protocol/log-entry.js';
import { noteApplied, readIndexOf, type ReadIndex } from '../record/views/index.js';
import type { RecordEntry, State } from '../record/fold/index.js';
import type { AppliedListener, LiveRecord, Outcome } from './live-record.js';
import { SearchIndex, type SavedSearchSource } from './search.js';

export class Readers implements AppliedListener {
  /** Made by `reset`, which `follow` calls at once. */
  index!: ReadIndex;
  readonly search: SearchIndex;

  private constructor(log: RecordReader, saved?: SavedSearchSource) {
    this.search = new SearchIndex(log, saved);
  }

  /**
   * Readers that follow `record` from now on; the search index is made in the background
   * (`search.ready`), from `saved` (lib/service/search-snapshot.ts) when it holds.
   */
  static follow(record: LiveRecord, log: RecordReader, saved?: SavedSearchSource): Readers {
    const r = new Readers(log, saved);
    record.listen(r);
    return r;
  }

  reset(state: State): void {
    this.index = readIndexOf(state);
    this.search.reset(state);
  }

  applied(state: State, e: RecordEntry, reported: unknown): void {
    // What the apply reported: an object of ids for an item's entry (a service event may report nothing).
    const outcome: Outcome = typeof reported === 'object' && reported !== null ? (reported as Outcome) : {};
    noteApplied(this.index, state, e, outcome);
    this.search.applied(state, e, outcome);
  }
}
