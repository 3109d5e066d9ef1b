// Snapshots of the record's state: a cache that lets the service start without replaying the
// whole log (docs/log-format.md, "Snapshots of the record's state"). A snapshot is bound to the
// head it was taken at (tree size and root), to the code that folded it, and to the SHA-256 of its
// own bytes (lib/record/state-codec.ts); at start-up it is used only if all of them hold against
// the log and the code that is running, and otherwise discarded with one line saying why: the
// service then replays from zero. It is never an authority: the verifier never reads one.
import { join } from 'node:path';
import type { RecordLog } from '../protocol/log-entry.js';
import { toHex } from 'tlog-engine';
import { codeId } from '../protocol/code-id.js';
import { encodeState, encodeStateAsync, readState, stateHeader, type StateHeader } from '../record/state-codec.js';
import type { State } from '../record/state.js';
import { placeOf, type SnapshotPlace } from './snapshot-place.js';

/** The format's name; a snapshot of another format is discarded, never migrated. */
export const SNAPSHOT_FORMAT = 'archive-snapshot/2';

/** Where a deployment on LevelDB keeps its snapshot: one file, replaced atomically (on PostgreSQL: snapshot-place.ts). */
export const snapshotFile = (dataDir: string): string => join(dataDir, 'snapshots', 'state.snapshot');

/** The bytes of a snapshot of `state`, taken at the head of size state.size whose root is `rootHash`. */
export const encodeSnapshot = (state: State, rootHash: string): Buffer => encodeState(SNAPSHOT_FORMAT, codeId(), state, rootHash);

/**
 * The same bytes, the state read in one synchronous step (a copy) and the rest done off the event
 * loop: the service answers meanwhile (docs/benchmarks.md, bench:start).
 */
export const encodeSnapshotAsync = (state: State, rootHash: string): Promise<Buffer> =>
  encodeStateAsync(SNAPSHOT_FORMAT, codeId(), state, rootHash);

/** What writing a snapshot took: its size, its bytes, the event loop held while the state was copied, and the whole write. */
export interface Written {
  treeSize: number;
  bytes: number;
  /** How long the state was read in one synchronous step (the service answered nothing meanwhile). */
  heldMs: number;
  /** From the start to the snapshot durable in its place. */
  ms: number;
  /** False when the place already held a snapshot of a larger size (another node's), which it keeps. */
  kept: boolean;
}

/**
 * Writes a snapshot of `state` to `where` (a file or another place), atomically: a crash leaves
 * the previous snapshot whole. The state must be the committed log's (state.size === log.size);
 * null when it moved on before it could be copied (the caller tries again). Copying the state
 * holds the event loop; hashing and writing the copy do not (docs/benchmarks.md, bench:start).
 */
export async function writeSnapshot(where: string | SnapshotPlace, state: State, log: RecordLog): Promise<Written | null> {
  const size = state.size;
  if (size !== log.size) throw new Error(`the state holds ${size} entries, the committed log ${log.size}`);
  const t0 = performance.now();
  // The root first (the tree of this size never changes), then the state in one synchronous step.
  const root = toHex(await log.rootAt(size));
  if (state.size !== size) return null;
  const h0 = performance.now();
  const encoding = encodeSnapshotAsync(state, root);
  const heldMs = performance.now() - h0;
  const bytes = await encoding;
  // A place shared with other nodes keeps the larger snapshot when two are written at once (kept: false).
  const kept = await placeOf(where).write(bytes, size);
  return { treeSize: size, bytes: bytes.length, heldMs, ms: performance.now() - t0, kept };
}

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

/**
 * The header and body of what `where` keeps, if they are of `format` and `code`, whole, and of a
 * head of size at most `max.size` (`max.of` names whose size, for the problem) that is a prefix of
 * `log`; why not otherwise; null when nothing is kept. What every snapshot checks before it is read.
 */
export async function readBound(
  where: string | SnapshotPlace,
  log: RecordLog,
  format: string,
  code: string,
  max: { size: number; of: string },
): Promise<{ header: StateHeader & Record<string, unknown>; body: Buffer } | { problem: string } | null> {
  let bytes: Buffer | null;
  try {
    bytes = await placeOf(where).read();
  } catch (err) {
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  if (bytes === null) return null;
  const h = stateHeader<Record<string, unknown>>(bytes, format, code);
  if ('problem' in h) return h;
  const { treeSize, rootHash } = h.header;
  if (treeSize > max.size) return { problem: `it was taken at size ${treeSize}, beyond ${max.of} ${max.size} entries` };
  if (toHex(await log.rootAt(treeSize)) !== rootHash)
    return { problem: `its head (size ${treeSize}, root ${rootHash}) is not a prefix of this log` };
  return h;
}

/** Reads the snapshot at `where` and checks it against `log` and the running code; null when there is none. */
export async function loadSnapshot(where: string | SnapshotPlace, log: RecordLog): Promise<Loaded | null> {
  const h = await readBound(where, log, SNAPSHOT_FORMAT, codeId(), { size: log.size, of: "the log's" });
  if (h === null || 'problem' in h) return h;
  const state = readState(h.body, h.header.treeSize);
  if ('problem' in state) return state;
  return { state, treeSize: h.header.treeSize };
}
