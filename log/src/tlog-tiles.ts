// C2SP tlog-tiles (https://c2sp.org/tlog-tiles) as the log publishes it (docs/log-format.md,
// "Tiles"): hash tiles, entry bundles and their paths. This is public protocol, unlike the
// stored tiles of tiles.ts: a published hash tile at level L is only the bottom row of the
// stored tile (L, N), the tree's level-8L nodes 256 N to 256 N + W - 1, 32 bytes each.
import { LogError } from './errors.js';

export const TILE_HASHES = 256;

/** A published tile or bundle: `level` is null for an entry bundle; `width` 1..256 (256: full). */
export interface TilePath {
  level: number | null;
  index: number;
  width: number;
}

/** `<N>` in the tlog-tiles path form: zero-padded 3-digit elements, all but the last prefixed with x. */
export function tileIndexPath(index: number): string {
  let s = String(index % 1000).padStart(3, '0');
  for (let n = Math.floor(index / 1000); n > 0; n = Math.floor(n / 1000)) s = `x${String(n % 1000).padStart(3, '0')}/${s}`;
  return s;
}

/** The path of a tile or bundle below the log's prefix: `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`. */
export function tilePath(t: TilePath): string {
  const tail = t.width === TILE_HASHES ? '' : `.p/${t.width}`;
  return `tile/${t.level === null ? 'entries' : t.level}/${tileIndexPath(t.index)}${tail}`;
}

/** Which part of a tile path is wrong, for a 400 naming it. */
export class TilePathError extends LogError {
  constructor(
    readonly part: 'level' | 'index' | 'width',
    detail: string,
  ) {
    super('bad_argument', detail);
  }
}

const LEVEL = /^(?:0|[1-9][0-9]?)$/;
const WIDTH = /^[1-9][0-9]{0,2}$/;

/**
 * Parses what follows `tile/` (`<L>/<N>[.p/<W>]`, or `entries/<N>[.p/<W>]` with `kind`
 * 'entries'); throws TilePathError naming the part that is not as tlog-tiles spells it.
 */
export function parseTilePath(rest: string, kind: 'hashes' | 'entries'): TilePath {
  const parts = rest.split('/');
  let level: number | null = null;
  if (kind === 'hashes') {
    const l = parts.shift() ?? '';
    if (!LEVEL.test(l) || Number(l) > 63) throw new TilePathError('level', `level: "${l}" is not a decimal from 0 to 63`);
    level = Number(l);
  }
  let width = TILE_HASHES;
  const p = parts.length >= 2 ? parts[parts.length - 2]! : '';
  if (p.endsWith('.p')) {
    const w = parts.pop()!;
    if (!WIDTH.test(w) || Number(w) > 255) throw new TilePathError('width', `width: "${w}" is not a decimal from 1 to 255`);
    width = Number(w);
    parts[parts.length - 1] = p.slice(0, -2);
  }
  if (parts.length === 0 || parts.length > 6) throw new TilePathError('index', 'index: expected 1 to 6 path elements like x001/x234/067');
  let index = 0;
  parts.forEach((e, i) => {
    const last = i === parts.length - 1;
    if (!(last ? /^[0-9]{3}$/ : /^x[0-9]{3}$/).test(e))
      throw new TilePathError('index', `index: "${e}" must be ${last ? 'three digits' : '"x" and three digits'} (as in x001/x234/067)`);
    index = index * 1000 + Number(last ? e : e.slice(1));
  });
  if (tileIndexPath(index) !== parts.join('/')) throw new TilePathError('index', `index: "${parts.join('/')}" has a leading zero element`);
  if (!Number.isSafeInteger(index)) throw new TilePathError('index', 'index: too large');
  return { level, index, width };
}

/** Number of level-8L nodes in a tree of `size` leaves. */
function nodesAtLevel(size: number, level: number): number {
  return level > 6 ? 0 : Math.floor(size / 256 ** level);
}

/** Whether the tree of `size` holds tile `t` (of its width): every hash of it complete. */
export function tileInTree(t: TilePath, size: number): boolean {
  return t.index * TILE_HASHES + t.width <= nodesAtLevel(size, t.level ?? 0);
}

/** The tiles and bundles of a tree of `size`: every full one, and the partial ones at its edge. */
export function treeTiles(size: number): TilePath[] {
  const out: TilePath[] = [];
  for (let level = 0; nodesAtLevel(size, level) > 0; level++) {
    const n = nodesAtLevel(size, level);
    const full = Math.floor(n / TILE_HASHES);
    const rest = n % TILE_HASHES;
    for (let index = 0; index < full; index++) {
      out.push({ level, index, width: TILE_HASHES });
      if (level === 0) out.push({ level: null, index, width: TILE_HASHES });
    }
    if (rest > 0) {
      out.push({ level, index: full, width: rest });
      if (level === 0) out.push({ level: null, index: full, width: rest });
    }
  }
  return out;
}

/** An entry bundle: each leaf input as a big-endian uint16 length, then its bytes. */
export function encodeBundle(leafInputs: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(leafInputs.reduce((n, e) => n + 2 + e.length, 0));
  let off = 0;
  for (const e of leafInputs) {
    if (e.length > 0xffff) throw new LogError('bad_argument', `a leaf input of ${e.length} bytes does not fit a bundle`);
    out[off] = e.length >> 8;
    out[off + 1] = e.length & 0xff;
    out.set(e, off + 2);
    off += 2 + e.length;
  }
  return out;
}

/** The leaf inputs of an entry bundle; throws LogError('bad_argument') on a truncated one. */
export function decodeBundle(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let off = 0; off < bytes.length;) {
    if (off + 2 > bytes.length) throw new LogError('bad_argument', `entry bundle: a length prefix is cut at byte ${off}`);
    const n = (bytes[off]! << 8) | bytes[off + 1]!;
    if (off + 2 + n > bytes.length) throw new LogError('bad_argument', `entry bundle: entry ${out.length} is cut`);
    out.push(bytes.subarray(off + 2, off + 2 + n));
    off += 2 + n;
  }
  return out;
}
