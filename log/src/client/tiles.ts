// A C2SP tlog-tiles client: reads a log from its tiles, served live or by a static mirror (mirror.ts), and checks the
// checkpoint, every hash tile and every entry bundle (docs/engine.md#the-client-side-reading-and-checking-a-log-over-http).
import { openNote, parseCheckpoint, verifierKey, type Checkpoint } from '../checkpoint.js';
import { bytesEqual, toHex } from '../hash.js';
import type { SignedTreeHead } from '../head.js';
import { hashLeaf, rootFromLeafHashes } from '../merkle.js';
import { TILE_HASHES, decodeBundle, tilePath, treeTiles, type TilePath } from '../tlog-tiles.js';
import { logNoteKey, verifyEd25519 } from './ed25519.js';
import { headSigned } from './heads.js';
import type { LogClient, PublishedKey } from './log-client.js';
import { pooled } from './pool.js';

/** What a tiles client found wrong: `head` for the checkpoint or the head, `hash` for a tile or bundle that does not hash as it should. */
export interface TilesProblem {
  kind: 'head' | 'hash';
  /** The entry it concerns, or null. */
  seq: number | null;
  detail: string;
}

/** The head of a tiled log as read: the published key, the signed tree head, the checkpoint note and its parsed text. */
export interface TilesHead {
  key: PublishedKey;
  sth: SignedTreeHead;
  /** The checkpoint note as served (cosignatures included). */
  note: string;
  checkpoint: Checkpoint;
}

/** Hash tiles and entry bundles fetched at once (each a request). */
const WIDTH = 8;

/** The log key a client trusts (base64url DER SPKI) and the origin it names; what is not given is taken from the log. */
export interface TilesTrust {
  key?: string;
  origin?: string | null;
}

/**
 * Reads the key, the checkpoint and the signed tree head (read again until they are of one size),
 * and checks the checkpoint: signed by the trusted key under the trusted origin (by default the
 * ones the log publishes), of the published origin, and of the head's size and root. The head's
 * own signature is not checked here (readTiles does). Problems are pushed onto `problems`.
 */
export async function readTilesHead(client: LogClient, problems: TilesProblem[], trusted: TilesTrust = {}): Promise<TilesHead> {
  const key = await client.key();
  const { checkpoint: note, sth } = await client.head();
  const noteKey = logNoteKey(trusted.origin ?? key.origin, trusted.key ?? key.key);
  const opened = openNote(note, noteKey, verifyEd25519);
  if (!opened.verified)
    problems.push({
      kind: 'head',
      seq: null,
      detail: `the checkpoint is not signed by ${verifierKey(noteKey.name, noteKey.rawPublicKey)}`,
    });
  const checkpoint = parseCheckpoint(opened.text);
  if (checkpoint.origin !== key.origin)
    problems.push({ kind: 'head', seq: null, detail: `the checkpoint's origin is ${checkpoint.origin}, not ${key.origin}` });
  if (sth.treeSize !== checkpoint.treeSize || sth.rootHash !== toHex(checkpoint.rootHash))
    problems.push({
      kind: 'head',
      seq: null,
      detail: `the signed head (${sth.treeSize}) and the checkpoint (${checkpoint.treeSize}) differ`,
    });
  return { key, sth, note, checkpoint };
}

/**
 * Every hash tile of the tree of `checkpoint`: each hash of a tile above level 0 must be the
 * root of the full tile below it, and the level-0 tiles must give the checkpoint's root. Gives
 * the tree's leaf hashes (as the level-0 tiles hold them); problems are pushed onto `problems`.
 */
