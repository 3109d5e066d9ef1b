// Parsed reads of a store: entries come back as {seq, ts, type, payload}, so nothing above
// log/ needs to know how a record is stored (docs/engine.md, "The reader").
import { parseEntryRecord, type LoggedEntry } from './entry.js';
import { LogError } from './errors.js';
import type { LogReader } from './store.js';

/** Reads parsed entries. `Log` is one; `storeReader` gives one over a store not yet opened as a log. */
export interface EntryReader {
  /** Entries [from, from + count), in order; fewer if the log ends first. Throws `corrupt` on a malformed record. */
  records(from: number, count: number): Promise<LoggedEntry[]>;
}

/** Stored records [from, from + count) of `store`, parsed. */
export async function readRecords(store: LogReader, from: number, count: number): Promise<LoggedEntry[]> {
  if (count <= 0) return [];
  const stored = await store.readEntries(from, count);
  return stored.map((record, i) => {
    const r = parseEntryRecord(record);
    if (r === null) throw new LogError('corrupt', `entry ${from + i} is malformed`);
    return { seq: from + i, ts: r.ts, type: r.type, payload: r.payload };
  });
}

/**
 * What a store holds before it is opened as a log (a deployment reads its genesis to learn
 * which key signs it): the size of its last head and a reader of its entries up to that head.
 */
export async function storeReader(store: LogReader): Promise<EntryReader & { size: number }> {
  const size = (await store.readHead())?.treeSize ?? 0;
  return { size, records: (from, count) => readRecords(store, from, Math.min(count, size - from)) };
}
