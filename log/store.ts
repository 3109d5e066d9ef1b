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
  /** Entry records (see entry.ts) for seqs first, first + 1, ... */
  entries: string[];
  /** Tiles of interior hashes (see tiles.ts) the batch completed or grew, whole. */
  tiles: { id: TileId; bytes: Uint8Array }[];
  head: StoredHead;
}

/** Reads of a store, or of a snapshot of it. */
export interface LogReader {
  /** The last committed head; null for a log that has never committed. */
  readHead(): Promise<StoredHead | null>;
  /** Entry records [from, from + count), in order; fewer if the store ends first. */
  readEntries(from: number, count: number): Promise<string[]>;
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
  close(): Promise<void>;
}
