// The export cache of `archive verify --url --state FILE --cache CACHE` (docs/cli.md, "The cache and
// the saved state"): an export (docs/log-format.md, "Exports") whose header is padded so that it can be
// rewritten in place, appended to at each run. With the saved replay, this verifier keeps a mark of
// what it wrote: the cache's size and the SHA-256 of each block of BLOCK entry lines. A run then reads
// only the blocks it needs, checks each against its digest, and appends the new entries; a cache that
// does not match its mark (truncated, edited, another log) is set aside, never trusted.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { bytesEqual, sha256 } from 'tlog-engine';
import { EXPORT_FORMAT, type LogCopy, type ServedEntry } from './source.js';

/** Entry lines a block: what one read of an older entry costs (about 60 KiB of a review-heavy log). */
export const BLOCK = 128;

/** The header line's length, its line break included: padded with spaces, so that a later head fits in place. */
export const HEADER_BYTES = 4096;

/** What the saved replay keeps about the cache it was saved with. */
export interface CacheMark {
  entries: number;
  bytes: number;
  /** The byte offset of each block's first line. */
  offsets: number[];
  /** The SHA-256 of each block's bytes, concatenated, in base64. */
  digests: string;
}

/** A block of the cache that does not match its mark, found while reading it: the run starts again without the cache. */
export class CacheProblem extends Error {
  override name = 'CacheProblem';
}

/** The header line of `log`, padded to HEADER_BYTES when it fits (an export reader parses it as JSON all the same). */
function headerLine(log: Pick<LogCopy, 'key' | 'sth'>): string {
  const json = JSON.stringify({ format: EXPORT_FORMAT, key: log.key, sth: log.sth });
  return `${json.padEnd(HEADER_BYTES - 1, ' ')}\n`;
}

/**
 * Adds lines to a mark as they are written: a block's digest once it is complete; `done` gives the mark so far (the last block's
 * digest, when it is not complete, of its lines so far), and more lines may follow it.
 */
class Marker {
  private block: Buffer[] = [];
  /** The digest of each complete block. */
  private readonly digests: Uint8Array[] = [];
  readonly mark: CacheMark;
  constructor(mark: CacheMark, tail: Buffer) {
    this.mark = { ...mark, offsets: [...mark.offsets] };
    const all = Buffer.from(mark.digests, 'base64');
    for (let at = 0; at + 32 <= all.length; at += 32) this.digests.push(all.subarray(at, at + 32));
    // The last block so far is hashed again with the lines that complete it.
    if (mark.entries % BLOCK !== 0) {
      this.digests.pop();
      this.block.push(tail);
    }
  }
  add(line: Buffer): void {
    if (this.mark.entries % BLOCK === 0) this.mark.offsets.push(this.mark.bytes);
    this.block.push(line);
    this.mark.entries++;
    this.mark.bytes += line.length;
    if (this.mark.entries % BLOCK === 0) {
      this.digests.push(sha256(...this.block));
      this.block = [];
    }
  }
  /** The digest of block `b`. */
  digest(b: number): Uint8Array {
    return this.digests[b] ?? sha256(...this.block);
  }
  done(): CacheMark {
    const last = this.block.length > 0 ? [sha256(...this.block)] : [];
    return { ...this.mark, offsets: [...this.mark.offsets], digests: Buffer.concat([...this.digests, ...last]).toString('base64') };
  }
}

