// The front door of log/: everything above this layer imports from here and from no other file
// of log/. The contract of each part is written in docs/engine.md.
//
//   the log       openLog gives a Log: an appender (append, enqueue, waitFor) and a reader
//                 (entries, records, proofs, heads, the audit) over one store
//   the stores    openStore, openLevelStore, openPgStore, MemoryStore, restartable, and the
//                 LogStore contract every store meets
//   verifying     what a client needs to check what a log serves: leaf hashes, roots,
//                 proofs, head signatures, checkpoints; and SHA-256 and hex
//   the client    a log's reads over HTTP (LogClient), proofs and heads checked, a tiles
//                 client, a static tiles mirror, and a monitor that gossips heads
//   witnesses     cosignatures, a witness policy, the witness side of add-checkpoint, a
//                 witness key, and the client that has a log's checkpoints cosigned
//
// The HTTP servers (a witness's, a monitor's gossip) are apart, in tlog-engine/servers.
//
// LevelDB and the PostgreSQL client are loaded only when a store of theirs is opened, so a
// verifier that imports this file loads no store.
import type { AuditReport } from './audit.js';
import type { LogVerifier, SignedTreeHead } from './head.js';
import type { EntryReader, StoredEntry } from './reader.js';
import { RestartableStore } from './restartable-store.js';
import { Sequencer, type Appended, type LeafEntry, type SequencerOptions } from './sequencer.js';
import type { Framing } from './framing.js';
import type { LogStore, SharedStore } from './store.js';
import type { TilePath } from './tlog-tiles.js';

// ---- the log ----

/** Writes to the log. Entries are committed in batches; each is acknowledged only once durable. */
export interface Appender {
  /** Appends one entry; resolves once it and a head including it are durable. */
  append(data: Uint8Array): Promise<Appended>;
  /**
   * Queues one entry and gives its seq, time and stored bytes at once, so the caller can fold it
   * into its own state in log order; `committed` resolves when it is durable. `time`: the
   * entry's time in ms, no earlier than the last entry's (default: the clock's). `withNext`:
   * committed in one atomic batch with the entry queued right after it.
   */
  enqueue(
    data: Uint8Array,
    opts?: { time?: number; withNext?: boolean },
  ): { seq: number; time: number; stored: Uint8Array; committed: Promise<Appended> };
  /** The seq and time the next entry queued now would get. */
  next(): { seq: number; time: number };
  /** Whether the log takes no appends: stopped after a failed commit, or closed. */
  readonly stopped: boolean;
  /** The error of the failed commit that stopped the log; null while it takes appends. */
  readonly failedWith: unknown;
  /**
   * After a failed commit: restarts the store and rolls it back to the last acknowledged head,
   * then takes appends again. On a shared store nothing is rolled back: the log goes on from
   * the store's head (a commit whose answer was lost may have landed).
   */
  recover(): Promise<void>;
  /**
   * For a log another process appends to (a shared store): reads the store's newest head and
   * the entries up to it, checks them against its root and makes it the committed head;
   * `onEntries` gets the new entries in order, page by page, before the head moves. A log
   * stopped by a failed or fenced commit first goes back to its last acknowledged head.
   * Resolves whether the head moved (docs/engine.md, "Sharing a store").
   */
  refresh(onEntries?: (entries: StoredEntry[]) => void): Promise<boolean>;
  /** Waits for queued appends, then closes the store. */
  close(): Promise<void>;
}

/** Reads of the committed log: nothing a reader sees is ever taken back. */
export interface Reader extends EntryReader {
  readonly origin: string;
  /** Size of the committed tree. */
  readonly size: number;
  /** The latest committed signed tree head. */
  sth(): SignedTreeHead;
  /** The same head as a C2SP signed-note checkpoint. */
  checkpoint(): string;
  /** Resolves once the committed tree holds `size` entries; rejects if the log stops or closes first. */
  waitFor(size: number): Promise<void>;
  /** Committed entries with their leaf hashes (the tree's, as stored) and the leaf hash before each. */
  entries(from: number, count: number): Promise<LeafEntry[]>;
  inclusionProof(seq: number, size?: number): Promise<Uint8Array[]>;
  /** The proof if every hash it needs is in memory, else null (no read, no wait). */
  inclusionProofNow(seq: number, size?: number): Uint8Array[] | null;
  consistencyProof(first: number, second: number): Promise<Uint8Array[]>;
  consistencyProofNow(first: number, second: number): Uint8Array[] | null;
  /** Root of the committed tree of `size`. */
  rootAt(size: number): Promise<Uint8Array>;
  /** A C2SP tlog-tiles hash tile of the committed tree (docs/log-format.md, "Tiles"); null when the tree does not hold it. */
  hashTile(t: TilePath): Promise<Uint8Array | null>;
  /** A C2SP tlog-tiles entry bundle: each entry's leaf input, uint16-length-prefixed; null beyond the tree. */
  entryBundle(t: TilePath): Promise<Uint8Array | null>;
  /** Re-walks a snapshot of the store: every hash, the root, the head and checkpoint. */
  audit(verify: LogVerifier): Promise<AuditReport>;
}

/** A log: its one appender and its reader, over one store. */
export interface Log extends Appender, Reader {}

export type LogOptions = SequencerOptions;

/** Opens the log at its store's last committed head (an empty log if it has none). */
export function openLog(opts: LogOptions): Promise<Log> {
  return Sequencer.open(opts);
}

export type { Appended, AuditReport, EntryReader, LeafEntry, StoredEntry };
export { NO_LEAF, type Chained, type LeafCodec, type Sequenced } from './codec.js';
export type { AuditProblem } from './audit.js';
export { storeReader } from './reader.js';
export { LogError, type LogErrorCode } from './errors.js';
export type { LogSigner, LogVerifier, SignedTreeHead } from './head.js';

// ---- the stores ----

export type {
  CommitBatch,
  Lease,
  LeaseHolder,
  LogReader as StoreReader,
  LogSnapshot,
  LogStore,
  NodeSeen,
  SharedStore,
  StoredHead,
} from './store.js';
export { isShared } from './store.js';
export type { TileId } from './tiles.js';
export { MemoryStore, type Fault } from './memory-store.js';

/**
 * A LevelDB store in `dir` (made if missing). LevelDB is loaded on the first call. `framing`: how
 * a new store joins the entries it keeps under one key (default: length-prefixed); an existing
 * store keeps its own, and refuses another.
 */
export async function openLevelStore(dir: string, opts: { framing?: Framing } = {}): Promise<LogStore> {
  const { LevelStore } = await import('./level-store.js');
  return LevelStore.open(dir, opts);
}
export { lengthPrefixed, textLines, type Framing } from './framing.js';

/**
 * A PostgreSQL store in the database at `url` (postgres://user@host/db), its tables created or
 * migrated on opening: a store many processes may share. The `pg` client is loaded on the first call.
 */
export async function openPgStore(url: string): Promise<SharedStore> {
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
