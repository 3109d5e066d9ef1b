// RFC 9162 section 2.1 Merkle tree math: hashes, proof plans and verification. Pure and
// synchronous, no I/O. Working out which nodes a proof needs (a plan) is separate from
// reading their hashes, as in transparency-dev/merkle proof/proof.go.
import {
  assertIndex,
  bitLength,
  commonAncestorLevel,
  isIndex,
  isPowerOfTwo,
  pow2,
  shiftRight,
  siblingIndex,
  trailingZeros,
} from './bits.js';
import { LogError } from './errors.js';
import { bytesEqual, sha256, sha256Tagged } from './hash.js';

const HASH_SIZE = 32;

/** RFC 9162 2.1.1: MTH({}) = SHA-256 of no bytes. */
export const EMPTY_ROOT: Uint8Array = sha256();

/** RFC 9162 2.1.1: MTH({d}) = SHA-256(0x00 || d). */
export function hashLeaf(data: Uint8Array): Uint8Array {
  return sha256Tagged(0x00, data);
}

/** RFC 9162 2.1.1: an interior node = SHA-256(0x01 || left || right). */
export function hashChildren(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256Tagged(0x01, left, right);
}

/** A complete subtree of a tree's left edge: its height and its hash. */
export interface Subtree {
  level: number;
  hash: Uint8Array;
}

/**
 * The complete subtrees of [0, n + leaves), left to right, from those of [0, n) (`range`, not
 * changed) and the next leaves' hashes: a stack merged whenever the top two have the same level,
 * the RFC's split at k (largest power of two < n) applied bottom up.
 */
export function appendToRange(range: readonly Subtree[], leafHashes: Iterable<Uint8Array>): Subtree[] {
  const stack = range.slice();
  for (const leaf of leafHashes) {
    let node = { level: 0, hash: leaf };
    while (stack.length > 0 && stack[stack.length - 1]!.level === node.level) {
      const left = stack.pop()!;
      node = { level: node.level + 1, hash: hashChildren(left.hash, node.hash) };
    }
    stack.push(node);
  }
  return stack;
}

/** RFC 9162 2.1.1: MTH over the given leaf hashes (complete subtrees folded right to left). */
export function rootFromLeafHashes(leafHashes: Uint8Array[]): Uint8Array {
  return rootFromSubtrees(appendToRange([], leafHashes).map((n) => n.hash));
}

/**
 * RFC 9162 2.1.1: the root from the hashes of the complete subtrees of [0, n) (rangeNodes(0, n)),
 * left to right, folded right to left.
 */
export function rootFromSubtrees(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return EMPTY_ROOT;
  let root = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) root = hashChildren(hashes[i]!, root);
  return root;
}

/** A complete subtree: leaves [index * 2^level, (index + 1) * 2^level). */
export interface NodeId {
  level: number;
  index: number;
}

/**
 * The nodes to fetch for a proof; hashes of nodes[begin, end) are folded right to left into
 * one "ephemeral" node (a subtree that is not complete in this tree). begin === end: no fold.
 */
export interface ProofPlan {
  nodes: NodeId[];
  begin: number;
  end: number;
}

/** Decomposes leaves [begin, end) into maximal aligned complete subtrees, left to right. */
export function rangeNodes(begin: number, end: number): NodeId[] {
  assertIndex(begin, 'begin');
  assertIndex(end, 'end');
  if (begin > end) throw new LogError('out_of_range', `range [${begin}, ${end}) is reversed`);
  const out: NodeId[] = [];
  while (begin < end) {
    // The largest subtree that starts at `begin` (aligned: level <= trailing zeros of begin)
    // and does not pass `end` (2^level <= end - begin).
    let level = bitLength(end - begin) - 1;
    if (begin > 0) level = Math.min(level, trailingZeros(begin));
    out.push({ level, index: shiftRight(begin, level) });
    begin += pow2(level);
  }
  return out;
}

/**
 * The nodes proving that node (level, index) is in the tree of `size` leaves, starting with
 * that node itself (transparency-dev's proof.nodes).
 */
