// What the readers' routes read beside the state: the read index (lib/record/views/list-index.ts) and the search index, made
// from the live record's state at start and after a rebuild, then kept entry by entry (docs/api.md#the-records-reads).
import { noteApplied, readIndexOf, type ReadIndex } from '../record/views/index.js';
import type { RecordEntry, State } from '../record/fold/index.js';
import type { AppliedListener, LiveRecord, Outcome } from './live-record.js';
import type { Deployment } from './deployment.js';
import { SearchIndex, TIERS, type SearchIndexOptions, type SearchLog, type SearchStore } from './search.js';
import { SqliteSearch, searchFile } from './search-sqlite.js';
import { PgSearch } from './search-pg.js';
import { isSharedDb } from './cluster.js';

/** The store of a deployment's search index: beside its LevelDB log, SQLite; with its log in PostgreSQL, the same database. */
export function searchStoreOf(d: Deployment): SearchStore {
  return d.storeUrl !== undefined && isSharedDb(d.store) ? new PgSearch(d.storeUrl, TIERS) : new SqliteSearch(searchFile(d.dataDir), TIERS);
}

/** Whether this node leads a deployment of many (the engine's Cluster): the one that leads writes the search index. */
export interface Leadership {
  readonly leading: boolean;
  onLead(f: () => void): void;
  onFollow(f: () => void): void;
}

/** Whether `role` (a node's place among many) tells when it leads. */
export const isLeadership = (role: unknown): role is Leadership =>
  typeof role === 'object' && role !== null && 'leading' in role && 'onLead' in role && 'onFollow' in role;

export class Readers implements AppliedListener {
  /** Made by `reset`, which `follow` calls at once. */
  index!: ReadIndex;

  private constructor(readonly search: SearchIndex) {}

  /**
   * Readers that follow `record` from now on; the search index (in `store`, by default the
   * deployment's: searchStoreOf) is brought up to date in the background (`search.ready`) and
   * closed with the deployment. On a deployment of many nodes (`cluster`), only the node that
   * leads writes it. `log`: where it reads the log (default: the deployment's; tests hold it back).
   */
  static follow(
    record: LiveRecord,
    d: Deployment,
    opts: SearchIndexOptions & { store?: SearchStore; cluster?: Leadership; log?: SearchLog } = {},
  ): Readers {
    const { cluster } = opts;
    const search = new SearchIndex(opts.log ?? d.log, opts.store ?? searchStoreOf(d), { ...opts, writes: cluster?.leading ?? opts.writes });
    cluster?.onLead(() => search.lead());
    cluster?.onFollow(() => search.follow());
    d.onClose(() => search.close());
    const r = new Readers(search);
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
