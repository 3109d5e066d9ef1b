// The export cache of `archive verify --url --state FILE --cache CACHE` (docs/cli.md, "The cache and
// the saved state"): an export (docs/log-format.md, "Exports") whose header is padded so that it can be
// rewritten in place, appended to at each run. With the saved replay, this verifier keeps a mark of
// what it wrote: the cache's size and the SHA-256 of each block of BLOCK entry lines. A run then reads
// only the blocks it needs, checks each against its digest, and appends the new entries; a cache that
// does not match its mark (truncated, edited, another log) is set aside, never trusted.
import { createWriteStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
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
function headerLine(log: LogCopy): string {
  const json = JSON.stringify({ format: EXPORT_FORMAT, key: log.key, sth: log.sth });
  return `${json.padEnd(HEADER_BYTES - 1, ' ')}\n`;
}

/** Adds lines to a mark as they are written: a block's digest once it is complete (or at the end, the last one so far). */
class Marker {
  private block: Buffer[] = [];
  private readonly digests: Uint8Array[];
  constructor(
    private readonly mark: CacheMark,
    tail: Buffer,
  ) {
    // The last block so far is hashed again with the lines that complete it.
    this.digests = [Buffer.from(mark.digests, 'base64')];
    if (mark.entries % BLOCK !== 0) {
      this.digests[0] = this.digests[0]!.subarray(0, this.digests[0]!.length - 32);
      this.block.push(tail);
    }
  }
  add(line: Buffer): void {
    if (this.mark.entries % BLOCK === 0) this.mark.offsets.push(this.mark.bytes);
    this.block.push(line);
    this.mark.entries++;
    this.mark.bytes += line.length;
    if (this.mark.entries % BLOCK === 0) this.flush();
  }
  private flush(): void {
    if (this.block.length > 0) this.digests.push(sha256(...this.block));
    this.block = [];
  }
  done(): CacheMark {
    this.flush();
    this.mark.digests = Buffer.concat(this.digests).toString('base64');
    return this.mark;
  }
}

/** Writes `log` as a new cache (an export with its header padded); returns its mark. */
export async function writeCache(path: string, log: LogCopy): Promise<CacheMark> {
  const out = createWriteStream(path);
  const write = async (b: Buffer) => {
    if (!out.write(b)) await once(out, 'drain');
  };
  const header = Buffer.from(headerLine(log));
  await write(header);
  const marker = new Marker({ entries: 0, bytes: header.length, offsets: [], digests: '' }, Buffer.alloc(0));
  for (const e of log.entries) {
    const line = Buffer.from(`${JSON.stringify(e)}\n`);
    marker.add(line);
    await write(line);
  }
  out.end();
  await once(out, 'finish');
  return marker.done();
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const b = Buffer.alloc(length);
  const { bytesRead } = await file.read(b, 0, length, position);
  return b.subarray(0, bytesRead);
}

/** A cache that matched its mark when opened: its older entries on demand, and the new ones appended. */
export interface Cache {
  mark: CacheMark;
  /** Entry `seq` (before `mark.entries`), from its block, checked against its digest: CacheProblem when it does not match. */
  entry(seq: number): Promise<ServedEntry>;
  /** Appends the entries of `log` after the mark and rewrites the header in place for its head; returns the new mark. */
  append(log: LogCopy): Promise<CacheMark>;
  close(): Promise<void>;
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
  const blocks = new Map<number, Promise<ServedEntry[]>>();
  const readBlock = async (b: number): Promise<{ bytes: Buffer; entries: ServedEntry[] }> => {
    const start = mark.offsets[b]!;
    const bytes = await readAt(file, start, (mark.offsets[b + 1] ?? mark.bytes) - start);
    if (!bytesEqual(sha256(bytes), digests.subarray(32 * b, 32 * b + 32)))
      throw new CacheProblem(`its block of entries ${b * BLOCK} on (bytes ${start} on) is not the one verified`);
    const lines = bytes.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const parsed = lines.map((l) => JSON.parse(l) as ServedEntry);
    parsed.forEach((e, i) => {
      if (e?.seq !== b * BLOCK + i) throw new CacheProblem(`its line for entry ${b * BLOCK + i} holds ${JSON.stringify(e?.seq)}`);
    });
    return { bytes, entries: parsed };
  };
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
  let tail: Buffer;
  try {
    const last = await readBlock(lastBlock);
    if (last.entries.at(-1)?.entryHash !== lastEntryHash) return fail(`its last entry is not the one verified (${lastEntryHash})`);
    tail = last.bytes;
    blocks.set(lastBlock, Promise.resolve(last.entries));
  } catch (err) {
    return fail((err as Error).message);
  }
  return {
    mark,
    async entry(seq) {
      const b = Math.floor(seq / BLOCK);
      if (!blocks.has(b))
        blocks.set(
          b,
          readBlock(b).then((r) => r.entries),
        );
      return (await blocks.get(b)!)[seq - b * BLOCK]!;
    },
    async append(log) {
      const next = { ...mark, offsets: [...mark.offsets] };
      const marker = new Marker(next, mark.entries % BLOCK === 0 ? Buffer.alloc(0) : tail);
      const lines: Buffer[] = [];
      for (let i = mark.entries; i < log.entries.length; i++) {
        const line = Buffer.from(`${JSON.stringify(log.entries[i])}\n`);
        marker.add(line);
        lines.push(line);
      }
      const header = Buffer.from(headerLine(log));
      if (header.length !== HEADER_BYTES) throw new Error(`the head's header line does not fit in ${HEADER_BYTES} bytes`);
      // The entries first, then the header: a cache cut short meanwhile does not match its mark, and is set aside.
      await file.write(Buffer.concat(lines), 0, undefined, mark.bytes);
      await file.write(header, 0, header.length, 0);
      await file.sync();
      return marker.done();
    },
    close: () => file.close(),
  };
}