export async function readHashTiles(client: LogClient, checkpoint: Checkpoint, problems: TilesProblem[]): Promise<Uint8Array[]> {
  const paths = treeTiles(checkpoint.treeSize).filter((t) => t.level !== null);
  const tiles = new Map<string, Uint8Array[]>();
  await pooled(paths, WIDTH, async (t) => {
    const bytes = await client.bytes(tilePath(t));
    const hashes: Uint8Array[] = [];
    for (let i = 0; i + 32 <= bytes.length; i += 32) hashes.push(bytes.subarray(i, i + 32));
    if (bytes.length !== t.width * 32)
      problems.push({ kind: 'hash', seq: null, detail: `${tilePath(t)} has ${bytes.length} bytes, not ${t.width * 32}` });
    tiles.set(`${t.level}/${t.index}`, hashes);
  });
  for (const t of paths) {
    if (t.level === 0) continue;
    tiles.get(`${t.level}/${t.index}`)!.forEach((h, i) => {
      const below = tiles.get(`${t.level! - 1}/${t.index * TILE_HASHES + i}`);
      if (below === undefined || !bytesEqual(rootFromLeafHashes(below), h))
        problems.push({ kind: 'hash', seq: null, detail: `${tilePath(t)}: hash ${i} is not the root of the tile below it` });
    });
  }
  const leaves = paths.filter((t) => t.level === 0).flatMap((t) => tiles.get(`0/${t.index}`)!);
  const root = toHex(checkpoint.rootHash);
  if (toHex(rootFromLeafHashes(leaves)) !== root)
    problems.push({ kind: 'head', seq: null, detail: `the level-0 tiles do not give the checkpoint's root ${root}` });
  return leaves;
}

/**
 * The entries' leaf inputs of entry bundle `t`, as served (throws LogError('unavailable') unless served,
 * 'bad_argument' when not a bundle).
 */
export async function readEntryBundle(client: LogClient, t: TilePath): Promise<Uint8Array[]> {
  return decodeBundle(await client.bytes(tilePath(t)));
}

/** Whether entry `seq`, of leaf input `input`, hashes to its leaf in `leaves` (the level-0 tiles). */
export function leafMatches(leaves: Uint8Array[], seq: number, input: Uint8Array): boolean {
  const leaf = leaves[seq];
  return leaf !== undefined && bytesEqual(hashLeaf(input), leaf);
}

/** The entries of a tiled log, as readTiles gives them. */
export interface TiledLog extends TilesHead {
  /** The leaf hashes of the checkpoint's tree. */
  leaves: Uint8Array[];
  /** Each entry's leaf input, in order: the application's bytes. */
  entries: Uint8Array[];
  problems: TilesProblem[];
}

/**
 * Reads a whole log from its tiles (readTilesHead, readHashTiles, then every entry bundle against
 * the level-0 tiles) and checks the signed tree head's signature by the trusted key (default:
 * the published one). `progress` is told the entries fetched of the checkpoint's size, bundle
 * by bundle.
 */
export async function readTiles(
  client: LogClient,
  opts: { trusted?: TilesTrust; progress?: (fetched: number, size: number) => void } = {},
): Promise<TiledLog> {
  const problems: TilesProblem[] = [];
  const head = await readTilesHead(client, problems, opts.trusted);
  const logKey = opts.trusted?.key ?? head.key.key;
  if (!headSigned(head.sth, logKey))
    problems.push({ kind: 'head', seq: null, detail: `the signed head of size ${head.sth.treeSize} is not signed by the log key` });
  const leaves = await readHashTiles(client, head.checkpoint, problems);
  const size = head.checkpoint.treeSize;
  let fetched = 0;
  opts.progress?.(0, size);
  const bundles = await pooled(
    treeTiles(size).filter((t) => t.level === null),
    WIDTH,
    async (t) => {
      const inputs = await readEntryBundle(client, t);
      const first = t.index * TILE_HASHES;
      if (inputs.length !== t.width)
        problems.push({ kind: 'hash', seq: first, detail: `${tilePath(t)} holds ${inputs.length} entries, not ${t.width}` });
      inputs.forEach((input, i) => {
        if (!leafMatches(leaves, first + i, input))
          problems.push({
            kind: 'hash',
            seq: first + i,
            detail: `entry ${first + i} of ${tilePath(t)} does not hash to its leaf in the level-0 tile`,
          });
      });
      fetched += t.width;
      opts.progress?.(fetched, size);
      return inputs;
    },
  );
  return { ...head, leaves, entries: bundles.flat(), problems };
}
