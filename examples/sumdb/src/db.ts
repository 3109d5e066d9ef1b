// The checksum database: a log of records on the engine (each record's text one leaf, as Go's
// tlog.RecordHash hashes it), its tree signed as Go's tlog.FormatTree spells a tree note, and an
// index from module version to record id. Everything durable is under one data directory:
// `<dir>/db` (the engine's LevelDB store) and `<dir>/note.key` (the note key, made on first start).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LogError, openLevelStore, openLog, restartable, type Log } from 'tlog-engine';
import { loadOrMakeKey, type NoteKey } from './key.js';
import { parseRecord, recordKey, type SumRecord } from './record.js';

/** The first line of a Go checksum database's tree note (golang.org/x/mod/sumdb/tlog FormatTree): the log's origin. */
export const TREE_ORIGIN = 'go.sum database tree';
/** The server name a new database's key gets when none is given. */
export const DEFAULT_NAME = 'sumdb.localhost';

/** Why a record was not added: the module version is already there (`exists`), or the log cannot write (`unavailable`). */
export class AddError extends Error {
  constructor(
    readonly code: 'exists' | 'unavailable',
    detail: string,
    readonly id?: number,
  ) {
    super(detail);
  }
}

export interface SumDB {
  /** The note key's name and its verifier key (`<name>+<key ID>+<key>`), as Go's client is given it. */
  readonly key: NoteKey;
  readonly log: Log;
  /** The id of the record of a module version, if it is committed. */
  lookup(path: string, version: string): number | undefined;
  /** Appends a record; resolves with its id once it and a signed tree that holds it are durable. */
  add(record: SumRecord): Promise<number>;
  close(): Promise<void>;
}

const PAGE = 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Opens (or makes) the database in `dir`. `name` is the server name of a new database's key
 * (default DEFAULT_NAME); for an existing one it must be the key's name if given.
 */
export async function openSumDB(dir: string, opts: { name?: string } = {}): Promise<SumDB> {
  await mkdir(dir, { recursive: true });
  const { key } = await loadOrMakeKey(join(dir, 'note.key'), opts.name, DEFAULT_NAME);
  const store = await restartable(() => openLevelStore(join(dir, 'db')));
  let log: Log;
  try {
    log = await openLog({ store, signer: key.signer, origin: TREE_ORIGIN, keyName: key.name });
  } catch (err) {
    await store.close();
    throw err;
  }
  // The index is rebuilt from the log at each start: every record is read once, in order.
  const index = new Map<string, number>();
  try {
    for (let from = 0; from < log.size; from += PAGE) {
      for (const { seq, bytes } of await log.records(from, PAGE)) {
        const r = parseRecord(utf8.decode(bytes));
        index.set(recordKey(r.path, r.version), seq);
      }
    }
  } catch (err) {
    await log.close();
    throw err;
  }
  const utf8Encode = new TextEncoder();
  return {
    key,
    log,
    lookup(path, version) {
      const id = index.get(recordKey(path, version));
      return id !== undefined && id < log.size ? id : undefined;
    },
    async add(record) {
      const k = recordKey(record.path, record.version);
      const held = index.get(k);
      if (held !== undefined) throw new AddError('exists', `${record.path} ${record.version} is record ${held}`, held);
      if (log.stopped) await recover(log);
      let queued: ReturnType<Log['enqueue']>;
      try {
        queued = log.enqueue(utf8Encode.encode(record.text));
      } catch (err) {
        throw unavailable(err);
      }
      // Held from the moment it has a seq, so a second add of the same version is refused at once.
      index.set(k, queued.seq);
      try {
        await queued.committed;
        return queued.seq;
      } catch (err) {
        // Not durable: the log stopped and rolls back to its last acknowledged tree on recovery.
        if (index.get(k) === queued.seq) index.delete(k);
        throw unavailable(err);
      }
    },
    close: () => log.close(),
  };
}

async function recover(log: Log): Promise<void> {
  try {
    await log.recover();
  } catch (err) {
    throw unavailable(err);
  }
}

function unavailable(err: unknown): AddError {
  const what = err instanceof LogError ? `${err.code}: ${err.message}` : String(err);
  return new AddError('unavailable', `the log cannot write now (${what})`);
}
