// The record's entries on the engine's log: what the record stores for an entry ("<ts> <type>",
// a newline, the payload), its leaf input and hash chain (docs/log-format.md#entries), and the
// record's view of the engine's log. The engine gives every entry its seq, ts and chain.
import { hash } from 'node:crypto';
import {
  LogError,
  NO_LEAF,
  leafHash,
  openLog,
  storeReader,
  sha256,
  sha256TextHex,
  textLines,
  toHex,
  type AuditReport,
  type Appended as EngineAppended,
  type Chained,
  type LeafCodec,
  type LeafEntry,
  type Log,
  type LogOptions,
  type LogVerifier,
  type Sequenced,
  type SignedTreeHead,
  type StoreReader,
  type TilePath,
} from 'tlog-engine';

/** prevHash of entry 0. */
export const ZERO_HASH = toHex(NO_LEAF);

/** Entry `type` values: lower-case words joined by '.', '_' or '-', so they need no JSON escaping. */
const TYPE = '[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*';
export const ENTRY_TYPE = new RegExp(`^${TYPE}$`);
/** The stored header "<ts> <type>" is at most this long (a ts is 24 characters). */
const MAX_HEAD = 25 + 128;

export interface LeafFields {
  payloadHash: string;
  prevHash: string;
  seq: number;
  ts: string;
  type: string;
}

/** One entry as read back from the log: its position, fields and the payload text. */
export interface LoggedEntry {
  seq: number;
  ts: string;
  type: string;
  /** The canonical JSON text of the logged object, as it was appended. */
  payload: string;
}

/** One entry as the log serves it. */
export interface Entry extends LeafFields {
  entryHash: string;
  payload: string;
}

/** What an append acknowledges: the entry's seq, ts and hash, and the tree size that first holds it. */
export interface Appended {
  seq: number;
  ts: string;
  entryHash: string;
  treeSize: number;
}

/**
 * The leaf input: the canonical JSON of the five leaf fields. Members are written in RFC 8785
 * order (payloadHash < prevHash < seq < ts < type); every value is hex, a safe integer, a ts as
 * the log writes it or an ENTRY_TYPE, so no value needs escaping.
 */
export function leafInput(f: LeafFields): string {
  return `{"payloadHash":"${f.payloadHash}","prevHash":"${f.prevHash}","seq":${f.seq},"ts":"${f.ts}","type":"${f.type}"}`;
}

/** The hashes of entry `seq` of `payload` text, chained to `prevHash`: its payloadHash and leaf (entry) hash. */
export function entryHashes(
  seq: number,
  ts: string,
  type: string,
  payload: string,
  prevHash: string,
): { payloadHash: string; leafHash: Uint8Array } {
  const payloadHash = sha256TextHex(payload);
  return { payloadHash, leafHash: leafHash(leafInput({ payloadHash, prevHash, seq, ts, type })) };
}

const view = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** The shape of a ts as the log writes it: 'd' a digit, anything else itself (24 characters). */
const TS_SHAPE = Buffer.from('dddd-dd-ddTdd:dd:dd.dddZ', 'latin1');
/** Entry types seen to be well formed (a log has a few dozen). */
const knownTypes = new Set<string>();

/**
 * Where the header of a stored entry ends (its newline), after checking it is "<ts> <type>". Byte
 * by byte rather than by a regular expression: it runs for every entry appended and read.
 */
function headEnd(stored: Buffer): { nl: number; ts: string; type: string } {
  const bad = () => new Error('not "<ts> <type>", a newline and a payload');
  if (stored.length < 27 || stored[24] !== 0x20) throw bad();
  for (let i = 0; i < 24; i++) {
    const c = stored[i]!;
    if (TS_SHAPE[i] === 0x64 ? c < 0x30 || c > 0x39 : c !== TS_SHAPE[i]) throw bad();
  }
  const end = Math.min(stored.length, MAX_HEAD + 1);
  let nl = 25;
  while (nl < end && stored[nl] !== 0x0a) nl++;
  if (nl === end) throw bad();
  const type = stored.toString('latin1', 25, nl);
  if (!knownTypes.has(type)) {
    if (!ENTRY_TYPE.test(type)) throw bad();
    if (knownTypes.size < 1024) knownTypes.add(type);
  }
  return { nl, ts: stored.toString('latin1', 0, 24), type };
}

/** A stored entry's ts, type and payload; throws when it is not one. */
export function parseStored(stored: Uint8Array): { ts: string; type: string; payload: string } {
  const b = view(stored);
  const { nl, ts, type } = headEnd(b);
  return { ts, type, payload: b.toString('utf8', nl + 1) };
}

