// Small state files written so that a crash leaves the old content or the new, never half of either.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `text` to `path`: to `<path>.tmp`, synced, renamed over it, and the directory synced; durable once this returns. */
export function writeAtomically(path: string, text: string): void {
  const fd = openSync(`${path}.tmp`, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(`${path}.tmp`, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
