// Where a verifier gets a log: a running service's public reads (`/v1/log/key`, `/v1/log/sth`,
// `/v1/log/entries` page by page), or an export file (docs/log-format.md, "Exports"): a header
// line with the log key and the signed head, then one served entry a line, in seq order.
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { once } from 'node:events';
import type { SignedTreeHead } from 'tlog-engine';
import { ArchiveClient, type Reply, type Served } from '../lib/client/http.js';

/** An entry as `/v1/log/entries` serves it; `payload` is the logged object (withheld fields null). */
export interface ServedEntry {
  seq: number;
  ts: string;
  type: string;
  payloadHash: string;
  prevHash: string;
  entryHash: string;
  payload: Served;
  /** Paths of fields served as null; the hashes still commit to the full text. */
  withheld?: string[];
  /** For the entry of an item out of view: its id (a hash of the text withheld). */
  subject?: string;
}

/** A log as a verifier holds it: the published key, the signed head, the entries up to it. */
export interface LogCopy {
  key: { key: string; origin: string };
  sth: SignedTreeHead;
  entries: ServedEntry[];
  /**
   * Each entry's line as read from an export file, when the copy was read from one: handed to
   * the verifier's workers as it is (entry-pool.ts), rather than written again from the entry.
   */
  lines?: string[];
  /**
   * In an incremental run from a cache (bin/verify.ts): the entries before `from` are not held
   * (but entry 0, the genesis); the saved replay covers them, and `older` reads one when a served
   * read needs its text.
   */
  from?: number;
  older?: (seq: number) => Promise<ServedEntry>;
}

export const EXPORT_FORMAT = 'archive-export/1';

const PAGE = 1000;
/** Pages asked for at once. */
const AHEAD = 4;

/** What a GET answered, or an error naming the path and what came back. */
async function getJson(client: ArchiveClient, path: string): Promise<Served> {
  const r = await client.get(path);
  if (r.status !== 200 || typeof r.body !== 'object' || r.body === null)
    throw new Error(`GET ${path}: expected 200 with JSON, got ${r.status}`);
  return r.body;
}

export interface FetchOptions {
  /** Entries already held (resuming): fetching starts after them. */
  have?: ServedEntry[];
  /** Fetch from this seq on, holding none before it but `genesis` (an incremental run from a cache: LogCopy.from). */
  from?: { seq: number; genesis: ServedEntry };
  /** Entries asked for a page (PAGE unless given). */
  page?: number;
  /** Called after each page with the seq fetched up to and the head's size. */
  progress?: (held: number, size: number) => void;
  /** Fetch up to this seq (a segment's end, verify.ts); the head's size when not given. */
  until?: number;
  /** The key and head read already (a later segment of the same run): not read again. */
  head?: Pick<LogCopy, 'key' | 'sth'>;
}

/** Fetches the key, the head, and every entry up to the head's size. */
export async function fetchLog(client: ArchiveClient, opts: FetchOptions = {}): Promise<LogCopy> {
  const key = opts.head?.key ?? (await getJson(client, '/v1/log/key'));
  const sth = opts.head?.sth ?? ((await getJson(client, '/v1/log/sth')) as SignedTreeHead);
  // An array with holes before `from`: entries stay at their seq.
  const entries = opts.have ?? (opts.from === undefined ? [] : new Array<ServedEntry>(opts.from.seq));
  if (opts.from !== undefined && opts.from.seq > 0) entries[0] = opts.from.genesis;
  // Pages are asked for AHEAD at a time, in order, so that the service reads the next while this side parses one.
  const size = Math.min(opts.until ?? sth.treeSize, sth.treeSize);
  const n = opts.page ?? PAGE;
  const asked = new Map<number, Promise<Served>>();
  const ask = (from: number): Promise<Served> => {
    const page = getJson(client, `/v1/log/entries?from=${from}&limit=${Math.min(n, size - from)}`);
    page.catch(() => undefined); // its failure is thrown where it is awaited, if it is (not after a page served short)
    asked.set(from, page);
    return page;
  };
  let next = entries.length;
  while (entries.length < size) {
    const at = entries.length;
    for (; next < size && asked.size < AHEAD; next += n) ask(next);
    const page = await (asked.get(at) ?? ask(at));
    asked.delete(at);
    if (!Array.isArray(page.entries) || page.entries.length === 0)
      throw new Error(`GET /v1/log/entries?from=${at}: no entries, though the head has ${size}`);
    entries.push(...page.entries);
    opts.progress?.(entries.length, sth.treeSize);
    // A page served short (or long): the pages asked for after it start elsewhere; ask again from where it ends.
    if (entries.length !== at + Math.min(n, size - at)) {
      asked.clear();
      next = entries.length;
    }
  }
  // A page may run past the head when the log grew meanwhile: keep exactly the head's entries (or the segment's).
  entries.length = Math.min(entries.length, size);
  return { key: { key: key.key, origin: key.origin }, sth, entries, ...(opts.from === undefined ? {} : { from: opts.from.seq }) };
}

