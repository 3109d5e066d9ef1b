// Proofs fetched from a log and checked here (RFC 9162 2.1.3 and 2.1.4): that a smaller head is
// a prefix of a larger one, and that an entry is in a tree.
import { fromHex, toHex } from '../hash.js';
import { EMPTY_ROOT, verifyConsistency, verifyInclusion } from '../merkle.js';
import type { LogClient } from './log-client.js';

/** A tree head as far as proofs go: its size and its root, as lowercase hex. */
export interface TreeHead {
  treeSize: number;
  rootHash: string;
}

/**
 * Whether `small` is a prefix of `large`, by a consistency proof from `prover` (a log that holds
 * the larger tree). Equal sizes need equal roots; the empty tree (with
 * the empty root) is a prefix of every tree.
 * Null when the log answers with no proof; false when the proof does not hold; throws LogError('unavailable') when the log
 * cannot be read (a monitor's round then fails, rather than finding a head inconsistent for want of an answer).
 */
export async function consistent(prover: LogClient, small: TreeHead, large: TreeHead): Promise<boolean | null> {
  if (small.treeSize === large.treeSize) return small.rootHash === large.rootHash;
  if (small.treeSize === 0) return small.rootHash === toHex(EMPTY_ROOT);
  if (small.treeSize > large.treeSize) return false;
  const proof = await prover.consistencyProof(small.treeSize, large.treeSize);
  if (proof === null) return null;
  try {
    return verifyConsistency(small.treeSize, large.treeSize, proof, fromHex(small.rootHash, 32), fromHex(large.rootHash, 32));
  } catch {
    return false;
  }
}

/**
 * Whether the entry of leaf hash `leafHash` is entry `seq` of the tree `head`, by an inclusion
 * proof from `prover`. Null when no proof could be had; false when the proof does not hold.
 */
export async function included(prover: LogClient, seq: number, leafHash: Uint8Array, head: TreeHead): Promise<boolean | null> {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= head.treeSize) return false;
  const proof = await prover.inclusionProof(seq, head.treeSize).catch(() => null);
  if (proof === null) return null;
  try {
    return verifyInclusion(seq, head.treeSize, leafHash, proof, fromHex(head.rootHash, 32));
  } catch {
    return false;
  }
}
