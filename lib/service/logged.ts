// Reading logged entries back for a read: the text the state does not keep (abstracts, briefs,
// argument texts, notes, rationales) is read from the entry that carries it (lib/record/views/items.ts,
// `Logged`). The entries a read asks for together are read together, in as few store reads as
// their places in the log allow.
import { ArchiveError, internal } from '../protocol/errors.js';
import type { Deployment } from './deployment.js';
import type { Logged } from '../record/views/index.js';
import type { SignedWrite } from '../record/fold/index.js';
import type { PayloadOf } from '../record/types/index.js';
import type { LoggedEntry, RecordLog } from '../protocol/log-entry.js';

export interface EntryLookup {
  /** The entry at `seq` as the log holds it: seq, ts, type and the logged object's text. */
  entry(seq: number): Promise<LoggedEntry>;
  /** The payload of the signed write at `seq`, which the state knows to be of type `type`. */
  logged: Logged;
}

/** Entries apart by less than this are read in one range (what lies between is read and dropped). */
export const NEAR = 64;
/** The longest range read at once, in entries. */
export const LONGEST = 4096;
/** Ranges of one batch read at a time, at most. */
const IN_FLIGHT = 8;

/**
 * The ranges that hold `seqs` (ascending, distinct), each with the seqs it holds: seqs less than
 * NEAR apart share a range (of at most LONGEST entries), so a page's entries near one another (a
 * hot claim's reviews, a paper's claims) cost one store read.
 */
export function ranges(seqs: readonly number[]): { from: number; count: number; seqs: number[] }[] {
  const out: { from: number; count: number; seqs: number[] }[] = [];
  for (let i = 0; i < seqs.length;) {
    let j = i + 1;
    while (j < seqs.length && seqs[j]! - seqs[j - 1]! < NEAR && seqs[j]! - seqs[i]! < LONGEST) j++;
    out.push({ from: seqs[i]!, count: seqs[j - 1]! - seqs[i]! + 1, seqs: seqs.slice(i, j) });
    i = j;
  }
  return out;
}

interface Waiting {
  resolve: (e: LoggedEntry) => void;
  reject: (err: unknown) => void;
}

export function entryLookup(log: Pick<RecordLog, 'records' | 'waitFor'>): EntryLookup {
  // The entries asked for in one turn of the event loop (a page's reviews, its moves, its
  // arguments) are gathered and read together: sorted, those near one another in one range,
  // IN_FLIGHT ranges at a time, rather than one store read per entry.
  let asked: Map<number, Waiting[]> | null = null;
  const readAll = async (batch: Map<number, Waiting[]>): Promise<void> => {
    const fail = (seqs: Iterable<number>, err: unknown) => {
      for (const seq of seqs) for (const w of batch.get(seq)!) w.reject(err);
    };
    const seqs = [...batch.keys()].sort((a, b) => a - b);
    // The record applies an entry as it queues it, so the state can name an entry (an argument,
    // a check, a brief) a moment before the log has written it: wait until that entry is durable
    // (the next commit, milliseconds) rather than read a store that does not hold it yet.
    try {
      await log.waitFor(seqs[seqs.length - 1]! + 1);
    } catch (err) {
      fail(seqs, new ArchiveError('paused', 'the archive is read-only: its log stopped after a failed write', { cause: err }));
      return;
    }
    const todo = ranges(seqs);
    const worker = async () => {
      for (let r = todo.shift(); r !== undefined; r = todo.shift()) {
        try {
          // What lies between the seqs asked for is read but not parsed.
          const got = new Map((await log.records(r.from, r.count, r.seqs)).map((e) => [e.seq, e]));
          for (const seq of r.seqs) {
            const e = got.get(seq);
            if (e === undefined) fail([seq], internal(`entry ${seq} is missing from the store`));
            else for (const w of batch.get(seq)!) w.resolve(e);
          }
        } catch (err) {
          fail(r.seqs, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, todo.length) }, worker));
  };
  const entry = (seq: number): Promise<LoggedEntry> =>
    new Promise((resolve, reject) => {
      if (asked === null) {
        const batch = new Map<number, Waiting[]>();
        asked = batch;
        // Read once the code asking has run to its next wait: everything it asked for by then is one batch.
        queueMicrotask(() => {
          asked = null;
          void readAll(batch);
        });
      }
      const waiting = asked.get(seq);
      if (waiting === undefined) asked.set(seq, [{ resolve, reject }]);
      else waiting.push({ resolve, reject });
    });
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
