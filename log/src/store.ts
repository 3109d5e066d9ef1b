// The log's storage interface. Everything a commit writes (entries, the tiles of interior
// hashes they change, the new signed head) goes in one atomic, durable batch: the head is the
// commit point, so a reopened store is always exactly at its last head.
import type { TileId } from './tiles.js';

/** The signed tree head as stored, with the C2SP checkpoint signed at the same time. */
export interface StoredHead {
  treeSize: number;
  rootHash: string;
  timestamp: string;
  /** Ed25519 by the log key over the canonical JSON of {rootHash, timestamp, treeSize}; base64url. */
  signature: string;
  /** The same head as a signed note (C2SP tlog-checkpoint). */
  checkpoint: string;
}

/**
 * A batch with no entries whose head is the store's current head or an earlier one rolls the
 * store back to that head: the sequencer writes one after a failed commit (whose data may have
 * reached the store all the same), with the head's growing tiles. Data beyond the head is
 * ignored by every read and overwritten as the log grows again.
 */
export interface CommitBatch {
  /** Seq of the first entry. */
  first: number;
  /** Stored entries (codec.ts) for seqs first, first + 1, ... */
  entries: Uint8Array[];
  /** Tiles of interior hashes (see tiles.ts) the batch completed or grew, whole. */
  tiles: { id: TileId; bytes: Uint8Array }[];
  head: StoredHead;
}

/** Reads of a store, or of a snapshot of it. */
export interface LogReader {
  /** The last committed head; null for a log that has never committed. */
  readHead(): Promise<StoredHead | null>;
  /** Stored entries [from, from + count), in order; fewer if the store ends first. */
  readEntries(from: number, count: number): Promise<Uint8Array[]>;
  /** Stored tiles, undefined where there is none. */
  getTiles(ids: TileId[]): Promise<(Uint8Array | undefined)[]>;
}

/** A consistent view of the store as it was when taken, whatever is committed later. */
export interface LogSnapshot extends LogReader {
  close(): Promise<void>;
}

export interface LogStore extends LogReader {
  /** Writes the batch atomically and durably; resolves only once it is durable. */
  commit(batch: CommitBatch): Promise<void>;
  /** A view that later commits do not change (the audit reads one). */
  snapshot(): Promise<LogSnapshot>;
  /**
   * Closes and opens the store again, when it can be (a LevelDB that failed a write fails every
   * later one until it is reopened). Reads may fail while it runs.
   */
  restart?(): Promise<void>;
  /**
   * True for a store that other processes read and may commit to (PostgreSQL, SharedStore): a
   * head it has committed may already be served elsewhere, so it is never taken back.
   */
  readonly shared?: boolean;
  close(): Promise<void>;
}

/** A process that holds, or asks for, the sequencer lease of a shared store. */
export interface LeaseHolder {
  /** Its id, unique among the processes sharing the store. */
  node: string;
  /** Where it takes writes, for the others to forward theirs to. */
  url: string;
}

/** The sequencer lease as the store holds it (docs/engine.md, "Sharing a store"). */
export interface Lease {
  /** Grows by one each time the lease is taken; the head is fenced by it. */
  epoch: number;
  /** The holder, or null when the lease was released (or never taken). */
  node: string | null;
  url: string | null;
  /** Milliseconds until it expires, by the store's clock; at most 0 when expired or released. */
  remainingMs: number;
}

/**
 * The sequencer lease of a shared store: one process at a time holds it and commits. Taking it
 * raises its epoch, and every commit is fenced by the epoch as well as by the previous head, so
 * a process that lost the lease (paused, partitioned) can never commit again, even from the head
 * it last saw.
 */
export interface SequencerLease {
  /**
   * Takes the lease for `ms` if it is free, expired or already `me`'s, raising its epoch: from
   * then on only this store's commits pass. Returns the epoch and the head at that moment
   * (every commit of an earlier holder is either in it or refused); null if another holds it.
   */
  acquire(me: LeaseHolder, ms: number): Promise<{ epoch: number; head: StoredHead | null } | null>;
  /** Extends the lease this store holds by `ms` from now; false if another took it meanwhile. */
  renew(ms: number): Promise<boolean>;
  /** Gives the lease up (another may take it at once); this store commits no more. */
  release(): Promise<void>;
  read(): Promise<Lease>;
}

/**
 * A store that many processes share (docs/engine.md, "Sharing a store"). One of them holds the
 * sequencer lease and commits; the others read what it commits, told of each new head.
 */
export interface SharedStore extends LogStore {
  readonly shared: true;
  readonly lease: SequencerLease;
  /** Calls `onChange` when a head is committed or the lease changes hands, until closed (a lost connection is made again). */
  watch(onChange: (what: 'head' | 'lease') => void): { close(): Promise<void> };
}

/** Values kept beside a shared log, such as an application's snapshot, each under a name and the tree size it was taken at. */
export interface BlobStore {
  /**
   * Keeps `bytes` (or its chunks, in order) under `name`, taken at tree size `treeSize`, replacing what is there unless
   * that was taken at a larger size (then false, nothing written). Large values are kept in parts.
   */
  put(name: string, treeSize: number, bytes: Uint8Array | readonly Uint8Array[]): Promise<boolean>;
  get(name: string): Promise<{ treeSize: number; bytes: Buffer } | null>;
}

/** A process that shares the store, as it last announced itself. */
export interface NodeSeen {
  node: string;
  url: string;
  role: string;
  /** The tree size it had applied. */
  treeSize: number;
  /** Milliseconds since it announced itself, by the store's clock. */
  seenMsAgo: number;
}

/** The processes sharing a store, as each announces itself, and a secret they share. */
export interface Membership {
  /** A random secret made with the store, the same for every process that opens it. */
  readonly secret: string;
  /** Notes that `me` is up, in `role`, at `treeSize`. */
  announce(me: LeaseHolder & { role: string; treeSize: number }): Promise<void>;
  /** The processes that announced themselves, most recent first. */
  nodes(): Promise<NodeSeen[]>;
}

/** Whether `store` is shared with other processes. */
export const isShared = (store: LogStore): store is SharedStore => store.shared === true;
