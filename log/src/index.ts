// The front door of log/ (the package tlog-engine): everything above this layer imports from here and from no other file of
// log/. What each part does and guarantees: docs/engine.md. The log's reads over HTTP are the subpath tlog-engine/http and
// the client side's servers tlog-engine/servers, so that this file loads neither Koa nor a server (docs/engine.md#the-package).
import type { AuditReport } from './audit.js';
import type { EntryReader, StoredEntry } from './reader.js';
import type { Log } from './log.js';
import { RestartableStore } from './restartable-store.js';
import { Sequencer, type Appended, type LeafEntry, type SequencerOptions } from './sequencer.js';
import type { Framing } from './framing.js';
import type { BlobStore, LogStore, Membership, SharedStore } from './store.js';

// ---- the log ----

export type { Appender, Log, Reader } from './log.js';

export type LogOptions = SequencerOptions;

/** Opens the log at its store's last committed head (an empty log if it has none). */
export function openLog(opts: LogOptions): Promise<Log> {
  return Sequencer.open(opts);
}

export type { Appended, AuditReport, EntryReader, LeafEntry, StoredEntry };
export { NO_LEAF, leafBytes, leafHash, type Chained, type Leaf, type LeafCodec, type Sequenced } from './codec.js';
export type { AuditProblem } from './audit.js';
export { storeReader } from './reader.js';
export { LogError, type LogErrorCode } from './errors.js';
export type { LogSigner, LogVerifier, SignedTreeHead } from './head.js';

// ---- the stores ----

export type {
  BlobStore,
  CommitBatch,
  Lease,
  LeaseHolder,
  LogReader as StoreReader,
  LogSnapshot,
  LogStore,
  Membership,
  NodeSeen,
  SequencerLease,
  SharedStore,
  StoredHead,
} from './store.js';
export { isShared } from './store.js';
export type { TileId } from './tiles.js';
export { MemoryStore, type Fault } from './memory-store.js';

/**
 * A LevelDB store in `dir` (made if missing). LevelDB is loaded on the first call. `framing`: how
 * a new store joins the entries it keeps under one key (default: length-prefixed); an existing
 * store keeps its own, and refuses another. `cacheBytes`: the bytes of whole blocks lately read
 * it keeps (default 8 MiB; 0 keeps none; docs/engine.md).
 */
export async function openLevelStore(dir: string, opts: { framing?: Framing; cacheBytes?: number } = {}): Promise<LogStore> {
  const { LevelStore } = await import('./level-store.js');
  return LevelStore.open(dir, opts);
}
export { lengthPrefixed, textLines, type Framing } from './framing.js';

/**
 * A PostgreSQL store in the database at `url` (postgres://user@host/db), its tables created or
 * migrated on opening: a store many processes may share, with a place for values kept beside the
 * log (`blobs`) and a record of the processes sharing it (`members`). The `pg` client is loaded
 * on the first call.
 */
export async function openPgStore(url: string): Promise<SharedStore & { blobs: BlobStore; members: Membership }> {
  const { PgStore } = await import('./pg-store.js');
  return PgStore.open(url);
}

/** Whether `location` names a PostgreSQL database (postgres:// or postgresql://) rather than a directory. */
export function isPgUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A store at `location`: PostgreSQL for a postgres:// URL, else a LevelDB directory (made with `framing` if new). */
export function openStore(location: string, opts: { framing?: Framing } = {}): Promise<LogStore> {
  return isPgUrl(location) ? openPgStore(location) : openLevelStore(location, opts);
}

/** A store that `LogStore.restart` can close and open again in place, with `open`. */
export function restartable(open: () => Promise<LogStore>): Promise<LogStore & { restart(): Promise<void> }> {
  return RestartableStore.open(open);
}

// ---- the log key ----

export {
  ed25519Verify,
  generateLogKey,
  isMissingKeyFile,
  loadOrCreateKeyFile,
  logKeySpellings,
  logKeyString,
  logSigner,
  logVerifier,
  parseLogKey,
  parseLogKeyString,
  privateKeyFromPem,
  privateKeyToPem,
  rawPublicKey,
  readKeyFile,
  writeKeyFile,
  type KeyFileOptions,
} from './keys.js';

