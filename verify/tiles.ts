// Where a verifier gets a log from a C2SP tlog-tiles mirror or the live service: the engine's tiles client checks the tiles, and
// this adds the record's payload bundles, checked against the entry bundles (docs/log-format.md#tiles).
import {
  LogClient,
  TILE_HASHES,
  leafMatches,
  pooled,
  readEntryBundle,
  readHashTiles,
  readTilesHead,
  tileIndexPath,
  tilePath,
  toHex,
  treeTiles,
  writeMirror,
  type TilePath,
  type TilesProblem,
} from 'tlog-engine';
import type { PinnedKey } from './log-key.js';
import type { Problem } from './report.js';
import type { LogCopy, ServedEntry } from './source.js';

/** The prefix of the log's reads on the service, and in a static copy. */
const LOG_PREFIX = 'v1/log';

/** `payloads/<N>[.p/<W>]`: the payload bundle beside entry bundle `t`. */
export function payloadPath(t: TilePath): string {
  return `payloads/${tileIndexPath(t.index)}${t.width === TILE_HASHES ? '' : `.p/${t.width}`}`;
}

export interface TilesCopy {
  log: LogCopy;
  /** The checkpoint the copy was checked against. */
  checkpoint: string;
  /** What the tiles themselves showed wrong (kind `head` or `hash`); verifyLog adds its own. */
  problems: Problem[];
}

/**
 * Reads a log from the tiles mirror at `url` (the base under which `v1/log/checkpoint` is
 * served). Throws when the mirror cannot be read at all; problems with what it serves are
 * returned, each with the seq it concerns where it has one. `progress` is told the entries
 * fetched of the checkpoint's size, bundle by bundle.
 */
export async function fetchTilesLog(
  url: string,
  progress?: (fetched: number, size: number) => void,
  pinned?: PinnedKey,
): Promise<TilesCopy> {
  const client = new LogClient(`${url.replace(/\/+$/, '')}/${LOG_PREFIX}`);
  const problems: TilesProblem[] = [];
  // Pinned, the checkpoint must be signed by the pinned key (verifyLog names a published key that is not it).
  const head = await readTilesHead(client, problems, { key: pinned?.key, origin: pinned?.origin });
  const leaves = await readHashTiles(client, head.checkpoint, problems);

  // Entry bundles against the level-0 tiles, payload bundles against the entry bundles.
  const size = head.checkpoint.treeSize;
  let fetched = 0;
  progress?.(0, size);
  const pages = await pooled(
    treeTiles(size).filter((t) => t.level === null),
    8,
    async (t) => {
      const [inputs, payloads] = await Promise.all([readEntryBundle(client, t), client.bytes(payloadPath(t))]);
      const lines = Buffer.from(payloads).toString('utf8').split('\n');
      if (lines.pop() !== '') throw new Error(`${payloadPath(t)}: not newline-terminated JSON lines`);
      const served = lines.map((l) => JSON.parse(l) as ServedEntry);
      const first = t.index * TILE_HASHES;
      if (inputs.length !== t.width || served.length !== t.width)
        problems.push({
          kind: 'hash',
          seq: first,
          detail: `${tilePath(t)} holds ${inputs.length} entries, ${payloadPath(t)} ${served.length}, not ${t.width}`,
        });
      inputs.forEach((input, i) => {
        const seq = first + i;
        if (!leafMatches(leaves, seq, input)) {
          problems.push({ kind: 'hash', seq, detail: `entry ${seq} of ${tilePath(t)} does not hash to its leaf in the level-0 tile` });
          return;
        }
        const e = served[i];
        const fields = JSON.parse(Buffer.from(input).toString('utf8')) as Record<string, unknown>;
        const same =
          e !== undefined &&
          ['seq', 'ts', 'type', 'payloadHash', 'prevHash'].every((k) => fields[k] === (e as unknown as Record<string, unknown>)[k]);
        if (!same || e.entryHash !== toHex(leaves[seq]!))
          problems.push({ kind: 'hash', seq, detail: `entry ${seq} of ${payloadPath(t)} does not match its leaf input in ${tilePath(t)}` });
      });
      fetched += t.width;
      progress?.(fetched, size);
      return served;
    },
  );
  return { log: { key: head.key, sth: head.sth, entries: pages.flat() }, checkpoint: head.note, problems };
}

/**
 * Brings the static copy in `dir` up to the service at `url` (docs/log-format.md, "A static
 * copy"): the engine's tiles mirror of the log under `v1/log/` (every tile and entry bundle of
 * its current checkpoint, the key, the signed head, and the checkpoint last), with the record's
 * payload bundles beside the entry bundles. Returns the paths written, relative to `dir`.
 */
export async function writeStaticTiles(url: string, dir: string): Promise<{ treeSize: number; written: string[] }> {
  const client = new LogClient(`${url.replace(/\/+$/, '')}/${LOG_PREFIX}`);
  return writeMirror(client, dir, { under: LOG_PREFIX, beside: (t) => [payloadPath(t)] });
}
