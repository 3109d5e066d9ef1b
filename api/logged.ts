// Reading one logged entry back for a read: the text the state does not keep (abstracts, briefs,
// argument texts, notes, rationales) is read from the entry that carries it (lib/record/views.ts,
// `Logged`).
import { ArchiveError, internal } from '../lib/protocol/errors.js';
import type { Deployment } from '../lib/service/deployment.js';
import type { Logged } from '../lib/record/views.js';
import type { SignedWrite } from '../lib/record/state.js';
import type { PayloadOf } from '../lib/record/registry.js';
import type { LoggedEntry, Reader } from '../log/index.js';

export interface EntryLookup {
  /** The entry at `seq` as the log holds it: seq, ts, type and the logged object's text. */
  entry(seq: number): Promise<LoggedEntry>;
  /** The payload of the signed write at `seq`, which the state knows to be of type `type`. */
  logged: Logged;
}

export function entryLookup(log: Reader): EntryLookup {
  // The record applies an entry as it queues it, so the state can name an entry (an argument,
  // a check, a brief) a moment before the log has written it: wait until that entry is durable
  // (the next commit, milliseconds) rather than read a store that does not hold it yet.
  const entry = async (seq: number): Promise<LoggedEntry> => {
    try {
      await log.waitFor(seq + 1);
    } catch (err) {
      throw new ArchiveError('paused', 'the archive is read-only: its log stopped after a failed write', { cause: err });
    }
    const [e] = await log.records(seq, 1);
    if (e === undefined) throw internal(`entry ${seq} is missing from the store`);
    return e;
  };
  const logged: Logged = async (seq, type) => {
    const e = await entry(seq);
    if (e.type !== type) throw internal(`entry ${seq} is a ${e.type}, not the ${type} the record names there`);
    // The log holds only what its schema accepted (docs/log-format.md): a write of `type` is {payload, signature}.
    const write: SignedWrite<PayloadOf<typeof type>> = JSON.parse(e.payload);
    return write.payload;
  };
  return { entry, logged };
}

/** The payload reader of the deployment's log (`entryLookup(d.log).logged`). */
export const loggedReader = (d: Deployment): Logged => entryLookup(d.log).logged;

/**
 * A paper's abstract from its entry (`seq`), the last `kept` read kept: an abstract never changes,
 * so a feed made again after the log grew reads only the new papers' from the log.
 */
export function abstractReader(d: Deployment, kept: number): (seq: number) => Promise<string> {
  const logged = loggedReader(d);
  const abstracts = new Map<number, string>();
  return async (seq) => {
    let abstract = abstracts.get(seq);
    if (abstract === undefined) abstract = (await logged(seq, 'paper')).abstract;
    // Kept in the order of use: the least recently used goes first.
    abstracts.delete(seq);
    abstracts.set(seq, abstract);
    if (abstracts.size > kept) abstracts.delete(abstracts.keys().next().value!);
    return abstract;
  };
}
