// Where a verifier gets a log from a C2SP tlog-tiles mirror (docs/log-format.md, "Tiles"): a
// static copy served by any web server, or the live service. It checks what only a tiles
// client can (the checkpoint's signature, every tile against the root and the tiles below it,
// every entry bundle against the level-0 tiles, every payload bundle against the bundles) and
// gives the entries as a LogCopy, which verifyLog then checks and replays as for any source.
import { verify as edVerify, createPublicKey } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  TILE_HASHES,
  bytesEqual,
  decodeBundle,
  openNote,
  parseCheckpoint,
  rootFromLeafHashes,
  tileIndexPath,
  tilePath,
  toHex,
  treeTiles,
  type SignedTreeHead,
  type TilePath,
} from 'tlog-engine';
import { vkeyOf, type PinnedKey } from './log-key.js';
import { hashLeafText } from '../lib/protocol/log-entry.js';
import type { Problem } from './report.js';
import type { LogCopy, ServedEntry } from './source.js';

/** Ed25519 verification of a raw 32-byte public key, for signed notes. */
function noteVerify(raw: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
  return edVerify(null, msg, createPublicKey({ key: der, format: 'der', type: 'spki' }), sig);
}

async function get(base: string, path: string): Promise<Buffer> {
  const r = await fetch(`${base}/${path}`);
  if (r.status !== 200) throw new Error(`GET ${base}/${path}: expected 200, got ${r.status}`);
  return Buffer.from(await r.arrayBuffer());
}

/** `payloads/<N>[.p/<W>]`: the payload bundle beside entry bundle `t`. */
export function payloadPath(t: TilePath): string {
  return `payloads/${tileIndexPath(t.index)}${t.width === TILE_HASHES ? '' : `.p/${t.width}`}`;
}

