// Reads of stored entries with their places, for a log and for a store not yet opened as one.
import type { LogReader } from './store.js';

/** One stored entry as the log keeps it: its index and the bytes stored for it (codec.ts). */
export interface StoredEntry {
  seq: number;
  bytes: Uint8Array;
}

/** Reads stored entries. `Log` is one; `storeReader` gives one over a store not yet opened as a log. */
export interface EntryReader {
  /** Stored entries [from, from + count), in order; fewer if the log ends first. */
  records(from: number, count: number): Promise<StoredEntry[]>;
}

/** Stored entries [from, from + count) of `store`, with their seqs. */
export async function readRecords(store: LogReader, from: number, count: number): Promise<StoredEntry[]> {
  if (count <= 0) return [];
  const stored = await store.readEntries(from, count);
  return stored.map((bytes, i) => ({ seq: from + i, bytes }));
}

/**
 * What a store holds before it is opened as a log (an application reads its first entry to learn
 * which key signs it, say): the size of its last head and a reader of its entries up to that head.
 */
export async function storeReader(store: LogReader): Promise<EntryReader & { size: number }> {
  const size = (await store.readHead())?.treeSize ?? 0;
  return { size, records: (from, count) => readRecords(store, from, Math.min(count, size - from)) };
}
