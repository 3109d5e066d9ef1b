// The log's two faces: the appender (its one writer) and the reader (everything committed). A
// Log is both, over one store; `openLog` (index.ts) opens one.
import type { AuditReport } from './audit.js';
import type { LogVerifier, SignedTreeHead } from './head.js';
import type { EntryReader, StoredEntry } from './reader.js';
import type { Appended, LeafEntry } from './sequencer.js';
import type { TilePath } from './tlog-tiles.js';

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
  /** The log key's raw 32-byte Ed25519 public key (keys.ts spells it). */
  readonly publicKey: Uint8Array;
  /** The name of the note key that signs its checkpoints (the origin unless `openLog` was given another). */
  readonly keyName: string;
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
