// A static tiles mirror: a directory any web server can serve, holding a log's reads at the paths the log serves them
// (docs/engine.md#the-client-side-reading-and-checking-a-log-over-http).
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseCheckpoint } from '../checkpoint.js';
import { bytesEqual } from '../hash.js';
import { TILE_HASHES, tilePath, treeTiles, type TilePath } from '../tlog-tiles.js';
import type { LogClient } from './log-client.js';
import { pooled } from './pool.js';

export interface MirrorOptions {
  /** The directory under `dir` to write the log's paths in (default: `dir` itself), e.g. the log's prefix. */
  under?: string;
  /**
   * Paths (below the log's prefix) an application serves beside each entry bundle, copied with
   * it. They are fetched on every run, since the application may change them.
   */
  beside?: (t: TilePath) => string[];
}

/** Writes `bytes` to `path` unless it already holds them: to a temporary file, then renamed over it. */
async function writeIfChanged(path: string, bytes: Uint8Array): Promise<boolean> {
  const old = await readFile(path).catch(() => null);
  if (old !== null && bytesEqual(old, bytes)) return false;
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
  return true;
}

/**
 * Brings the mirror in `dir` up to the log `source` reads: every tile and entry bundle of its
 * current checkpoint (and what `beside` names), then `key`, `sth` and the checkpoint last, so the
 * mirror's checkpoint never names a tree it does not hold. Returns the checkpoint's size and the
 * paths written, relative to `dir`, sorted.
 */
export async function writeMirror(
  source: LogClient,
  dir: string,
  opts: MirrorOptions = {},
): Promise<{ treeSize: number; written: string[] }> {
  const under = opts.under ?? '';
  const at = (path: string) => (under === '' ? path : `${under}/${path}`);
  const key = await source.bytes('key');
  let checkpoint: Uint8Array = new Uint8Array(0);
  let sth: Uint8Array = new Uint8Array(0);
  // The log may sign a new head between the two reads: read them again until they agree.
  for (let attempt = 0; attempt < 5; attempt++) {
    checkpoint = await source.bytes('checkpoint');
    sth = await source.bytes('sth');
    if (Buffer.from(checkpoint).toString('utf8').split('\n')[1] === String(JSON.parse(Buffer.from(sth).toString('utf8')).treeSize)) break;
  }
  const text = Buffer.from(checkpoint).toString('utf8');
  const { treeSize } = parseCheckpoint(text.slice(0, text.indexOf('\n\n') + 1));
  const written: string[] = [];
  // A path named twice in one run (a `beside` path that is also a tile) is written once: two writes of it at once would
  // share its temporary file.
  const puts = new Map<string, Promise<void>>();
  const put = (path: string, bytes: Uint8Array): Promise<void> => {
    let p = puts.get(path);
    if (p === undefined) {
      p = writeIfChanged(join(dir, at(path)), bytes).then((changed) => {
        if (changed) written.push(at(path));
      });
      puts.set(path, p);
    }
    return p;
  };
  await pooled(treeTiles(treeSize), 8, async (t) => {
    const path = tilePath(t);
    const full = t.width === TILE_HASHES;
    if (!(full && (await stat(join(dir, at(path))).catch(() => null)) !== null)) await put(path, await source.bytes(path));
    if (t.level === null) for (const p of opts.beside?.(t) ?? []) await put(p, await source.bytes(p));
  });
  await put('key', key);
  await put('sth', sth);
  await put('checkpoint', checkpoint);
  return { treeSize, written: written.sort() };
}
