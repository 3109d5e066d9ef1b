// Rebuilding the state from the log: every entry, in order, through the same apply as live
// writes. Replay trusts the log it is given (the service's own store, whose hashes the audit
// checks); the offline verifier checks each entry and its signature as well.
import { parseEntryRecord } from '../../log/entry.js';
import type { LogReader } from '../../log/store.js';
import { applyEntry } from './apply.js';
import { emptyState, type RecordEntry, type State } from './state.js';

/** Entries read from the store at a time. */
const PAGE = 4096;

/** Parses one stored record into the entry the state machine folds. */
export function recordEntry(seq: number, record: string): RecordEntry {
  const r = parseEntryRecord(record);
  if (r === null) throw new Error(`entry ${seq} is malformed`);
  return { seq, ts: r.ts, type: r.type, logged: JSON.parse(r.payload) };
}

/** The state after the first `size` entries of the store. */
export async function replayStore(store: LogReader, size: number, state: State = emptyState()): Promise<State> {
  for (let from = state.size; from < size; from += PAGE) {
    const want = Math.min(PAGE, size - from);
    const records = await store.readEntries(from, want);
    // A short page would skip entries (and leave a state short of `size`): refuse it.
    if (records.length !== want) throw new Error(`entry ${from + records.length} is missing from the store`);
    records.forEach((rec, i) => {
      const e = recordEntry(from + i, rec);
      try {
        applyEntry(state, e);
      } catch (err) {
        // Not a log this record wrote: say which entry, not a stack from deep inside a handler.
        throw new Error(`entry ${e.seq} (${e.type}) cannot be folded into the record: ${(err as Error).message}`, { cause: err });
      }
    });
  }
  return state;
}

/** The state after `entries`, in order from seq 0. */
export function replayEntries(entries: Iterable<RecordEntry>, state: State = emptyState()): State {
  for (const e of entries) applyEntry(state, e);
  return state;
}
