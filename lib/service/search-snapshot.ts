// Snapshots of the search index (docs/log-format.md, "Snapshots of the record's state"): a cache,
// like the state's, that lets a service start with its search ready in seconds rather than
// indexing every paper, claim and agent again (a minute at a million items). One header line of
// JSON, as the state's (format, code, treeSize, rootHash, sha256, bytes), then the index in
// frames serialized with V8's structured clone: the items by their number in it (as columns),
// and FlexSearch's own export of it, chunk by chunk. Bound to the head it was taken at, to this code (the search's code and
// FlexSearch's: they decide what an index holds) and to its own SHA-256; at start it is
// used only if all of them hold against the log and the running code, and otherwise discarded
// with one line saying why: the index is then built from the state. The entries logged after it
// are read from the log and indexed.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { toHex, type Log } from '../../log/index.js';
import { framedAsync, stateHeader } from '../record/state-codec.js';
import { KINDS, type Doc, type SavedSearch, type SavedSearchSource } from './search.js';
import { fileSnapshots, type SnapshotPlace } from './snapshot-place.js';

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

const placeOf = (where: string | SnapshotPlace): SnapshotPlace => (typeof where === 'string' ? fileSnapshots(where) : where);

/** The items as columns: V8 writes typed arrays and one string as their bytes, where a million objects take seconds. */
interface DocColumns {
  kinds: Uint8Array;
  seqs: Int32Array;
  /** The items' ids, one a line (no id holds a line break). */
  keys: string;
}

function docColumns(docs: Doc[]): DocColumns {
  const kinds = new Uint8Array(docs.length);
  const seqs = new Int32Array(docs.length);
  const keys: string[] = [];
  docs.forEach((d, i) => {
    kinds[i] = KINDS.indexOf(d.kind);
    seqs[i] = d.seq;
    keys.push(d.key);
  });
  return { kinds, seqs, keys: keys.join('\n') };
}

function docsOf(c: DocColumns): Doc[] {
  const keys = c.keys === '' ? [] : c.keys.split('\n');
  if (keys.length !== c.kinds.length || keys.length !== c.seqs.length) throw new Error('its items do not line up');
  return keys.map((key, i) => {
    const kind = KINDS[c.kinds[i]!];
    if (kind === undefined) throw new Error(`an item of an unknown kind (${c.kinds[i]})`);
    return { kind, key, seq: c.seqs[i]! };
  });
}

const turn = () => new Promise((r) => setImmediate(r));

/**
 * The bytes of `saved`, whose tree's root at its size is `rootHash`. The body is a run of frames,
 * each a 4-byte big-endian length and a V8-serialized value: first the items and the versions,
 * then each chunk of FlexSearch's export, serialized one per turn of the event loop (a million
 * items' index in one call would hold it for seconds).
 */
export async function encodeSearch(saved: SavedSearch, rootHash: string): Promise<Buffer> {
  const frames: Buffer[] = [];
  const frame = (value: unknown) => {
    const v = serialize(value);
    const n = Buffer.alloc(4);
    n.writeUInt32BE(v.length);
    frames.push(n, v);
  };
  frame({ docs: docColumns(saved.docs), versions: saved.versions, chunks: saved.chunks.length });
  for (const chunk of saved.chunks) {
    await turn();
    frame(chunk);
  }
  return framedAsync(SEARCH_FORMAT, searchCodeId(), saved.treeSize, rootHash, Buffer.concat(frames));
}

/** What writing the search index's snapshot took. */
export interface SearchWritten {
  treeSize: number;
  items: number;
  bytes: number;
  ms: number;
}

/** Writes `saved` (SearchIndex.save) to `where`, atomically, bound to the log's root at its size. */
export async function writeSearchSnapshot(where: string | SnapshotPlace, saved: SavedSearch, log: Log, t0: number): Promise<SearchWritten> {
  const bytes = await encodeSearch(saved, toHex(await log.rootAt(saved.treeSize)));
  await placeOf(where).write(bytes, saved.treeSize);
  return { treeSize: saved.treeSize, items: saved.docs.length, bytes: bytes.length, ms: performance.now() - t0 };
}

/** The index a body that `stateHeader` accepted holds (its frames read one per turn of the event loop), or why it cannot be read. */
async function readSearch(body: Buffer, treeSize: number): Promise<SavedSearch | { problem: string }> {
  try {
    let at = 0;
    const next = (): unknown => {
      if (at + 4 > body.length) throw new Error('it ends before its last frame');
      const n = body.readUInt32BE(at);
      if (at + 4 + n > body.length) throw new Error('it ends within a frame');
      const v = deserialize(body.subarray(at + 4, at + 4 + n));
      at += 4 + n;
      return v;
    };
    const head = next() as { docs: DocColumns; versions: SavedSearch['versions']; chunks: number };
    if (typeof head?.docs?.keys !== 'string' || !Array.isArray(head.versions) || !Number.isSafeInteger(head.chunks))
      throw new Error('members are missing');
    const chunks: SavedSearch['chunks'] = [];
    for (let i = 0; i < head.chunks; i++) {
      await turn();
      const c = next();
      if (!Array.isArray(c) || typeof c[0] !== 'string' || typeof c[1] !== 'string')
        throw new Error(`chunk ${i} is not a key and its text`);
      chunks.push(c as [string, string]);
    }
    if (at !== body.length) throw new Error('bytes follow its last frame');
    return { treeSize, chunks, docs: docsOf(head.docs), versions: head.versions };
  } catch (err) {
    return { problem: `its index cannot be read (${(err as Error).message})` };
  }
}

/** The saved index at `place` if it holds against `log`, this code and a state of `maxSize` entries; null when there is none. */
async function loadSearch(place: SnapshotPlace, log: Log, maxSize: number): Promise<SavedSearch | { problem: string } | null> {
  let bytes: Buffer | null;
  try {
    bytes = await place.read();
  } catch (err) {
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  if (bytes === null) return null;
  const h = stateHeader(bytes, SEARCH_FORMAT, searchCodeId());
  if ('problem' in h) return h;
  const { treeSize, rootHash } = h.header;
  if (treeSize > maxSize) return { problem: `it was taken at size ${treeSize}, beyond the state's ${maxSize} entries` };
  if (toHex(await log.rootAt(treeSize)) !== rootHash)
    return { problem: `its head (size ${treeSize}, root ${rootHash}) is not a prefix of this log` };
  return readSearch(h.body, treeSize);
}

/**
 * Where a search index starts from: the snapshot at `where` when it holds against `log` and this
 * code and is of a size at most the state's; `say` gets one line when one is there but is not used.
 */
export function savedSearch(where: string | SnapshotPlace, log: Log, say: (line: string) => void): SavedSearchSource {
  const place = placeOf(where);
  return async (maxSize) => {
    const loaded = await loadSearch(place, log, maxSize);
    if (loaded === null || !('problem' in loaded)) return loaded;
    say(`archive: the search index's snapshot ${place.where} is not used, ${loaded.problem}; indexing the state's items`);
    return null;
  };
}
