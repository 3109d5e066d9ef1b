// The right edge of a Merkle tree and the stored hash groups (see store.ts), shared by the
// sequencer, which grows the tree, and the audit, which recomputes it.
import { trailingZeros } from './bits.js';
import { LogError } from './errors.js';
import { EMPTY_ROOT, hashChildren, type NodeId } from './merkle.js';
import type { LogStore } from './store.js';

/** A complete subtree on the right edge of the tree; a frontier lists them left to right. */
export interface FrontierNode {
  level: number;
  hash: Uint8Array;
}

/**
 * Adds leaf `seq` to the frontier, merging equal-level subtrees, and returns the hash group of
 * `seq`: the leaf hash then every subtree it completes. Leaf seq completes trailingZeros(seq + 1)
 * levels above the leaf.
 */
export function pushLeaf(frontier: FrontierNode[], leafHash: Uint8Array, seq: number): Uint8Array {
  const levels = trailingZeros(seq + 1);
  const group = new Uint8Array(32 * (levels + 1));
  let hash = leafHash;
  group.set(hash, 0);
  for (let level = 1; level <= levels; level++) {
    const left = frontier.pop()!;
    hash = hashChildren(left.hash, hash);
    group.set(hash, 32 * level);
  }
  frontier.push({ level: levels, hash });
  return group;
}

/** RFC 9162 2.1.1: the root from the complete subtrees of [0, size), folded right to left. */
export function foldRight(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return EMPTY_ROOT;
  let r = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) r = hashChildren(hashes[i]!, r);
  return r;
}

/** Seq of the hash group holding node (level, index): its last leaf. */
export function groupOf(id: NodeId): number {
  return (id.index + 1) * 2 ** id.level - 1;
}

/** Reads the hashes of complete subtrees from their groups: O(number of nodes) reads. */
export async function readNodes(store: LogStore, ids: NodeId[]): Promise<Uint8Array[]> {
  const seqs = [...new Set(ids.map(groupOf))];
  const groups = await store.getGroups(seqs);
  const bySeq = new Map<number, Uint8Array | undefined>(seqs.map((s, i) => [s, groups[i]]));
  return ids.map((id) => {
    const g = bySeq.get(groupOf(id));
    if (g === undefined || g.length < 32 * (id.level + 1)) {
      throw new LogError('corrupt', `hash of node (${id.level}, ${id.index}) is missing`);
    }
    return g.subarray(32 * id.level, 32 * id.level + 32);
  });
}