function pathNodes(index: number, level: number, size: number): ProofPlan {
  // The fork: where the path from (level, index) up to the root parts from the path to the
  // tree's right edge. Below it the siblings are complete; at it, the sibling may be ephemeral.
  const inner = commonAncestorLevel(index, shiftRight(size, level)) - 1;
  const forkLevel = level + inner;
  const forkBegin = shiftRight(index, inner) * pow2(forkLevel);
  const forkEnd = forkBegin + pow2(forkLevel);

  const nodes: NodeId[] = [{ level, index }];
  for (let l = level, i = index; l < forkLevel; l++, i = shiftRight(i, 1)) {
    nodes.push({ level: l, index: siblingIndex(i) });
  }
  // The ephemeral node: the complete subtrees of [forkEnd, size), lowest first for the fold.
  const right = forkEnd < size ? rangeNodes(forkEnd, size).reverse() : [];
  const begin = nodes.length;
  nodes.push(...right);
  const end = nodes.length;
  // The rest of the tree to the left of the fork, lowest first (leaf-to-root order).
  nodes.push(...rangeNodes(0, forkBegin).reverse());
  return begin < end ? { nodes, begin, end } : { nodes, begin: 0, end: 0 };
}

/** Drops the first node (known to the verifier), keeping the fold run aligned. */
function skipFirst(plan: ProofPlan): ProofPlan {
  const nodes = plan.nodes.slice(1);
  return plan.begin < plan.end ? { nodes, begin: plan.begin - 1, end: plan.end - 1 } : { nodes, begin: 0, end: 0 };
}

/** RFC 9162 2.1.3.1: the nodes whose hashes make PATH(index, D[0:size]). Requires index < size. */
export function inclusionPlan(index: number, size: number): ProofPlan {
  assertIndex(index, 'index');
  assertIndex(size, 'size');
  if (index >= size) throw new LogError('out_of_range', `index ${index} is not below tree size ${size}`);
  return skipFirst(pathNodes(index, 0, size));
}

/**
 * RFC 9162 2.1.4.1: the nodes whose hashes make PROOF(first, D[0:second]). Requires
 * first <= second; from 0 or between equal sizes the proof is empty (docs/log-format.md).
 */
export function consistencyPlan(first: number, second: number): ProofPlan {
  assertIndex(first, 'first');
  assertIndex(second, 'second');
  if (first > second) throw new LogError('out_of_range', `first size ${first} is above second size ${second}`);
  if (first === 0 || first === second) return { nodes: [], begin: 0, end: 0 };
  // The largest complete subtree ending at `first`; the proof is its inclusion path in the
  // second tree, preceded by the subtree itself unless it is the whole first tree (a power
  // of two), whose root the verifier already holds (SUBPROOF's b flag).
  const level = trailingZeros(first);
  const plan = pathNodes(shiftRight(first - 1, level), level, second);
  return isPowerOfTwo(first) ? skipFirst(plan) : plan;
}

/** Turns the hashes of plan.nodes (same order) into the proof, leaf to root (Rehash). */
export function applyPlan(plan: ProofPlan, hashes: Uint8Array[]): Uint8Array[] {
  if (hashes.length !== plan.nodes.length) {
    throw new LogError('bad_argument', `expected ${plan.nodes.length} hashes, got ${hashes.length}`);
  }
  const proof: Uint8Array[] = [];
  for (let i = 0; i < hashes.length; i++) {
    let hash = hashes[i]!;
    if (i === plan.begin && plan.begin < plan.end) {
      // Fold the ephemeral run right to left: each next node is the left sibling.
      for (i++; i < plan.end; i++) hash = hashChildren(hashes[i]!, hash);
      i--;
    }
    proof.push(hash);
  }
  return proof;
}

/** True when every element is a 32-byte hash. */
function isHashList(proof: unknown): proof is Uint8Array[] {
  return Array.isArray(proof) && proof.every(isHash);
}

function isHash(h: unknown): h is Uint8Array {
  return h instanceof Uint8Array && h.length === HASH_SIZE;
}

