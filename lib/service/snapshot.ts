// How the record's state is written into a snapshot, the cache that lets the service start without replaying the whole log; the
// engine binds it to the log and decides whether it is used (docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol).
import { join } from 'node:path';
import { nextTurn, type SnapshotCodec } from 'tlog-engine';
import { codeId } from '../protocol/code-id.js';
import { encodeState, encodeStateAsync, readState, readStateFrom, stateBody, stateHeader, type State } from '../record/fold/index.js';

/** The format's name; a snapshot of another format is discarded, never migrated. */
export const SNAPSHOT_FORMAT = 'archive-snapshot/20';

/** Where a deployment on LevelDB keeps its snapshot: one file, replaced atomically (on PostgreSQL: snapshot-place.ts). */
export const snapshotFile = (dataDir: string): string => join(dataDir, 'snapshots', 'state.snapshot');

/**
 * The record's state in the engine's snapshots: its body is the state in parts, each part's structured clone,
 * and its columns (lib/record/fold/state-copy.ts). The state is read, a copy, in the synchronous part of `encode`.
 */
export const recordSnapshots: SnapshotCodec<State> = {
  format: SNAPSHOT_FORMAT,
  get code() {
    return codeId();
  },
  encode: (state) => stateBody(state, nextTurn),
  decode: (body, treeSize) => {
    const state = readState(body, treeSize);
    return 'problem' in state ? state : { state };
  },
  // At start: the file read a piece at a time, each column straight into the buffer its store keeps, hashed meanwhile apart.
  decodeFrom: readStateFrom,
};

/** The bytes of a snapshot of `state`, taken at the head of size state.size whose root is `rootHash`. */
export const encodeSnapshot = (state: State, rootHash: string): Buffer => encodeState(SNAPSHOT_FORMAT, codeId(), state, rootHash);

/** The same bytes, the state read in one synchronous step (a copy) and the rest done off the event loop. */
export const encodeSnapshotAsync = (state: State, rootHash: string): Promise<Buffer> =>
  encodeStateAsync(SNAPSHOT_FORMAT, codeId(), state, rootHash, nextTurn);

/** A snapshot's state, or why it cannot be used. */
export type Loaded = { state: State; treeSize: number } | { problem: string };

/** The state a snapshot's bytes hold, checked against its header and the running code (not yet against a log). */
export function decodeSnapshot(bytes: Buffer): (Loaded & { rootHash?: string }) | { problem: string } {
  const h = stateHeader(bytes, SNAPSHOT_FORMAT, codeId());
  if ('problem' in h) return h;
  const state = readState(h.body, h.header.treeSize);
  if ('problem' in state) return state;
  return { state, treeSize: h.header.treeSize, rootHash: h.header.rootHash };
}
