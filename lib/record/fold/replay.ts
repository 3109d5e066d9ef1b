// Rebuilding the state from the log: every entry, in order, through the same apply as live
// writes. Replay trusts the log it is given (the service's own store, whose hashes the audit
// checks); the offline verifier checks each entry and its signature as well.
import type { LoggedEntry, RecordReader } from '../../protocol/log-entry.js';
import { applyEntry } from './apply.js';
import { emptyState, type RecordEntry, type State } from './state.js';

/** Entries read from the store at a time. */
const PAGE = 4096;

/**
 * A copy of `s` that holds no reference to the text it was cut from. The log reads a page of
 * entries as one string and cuts each entry's ts and type out of it; V8 keeps such a cut as a
 * slice of the whole page, so one ts kept in the state would keep its page of the log in the heap
 * (all of the log, once every entry keeps one).
 */
const own = (s: string): string => ` ${s}`.slice(1);

/** One entry read from the log as the entry the state machine folds. */
export function recordEntry(r: LoggedEntry): RecordEntry {
  return { seq: r.seq, ts: own(r.ts), type: own(r.type), logged: JSON.parse(r.payload), text: r.payload };
}

/** Folds one entry into a state and returns what its apply reported: applyEntry, or a caller's wrapper of it. */
export type Fold = (state: State, e: RecordEntry) => unknown;

/** The state after the first `size` entries of the log, each folded with `fold`. */
export async function replayStore(log: RecordReader, size: number, state: State = emptyState(), fold: Fold = applyEntry): Promise<State> {
  for (let from = state.size; from < size; from += PAGE) {
    const want = Math.min(PAGE, size - from);
    const records = await log.records(from, want);
    // A short page would skip entries (and leave a state short of `size`): refuse it.
    if (records.length !== want) throw new Error(`entry ${from + records.length} is missing from the store`);
    records.forEach((rec) => {
      const e = recordEntry(rec);
      try {
        fold(state, e);
      } catch (err) {
        // Not a log this record wrote: say which entry, not a stack from deep inside a handler.
        throw new Error(`entry ${e.seq} (${e.type}) cannot be folded into the record: ${(err as Error).message}`, { cause: err });
      }
    });
  }
  return state;
}

/** The state after `entries`, in order from seq 0. */
export function replayEntries(entries: Iterable<RecordEntry<object>>, state: State = emptyState()): State {
  for (const e of entries) applyEntry(state, e);
  return state;
}