// ---- verifying what a log serves ----

export { headMessage, verifyHeadSignature } from './head.js';
export {
  appendToRange,
  hashLeaf,
  rootFromLeafHashes,
  rootFromSubtrees,
  verifyConsistency,
  verifyInclusion,
  type Subtree,
} from './merkle.js';
export {
  checkpointText,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  verifierKey,
  type Checkpoint,
  type NoteKey,
  type NoteSigner,
  type NoteVerifier,
} from './checkpoint.js';
export {
  TILE_HASHES,
  TilePathError,
  decodeBundle,
  encodeBundle,
  parseTilePath,
  tileIndexPath,
  tileInTree,
  tilePath,
  treeTiles,
  type TilePath,
} from './tlog-tiles.js';
export {
  addCheckpointBody,
  cosignatureLine,
  cosignaturesOn,
  cosignedMessage,
  cosignerKeyId,
  cosignerVerifierKey,
  parseAddCheckpoint,
  parseCosignerKey,
  type AddCheckpoint,
  type Cosignature,
  type CosignerKey,
} from './cosignature.js';
export { bytesEqual, fromHex, sha256, sha256TextHex, toHex } from './hash.js';

// ---- running an application's state machine ----

export {
  Replica,
  type Admission,
  type Admit,
  type Admitted,
  type AppliedListener,
  type ReplicaErrors,
  type ReplicaOptions,
  type SnapshotCodec,
  type SnapshotWritten,
  type StateMachine,
} from './replica.js';
export { Cluster, DEFAULT_LEASE_MS, type ClusterOptions } from './cluster.js';
export {
  fileSnapshots,
  frameSnapshot,
  frameSnapshotChunks,
  frameSnapshotSync,
  nextTurn,
  openSnapshot,
  placeOf,
  bytesBody,
  HASH_APART,
  readBound,
  readBoundState,
  readStateFile,
  writeSnapshotFile,
  type SnapshotBody,
  type SnapshotHeader,
  type SnapshotPlace,
} from './snapshot.js';
export { syncDir, writeFileAtomic, writeFileAtomicSync } from './atomic-file.js';

// ---- the client side ----

export { LogClient, checkedUrl, type LogClientOptions, type PublishedKey } from './client/log-client.js';
export { consistent, included, type TreeHead } from './client/proofs.js';
export { checkpointProblem, headSigned } from './client/heads.js';
export {
  leafMatches,
  readEntryBundle,
  readHashTiles,
  readTiles,
  readTilesHead,
  type TiledLog,
  type TilesHead,
  type TilesProblem,
  type TilesTrust,
} from './client/tiles.js';
export { writeMirror, type MirrorOptions } from './client/mirror.js';
export { pooled } from './client/pool.js';
export { MONITOR_FORMAT, readMonitorState, writeMonitorState, type MonitorState } from './client/monitor-state.js';
export { comparePeer, monitorRound, type Finding, type RoundOptions, type TrustedKey } from './client/monitor.js';

// ---- witnesses ----

export { witnessPolicy, witnessed, type WitnessPolicy, type WitnessedLog } from './witness/policy.js';
export {
  TLOG_SIZE_TYPE,
  addCheckpoint,
  checkpointPath,
  type WitnessAnswer,
  type WitnessKey,
  type WitnessRecord,
  type WitnessedLogs,
} from './witness/cosigner.js';
export { loadOrCreateWitnessKey, readWitnessKey, witnessKey } from './witness/witness-key.js';
export { WITNESS_STATE_FORMAT, fileWitness, type WitnessEndpoint } from './witness/endpoint.js';
export {
  Witnesses,
  witnessConfig,
  type CosignedLog,
  type CosignedPlace,
  type WitnessConfig,
  type WitnessesOptions,
} from './witness/witnesses.js';
