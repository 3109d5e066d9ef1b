// The payload of a signed write on the log, for reads that show text the state does not keep
// (an abstract, a brief, an argument's text): the `Logged` of lib/record/views.ts, read from the
// deployment's log.
import { ArchiveError, internal } from '../lib/protocol/errors.js';
import type { Deployment } from '../lib/service/deployment.js';
import type { SignedWrite } from '../lib/record/state.js';
import type { PayloadOf } from '../lib/record/registry.js';
import type { Logged } from '../lib/record/views.js';

export function loggedReader(d: Deployment): Logged {
  // The record applies an entry as it queues it, so the state can name an entry (an argument,
  // a check, a brief) a moment before the log has written it: wait until that entry is durable
  // (the next commit, milliseconds) rather than read a store that does not hold it yet.
  return async (seq, type) => {
    try {
      await d.log.waitFor(seq + 1);
    } catch (err) {
      throw new ArchiveError('paused', 'the archive is read-only: its log stopped after a failed write', { cause: err });
    }
    const [entry] = await d.log.records(seq, 1);
    if (entry === undefined) throw internal(`entry ${seq} is missing from the store`);
    if (entry.type !== type) throw internal(`entry ${seq} is a ${entry.type}, not the ${type} the record names there`);
    // The log holds only what its schema accepted (docs/log-format.md): a write of `type` is {payload, signature}.
    const write: SignedWrite<PayloadOf<typeof type>> = JSON.parse(entry.payload);
    return write.payload;
  };
}

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
