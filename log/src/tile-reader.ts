// Reads node hashes for proofs: from the growing edge tiles in memory, else from a cache of stored tiles, else from the store
// (docs/log-format.md#how-the-service-stores-the-log-not-protocol).
import { LogError } from './errors.js';
import type { NodeId } from './merkle.js';
import type { LogStore } from './store.js';
import { TILE_HEIGHT, TILE_WIDTH, tileHash, type TileId } from './tiles.js';
import type { TreeEdge } from './tree-edge.js';

/** A tile's cache key: tile levels are below 8 and tile indexes below 2^45, so this is exact. */
const keyOf = (level: number, index: number): number => index * 8 + level;

export class TileReader {
  /** Least recently used first (a Map keeps insertion order). */
  private cache = new Map<number, Uint8Array>();

  constructor(
    private readonly store: LogStore,
    private readonly edge: TreeEdge,
    // 4,096 tiles of at most 16 KiB: 64 MiB, every tile of a tree of a million entries.
    private readonly capacity = 4096,
  ) {}

  /** The hashes of complete subtrees `ids`, in order, if all are in memory; else null. */
  nodesNow(ids: NodeId[]): Uint8Array[] | null {
    const out: Uint8Array[] = new Array(ids.length);
    const used = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      const h = this.lookup(ids[i]!, used);
      if (h === undefined) return null;
      out[i] = h;
    }
    this.refresh(used);
    return out;
  }

  /** The hashes of complete subtrees `ids`, in order, reading tiles not in memory. */
  async nodes(ids: NodeId[]): Promise<Uint8Array[]> {
    const now = this.nodesNow(ids);
    if (now !== null) return now;
    const out: (Uint8Array | undefined)[] = new Array(ids.length);
    const missing = new Map<number, TileId>();
    const used = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      out[i] = this.lookup(ids[i]!, used);
      if (out[i] === undefined) {
        const t = tileOf(ids[i]!);
        missing.set(keyOf(t.level, t.index), t);
      }
    }
    // A cached tile stays correct as the tree grows, since a stored tile is a prefix of its later versions: a node missing
    // from a cached copy is read again with its tile.
    const tiles = [...missing.values()];
    const got = await this.store.getTiles(tiles);
    got.forEach((bytes, i) => {
      if (bytes !== undefined) this.cache.set(keyOf(tiles[i]!.level, tiles[i]!.index), bytes);
    });
    for (let i = 0; i < ids.length; i++) {
      out[i] ??= this.lookup(ids[i]!, used);
      if (out[i] === undefined) throw new LogError('corrupt', `hash of node (${ids[i]!.level}, ${ids[i]!.index}) is missing`);
    }
    this.refresh(used);
    return out as Uint8Array[];
  }

  /** Moves each tile used to the young end of the LRU order, then trims the cache. */
  private refresh(used: Set<number>): void {
    for (const k of used) {
      const bytes = this.cache.get(k);
      if (bytes !== undefined) {
        this.cache.delete(k);
        this.cache.set(k, bytes);
      }
    }
    while (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }

  /** A node's hash from the edge tiles or the cache; notes the cached tile it came from. */
  private lookup(id: NodeId, used: Set<number>): Uint8Array | undefined {
    const level = Math.floor(id.level / TILE_HEIGHT);
    const row = id.level - level * TILE_HEIGHT;
    const perTile = TILE_WIDTH / 2 ** row;
    const index = Math.floor(id.index / perTile);
    const pos = id.index - index * perTile;
    const fromEdge = this.edge.edgeTile(level, index)?.[row]?.[pos];
    if (fromEdge !== undefined) return fromEdge;
    const key = keyOf(level, index);
    const bytes = this.cache.get(key);
    if (bytes === undefined) return undefined;
    used.add(key);
    return tileHash(bytes, row, pos);
  }
}

function tileOf(id: NodeId): TileId {
  const level = Math.floor(id.level / TILE_HEIGHT);
  const perTile = TILE_WIDTH / 2 ** (id.level - level * TILE_HEIGHT);
  return { level, index: Math.floor(id.index / perTile) };
}