/**
 * A client whose first GET of a path asked for ahead (`ask`) takes that request's answer: an incremental run asks for the head and
 * the first pages of new entries while it loads its saved replay (bin/verify.ts, askAhead), and fetchLog's GETs take the answers.
 */
export class AskedAhead extends ArchiveClient {
  private readonly asked = new Map<string, Promise<Reply>>();

  ask(path: string): Promise<Reply> {
    const r = super.get(path);
    r.catch(() => undefined); // thrown to the GET that takes it, if one does
    this.asked.set(path, r);
    return r;
  }

  override get(path: string): Promise<Reply> {
    const r = this.asked.get(path);
    if (r === undefined) return super.get(path);
    this.asked.delete(path);
    return r;
  }
}

/** Pages of new entries asked for ahead of an incremental run: those of 16,000 entries, at most. */
export const ASK_AHEAD = 16;

/**
 * Asks, ahead of a run that fetches a segment of `segment` entries from `from` (fetchLog with `from`), for the key, the head and
 * the first ASK_AHEAD pages that fetchLog will ask for (the same paths); the head's size, or undefined when none was served.
 */
export async function askAhead(client: AskedAhead, from: number, segment: number): Promise<number | undefined> {
  void client.ask('/v1/log/key');
  const r = await client.ask('/v1/log/sth');
  const treeSize: unknown = r.status === 200 ? r.body?.treeSize : undefined;
  if (typeof treeSize !== 'number' || !Number.isSafeInteger(treeSize)) return undefined;
  const size = Math.min(from + segment, treeSize);
  for (let at = from, k = 0; at < size && k < ASK_AHEAD; at += PAGE, k++)
    void client.ask(`/v1/log/entries?from=${at}&limit=${Math.min(PAGE, size - at)}`);
  return treeSize;
}

/** Writes `log` as an export: the header line, then one entry a line. */
export async function writeExport(path: string, log: LogCopy): Promise<void> {
  const out = createWriteStream(path);
  const write = async (line: string) => {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  };
  await write(JSON.stringify({ format: EXPORT_FORMAT, key: log.key, sth: log.sth }));
  for (const e of log.entries) await write(JSON.stringify(e));
  out.end();
  await once(out, 'finish');
}

/** How much of an export is read at a time. */
const CHUNK = 4 * 2 ** 20;

/**
 * The lines of the file at `path`, without their line breaks (LF or CRLF), a chunk's at a time:
 * read in large chunks and split here, since a line at a time through node:readline cost the
 * verifier's main thread several microseconds an entry. `progress` is told the bytes read of the
 * file's size.
 */
