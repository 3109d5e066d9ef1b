// The verifier's saved replay (`--state FILE`, kept in FILE.replay): the next run checks and replays only the entries after it.
// This verifier's own work, never the service's snapshot (docs/log-format.md#what-archive-verify-checks, "Incremental runs").
import { fromHex, readStateFile, toHex, writeSnapshotFile, rootFromSubtrees, type SnapshotHeader, type Subtree } from 'tlog-engine';
import { codeId } from '../lib/protocol/code-id.js';
import { readStateFrom, stateBodySync, type State } from '../lib/record/fold/index.js';
import type { ServedEntry } from './source.js';
import type { CacheMark } from './cache.js';
import { entryHashes } from './entry-hashes.js';

export const REPLAY_FORMAT = 'archive-verify-replay/20';

/** Where `--state FILE` keeps the replay. */
export const replayFile = (stateFile: string): string => `${stateFile}.replay`;

/** What a run resumes from. */
export interface Resume {
  state: State;
  range: Subtree[];
  lastEntryHash: string;
  /** The genesis, entry 0, as verified: an incremental run that holds no older entry checks signatures against its keys. */
  genesis?: ServedEntry;
  /** The export cache verified with it (cache.ts). */
  cache?: CacheMark;
}

/** What a replay keeps beside the state, besides its tree. */
export type ReplayMore = Pick<Resume, 'genesis' | 'cache'>;

interface Extra extends ReplayMore {
  range: { level: number; hash: string }[];
  lastEntryHash: string;
}

/**
 * Writes the replay of a verification that passed, whole or not at all (a temporary file renamed over it). The bytes are
 * encodeState's, each chunk hashed and written as it is made, the columns' straight from the state (stateBodySync; the engine's
 * writeSnapshotFile): neither the state nor its bytes are copied whole.
 */
export function saveReplay(file: string, state: State, range: Subtree[], lastEntryHash: string, more: ReplayMore = {}): void {
  const extra: Extra = { range: range.map((s) => ({ level: s.level, hash: toHex(s.hash) })), lastEntryHash, ...more };
  const rootHash = toHex(rootFromSubtrees(range.map((s) => s.hash)));
  writeSnapshotFile(file, { format: REPLAY_FORMAT, code: codeId(), treeSize: state.size, rootHash }, stateBodySync(state), extra);
}

/** Why the header of a saved replay does not hold (its tree, its genesis), or null. */
function extraProblem(h: SnapshotHeader & Partial<Extra>): string | null {
  const { range, lastEntryHash, rootHash, treeSize, genesis } = h;
  if (!Array.isArray(range) || typeof lastEntryHash !== 'string') return 'its header names no subtrees';
  const subtrees = range.map((s) => ({ level: s.level, hash: fromHex(s.hash, 32) }));
  if (subtrees.reduce((n, s) => n + 2 ** s.level, 0) !== treeSize) return `its subtrees do not cover ${treeSize} entries`;
  if (toHex(rootFromSubtrees(subtrees.map((s) => s.hash))) !== rootHash) return 'its subtrees do not give its root';
  if (genesis !== undefined && (genesis?.seq !== 0 || entryHashes(genesis, 0).problems.length > 0))
    return 'its genesis does not hash to its entry hash';
  return null;
}

/**
 * The saved replay in `file`; null when there is none; `problem` when there is one that does not hold. Read as the service reads
 * its snapshot (the engine's readStateFile): a piece at a time, each column straight into its own buffer, the body never whole,
 * and hashed meanwhile on a thread of its own (`opts.hashApart`: from what size); the state is used only once the digest is the header's.
 */
export async function loadReplay(file: string, opts: { hashApart?: number } = {}): Promise<Resume | { problem: string } | null> {
  let read;
  try {
    read = await readStateFile<State, Extra>(file, REPLAY_FORMAT, codeId(), extraProblem, readStateFrom, opts);
  } catch (err) {
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  if (read === null || 'problem' in read) return read;
  const { range, lastEntryHash, genesis, cache } = read.header as SnapshotHeader & Extra;
  const subtrees = range.map((s) => ({ level: s.level, hash: fromHex(s.hash, 32) }));
  return { state: read.state, range: subtrees, lastEntryHash, genesis, cache };
}