/** The room entryData leaves for the header's ts and its space: 25 spaces (a type never begins with one). */
const HEADROOM_TEXT = ' '.repeat(25);
const HEADROOM = Buffer.from(HEADROOM_TEXT, 'latin1');

/** The record's codec (the engine's LeafCodec): what is stored, and each stored entry's leaf input. */
export const recordCodec: LeafCodec = {
  /**
   * `data` is entryData's: room for the header, then "<type>\n<payload>". The engine's time
   * becomes the entry's ts, written into that room: the stored bytes are `data` itself, so an
   * entry's payload is encoded and copied once on its way to the store.
   */
  stored(data: Uint8Array, at: Sequenced): Uint8Array {
    const b = view(data);
    if (b.length < HEADROOM.length + 3 || b.compare(HEADROOM, 0, HEADROOM.length, 0, HEADROOM.length) !== 0)
      throw new LogError('bad_argument', 'the record appends what entryData makes');
    b.write(iso(at.time), 0, 'latin1');
    return b;
  },
  /** The leaf input as text: it is ASCII, and JavaScript hashes a string without making it bytes first. */
  leaf(stored: Uint8Array, at: Chained): string {
    const b = view(stored);
    const { nl, ts, type } = headEnd(b);
    const payloadHash = hash('sha256', b.subarray(nl + 1), 'hex');
    return leafInput({ payloadHash, prevHash: toHex(at.prev), seq: at.seq, ts, type });
  },
  /** Entry times never go backwards (docs/log-format.md, "Entries"). */
  follows(stored: Uint8Array, before: Uint8Array | null): string | null {
    if (before === null) return null;
    // A ts is fixed-width ASCII, so its bytes compare as its times do.
    return view(stored).compare(view(before), 0, 24, 0, 24) < 0 ? 'ts is earlier than the entry before it' : null;
  },
  module: { url: import.meta.url, name: 'recordCodec' },
};

/** How the record's LevelDB store joins stored entries: each is two lines of text. */
export const RECORD_FRAMING = textLines(2);

/**
 * The data the record appends for an entry: room for the ts, then "<type>\n<payload>" (the
 * codec writes the ts in when the engine sequences the entry).
 */
export function entryData(type: string, payload: string): Uint8Array {
  if (!ENTRY_TYPE.test(type)) throw new LogError('bad_argument', `entry type ${JSON.stringify(type)} is not a dotted lower-case name`);
  if (payload.includes('\n')) throw new LogError('bad_argument', 'payload must be canonical JSON (no raw newline)');
  return Buffer.from(`${HEADROOM_TEXT}${type}\n${payload}`, 'utf8');
}

/** An entry of the engine's log, with its hashes, as the record serves it; throws when its stored bytes are not an entry. */
export function servedEntryOf(e: LeafEntry): Entry {
  const b = view(e.bytes);
  const { nl, ts, type } = headEnd(b);
  return {
    seq: e.seq,
    ts,
    type,
    payloadHash: toHex(sha256(b.subarray(nl + 1))),
    prevHash: toHex(e.prev),
    entryHash: toHex(e.leafHash),
    payload: b.toString('utf8', nl + 1),
  };
}

/** A time in milliseconds as the log writes a ts; the last one is kept, as a batch's entries share a few. */
let lastMs = Number.NaN;
let lastIso = '';
function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** The engine's log, as the record reads and writes it: entries of a type and a canonical JSON payload, with a ts. */
export class RecordLog {
  private constructor(readonly engine: Log) {}

  /** Opens the engine's log with the record's codec. */
  static async open(opts: Omit<LogOptions, 'codec'>): Promise<RecordLog> {
    return new RecordLog(await openLog({ ...opts, codec: recordCodec }));
  }

  get origin(): string {
    return this.engine.origin;
  }

  get size(): number {
    return this.engine.size;
  }

  get stopped(): boolean {
    return this.engine.stopped;
  }

  get failedWith(): unknown {
    return this.engine.failedWith;
  }

  /** The seq the next entry queued will get. */
  get nextSeqNumber(): number {
    return this.engine.next().seq;
  }

  /** The ts the next entry queued now would get. */
  nextTs(): string {
    return iso(this.engine.next().time);
  }

  /** Appends one entry; resolves once it and a head including it are durable. */
  append(type: string, payload: string): Promise<Appended> {
    return this.engine.append(entryData(type, payload)).then(recordAppended);
  }