/** Runs `f` over `items`, `width` at a time, keeping order. */
async function pooled<T, R>(items: T[], width: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
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
  const base = `${url.replace(/\/+$/, '')}/v1/log`;
  const problems: Problem[] = [];
  const key = JSON.parse((await get(base, 'key')).toString('utf8')) as { key: string; origin: string };
  // The live service may sign a new head between the two reads: read them again until they agree.
  let checkpoint = '';
  let sth: SignedTreeHead | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    checkpoint = (await get(base, 'checkpoint')).toString('utf8');
    sth = JSON.parse((await get(base, 'sth')).toString('utf8')) as SignedTreeHead;
    if (checkpoint.split('\n')[1] === String(sth.treeSize)) break;
  }
  // Pinned, the checkpoint must be signed by the pinned key (verifyLog names a published key that is not it).
  const vkey = vkeyOf(pinned?.origin ?? key.origin, pinned?.key ?? key.key);
  const note = openNote(checkpoint, vkey, noteVerify);
  if (!note.verified) problems.push({ kind: 'head', seq: null, detail: `the checkpoint is not signed by ${vkey}` });
  const cp = parseCheckpoint(note.text);
  if (cp.origin !== key.origin)
    problems.push({ kind: 'head', seq: null, detail: `the checkpoint's origin is ${cp.origin}, not ${key.origin}` });
  const root = toHex(cp.rootHash);
  if (sth!.treeSize !== cp.treeSize || sth!.rootHash !== root)
    problems.push({ kind: 'head', seq: null, detail: `the signed head (${sth!.treeSize}) and the checkpoint (${cp.treeSize}) differ` });

  // Every tile of the checkpoint's tree; each hash of a tile above level 0 is the root of the
  // full tile below it.
  const paths = treeTiles(cp.treeSize);
  const hashPaths = paths.filter((t) => t.level !== null);
  const tiles = new Map<string, Uint8Array[]>();
  await pooled(hashPaths, 8, async (t) => {
    const bytes = await get(base, tilePath(t));
    const hashes: Uint8Array[] = [];
    for (let i = 0; i + 32 <= bytes.length; i += 32) hashes.push(bytes.subarray(i, i + 32));
    if (bytes.length !== t.width * 32)
      problems.push({ kind: 'hash', seq: null, detail: `${tilePath(t)} has ${bytes.length} bytes, not ${t.width * 32}` });
    tiles.set(`${t.level}/${t.index}`, hashes);
  });
  for (const t of hashPaths) {
    if (t.level === 0) continue;
    tiles.get(`${t.level}/${t.index}`)!.forEach((h, i) => {
      const below = tiles.get(`${t.level! - 1}/${t.index * TILE_HASHES + i}`);
      if (below === undefined || !bytesEqual(rootFromLeafHashes(below), h))
        problems.push({ kind: 'hash', seq: null, detail: `${tilePath(t)}: hash ${i} is not the root of the tile below it` });
    });
  }
  const leaves = hashPaths.filter((t) => t.level === 0).flatMap((t) => tiles.get(`0/${t.index}`)!);
  if (toHex(rootFromLeafHashes(leaves)) !== root)
    problems.push({ kind: 'head', seq: null, detail: `the level-0 tiles do not give the checkpoint's root ${root}` });

  // Entry bundles against the level-0 tiles, payload bundles against the entry bundles.
  const bundlePaths = paths.filter((t) => t.level === null);
  let fetched = 0;
  progress?.(0, cp.treeSize);
  const pages = await pooled(bundlePaths, 8, async (t) => {
    const [bundle, payloads] = await Promise.all([get(base, tilePath(t)), get(base, payloadPath(t))]);
    const inputs = decodeBundle(bundle);
    const lines = payloads.toString('utf8').split('\n');
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
      const text = Buffer.from(input).toString('utf8');
      if (leaves[seq] === undefined || !bytesEqual(hashLeafText(text), leaves[seq]!)) {
        problems.push({ kind: 'hash', seq, detail: `entry ${seq} of ${tilePath(t)} does not hash to its leaf in the level-0 tile` });
        return;
      }
      const e = served[i];
      const fields = JSON.parse(text) as Record<string, unknown>;
      const same =
        e !== undefined &&
        ['seq', 'ts', 'type', 'payloadHash', 'prevHash'].every((k) => fields[k] === (e as unknown as Record<string, unknown>)[k]);
      if (!same || e.entryHash !== toHex(leaves[seq]!))
        problems.push({ kind: 'hash', seq, detail: `entry ${seq} of ${payloadPath(t)} does not match its leaf input in ${tilePath(t)}` });
    });
    fetched += t.width;
    progress?.(fetched, cp.treeSize);
    return served;
  });
  return { log: { key, sth: sth!, entries: pages.flat() }, checkpoint, problems };
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
 * Brings the static copy in `dir` up to the service at `url` (docs/log-format.md, "A static
 * copy"): every tile and entry bundle of its current checkpoint, the payload bundles, the key,
 * the signed head, and the checkpoint last, each at the path the service serves it under
 * `v1/log/`. A full tile or entry bundle already there is not fetched again (it never changes);
 * anything else is written only when it changed, to a temporary file renamed over the old one.
 * Returns the paths written, relative to `dir`.
 */
export async function writeStaticTiles(url: string, dir: string): Promise<{ treeSize: number; written: string[] }> {
  const base = `${url.replace(/\/+$/, '')}/v1/log`;
  const key = await get(base, 'key');
  let checkpoint: Buffer = Buffer.alloc(0);
  let sth: Buffer = Buffer.alloc(0);
  for (let attempt = 0; attempt < 5; attempt++) {
    checkpoint = await get(base, 'checkpoint');
    sth = await get(base, 'sth');
    if (checkpoint.toString('utf8').split('\n')[1] === String(JSON.parse(sth.toString('utf8')).treeSize)) break;
  }
  const treeSize = Number(parseCheckpoint(checkpoint.toString('utf8').slice(0, checkpoint.indexOf('\n\n') + 1)).treeSize);
  const written: string[] = [];
  const put = async (path: string, bytes: Uint8Array) => {
    if (await writeIfChanged(join(dir, 'v1/log', path), bytes)) written.push(`v1/log/${path}`);
  };
  await pooled(treeTiles(treeSize), 8, async (t) => {
    const path = tilePath(t);
    const full = t.width === TILE_HASHES;
    if (!(full && (await stat(join(dir, 'v1/log', path)).catch(() => null)) !== null)) await put(path, await get(base, path));
    if (t.level === null) await put(payloadPath(t), await get(base, payloadPath(t)));
  });
  await put('key', key);
  await put('sth', sth);
  await put('checkpoint', checkpoint);
  return { treeSize, written: written.sort() };
}
