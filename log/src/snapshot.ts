// Snapshots of an application's state, bound to the log: a cache that lets an application start without folding its whole
// log. The header, and when a snapshot is used: docs/engine.md#running-a-state-machine.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
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
  /** The bytes kept; null when there are none. */
  read(): Promise<Uint8Array | null>;
  /** Keeps `bytes`, a snapshot at tree size `treeSize`, whole or not at all; false when a snapshot of a larger size is kept already. */
  write(bytes: Uint8Array, treeSize: number): Promise<boolean>;
}

/** One file, replaced atomically: a crash while writing leaves the previous one whole. */
export function fileSnapshots(file: string): SnapshotPlace {
  return {
    where: file,
    read: async () => {
      try {
        return await readFile(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    write: async (bytes) => {
      await mkdir(dirname(file), { recursive: true });
      await writeFileAtomic(file, bytes);
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
 * (and `extra` members), bound to the head of size `treeSize` whose root is `rootHash`. Hashed,
 * then copied into one buffer, a slice at a time between turns of the event loop: a snapshot of
 * a hundred MiB joined or hashed in one call would hold a server for most of a second.
 */
export async function frameSnapshot<E extends object>(
  header: { format: string; code: string; treeSize: number; rootHash: string },
  chunks: readonly Uint8Array[],
  extra?: E,
): Promise<Buffer> {
  const hash = createHash('sha256');
  let bytes = 0;
  await eachSlice(chunks, (slice) => {
    hash.update(slice);
    bytes += slice.length;
  });
  const h: SnapshotHeader & Partial<E> = { ...(extra ?? ({} as E)), ...header, sha256: hash.digest('hex'), bytes };
  const line = Buffer.from(`${JSON.stringify(h)}\n`);
  const out = Buffer.allocUnsafe(line.length + bytes);
  line.copy(out, 0);
  let at = line.length;
  await eachSlice(chunks, (slice) => {
    out.set(slice, at);
    at += slice.length;
  });
  return out;
}

/** The same, in one synchronous step. */
export function frameSnapshotSync<E extends object>(
  header: { format: string; code: string; treeSize: number; rootHash: string },
  body: Uint8Array,
  extra?: E,
): Buffer {
  const h: SnapshotHeader & Partial<E> = {
    ...(extra ?? ({} as E)),
    ...header,
    sha256: createHash('sha256').update(body).digest('hex'),
    bytes: body.length,
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(h)}\n`), body]);
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
  if (h === null || typeof h !== 'object') return { problem: 'its header is not JSON' };
  if (h.format !== format) return { problem: `its format is ${JSON.stringify(h.format)}, not ${format}` };
  if (h.code !== code) return { problem: 'it was written by other code than this' };
  if (!Number.isSafeInteger(h.treeSize) || h.treeSize < 0) return { problem: 'its header names no tree size' };
  const body = b.subarray(nl + 1);
  if (body.length !== h.bytes) return { problem: `it holds ${body.length} bytes of state, its header says ${h.bytes} (truncated)` };
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
  const { treeSize, rootHash } = h.header;
  if (treeSize > max.size) return { problem: `it was taken at size ${treeSize}, beyond ${max.of} ${max.size} entries` };
  if (toHex(await rootAt(treeSize)) !== rootHash)
    return { problem: `its head (size ${treeSize}, root ${rootHash}) is not a prefix of this log` };
  return h;
}