/** Writes `log` as a new cache (an export with its header padded); returns its mark. */
export async function writeCache(path: string, log: LogCopy): Promise<CacheMark> {
  const cache = await createCache(path, log);
  try {
    return await cache.append(log);
  } finally {
    await cache.close();
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const b = Buffer.alloc(length);
  const { bytesRead } = await file.read(b, 0, length, position);
  return b.subarray(0, bytesRead);
}

/** A cache open for reading and appending: its entries on demand, each block checked against its digest; new ones added at its end. */
export interface Cache {
  /** What it holds (the entries added since it was opened included), as the saved replay keeps it. */
  readonly mark: CacheMark;
  /** Entry `seq` (before `mark.entries`), from its block, checked against its digest: CacheProblem when it does not match. */
  entry(seq: number): Promise<ServedEntry>;
  /** Writes entries `from` to `until` (not included) of `entries`, the next after those it holds, at its end; `seal` names the head. */
  add(entries: readonly ServedEntry[], from: number, until: number): Promise<void>;
  /** Rewrites the header in place for the head of `log` and syncs the file; returns the mark. */
  seal(log: Pick<LogCopy, 'key' | 'sth'>): Promise<CacheMark>;
  /** Adds the entries of `log` after those it holds, and seals it for its head; returns the new mark. */
  append(log: LogCopy): Promise<CacheMark>;
  /** Cuts the file back to what it held when opened (its header unchanged until `seal`): a run that failed leaves it so. */
  undo(): Promise<void>;
  close(): Promise<void>;
}

/** Blocks kept parsed after they are read: an older entry's neighbours are often read next. */
const KEEP = 16;
/** Bytes written at a time when entries are added. */
const WRITE = 4 * 2 ** 20;

/** The Cache over `file`, holding what `mark` says (its last block's bytes `tail` when that block is not complete). */
function cacheOn(file: FileHandle, opened: CacheMark, tail: Buffer, last?: ServedEntry[]): Cache {
  let marker = new Marker(opened, tail);
  const blocks = new Map<number, Promise<ServedEntry[]>>();
  if (last !== undefined) blocks.set(opened.offsets.length - 1, Promise.resolve(last));
  const readBlock = async (b: number): Promise<ServedEntry[]> => {
    const m = marker.mark;
    const start = m.offsets[b]!;
    const bytes = await readAt(file, start, (m.offsets[b + 1] ?? m.bytes) - start);
    if (!bytesEqual(sha256(bytes), marker.digest(b)))
      throw new CacheProblem(`its block of entries ${b * BLOCK} on (bytes ${start} on) is not the one verified`);
    return parseBlock(bytes, b);
  };
  const cache: Cache = {
    get mark() {
      return marker.done();
    },
    async entry(seq) {
      if (!(seq >= 0 && seq < marker.mark.entries)) throw new Error(`the cache holds no entry ${seq}`);
      const b = Math.floor(seq / BLOCK);
      const block = blocks.get(b) ?? readBlock(b);
      blocks.delete(b);
      blocks.set(b, block);
      if (blocks.size > KEEP) blocks.delete(blocks.keys().next().value!);
      return (await block)[seq - b * BLOCK]!;
    },
    async add(entries, from, until) {
      if (from !== marker.mark.entries) throw new Error(`the cache holds ${marker.mark.entries} entries: it cannot add from ${from}`);
      // The last block grows: it is read again when asked for.
      blocks.delete(Math.floor((marker.mark.entries - 1) / BLOCK));
      let lines: Buffer[] = [];
      let size = 0;
      let at = marker.mark.bytes;
      const flush = async () => {
        const b = Buffer.concat(lines);
        await file.write(b, 0, b.length, at);
        at += b.length;
        lines = [];
        size = 0;
      };
      for (let i = from; i < until; i++) {
        const line = Buffer.from(`${JSON.stringify(entries[i])}\n`);
        marker.add(line);
        lines.push(line);
        size += line.length;
        if (size >= WRITE) await flush();
      }
      await flush();
    },
    async seal(log) {
      const header = Buffer.from(headerLine(log));
      if (header.length !== HEADER_BYTES) throw new Error(`the head's header line does not fit in ${HEADER_BYTES} bytes`);
      // The entries first, then the header: a cache cut short meanwhile does not match its mark, and is set aside.
      await file.write(header, 0, header.length, 0);
      await file.sync();
      return marker.done();
    },
    async append(log) {
      await cache.add(log.entries, marker.mark.entries, log.entries.length);
      return cache.seal(log);
    },
    async undo() {
      await file.truncate(opened.bytes);
      marker = new Marker(opened, tail);
      blocks.clear();
    },
    close: () => file.close(),
  };
  return cache;
}

/** The entries of block `b`, from its bytes. */
function parseBlock(bytes: Buffer, b: number): ServedEntry[] {
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const parsed = lines.map((l) => JSON.parse(l) as ServedEntry);
  parsed.forEach((e, i) => {
    if (e?.seq !== b * BLOCK + i) throw new CacheProblem(`its line for entry ${b * BLOCK + i} holds ${JSON.stringify(e?.seq)}`);
  });
  return parsed;
}

/** A new, empty cache at `path` (its header, padded, names the head of `log`), to add entries to. */
export async function createCache(path: string, log: Pick<LogCopy, 'key' | 'sth'>): Promise<Cache> {
  const file = await open(path, 'w+');
  const header = Buffer.from(headerLine(log));
  await file.write(header, 0, header.length, 0);
  return cacheOn(file, { entries: 0, bytes: header.length, offsets: [], digests: '' }, Buffer.alloc(0));
}

/**
 * The cache at `path`, when it matches `mark` (its size, its header, its last block's digest, its
 * last entry the one verified, `lastEntryHash`); else why it does not. Only the header and the last
 * block are read here.
 */
export async function openCache(path: string, mark: CacheMark, lastEntryHash: string): Promise<Cache | { problem: string }> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (err) {
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  if (size !== mark.bytes) return { problem: `it holds ${size} bytes, ${mark.bytes} when it was last verified` };
  if (mark.entries === 0 || mark.offsets.length !== Math.ceil(mark.entries / BLOCK) || mark.offsets[0] !== HEADER_BYTES)
    return { problem: 'its mark in the saved replay is not one of a padded cache' };
  const digests = Buffer.from(mark.digests, 'base64');
  const file = await open(path, 'r+');
  const fail = async (problem: string) => {
    await file.close();
    return { problem };
  };
  let header;
  try {
    header = JSON.parse((await readAt(file, 0, HEADER_BYTES)).toString('utf8'));
  } catch {
    return fail('its header is not JSON');
  }
  if (header?.format !== EXPORT_FORMAT || header?.sth?.treeSize !== mark.entries)
    return fail(`its header is not that of an export of ${mark.entries} entries`);
  const lastBlock = mark.offsets.length - 1;
  try {
    const start = mark.offsets[lastBlock]!;
    const bytes = await readAt(file, start, mark.bytes - start);
    if (!bytesEqual(sha256(bytes), digests.subarray(32 * lastBlock, 32 * lastBlock + 32)))
      throw new CacheProblem(`its block of entries ${lastBlock * BLOCK} on (bytes ${start} on) is not the one verified`);
    const last = parseBlock(bytes, lastBlock);
    if (last.at(-1)?.entryHash !== lastEntryHash) return fail(`its last entry is not the one verified (${lastEntryHash})`);
    return cacheOn(file, mark, mark.entries % BLOCK === 0 ? Buffer.alloc(0) : bytes, last);
  } catch (err) {
    return fail((err as Error).message);
  }
}
