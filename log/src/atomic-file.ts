// Files a log keeps beside its store (its key, a snapshot) are written atomically: to a temporary
// file beside the target, synced, renamed over the target's name, and the directory synced. A
// crash leaves either no file or the whole file, and at worst a temporary file, which the next
// write removes.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The temporary name `writeFileAtomic` uses for `file`. */
export const tempName = (file: string): string => `${file}.tmp`;

/** Writes `text` (or its chunks, in order) to `file` atomically and durably, with `mode`. */
export async function writeFileAtomic(file: string, text: string | Uint8Array | readonly Uint8Array[], mode = 0o644): Promise<void> {
  const tmp = tempName(file);
  // A temporary file left by a crash holds nothing anyone trusts: start it again.
  await rm(tmp, { force: true });
  const f = await open(tmp, 'wx', mode);
  try {
    if (typeof text === 'string' || text instanceof Uint8Array) await f.writeFile(text);
    else for (const c of text) for (let at = 0; at < c.length;) at += (await f.write(c, at, c.length - at)).bytesWritten;
    await f.sync();
  } finally {
    await f.close();
  }
  await rename(tmp, file);
  await syncDir(dirname(file));
}

/** fsync of a directory, so a file created or renamed in it survives a power loss. */
export async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

/** writeFileAtomic, synchronously (for what is read while the server is being built). */
export function writeFileAtomicSync(file: string, text: string, mode = 0o644): void {
  const tmp = tempName(file);
  rmSync(tmp, { force: true });
  const f = openSync(tmp, 'wx', mode);
  try {
    writeSync(f, text);
    fsyncSync(f);
  } finally {
    closeSync(f);
  }
  renameSync(tmp, file);
  const d = openSync(dirname(file), 'r');
  try {
    fsyncSync(d);
  } finally {
    closeSync(d);
  }
}
