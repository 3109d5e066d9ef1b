// One entry type's rules: `check` throws the typed error that refuses it (reading the state,
// never changing it), or says the write is already so; `apply` folds an admitted entry into the state and returns what the
// write's reply reports. Neither reads a clock: time is the entry's `ts`.
import type { RecordEntry, State } from '../state.js';

/** What `check` returns for a write that is already so: answered 200 with `reply`, nothing written. */
export interface AlreadySo {
  already: Record<string, unknown>;
}

export interface Handler {
  check(state: State, e: RecordEntry): void | AlreadySo;
  apply(state: State, e: RecordEntry): unknown;
  /**
   * For a last-writer-wins write: the slot it sets (read after `check` passed, before `apply`).
   * A write to a slot must be signed later than the write that set it last (docs/record.md).
   */
  slot?(state: State, e: RecordEntry): string;
}
