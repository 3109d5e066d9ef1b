// Many nodes on one PostgreSQL database (docs/deploy.md): the engine's Cluster (exactly one node
// holds the sequencer lease and admits writes, the others follow the log into their own state)
// over the record's replica, with what the record adds: a node that starts leading first logs
// what fell due, and the deployment's nodes share the database's secret, with which a forwarded
// write names its client.
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
