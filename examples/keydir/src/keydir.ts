// The key directory: a log of bindings on the engine, its state (state.ts) run by the engine's Replica, lookups answered from the
// committed log with their proofs, and its files on disk (README.md, and README.md#run-it for the files and the snapshot).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  isMissingKeyFile,
  loadOrCreateKeyFile,
  logSigner,
  openLevelStore,
  openLog,
  Replica,
  restartable,
  verifierKey,
  type Admission,
  type Log,
} from 'tlog-engine';
import { entryText, KeyDirError, signedBy, type Statement } from './binding.js';
import { current, keydirMachine, type Binding, type Folded, type KeyDirState } from './state.js';

/** The origin (and note key name) of a new directory's log when none is given. */
export const DEFAULT_ORIGIN = 'keydir.localhost';

/** An entry proved: its seq, its stored bytes (the leaf, as text) and its inclusion proof (base64 hashes) in the checkpoint's tree. */
export interface Proved {
  seq: number;
  entry: string;
  proof: string[];
}

/** GET /keys/<name>: the current key, the entry that set it, proved against `checkpoint`. */
export interface LookupAnswer extends Proved {
  name: string;
  publicKey: string;
  checkpoint: string;
}

/** GET /keys/<name>/history: every binding of the name, oldest first, each proved against `checkpoint`. */
export interface HistoryAnswer {
  name: string;
  checkpoint: string;
  bindings: Proved[];
}

const unavailable = (err: unknown) =>
  new KeyDirError(503, 'unavailable', `the log cannot write now, nothing was logged (${(err as Error)?.message ?? String(err)})`);

/**
 * The rule, checked against the state when the write is admitted (one synchronous step with its
 * append): a first binding of a name that has none, signed by its own key; or a rotation naming
 * the name's current binding as prev, signed by its key. Gives the entry to append, stamped with
 * the time the log sequences it at.
 */
function admission(s: Statement): Admission<KeyDirState, Folded> {
  return (state, at) => {
    const now = current(state, s.name);
    if (now === undefined) {
      if (s.prev !== null) throw new KeyDirError(409, 'stale', `prev: ${s.name} has no binding to replace; a first binding has no prev`);
      if (!signedBy(s, s.publicKey))
        throw new KeyDirError(403, 'forbidden', 'signature: a first binding is signed by its own key (publicKey), and this one is not');
    } else {
      const held = { current: now.seq };
      if (s.prev === null)
        throw new KeyDirError(409, 'exists', `name: ${s.name} is bound by entry ${now.seq}; a rotation names it as prev`, held);
      if (s.prev !== now.seq)
        throw new KeyDirError(409, 'stale', `prev: ${s.prev} is not the entry that binds ${s.name} now (${now.seq})`, held);
      if (!signedBy(s, now.publicKey))
        throw new KeyDirError(
          403,
          'forbidden',
          `signature: a rotation is signed by the key ${s.name} holds now (set by entry ${now.seq}), and this one is not`,
        );
    }
    const entry: Folded = { ...s, time: new Date(at.time).toISOString(), seq: at.seq };
    return { data: new TextEncoder().encode(entryText(entry)), entry };
  };
}

export class KeyDir {
  private recovering: Promise<void> | null = null;

  private constructor(
    readonly log: Log,
    readonly replica: Replica<KeyDirState, Folded>,
    /** The log key's vkey: what clients check checkpoints with. */
    readonly vkey: string,
    private readonly snapshots: { flush(why: string): Promise<void>; stop(): void } | null,
  ) {}

  /** The directory of `log`: its state folded from the snapshot at `snapshots` when one holds, then from the log. */
  static async open(opts: { log: Log; snapshots?: string; snapshotEvery?: number; say?: (line: string) => void }): Promise<KeyDir> {
    const { log } = opts;
    const replica = await Replica.open({ log, machine: keydirMachine, snapshots: opts.snapshots, say: opts.say });
    const kept = opts.snapshots === undefined ? null : replica.keepSnapshots({ every: opts.snapshotEvery ?? 1000 });
    return new KeyDir(log, replica, verifierKey(log.keyName, log.publicKey), kept);
  }