async function* linesOf(path: string, progress?: (read: number, size: number) => void): AsyncGenerator<string[]> {
  const file = await open(path);
  try {
    const size = progress === undefined ? 0 : (await file.stat()).size;
    let read = 0;
    let rest: Buffer | null = null;
    const line = (buf: Buffer, start: number, end: number) =>
      buf.toString('utf8', start, end > start && buf[end - 1] === 13 ? end - 1 : end);
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await file.read(chunk, 0, CHUNK, null);
      if (bytesRead === 0) break;
      read += bytesRead;
      progress?.(read, size);
      // A line cut by the chunk's end is carried into the next chunk.
      const buf: Buffer = rest === null ? chunk.subarray(0, bytesRead) : Buffer.concat([rest, chunk.subarray(0, bytesRead)]);
      const lines: string[] = [];
      let start = 0;
      for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, start)) {
        lines.push(line(buf, start, nl));
        start = nl + 1;
      }
      rest = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
      yield lines;
    }
    if (rest !== null) yield [line(rest, 0, rest.length)];
  } finally {
    await file.close();
  }
}

/**
 * An entry's line as the service serves it (api/routes/log.ts) and exports hold it: the leaf fields
 * as plain strings, then the payload, last. Plain means with no quote or escape, so each reads
 * as JSON.parse reads it.
 */
export const SERVED_LINE =
  // One RegExp in two pieces of source (a line of at most 140 characters).
  new RegExp(
    String.raw`^\{"seq":(?:0|[1-9][0-9]*),"ts":"([^"\\]*)","type":"([^"\\]*)","payloadHash":"([^"\\]*)",` +
      String.raw`"prevHash":"([^"\\]*)","entryHash":"([^"\\]*)","payload":`,
  );

/**
 * An entry of an export held as its line, whose payload is parsed again from the line each time it is read (once, by the
 * replay). An export is read whole; held as parsed objects, a million entries were some fifteen million objects in the heap,
 * which each of the collections while the replay runs traced again: the collector's threads took about a tenth of the
 * verifier's CPU at a million entries (docs/benchmarks.md, the verifier). Its leaf fields are kept as the line was parsed.
 * Only a line of the served shape (SERVED_LINE) with no member after the payload is held so; JSON.stringify writes the line's
 * entry.
 */
class LineEntry implements ServedEntry {
  readonly #line: string;
  /** Where the payload's text starts in the line; it ends before the line's last `}`. */
  readonly #at: number;
  constructor(
    line: string,
    at: number,
    readonly seq: number,
    readonly ts: string,
    readonly type: string,
    readonly payloadHash: string,
    readonly prevHash: string,
    readonly entryHash: string,
  ) {
    this.#line = line;
    this.#at = at;
  }

  get payload(): Served {
    try {
      return JSON.parse(this.#line.slice(this.#at, -1));
    } catch {
      // Not a single value before the line's end (a second member named payload): the line's own.
      return JSON.parse(this.#line).payload;
    }
  }

  toJSON(): ServedEntry {
    return JSON.parse(this.#line);
  }
}

/**
 * The entry of export line `line`, parsed to `value` (an object): held as its line (LineEntry) when the line is of the served
 * shape and has no member but the leaf fields and the payload, else as `value`.
 */
function heldEntry(line: string, value: ServedEntry): ServedEntry {
  const m = SERVED_LINE.exec(line);
  if (m === null || line.charCodeAt(line.length - 1) !== 0x7d || Object.keys(value).length !== 7) return value;
  const { seq, ts, type, payloadHash, prevHash, entryHash } = value;
  return new LineEntry(line, m[0].length, seq, ts, type, payloadHash, prevHash, entryHash);
}

/** Reads an export; throws naming the line that is not one. `progress` is told the bytes read of the file's size. */
export async function readExport(path: string, progress?: (read: number, size: number) => void): Promise<LogCopy> {
  let header: Served = null;
  const entries: ServedEntry[] = [];
  const kept: string[] = [];
  let n = 0;
  for await (const lines of linesOf(path, progress))
    for (const line of lines) {
      n++;
      if (line === '') continue;
      let value: Served;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`${path}:${n}: not JSON`);
      }
      if (header === null) {
        if (value?.format !== EXPORT_FORMAT) throw new Error(`${path}:1: not an export (expected {"format":"${EXPORT_FORMAT}", ...})`);
        header = value;
      } else {
        entries.push(heldEntry(line, value));
        kept.push(line);
      }
    }
  if (header === null) throw new Error(`${path}: empty`);
  return { key: header.key, sth: header.sth, entries, lines: kept };
}
