// Reads node hashes for proofs: from the growing edge tiles in memory, else from a cache of
// stored tiles, else from the store. A proof at any size reads O(log n) hashes from at most a
// few tiles; nothing is recomputed. Cached tiles stay correct as the tree grows, because a
// stored tile is always a prefix of its later versions: a node missing from a cached copy
// is fetched again.
import { LogError } from './errors.js';
import type { NodeId } from './merkle.js';
import type { LogStore } from './store.js';
import { slotOf, tileHash, tileKey, type TileId, type TileSlot } from './tiles.js';
import type { TreeEdge } from './tree-edge.js';

export class TileReader {
  /** Least recently used first (a Map keeps insertion order). */
  private cache = new Map<string, Uint8Array>();

  constructor(
    private readonly store: LogStore,
    private readonly edge: TreeEdge,
    private readonly capacity = 2048,
  ) {}

  /** The hashes of complete subtrees `ids`, in order. */
  async nodes(ids: NodeId[]): Promise<Uint8Array[]> {
    const slots = ids.map(slotOf);
    const out: (Uint8Array | undefined)[] = slots.map((s) => this.fromMemory(s));
    const missing = new Map<string, TileId>();
    slots.forEach((s, i) => {
      if (out[i] === undefined) missing.set(tileKey(s.tile), s.tile);
    });
    if (missing.size > 0) {
      const ids = [...missing.values()];
      const tiles = await this.store.getTiles(ids);
      tiles.forEach((bytes, i) => {
        if (bytes !== undefined) this.remember(tileKey(ids[i]!), bytes);
      });
      slots.forEach((s, i) => {
        if (out[i] === undefined) out[i] = this.fromMemory(s);
      });
    }
    return out.map((h, i) => {
      if (h === undefined) throw new LogError('corrupt', `hash of node (${ids[i]!.level}, ${ids[i]!.index}) is missing`);
      return h;
    });
  }

  private fromMemory(s: TileSlot): Uint8Array | undefined {
    const rows = this.edge.edgeTile(s.tile);
    const fromEdge = rows?.[s.row]?.[s.pos];
    if (fromEdge !== undefined) return fromEdge;
    const key = tileKey(s.tile);
    const bytes = this.cache.get(key);
    if (bytes === undefined) return undefined;
    this.cache.delete(key); // refresh its place in the LRU order
    this.cache.set(key, bytes);
    return tileHash(bytes, s.row, s.pos);
  }

  private remember(key: string, bytes: Uint8Array): void {
    this.cache.delete(key);
    this.cache.set(key, bytes);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }
}
