// Snapshots of the search index (docs/log-format.md, "Snapshots of the record's state"): a cache,
// like the state's, that lets a service start with its search ready in seconds rather than
// indexing every paper, claim and agent again (a minute at a million items). One header line of
// JSON, as the state's (format, code, treeSize, rootHash, sha256, bytes, and items), then the
// index's parts as SearchIndex.save serialized them (lib/service/search.ts), each after its
// length. Bound to the head it was taken at, to this code (the search's and FlexSearch's: they
// decide what an index holds) and to its own SHA-256; at start it is used only if all of them
// hold against the log and the running code, and otherwise discarded with one line saying why:
// the index is then built from the state. The entries logged after it are read from the log and
// indexed.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { frameSnapshot, placeOf, readBound, toHex, type SnapshotPlace } from 'tlog-engine';
import type { RecordLog } from '../protocol/log-entry.js';
import type { SavedSearch, SavedSearchSource } from './search.js';

/** The format's name; a snapshot of another format is discarded, never migrated. */
export const SEARCH_FORMAT = 'archive-search/1';

/** Where a deployment on LevelDB keeps its search index's snapshot (on PostgreSQL: the blob SEARCH_BLOB). */
export const searchSnapshotFile = (dataDir: string): string => join(dataDir, 'snapshots', 'search.snapshot');

let code: string | undefined;

/** SHA-256 over the search's compiled code and the FlexSearch build it loads. */
export function searchCodeId(): string {
  if (code !== undefined) return code;
  const here = fileURLToPath(new URL('.', import.meta.url));
  const flexsearch = createRequire(import.meta.url).resolve('flexsearch');
  code = createHash('sha256')
    .update(readFileSync(join(here, 'search.js')))
    .update(readFileSync(flexsearch))
    .digest('hex');
  return code;
}

/**
 * The bytes of `saved`, whose tree's root at its size is `rootHash`: the header line, then its
 * parts (SearchIndex.save), each a 4-byte big-endian length and its bytes.
 */
export function encodeSearch(saved: SavedSearch, rootHash: string): Promise<Buffer> {
  const frames: Buffer[] = [];
  for (const part of saved.parts) {
    const n = Buffer.alloc(4);
    n.writeUInt32BE(part.length);
    frames.push(n, part);
  }
  return frameSnapshot({ format: SEARCH_FORMAT, code: searchCodeId(), treeSize: saved.treeSize, rootHash }, frames, { items: saved.items });
}

/** What writing the search index's snapshot took. */
export interface SearchWritten {
  treeSize: number;
  items: number;
  bytes: number;
  ms: number;
}

/** Writes `saved` (SearchIndex.save) to `where`, atomically, bound to the log's root at its size. */
export async function writeSearchSnapshot(
  where: string | SnapshotPlace,
  saved: SavedSearch,
  log: RecordLog,
  t0: number,
): Promise<SearchWritten> {
  const bytes = await encodeSearch(saved, toHex(await log.rootAt(saved.treeSize)));
  await placeOf(where).write(bytes, saved.treeSize);
  return { treeSize: saved.treeSize, items: saved.items, bytes: bytes.length, ms: performance.now() - t0 };
}

/** The parts of a body that `stateHeader` accepted, or why they cannot be read. */
function partsOf(body: Buffer, treeSize: number, items: unknown): SavedSearch | { problem: string } {
  if (!Number.isSafeInteger(items)) return { problem: 'its header names no number of items' };
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    if (at + 4 > body.length) return { problem: 'its index ends within a part' };
    const n = body.readUInt32BE(at);
    if (at + 4 + n > body.length) return { problem: 'its index ends within a part' };
    parts.push(body.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  if (parts.length === 0) return { problem: 'its index holds nothing' };
  return { treeSize, items: items as number, parts };
}

/** The saved index at `place` if it holds against `log`, this code and a state of `maxSize` entries; null when there is none. */
async function loadSearch(place: SnapshotPlace, log: RecordLog, maxSize: number): Promise<SavedSearch | { problem: string } | null> {
  const h = await readBound<{ items: number }>(place, (n) => log.rootAt(n), SEARCH_FORMAT, searchCodeId(), {
    size: maxSize,
    of: "the state's",
  });
  if (h === null || 'problem' in h) return h;
  return partsOf(h.body, h.header.treeSize, h.header.items);
}

/**
 * Where a search index starts from: the snapshot at `where` when it holds against `log` and this
 * code and is of a size at most the state's; `say` gets one line when one is there but is not used.
 */
export function savedSearch(where: string | SnapshotPlace, log: RecordLog, say: (line: string) => void): SavedSearchSource {
  const place = placeOf(where);
  const discard = (why: string) =>
    say(`archive: the search index's snapshot ${place.where} is not used, ${why}; indexing the state's items`);
  return {
    load: async (maxSize) => {
      const loaded = await loadSearch(place, log, maxSize);
      if (loaded === null || !('problem' in loaded)) return loaded;
      discard(loaded.problem);
      return null;
    },
    discard,
  };
}
