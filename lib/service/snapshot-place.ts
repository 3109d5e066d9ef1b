// Where a deployment keeps the snapshot of its record's state, and of its search index
// (docs/log-format.md, "Snapshots of the record's state"): a file under the data directory, or,
// when the log is in PostgreSQL, the same database, where every node of the deployment finds it. The snapshot's bytes are opaque
// here (lib/service/snapshot.ts makes and checks them).
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SharedStore } from 'tlog-engine';
import { writeFileAtomic } from './atomic-file.js';

export interface SnapshotPlace {
  /** Where it is, for messages. */
  readonly where: string;
  /** The bytes kept; null when there are none. */
  read(): Promise<Buffer | null>;
  /** Keeps `bytes`, a snapshot at tree size `treeSize`, whole or not at all; false when a snapshot of a larger size is kept already. */
  write(bytes: Buffer, treeSize: number): Promise<boolean>;
}

/** A place given as a file name is that file. */
export const placeOf = (where: string | SnapshotPlace): SnapshotPlace => (typeof where === 'string' ? fileSnapshots(where) : where);

/** One file, replaced atomically: a crash while writing leaves the previous one whole. */
export function fileSnapshots(file: string): SnapshotPlace {
  return {
    where: file,
    read: async () => {
      try {
        return await readFile(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    write: async (bytes) => {
      await mkdir(dirname(file), { recursive: true });
      await writeFileAtomic(file, bytes);
      return true;
    },
  };
}

/** The blob of the state's snapshot in a shared store (the search index's: SEARCH_BLOB). */
export const SNAPSHOT_BLOB = 'state.snapshot';
export const SEARCH_BLOB = 'search.snapshot';

/** The blob `name` of a shared store (table log_blobs), written in one transaction. */
export function storeSnapshots(store: SharedStore, where: string, name = SNAPSHOT_BLOB): SnapshotPlace {
  return {
    where: `${where} (table log_blobs, ${name})`,
    read: async () => (await store.getBlob(name))?.bytes ?? null,
    write: (bytes, treeSize) => store.putBlob(name, treeSize, bytes),
  };
}
