// The verifier's saved replay (`--state FILE`, kept in FILE.replay): the next run checks and replays only the entries after it.
// This verifier's own work, never the service's snapshot (docs/log-format.md#what-archive-verify-checks, "Incremental runs").
import { closeSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { fromHex, toHex, rootFromSubtrees, type Subtree } from 'tlog-engine';
import { codeId } from '../lib/protocol/code-id.js';
import { encodeStateChunks, readState, stateHeader, type State } from '../lib/record/fold/index.js';
import type { ServedEntry } from './source.js';
import type { CacheMark } from './cache.js';
import { entryHashes } from './entry-hashes.js';

export const REPLAY_FORMAT = 'archive-verify-replay/7';

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
 * Writes the replay of a verification that passed (atomically: a temporary file renamed over it). The bytes are encodeState's,
 * written a chunk at a time (encodeStateChunks): joining the state's chunks, then the header and the body, copied it twice.
 */
export function saveReplay(file: string, state: State, range: Subtree[], lastEntryHash: string, more: ReplayMore = {}): void {
  const extra: Extra = { range: range.map((s) => ({ level: s.level, hash: toHex(s.hash) })), lastEntryHash, ...more };
  const chunks = encodeStateChunks(REPLAY_FORMAT, codeId(), state, toHex(rootFromSubtrees(range.map((s) => s.hash))), extra);
  const fd = openSync(`${file}.tmp`, 'w');
  try {
    for (const c of chunks) for (let at = 0; at < c.length;) at += writeSync(fd, c, at, c.length - at);
  } finally {
    closeSync(fd);
  }
  renameSync(`${file}.tmp`, file);
}

/** The saved replay in `file`; null when there is none; `problem` when there is one that does not hold. */
export function loadReplay(file: string): Resume | { problem: string } | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  const h = stateHeader<Extra>(bytes, REPLAY_FORMAT, codeId());
  if ('problem' in h) return h;
  const { range, lastEntryHash, rootHash, treeSize, genesis, cache } = h.header;
  if (!Array.isArray(range) || typeof lastEntryHash !== 'string') return { problem: 'its header names no subtrees' };
  const subtrees = range.map((s) => ({ level: s.level, hash: fromHex(s.hash, 32) }));
  if (subtrees.reduce((n, s) => n + 2 ** s.level, 0) !== treeSize) return { problem: `its subtrees do not cover ${treeSize} entries` };
  if (toHex(rootFromSubtrees(subtrees.map((s) => s.hash))) !== rootHash) return { problem: 'its subtrees do not give its root' };
  if (genesis !== undefined && (genesis?.seq !== 0 || entryHashes(genesis, 0).problems.length > 0))
    return { problem: 'its genesis does not hash to its entry hash' };
  const state = readState(h.body, treeSize);
  if ('problem' in state) return state;
  return { state, range: subtrees, lastEntryHash, genesis, cache };
}