  /**
   * Binds `s.name` to `s.publicKey`: a first binding (no prev) signed by that key, or a rotation
   * naming the current binding as prev and signed by the current key. Resolves once durable.
   */
  async bind(s: Statement): Promise<{ seq: number; time: string }> {
    await this.writable();
    let admitted: ReturnType<typeof this.replica.admit>;
    try {
      admitted = this.replica.admit(admission(s));
    } catch (err) {
      if (err instanceof KeyDirError) throw err;
      throw unavailable(err);
    }
    if ('already' in admitted) throw new Error('a binding is never already so');
    try {
      await admitted.committed;
    } catch (err) {
      throw unavailable(err);
    }
    return { seq: admitted.seq, time: admitted.entry.time };
  }

  /** After a failed commit, writes are off: the log recovers (rolled back to its last head) and the state is rebuilt, once. */
  private async writable(): Promise<void> {
    if (!this.replica.writesAreOff && !this.log.stopped) return;
    this.recovering ??= (async () => {
      if (this.log.stopped) await this.log.recover();
      await this.replica.resume();
    })().finally(() => (this.recovering = null));
    try {
      await this.recovering;
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** The name's bindings in the committed log, and the signed checkpoint of that log (read together). */
  private committed(name: string): { bindings: Binding[]; checkpoint: string; size: number } {
    const size = this.log.size;
    const checkpoint = this.log.checkpoint();
    // The state also holds bindings admitted but not yet durable: those are not answered.
    const bindings = (this.replica.state.get(name) ?? []).filter((b) => b.seq < size);
    if (bindings.length === 0) throw new KeyDirError(404, 'not_found', `name: no key is bound to ${name}`);
    return { bindings, checkpoint, size };
  }

  private async prove(seq: number, size: number): Promise<Proved> {
    const [record] = await this.log.records(seq, 1);
    if (record === undefined) throw new Error(`entry ${seq} is missing from the log`);
    const proof = await this.log.inclusionProof(seq, size);
    return { seq, entry: Buffer.from(record.bytes).toString('utf8'), proof: proof.map((h) => Buffer.from(h).toString('base64')) };
  }

  /** The current key of `name`, with the evidence a client checks (client.ts); 404 when it has none. */
  async lookup(name: string): Promise<LookupAnswer> {
    const { bindings, checkpoint, size } = this.committed(name);
    const b = bindings.at(-1)!;
    return { name, publicKey: b.publicKey, ...(await this.prove(b.seq, size)), checkpoint };
  }

  /** Every binding of `name`, oldest first, with the evidence; 404 when it has none. */
  async history(name: string): Promise<HistoryAnswer> {
    const { bindings, checkpoint, size } = this.committed(name);
    return { name, checkpoint, bindings: await Promise.all(bindings.map((b) => this.prove(b.seq, size))) };
  }

  /** Writes the snapshot (when kept), then closes the log. */
  async close(): Promise<void> {
    if (this.snapshots !== null) {
      this.snapshots.stop();
      await this.snapshots.flush('close');
    }
    await this.log.close();
  }
}

/**
 * Opens (or makes) the directory kept in `dir`. `origin`: the origin of a new directory's log
 * (default DEFAULT_ORIGIN); an existing one keeps its own, and refuses another.
 */
export async function openKeyDir(dir: string, opts: { origin?: string; say?: (line: string) => void } = {}): Promise<KeyDir> {
  await mkdir(dir, { recursive: true });
  const store = await restartable(() => openLevelStore(join(dir, 'db')));
  let log: Log | undefined;
  try {
    const head = await store.readHead();
    // A log's origin is the first line of its checkpoints: fixed when it is made.
    const origin = head === null ? (opts.origin ?? DEFAULT_ORIGIN) : head.checkpoint.slice(0, head.checkpoint.indexOf('\n'));
    if (opts.origin !== undefined && opts.origin !== origin)
      throw new Error(`${dir} holds the log of "${origin}", not of "${opts.origin}": the origin is fixed when the log is made`);
    // The log key is made with the log, and never again.
    const key = await loadOrCreateKeyFile(join(dir, 'log.key'), { create: head === null }).catch((err: unknown) => {
      throw isMissingKeyFile(err)
        ? new Error(`${join(dir, 'log.key')} is missing, and the log it signs exists: its key cannot be made again`)
        : err;
    });
    log = await openLog({ store, signer: logSigner(key), origin });
    return await KeyDir.open({ log, snapshots: join(dir, 'state.snapshot'), say: opts.say });
  } catch (err) {
    await (log ?? store).close().catch(() => undefined);
    throw err;
  }
}
