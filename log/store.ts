// The log's storage interface. Everything a commit writes (entries, the interior hashes they
// complete, the new signed head) goes in one atomic, durable batch: the head is the commit
// point, so a reopened store is always exactly at its last head.

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
 * Hashes are stored in groups, one per seq: the group of seq s holds, level 0 first, every
 * complete subtree whose last leaf is s (the leaf hash itself, then its parent if s is a right
 * child, and so on). A node (level L, index i) lives in group (i + 1) * 2^L - 1 at offset 32 L.
 */
export interface CommitBatch {
  /** First seq of the batch: entries and groups are for seqs first, first + 1, ... */
  first: number;
  entries: Uint8Array[];
  groups: Uint8Array[];
  head: StoredHead;
}

export interface LogStore {
  /** The last committed head; null for a log that has never committed. */
  readHead(): Promise<StoredHead | null>;
  /** Stored entry records [from, from + count), in order; fewer if the store ends first. */
  readEntries(from: number, count: number): Promise<Uint8Array[]>;
  /** Stored hash groups [from, from + count), in order; fewer if the store ends first. */
  readGroups(from: number, count: number): Promise<Uint8Array[]>;
  /** Hash groups of the given seqs, undefined where there is none. */
  getGroups(seqs: number[]): Promise<(Uint8Array | undefined)[]>;
  /** Writes the batch atomically and durably; resolves only once it is durable. */
  commit(batch: CommitBatch): Promise<void>;
  close(): Promise<void>;
}