/** RFC 9162 2.1.3.2, steps 1-5 without the comparison; null when the proof is malformed. */
function inclusionRoot(index: unknown, size: unknown, leafHash: unknown, proof: unknown): Uint8Array | null {
  if (!isIndex(index) || !isIndex(size) || index >= size || !isHash(leafHash) || !isHashList(proof)) return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return null; // 4a: proof longer than the path
    if (fn % 2 === 1 || fn === sn) {
      r = hashChildren(p, r); // 4b: p is a left sibling
      // On the right edge (fn === sn, even): skip the levels where the node has no sibling.
      while (fn % 2 === 0 && fn !== 0) {
        fn = shiftRight(fn, 1);
        sn = shiftRight(sn, 1);
      }
    } else {
      r = hashChildren(r, p); // p is a right sibling
    }
    fn = shiftRight(fn, 1); // 4c
    sn = shiftRight(sn, 1);
  }
  return sn === 0 ? r : null; // 5: the proof must reach the root exactly
}

/**
 * RFC 9162 2.1.3.2: the root implied by an inclusion proof of `leafHash` at `index` in a tree
 * of `size`. Throws LogError: 'out_of_range' if index >= size, 'bad_argument' if malformed.
 */
export function rootFromInclusionProof(index: number, size: number, leafHash: Uint8Array, proof: Uint8Array[]): Uint8Array {
  assertIndex(index, 'index');
  assertIndex(size, 'size');
  if (index >= size) throw new LogError('out_of_range', `index ${index} is not below tree size ${size}`);
  const r = inclusionRoot(index, size, leafHash, proof);
  if (r === null) throw new LogError('bad_argument', `malformed inclusion proof for index ${index} in size ${size}`);
  return r;
}

/** RFC 9162 2.1.3.2: true iff `proof` shows `leafHash` at `index` in the tree (size, root). */
export function verifyInclusion(index: number, size: number, leafHash: Uint8Array, proof: Uint8Array[], root: Uint8Array): boolean {
  const r = inclusionRoot(index, size, leafHash, proof);
  return r !== null && isHash(root) && bytesEqual(r, root);
}

/**
 * RFC 9162 2.1.4.2: true iff `proof` shows the tree (first, firstRoot) is a prefix of
 * (second, secondRoot). Our policy (docs/log-format.md): from size 0 only the empty proof
 * is valid, and firstRoot must be the empty tree's root; between equal sizes only the empty
 * proof with equal roots. Never throws.
 */
export function verifyConsistency(
  first: number,
  second: number,
  proof: Uint8Array[],
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
): boolean {
  if (!isIndex(first) || !isIndex(second) || first > second) return false;
  if (!isHash(firstRoot) || !isHash(secondRoot) || !isHashList(proof)) return false;
  if (first === 0 || first === second) {
    if (proof.length !== 0) return false;
    if (first === 0 && !bytesEqual(firstRoot, EMPTY_ROOT)) return false; // MTH({}) is fixed
    return first !== second || bytesEqual(firstRoot, secondRoot); // a tree is consistent with itself only
  }
  if (proof.length === 0) return false; // step 1
  // Step 2: when first is a power of two its root is the first node of the path.
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : proof;
  let fn = first - 1; // step 3
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = shiftRight(fn, 1); // step 4: climb to the largest complete subtree ending at first
    sn = shiftRight(sn, 1);
  }
  let fr = path[0]!; // step 5
  let sr = path[0]!;
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!;
    if (sn === 0) return false; // 6a: proof too long
    if (fn % 2 === 1 || fn === sn) {
      fr = hashChildren(c, fr); // 6b: c is a left sibling, in both trees
      sr = hashChildren(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = shiftRight(fn, 1); // right edge: skip the levels without a sibling
        sn = shiftRight(sn, 1);
      }
    } else {
      sr = hashChildren(sr, c); // c is a right sibling, only in the second tree
    }
    fn = shiftRight(fn, 1); // 6c
    sn = shiftRight(sn, 1);
  }
  return sn === 0 && bytesEqual(fr, firstRoot) && bytesEqual(sr, secondRoot); // step 7
}
