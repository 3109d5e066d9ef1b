// Where a deployment keeps the snapshot of its record's state (docs/log-format.md, "Snapshots of
// the record's state"): a file under the data directory (the
// engine's fileSnapshots), or, when the log is in PostgreSQL, the same database, where every node
// of the deployment finds it. The snapshot's bytes are opaque here.
import type { BlobStore, SnapshotPlace } from 'tlog-engine';

/** The blob of the state's snapshot in a shared store. */
export const SNAPSHOT_BLOB = 'state.snapshot';

/** The blob `name` of a shared store's blobs (table log_blobs), written in one transaction. */
export function storeSnapshots(blobs: BlobStore, where: string, name = SNAPSHOT_BLOB): SnapshotPlace {
  return {
    where: `${where} (table log_blobs, ${name})`,
    read: async () => (await blobs.get(name))?.bytes ?? null,
    write: (chunks, treeSize) => blobs.put(name, treeSize, chunks),
  };
}
