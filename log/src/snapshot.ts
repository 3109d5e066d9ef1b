// Snapshots of an application's state, bound to the log: a cache that lets an application start without folding its whole
// log. The header, and when a snapshot is used: docs/engine.md#running-a-state-machine.
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { closeSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { writeFileAtomic } from './atomic-file.js';
import { toHex } from './hash.js';

/** The header line of a snapshot. */
export interface SnapshotHeader {
  format: string;
  /** The folding code's identity: a state folded by other code may have another shape. */
  code: string;
  /** The state holds the first `treeSize` entries of the log whose root at that size is `rootHash` (hex). */
  treeSize: number;
  rootHash: string;
  /** SHA-256 (hex) and length of the bytes that follow the header line. */
  sha256: string;
  bytes: number;
}

/** Where a snapshot is kept: a file, a database's blob, ... */
export interface SnapshotPlace {
  /** Where it is, for messages. */
  readonly where: string;
  /** The file that holds it, when it is one: then it may be read a piece at a time (`readBoundState`). */
  readonly file?: string;
  /** The bytes kept; null when there are none. */
  read(): Promise<Uint8Array | null>;
  /**
   * Keeps the snapshot whose bytes are `chunks` in order (never joined: `frameSnapshot`), at tree size `treeSize`, whole or not
   * at all; false when a snapshot of a larger size is kept already.
   */
  write(chunks: readonly Uint8Array[], treeSize: number): Promise<boolean>;
}

/** One file, replaced atomically: a crash while writing leaves the previous one whole. */
export function fileSnapshots(file: string): SnapshotPlace {
  return {
    where: file,
    file,
    read: async () => {
      try {
        return await readFile(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    write: async (chunks) => {
      await mkdir(dirname(file), { recursive: true });
      await writeFileAtomic(file, chunks);
      return true;
    },
  };
}

/** A place given as a file name is that file. */
export const placeOf = (where: string | SnapshotPlace): SnapshotPlace => (typeof where === 'string' ? fileSnapshots(where) : where);

/** Bytes hashed or copied in one turn of the event loop: a few milliseconds' work. */
const SLICE = 4 * 2 ** 20;
/** Resolves on a later turn of the event loop (after the I/O and timers waiting), so that long work lets the process answer meanwhile. */
export const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
const turn = nextTurn;

/** Each slice of at most SLICE bytes of `chunks`, in order, a turn of the event loop after each SLICE bytes (small chunks share one). */
async function eachSlice(chunks: readonly Uint8Array[], f: (slice: Uint8Array) => void): Promise<void> {
  let done = 0;
  for (const c of chunks)
    for (let at = 0; at < c.length; at += SLICE) {
      const slice = c.subarray(at, at + SLICE);
      f(slice);
      done += slice.length;
      if (done >= SLICE) {
        done = 0;
        await turn();
      }
    }
}

/**
 * The snapshot of the body made of `chunks`, in order, under a header of `format` and `code`
 * (and `extra` members), bound to the head of size `treeSize` whose root is `rootHash`: the header
 * line, then `chunks` themselves, to be written in turn (`SnapshotPlace.write`). Hashed a slice at a
 * time between turns of the event loop (a hundred MiB hashed in one call would hold a server for
 * most of a second), and never joined: joined, a snapshot of 3 GiB held its state twice while it
 * was written, and each slice copied into new memory held the server for as long as this machine
 * takes to give it (up to 100 ms a MiB).
 */
export async function frameSnapshot<E extends object>(
  header: { format: string; code: string; treeSize: number; rootHash: string },
  chunks: readonly Uint8Array[],
  extra?: E,
): Promise<Uint8Array[]> {
  const hash = createHash('sha256');
  let bytes = 0;
  await eachSlice(chunks, (slice) => {
    hash.update(slice);
    bytes += slice.length;
  });
  return [snapshotLine(header, hash.digest('hex'), bytes, extra), ...chunks];
}

/** The same, in one synchronous step. */
export function frameSnapshotSync<E extends object>(
  header: { format: string; code: string; treeSize: number; rootHash: string },
  body: Uint8Array,
  extra?: E,
): Buffer {
  return Buffer.concat(frameSnapshotChunks(header, [body], extra));
}

/** The same bytes, in one synchronous step, as chunks not joined: the header line, then `chunks` themselves (to be written in turn). */
export function frameSnapshotChunks<E extends object>(
  header: { format: string; code: string; treeSize: number; rootHash: string },
  chunks: readonly Uint8Array[],
  extra?: E,
): Uint8Array[] {
  const hash = createHash('sha256');
  let bytes = 0;
  for (const c of chunks) {
    hash.update(c);
    bytes += c.length;
  }
  return [snapshotLine(header, hash.digest('hex'), bytes, extra), ...chunks];
}

/** A snapshot's header line: `extra`'s members, the head it is bound to, and its body's digest and length. */
function snapshotLine<E extends object>(
  header: { format: string; code: string; treeSize: number; rootHash: string },
  sha256: string,
  bytes: number,
  extra?: E,
): Buffer {
  const h: SnapshotHeader & Partial<E> = { ...(extra ?? ({} as E)), ...header, sha256, bytes };
  return Buffer.from(`${JSON.stringify(h)}\n`);
}

/** The header and body of snapshot bytes, checked against `format` and `code` and whole, or why they cannot be used. */
export function openSnapshot<E extends object>(
  bytes: Uint8Array,
  format: string,
  code: string,
): { header: SnapshotHeader & Partial<E>; body: Buffer } | { problem: string } {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nl = b.indexOf(10);
  let h: SnapshotHeader & Partial<E>;
  try {
    if (nl < 0) throw new Error('no header line');
    h = JSON.parse(b.subarray(0, nl).toString('utf8')) as SnapshotHeader & Partial<E>;
  } catch {
    return { problem: 'its header is not JSON' };
  }
  const body = b.subarray(nl + 1);
  const problem = headerProblem(h, format, code, body.length);
  if (problem !== null) return { problem };
  if (createHash('sha256').update(body).digest('hex') !== h.sha256) return { problem: 'its state does not hash to its digest' };
  return { header: h, body };
}

/**
 * The header and body of what `where` keeps, if they are of `format` and `code`, whole, and of a
 * head of size at most `max.size` (`max.of` names whose size, for the problem) that is a prefix of
 * the log whose root at a size `rootAt` gives; why not otherwise; null when nothing is kept.
 */
export async function readBound<E extends object>(
  where: string | SnapshotPlace,
  rootAt: (size: number) => Promise<Uint8Array>,
  format: string,
  code: string,
  max: { size: number; of: string },
): Promise<{ header: SnapshotHeader & Partial<E>; body: Buffer } | { problem: string } | null> {
  let bytes: Uint8Array | null;
  try {
    bytes = await placeOf(where).read();
  } catch (err) {
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  if (bytes === null) return null;
  const h = openSnapshot<E>(bytes, format, code);
  if ('problem' in h) return h;
  const problem = await boundProblem(h.header, rootAt, max);
  return problem === null ? h : { problem };
}

/** Why a snapshot's head is not of this log (beyond `max.size`, or not a prefix of the log whose roots `rootAt` gives), or null. */
async function boundProblem(
  h: SnapshotHeader,
  rootAt: (size: number) => Promise<Uint8Array>,
  max: { size: number; of: string },
): Promise<string | null> {
  if (h.treeSize > max.size) return `it was taken at size ${h.treeSize}, beyond ${max.of} ${max.size} entries`;
  if (toHex(await rootAt(h.treeSize)) !== h.rootHash)
    return `its head (size ${h.treeSize}, root ${h.rootHash}) is not a prefix of this log`;
  return null;
}

/** A snapshot's body read in order, a piece at a time: what a codec's `decodeFrom` reads. */
export interface SnapshotBody {
  /** The bytes not read yet. */
  readonly left: number;
  /** Fills `into` with the next `into.length` bytes; throws when fewer are left. */
  readInto(into: Uint8Array): Promise<void>;
  /** The next `n` bytes, in a buffer of their own. */
  read(n: number): Promise<Uint8Array>;
}

/** A body held in memory. */
export function bytesBody(body: Uint8Array): SnapshotBody {
  let at = 0;
  const take = (n: number) => {
    if (n > body.length - at) throw new Error('the body is shorter than its manifest says');
    return body.subarray(at, (at += n));
  };
  return {
    get left() {
      return body.length - at;
    },
    readInto: async (into) => into.set(take(into.length)),
    read: async (n) => take(n).slice(),
  };
}

/** Bytes read from the file in one call at most: small pieces are served from a buffer of this size. */
const PIECE = 8 * 2 ** 20;

/** `length` bytes of the file `fd` from `start`, read in order: small pieces through a buffer, large ones straight into place. */
function fileBody(fd: FileHandle, start: number, length: number): SnapshotBody {
  let pos = start;
  const end = start + length;
  const buf = new Uint8Array(PIECE);
  let bufAt = 0;
  let bufEnd = 0;
  // Read synchronously: at start nothing else waits for the thread, and a read handed to the pool of threads only adds a wait.
  const fill = (into: Uint8Array) => {
    for (let done = 0; done < into.length;) {
      const bytesRead = readSync(fd.fd, into, done, into.length - done, pos);
      if (bytesRead === 0) throw new Error('the body is shorter than its manifest says');
      done += bytesRead;
      pos += bytesRead;
    }
  };
  const body: SnapshotBody = {
    get left() {
      return end - pos + (bufEnd - bufAt);
    },
    async readInto(into) {
      if (into.length > body.left) throw new Error('the body is shorter than its manifest says');
      const had = Math.min(into.length, bufEnd - bufAt);
      into.set(buf.subarray(bufAt, bufAt + had));
      bufAt += had;
      const rest = into.subarray(had);
      if (rest.length === 0) return;
      if (rest.length >= PIECE) return fill(rest);
      bufAt = 0;
      bufEnd = Math.min(PIECE, end - pos);
      fill(buf.subarray(0, bufEnd));
      rest.set(buf.subarray(0, rest.length));
      bufAt = rest.length;
    },
    async read(n) {
      const out = new Uint8Array(n);
      await body.readInto(out);
      return out;
    },
  };
  return body;
}

/** The SHA-256 (hex) of `length` bytes of `file` from `start`, hashed on a thread of its own, which reads the file itself. */
function hashApart(file: string, start: number, length: number): Promise<string> {
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { openSync, readSync, closeSync } = require('node:fs');
    const { createHash } = require('node:crypto');
    const { file, start, length, piece } = workerData;
    const fd = openSync(file, 'r');
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(piece);
    try {
      for (let at = 0; at < length; ) {
        const n = readSync(fd, buf, 0, Math.min(piece, length - at), start + at);
        if (n === 0) break;
        hash.update(buf.subarray(0, n));
        at += n;
      }
    } finally {
      closeSync(fd);
    }
    parentPort.postMessage(hash.digest('hex'));`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { file, start, length, piece: PIECE } });
    w.once('message', (digest: string) => resolve(digest));
    w.once('error', reject);
    w.once('exit', (c) => reject(new Error(`the hashing thread stopped (${c})`)));
  });
}

/** A body at least this long, read from a file, is hashed on a thread of its own while it is read (`readBoundState`). */
export const HASH_APART = 32 * 2 ** 20;

/** The header line of the file `fd`, and where its body starts; null when it has no line. */
async function headerLine(fd: FileHandle): Promise<{ line: Buffer; start: number } | null> {
  const chunks: Buffer[] = [];
  for (let pos = 0; ;) {
    const buf = Buffer.allocUnsafe(64 * 1024);
    const { bytesRead } = await fd.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) return null;
    const got = buf.subarray(0, bytesRead);
    const nl = got.indexOf(10);
    if (nl >= 0) {
      chunks.push(got.subarray(0, nl));
      return { line: Buffer.concat(chunks), start: pos + nl + 1 };
    }
    chunks.push(got);
    pos += bytesRead;
  }
}

/** Why a snapshot's header cannot be used with `format` and `code` and a body of `bodyBytes`, or null (its digest is checked apart). */
function headerProblem(h: SnapshotHeader, format: string, code: string, bodyBytes: number): string | null {
  if (h === null || typeof h !== 'object') return 'its header is not JSON';
  if (h.format !== format) return `its format is ${JSON.stringify(h.format)}, not ${format}`;
  if (h.code !== code) return 'it was written by other code than this';
  if (!Number.isSafeInteger(h.treeSize) || h.treeSize < 0) return 'its header names no tree size';
  if (bodyBytes !== h.bytes) return `it holds ${bodyBytes} bytes of state, its header says ${h.bytes} (truncated)`;
  return null;
}

/**
 * `readBound` and the state its body holds, by `decode` (a codec's `decodeFrom`), or why not; null
 * when nothing is kept. From a file (`place.file`), the body is read a piece at a time, never
 * whole, and a body of HASH_APART bytes or more (`opts.hashApart`) is hashed meanwhile on a thread
 * of its own: the state decoded is used only once the digest is the header's.
 */
export async function readBoundState<S, E extends object = object>(
  where: string | SnapshotPlace,
  rootAt: (size: number) => Promise<Uint8Array>,
  format: string,
  code: string,
  max: { size: number; of: string },
  decode: (body: SnapshotBody, treeSize: number) => Promise<{ state: S } | { problem: string }>,
  opts: { hashApart?: number } = {},
): Promise<{ header: SnapshotHeader & Partial<E>; state: S } | { problem: string } | null> {
  const place = placeOf(where);
  if (place.file === undefined) {
    const h = await readBound<E>(place, rootAt, format, code, max);
    if (h === null || 'problem' in h) return h;
    const read = await decodeWhole(decode, bytesBody(h.body), h.header.treeSize);
    return 'problem' in read ? read : { header: h.header, state: read.state };
  }
  return readStateFile<S, E>(place.file, format, code, (h) => boundProblem(h, rootAt, max), decode, opts);
}

/**
 * The header and the state `decode` reads from the snapshot file `file`, if it is of `format` and `code`, whole, and `check` finds
 * no problem with its header; why not otherwise; null when there is no file. The body is read a piece at a time, never whole, and
 * a body of HASH_APART bytes or more (`opts.hashApart`) is hashed meanwhile on a thread of its own: the state decoded is used only
 * once the digest is the header's. readBoundState's way with a file, for a snapshot bound otherwise than to a log (`check`).
 */
export async function readStateFile<S, E extends object = object>(
  file: string,
  format: string,
  code: string,
  check: (header: SnapshotHeader & Partial<E>) => string | null | Promise<string | null>,
  decode: (body: SnapshotBody, treeSize: number) => Promise<{ state: S } | { problem: string }>,
  opts: { hashApart?: number } = {},
): Promise<{ header: SnapshotHeader & Partial<E>; state: S } | { problem: string } | null> {
  let fd: FileHandle;
  try {
    fd = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  try {
    let head: { line: Buffer; start: number } | null;
    let size: number;
    try {
      head = await headerLine(fd);
      size = (await fd.stat()).size;
    } catch (err) {
      return { problem: `it cannot be read (${(err as Error).message})` };
    }
    let h: SnapshotHeader & Partial<E>;
    try {
      if (head === null) throw new Error('no header line');
      h = JSON.parse(head.line.toString('utf8')) as SnapshotHeader & Partial<E>;
    } catch {
      return { problem: 'its header is not JSON' };
    }
    const problem = headerProblem(h, format, code, size - head.start) ?? (await check(h));
    if (problem !== null) return { problem };
    const body = fileBody(fd, head.start, h.bytes);
    if (h.bytes < (opts.hashApart ?? HASH_APART)) {
      // Small: hashed here, from the bytes read whole.
      const bytes = await body.read(h.bytes);
      if (createHash('sha256').update(bytes).digest('hex') !== h.sha256) return { problem: 'its state does not hash to its digest' };
      const read = await decodeWhole(decode, bytesBody(bytes), h.treeSize);
      return 'problem' in read ? read : { header: h, state: read.state };
    }
    const digest = hashApart(file, head.start, h.bytes).then(
      (hex) => (hex === h.sha256 ? null : 'its state does not hash to its digest'),
      (err: Error) => `its state cannot be hashed (${err.message})`,
    );
    const read = await decodeWhole(decode, body, h.treeSize);
    const unhashed = await digest;
    if (unhashed !== null) return { problem: unhashed };
    return 'problem' in read ? read : { header: h, state: read.state };
  } finally {
    await fd.close();
  }
}

/**
 * Writes the snapshot of the body `chunks` under a header of `format` and `code` (and `extra` members) to `file`, whole or not at
 * all: to a temporary file renamed over it (not synced: a snapshot is a cache, checked when it is read). The bytes are
 * frameSnapshotChunks's, made in one pass over the body: the header line is the same length whatever its digest, so a line with
 * none holds its place while each chunk is hashed and written in turn, and the line with the digest is written last. (Hashed on a
 * thread reading back what is written, a body of a GB took more CPU and no less time on two busy cores: the write is the page
 * cache's pace.)
 */
export function writeSnapshotFile<E extends object>(
  file: string,
  header: { format: string; code: string; treeSize: number; rootHash: string },
  chunks: readonly Uint8Array[],
  extra?: E,
): void {
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  const placeholder = snapshotLine(header, '0'.repeat(64), bytes, extra);
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  let renamed = false;
  try {
    const hash = createHash('sha256');
    writeAll(fd, placeholder, 0);
    let at = placeholder.length;
    for (const c of chunks) {
      hash.update(c);
      writeAll(fd, c, at);
      at += c.length;
    }
    const line = snapshotLine(header, hash.digest('hex'), bytes, extra);
    if (line.length !== placeholder.length) throw new Error('the header line changed length with its digest');
    writeAll(fd, line, 0);
    closeSync(fd);
    renameSync(tmp, file);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
      rmSync(tmp, { force: true });
    }
  }
}

/** Writes all of `b` at `position` of the file `fd`. */
function writeAll(fd: number, b: Uint8Array, position: number): void {
  for (let done = 0; done < b.length;) done += writeSync(fd, b, done, b.length - done, position + done);
}

/** `decode` of all of `body`: a body longer than what it reads, or a decode that throws, is a problem. */
async function decodeWhole<S>(
  decode: (body: SnapshotBody, treeSize: number) => Promise<{ state: S } | { problem: string }>,
  body: SnapshotBody,
  treeSize: number,
): Promise<{ state: S } | { problem: string }> {
  try {
    const read = await decode(body, treeSize);
    if ('problem' in read) return read;
    if (body.left !== 0) return { problem: 'its state cannot be read (the body is longer than its manifest says)' };
    return read;
  } catch (err) {
    return { problem: `its state cannot be read (${(err as Error).message})` };
  }
}
