// What a served log entry withholds: fields served as null and named in a `withheld` note, the entry keeping its hashes
// (docs/record.md#what-served-entries-withhold).
import { canonicalize } from '../../protocol/canonical-json.js';
import { eachText } from '../types/registry.js';
import type { WriteType } from '../types/registry.js';
import type { State } from '../fold/state.js';

export interface Served {
  /** The logged object with withheld fields set to null, as canonical JSON. */
  payload: string;
  /** Paths of the withheld fields in the logged object. */
  withheld: string[];
  /** The id of the item out of view whose entry this is. */
  subject?: string;
}

/** The entry as served, or null when it is served whole. */
export function servedEntry(state: State, seq: number, type: string, payload: string): Served | null {
  const subject = state.redacted.get(seq);
  if (subject !== undefined) {
    const logged = JSON.parse(payload);
    const withheld: string[] = [];
    eachText(type as WriteType, logged.payload, (path) => {
      withheld.push(path);
      return true; // served as null
    });
    return { payload: canonicalize(logged), withheld, subject };
  }
  if (type === 'doorbell.set') {
    const logged = JSON.parse(payload);
    if (logged.payload.url === undefined) return null;
    logged.payload.url = null;
    return { payload: canonicalize(logged), withheld: ['payload.url'] };
  }
  if (type === 'check.result') {
    const logged = JSON.parse(payload);
    const r = state.receipts.get(logged.payload.commit);
    if (r === undefined || r.revealedSeq !== null) return null;
    // Only the receipt's own outputs: its cross-check re-ran a receipt that this very result
    // revealed, and whether they matched is what a verifier replays (docs/record.md#what-served-entries-withhold:
    // the numbers must not depend on withheld text).
    logged.payload.outputs = null;
    return { payload: canonicalize(logged), withheld: ['payload.outputs'] };
  }
  return null;
}
