// Tiles of interior hashes, of height 8: after C2SP tlog-tiles, but each tile keeps every level inside it, so that no hash is
// recomputed on a read. The layout: docs/log-format.md#how-the-service-stores-the-log-not-protocol.

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
const HASH = 32;

export interface TileId {
  /** Tile level k: the tile holds tree levels 8k to 8k + 7. */
  level: number;
  index: number;
}

/** Hashes in rows 0..7 of a tile of width w. */
function hashCount(w: number): number {
  let n = 0;
  for (let r = 0; r < TILE_HEIGHT; r++) n += Math.floor(w / 2 ** r);
  return n;
}

/** Byte length of a tile of width w, for w = 0..256, and back. */
const BYTES_OF_WIDTH = Array.from({ length: TILE_WIDTH + 1 }, (_, w) => hashCount(w) * HASH);
const WIDTH_OF_BYTES = new Map(BYTES_OF_WIDTH.map((b, w) => [b, w]));

/** ROW_START[w][r]: the index of row r's first hash in a tile of width w. */
const ROW_START = Array.from({ length: TILE_WIDTH + 1 }, (_, w) => {
  const starts: number[] = [];
  for (let r = 0, n = 0; r < TILE_HEIGHT; n += Math.floor(w / 2 ** r), r++) starts.push(n);
  return starts;
});

/** The width of a stored tile from its length; undefined for a length no width gives. */
export function tileWidth(bytes: Uint8Array): number | undefined {
  return WIDTH_OF_BYTES.get(bytes.length);
}

/** The hash at (row, pos) of a stored tile, or undefined if the tile does not hold it yet. */
export function tileHash(bytes: Uint8Array, row: number, pos: number): Uint8Array | undefined {
  const w = WIDTH_OF_BYTES.get(bytes.length);
  // w and row are at most 256 and 7: small enough for the 32-bit shift.
  if (w === undefined || pos >= w >> row) return undefined;
  const off = (ROW_START[w]![row]! + pos) * HASH;
  return bytes.subarray(off, off + HASH);
}

/**
 * The hashes a tile gained growing from width `from` to its own width, row by row (row 0
 * first): what a store appends when a tile grows (docs/log-format.md, "How the service stores
 * the log"). Undefined if `bytes` is not a tile at least `from` wide.
 */
export function tileGrowth(bytes: Uint8Array, from: number): Uint8Array | undefined {
  const w = WIDTH_OF_BYTES.get(bytes.length);
  if (w === undefined || from < 0 || from > w) return undefined;
  const out = new Uint8Array(bytes.length - BYTES_OF_WIDTH[from]!);
  let off = 0;
  for (let r = 0; r < TILE_HEIGHT; r++) {
    const start = (ROW_START[w]![r]! + Math.floor(from / 2 ** r)) * HASH;
    const end = (ROW_START[w]![r]! + Math.floor(w / 2 ** r)) * HASH;
    out.set(bytes.subarray(start, end), off);
    off += end - start;
  }
  return out;
}

/** The tile `bytes` grown by `growth` (as tileGrowth gives it); undefined if that gives no tile. */
export function growTile(bytes: Uint8Array, growth: Uint8Array): Uint8Array | undefined {
  const from = WIDTH_OF_BYTES.get(bytes.length);
  const to = from === undefined ? undefined : WIDTH_OF_BYTES.get(bytes.length + growth.length);
  if (from === undefined || to === undefined) return undefined;
  const out = new Uint8Array(BYTES_OF_WIDTH[to]!);
  let old = 0;
  let add = 0;
  for (let r = 0; r < TILE_HEIGHT; r++) {
    const had = Math.floor(from / 2 ** r) * HASH;
    const gained = Math.floor(to / 2 ** r) * HASH - had;
    const at = ROW_START[to]![r]! * HASH;
    out.set(bytes.subarray(old, old + had), at);
    out.set(growth.subarray(add, add + gained), at + had);
    old += had;
    add += gained;
  }
  return out;
}

/** Serializes rows of hashes (row 0 first) into tile bytes. */
export function encodeTile(rows: Uint8Array[][]): Uint8Array {
  const out = new Uint8Array(rows.reduce((n, row) => n + row.length, 0) * HASH);
  let off = 0;
  for (const row of rows) {
    for (const h of row) {
      out.set(h, off);
      off += HASH;
    }
  }
  return out;
}

export const tileKey = (t: TileId): string => `${t.level}/${t.index}`;

/** The rows of stored tile bytes (row 0 first); undefined for a length no width gives. */
export function decodeTile(bytes: Uint8Array): Uint8Array[][] | undefined {
  const w = tileWidth(bytes);
  if (w === undefined) return undefined;
  const rows: Uint8Array[][] = [];
  let off = 0;
  for (let r = 0; r < TILE_HEIGHT; r++) {
    const row: Uint8Array[] = [];
    for (let i = 0; i < Math.floor(w / 2 ** r); i++, off += HASH) row.push(bytes.subarray(off, off + HASH));
    rows.push(row);
  }
  return rows;
}
