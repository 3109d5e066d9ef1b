// The right edge of the tree as it grows: the frontier (the complete subtrees of [0, size),
// left to right) and the partial tile of each tile level. Shared by the sequencer, which grows
// the tree, and the audit, which regrows it from the entries.
import { trailingZeros } from './bits.js';
import { hashChildren, rootFromSubtrees } from './merkle.js';
import { TILE_HEIGHT, TILE_WIDTH, encodeTile, tileKey, type TileId } from './tiles.js';

interface EdgeTile {
  id: TileId;
  rows: Uint8Array[][];
}

export interface WrittenTile {
  id: TileId;
  bytes: Uint8Array;
}

export class TreeEdge {
  /** Complete subtrees of [0, size), left to right (so by decreasing level). */
  private frontier: { level: number; hash: Uint8Array }[] = [];
  /** The last tile of each tile level, the one still growing. */
  private edge: EdgeTile[] = [];
  /** Tiles changed since the last takeChanged(), by key. */
  private changed = new Map<string, EdgeTile>();

  constructor(public size = 0) {}

  /**
   * Starts from a stored tree: `frontier` its complete subtrees left to right, and `edgeTiles`
   * the stored bytes' rows of each level's last tile (absent for a level with no node yet).
   */
  static resume(
    size: number,
    frontier: { level: number; hash: Uint8Array }[],
    edgeTiles: { id: TileId; rows: Uint8Array[][] }[],
  ): TreeEdge {
    const e = new TreeEdge(size);
    e.frontier = frontier.slice();
    e.edge = edgeTiles.map((t) => ({ id: t.id, rows: t.rows.map((r) => r.slice()) }));
    return e;
  }

  /** Adds the next leaf; seq = size. Leaf seq completes trailingZeros(seq + 1) levels above it. */
  push(leafHash: Uint8Array): void {
    const seq = this.size;
    const levels = trailingZeros(seq + 1);
    let hash = leafHash;
    this.addNode(0, seq, hash);
    for (let level = 1; level <= levels; level++) {
      hash = hashChildren(this.frontier.pop()!.hash, hash);
      this.addNode(level, (seq + 1) / 2 ** level - 1, hash);
    }
    this.frontier.push({ level: levels, hash });
    this.size = seq + 1;
  }

  /** RFC 9162 2.1.1: the root of the tree so far. */
  root(): Uint8Array {
    return rootFromSubtrees(this.frontier.map((f) => f.hash));
  }

  /** The rows of tile (level, index) if it is the growing tile of its level (reads check here first). */
  edgeTile(level: number, index: number): Uint8Array[][] | undefined {
    const t = this.edge[level];
    return t !== undefined && t.id.index === index ? t.rows : undefined;
  }

  /** The growing tile of each level, as bytes to store. */
  edgeTiles(): WrittenTile[] {
    return this.edge.map((t) => ({ id: t.id, bytes: encodeTile(t.rows) }));
  }

  /** The tiles changed since the last call, as bytes to store; full tiles and the growing ones. */
  takeChanged(): WrittenTile[] {
    const out = [...this.changed.values()].map((t) => ({ id: t.id, bytes: encodeTile(t.rows) }));
    this.changed.clear();
    return out;
  }

  private addNode(level: number, index: number, hash: Uint8Array): void {
    const k = Math.floor(level / TILE_HEIGHT);
    const row = level - k * TILE_HEIGHT;
    let tile = this.edge[k];
    if (row === 0) {
      const t = Math.floor(index / TILE_WIDTH);
      if (tile === undefined || tile.id.index !== t) {
        // The previous tile of this level is full (and already in `changed`); start the next.
        tile = { id: { level: k, index: t }, rows: Array.from({ length: TILE_HEIGHT }, () => []) };
        this.edge[k] = tile;
      }
    }
    tile!.rows[row]!.push(hash);
    this.changed.set(tileKey(tile!.id), tile!);
  }
}