  /**
   * Queues one entry and gives its seq and ts at once (the engine's enqueue); `ts`, when given,
   * is the entry's ts as the log writes it, no earlier than the last entry's.
   */
  enqueue(
    type: string,
    payload: string,
    ts?: string,
    opts: { withNext?: boolean } = {},
  ): { seq: number; ts: string; committed: Promise<Appended> } {
    let time: number | undefined;
    if (ts !== undefined) {
      time = Date.parse(ts);
      if (!Number.isSafeInteger(time) || iso(time) !== ts)
        throw new LogError('bad_argument', `ts ${ts} is not an ISO time from ${this.nextTs()} on`);
    }
    const q = this.engine.enqueue(entryData(type, payload), { time, withNext: opts.withNext });
    const at = iso(q.time);
    return {
      seq: q.seq,
      ts: at,
      committed: q.committed.then((a) => ({ seq: a.seq, ts: at, entryHash: a.leafHash, treeSize: a.treeSize })),
    };
  }

  /**
   * Committed entries [from, from + count), parsed; throws when one is malformed. `only` (seqs of
   * the range, ascending): those alone are parsed and given, the others read and dropped.
   */
  async records(from: number, count: number, only?: readonly number[]): Promise<LoggedEntry[]> {
    const stored = await this.engine.records(from, count);
    if (only === undefined) return stored.map((r) => loggedEntry(r.seq, r.bytes));
    const out: LoggedEntry[] = [];
    for (const seq of only) {
      const r = stored[seq - from];
      if (r !== undefined) out.push(loggedEntry(r.seq, r.bytes));
    }
    return out;
  }

  /** Committed entries with their hashes, as the log serves them. */
  async entries(from: number, count: number): Promise<Entry[]> {
    return (await this.engine.entries(from, count)).map(servedEntryOf);
  }

  /** Follows a log another process appends to (the engine's refresh); `onEntries` gets the new entries parsed. */
  refresh(onEntries?: (entries: LoggedEntry[]) => void): Promise<boolean> {
    return this.engine.refresh(onEntries && ((page) => onEntries(page.map((r) => loggedEntry(r.seq, r.bytes)))));
  }

  sth(): SignedTreeHead {
    return this.engine.sth();
  }

  checkpoint(): string {
    return this.engine.checkpoint();
  }

  waitFor(size: number): Promise<void> {
    return this.engine.waitFor(size);
  }

  inclusionProof(seq: number, size?: number): Promise<Uint8Array[]> {
    return this.engine.inclusionProof(seq, size);
  }

  inclusionProofNow(seq: number, size?: number): Uint8Array[] | null {
    return this.engine.inclusionProofNow(seq, size);
  }

  consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    return this.engine.consistencyProof(first, second);
  }

  consistencyProofNow(first: number, second: number): Uint8Array[] | null {
    return this.engine.consistencyProofNow(first, second);
  }

  rootAt(size: number): Promise<Uint8Array> {
    return this.engine.rootAt(size);
  }

  hashTile(t: TilePath): Promise<Uint8Array | null> {
    return this.engine.hashTile(t);
  }

  entryBundle(t: TilePath): Promise<Uint8Array | null> {
    return this.engine.entryBundle(t);
  }

  audit(verify: LogVerifier): Promise<AuditReport> {
    return this.engine.audit(verify);
  }

  recover(): Promise<void> {
    return this.engine.recover();
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}

/** The engine's acknowledgement as the record gives it. */
const recordAppended = (a: EngineAppended): Appended => ({ seq: a.seq, ts: iso(a.time), entryHash: a.leafHash, treeSize: a.treeSize });

/** A stored entry parsed; a malformed one is the store's corruption. */
function loggedEntry(seq: number, bytes: Uint8Array): LoggedEntry {
  let r;
  try {
    r = parseStored(bytes);
  } catch {
    throw new LogError('corrupt', `entry ${seq} is malformed`);
  }
  return { seq, ts: r.ts, type: r.type, payload: r.payload };
}

/** Reads parsed entries (a RecordLog, or a store not yet opened as a log: recordReader). */
export interface RecordReader {
  records(from: number, count: number): Promise<LoggedEntry[]>;
}

/** What a store holds before it is opened as a log (the engine's storeReader), parsed. */
export async function recordReader(store: StoreReader): Promise<RecordReader & { size: number }> {
  const r = await storeReader(store);
  return {
    size: r.size,
    records: async (from, count) => (await r.records(from, count)).map((e) => loggedEntry(e.seq, e.bytes)),
  };
}
