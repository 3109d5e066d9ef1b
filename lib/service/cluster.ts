// Many nodes on one PostgreSQL database: the engine's Cluster over the record's replica, with what the record adds (a new leader
// logs what fell due; the nodes share the database's secret, with which a forwarded write names its client): docs/deploy.md.
import { Cluster, isShared, type BlobStore, type ClusterOptions, type LogStore, type Membership, type SharedStore } from 'tlog-engine';
import type { LiveRecord } from './live-record.js';

export { DEFAULT_LEASE_MS } from 'tlog-engine';

/** A store many nodes share, with its blobs (snapshots, the cosigned checkpoint) and its members: PostgreSQL. */
export type SharedDb = SharedStore & { blobs: BlobStore; members: Membership };

/** Whether `store` is shared, with blobs and members. */
export const isSharedDb = (store: LogStore): store is SharedDb => isShared(store) && 'blobs' in store && 'members' in store;

export class RecordCluster extends Cluster {
  /** The secret the nodes of the deployment share (made with the database): a forwarded write names its client with it. */
  readonly secret: string;

  constructor(db: SharedDb, record: LiveRecord, opts: Omit<ClusterOptions, 'members' | 'onLeading'> = {}) {
    super(db, record.engineReplica.log, record.engineReplica, {
      ...opts,
      members: db.members,
      onLeading: () => record.tick(),
      say: opts.say ?? ((line) => console.log(`archive: ${line}`)),
    });
    this.secret = db.members.secret;
  }
}
