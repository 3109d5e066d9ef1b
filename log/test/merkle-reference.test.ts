// Every inclusion (index, size) and consistency (first, second) pair for sizes 1..300: the
// plan-built proof equals the naive RFC 6962 reference, verifies, and fails once damaged.
import t from 'tap';
import { toHex } from '../src/hash.js';
import {
  EMPTY_ROOT,
  applyPlan,
  consistencyPlan,
  inclusionPlan,
  rangeNodes,
  rootFromInclusionProof,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
  type ProofPlan,
} from '../src/merkle.js';
import { coverage, mthOf, refLeaf, refPath, refProof } from './reference.js';

const N = 300;
const leaves = Array.from({ length: N }, (_, i) => refLeaf(new TextEncoder().encode(`leaf ${i}`)));
const mth = mthOf(leaves);
const roots = Array.from({ length: N + 1 }, (_, n) => mth(0, n));
const same = (a: Uint8Array[], b: Uint8Array[]): boolean => a.map(toHex).join() === b.map(toHex).join();

/** A copy of `hash` with bit `bit` flipped. */
function flip(hash: Uint8Array, bit: number): Uint8Array {
  const out = Uint8Array.from(hash);
  const i = Math.floor(bit / 8) % out.length;
  out[i] = out[i]! ^ (1 << (bit % 8)); // a byte, not a tree index: 32-bit operators are fine
  return out;
}

/** A copy of `proof` with one bit of element `pos` flipped. */
function damage(proof: Uint8Array[], pos: number, bit: number): Uint8Array[] {
  return proof.map((h, i) => (i === pos ? flip(h, bit) : h));
}

/** Reads the plan's nodes from the reference tree; complains if one is not inside [0, size). */
function fetch(plan: ProofPlan, size: number, bad: string[], what: string): Uint8Array[] {
  return plan.nodes.map(({ level, index }) => {
    const [b, e] = coverage(level, index);
    if (e > size) bad.push(`${what}: node (${level}, ${index}) is outside the tree`);
    return mth(b, Math.min(e, size));
  });
}

t.test('roots and rangeNodes agree with the reference', async (t) => {
  const bad: string[] = [];
  for (let n = 0; n <= N; n++) {
    if (toHex(rootFromLeafHashes(leaves.slice(0, n))) !== toHex(roots[n]!)) bad.push(`root ${n}`);
  }
  t.equal(toHex(roots[0]!), toHex(EMPTY_ROOT));
  // rangeNodes: contiguous, aligned, maximal (no node's parent fits in the range).
  for (let begin = 0; begin <= 70; begin++) {
    for (let end = begin; end <= 70; end++) {
      let at = begin;
      for (const { level, index } of rangeNodes(begin, end)) {
        const [b, e] = coverage(level, index);
        const [pb, pe] = coverage(level + 1, Math.floor(index / 2));
        if (b !== at || e > end || (pb >= begin && pe <= end)) bad.push(`rangeNodes ${begin} ${end}`);
        at = e;
      }
      if (at !== end) bad.push(`rangeNodes ${begin} ${end} stops at ${at}`);
    }
  }
  t.same(bad, []);
});

t.test('every inclusion proof for sizes 1..300', async (t) => {
  const bad: string[] = [];
  let pairs = 0;
  let damaged = 0;
  for (let size = 1; size <= N; size++) {
    const root = roots[size]!;
    for (let index = 0; index < size; index++) {
      const what = `inclusion ${index}/${size}`;
      pairs++;
      const plan = inclusionPlan(index, size);
      const proof = applyPlan(plan, fetch(plan, size, bad, what));
      const leaf = leaves[index]!;
      if (!same(proof, refPath(mth, index, 0, size))) bad.push(`${what}: differs from PATH`);
      if (!verifyInclusion(index, size, leaf, proof, root)) bad.push(`${what}: does not verify`);
      if (toHex(rootFromInclusionProof(index, size, leaf, proof)) !== toHex(root)) bad.push(`${what}: root`);
      // Damage: every element for small trees, one sampled element (and bit) otherwise.
      const positions = size <= 64 ? proof.map((_, i) => i) : proof.length > 0 ? [(index * 7 + size) % proof.length] : [];
      for (const pos of positions) {
        damaged++;
        if (verifyInclusion(index, size, leaf, damage(proof, pos, (index + size + pos) % 256), root)) {
          bad.push(`${what}: accepts a flipped bit in element ${pos}`);
        }
      }
      if (verifyInclusion(index, size, leaves[(index + 1) % N]!, proof, root)) bad.push(`${what}: accepts another leaf`);
      if (verifyInclusion(index, size, leaf, proof, roots[size - 1]!)) bad.push(`${what}: accepts the root of ${size - 1}`);
      if (verifyInclusion(index, size, leaf, proof, flip(root, index % 256))) bad.push(`${what}: accepts a flipped root`);
      if (size > 1 && verifyInclusion((index + 1) % size, size, leaf, proof, root)) bad.push(`${what}: accepts another index`);
      if (proof.length > 0 && verifyInclusion(index, size, leaf, proof.slice(0, -1), root)) bad.push(`${what}: truncated`);
      if (verifyInclusion(index, size, leaf, [...proof, root], root)) bad.push(`${what}: extended`);
    }
  }
  t.equal(pairs, (N * (N + 1)) / 2);
  t.ok(damaged > pairs - N, `${damaged} damaged proofs rejected`);
  t.same(bad.slice(0, 20), [], `${bad.length} failures`);
});

t.test('every consistency proof for sizes 0..300', async (t) => {
  const bad: string[] = [];
  let pairs = 0;
  for (let second = 1; second <= N; second++) {
    const r2 = roots[second]!;
    for (let first = 0; first <= second; first++) {
      const what = `consistency ${first}->${second}`;
      pairs++;
      const r1 = roots[first]!;
      const plan = consistencyPlan(first, second);
      const proof = applyPlan(plan, fetch(plan, second, bad, what));
      if (!same(proof, refProof(mth, first, second))) bad.push(`${what}: differs from PROOF`);
      if (!verifyConsistency(first, second, proof, r1, r2)) bad.push(`${what}: does not verify`);
      if ((first === 0 || first === second) !== (proof.length === 0)) bad.push(`${what}: empty iff 0 or equal`);
      const positions = second <= 48 ? proof.map((_, i) => i) : proof.length > 0 ? [(first * 5 + second) % proof.length] : [];
      for (const pos of positions) {
        if (verifyConsistency(first, second, damage(proof, pos, (first + second + pos) % 256), r1, r2)) {
          bad.push(`${what}: accepts a flipped bit in element ${pos}`);
        }
      }
      if (verifyConsistency(first, second, proof, flip(r1, first % 256), r2)) bad.push(`${what}: accepts a wrong first root`);
      // From size 0 any second root is consistent (the empty tree is a prefix of every tree).
      const wrongR2 = verifyConsistency(first, second, proof, r1, flip(r2, second % 256));
      if (wrongR2 !== (first === 0)) bad.push(`${what}: wrong second root gives ${wrongR2}`);
      if (first > 0 && first < second) {
        if (verifyConsistency(first, second, proof, r2, r1)) bad.push(`${what}: accepts swapped roots`);
        if (verifyConsistency(first, second, proof.slice(0, -1), r1, r2)) bad.push(`${what}: truncated`);
        if (verifyConsistency(first, second, [...proof, r2], r1, r2)) bad.push(`${what}: extended`);
        if (verifyConsistency(first, second, [], r1, r2)) bad.push(`${what}: accepts the empty proof`);
      }
    }
  }
  t.equal(pairs, (N * (N + 3)) / 2);
  t.same(bad.slice(0, 20), [], `${bad.length} failures`);
});

t.test('plan and verifier argument errors', async (t) => {
  t.throws(() => inclusionPlan(5, 5), { code: 'out_of_range' });
  t.throws(() => inclusionPlan(0, 0), { code: 'out_of_range' });
  t.throws(() => inclusionPlan(-1, 5), { code: 'bad_argument' });
  t.throws(() => inclusionPlan(1.5, 5), { code: 'bad_argument' });
  t.throws(() => inclusionPlan(0, 2 ** 53), { code: 'bad_argument' });
  t.throws(() => consistencyPlan(6, 5), { code: 'out_of_range' });
  t.throws(() => consistencyPlan(NaN, 5), { code: 'bad_argument' });
  t.throws(() => rangeNodes(5, 4), { code: 'out_of_range' });
  t.same(consistencyPlan(0, 0), { nodes: [], begin: 0, end: 0 });
  t.same(consistencyPlan(0, 77), { nodes: [], begin: 0, end: 0 });
  t.same(consistencyPlan(77, 77), { nodes: [], begin: 0, end: 0 });
  const plan = inclusionPlan(3, 10);
  t.throws(() => applyPlan(plan, []), { code: 'bad_argument' });
  const leaf = leaves[3]!;
  const proof = refPath(mth, 3, 0, 10);
  t.throws(() => rootFromInclusionProof(10, 10, leaf, proof), { code: 'out_of_range' });
  t.throws(() => rootFromInclusionProof(3, 10, leaf, proof.slice(1)), { code: 'bad_argument' });
  t.throws(() => rootFromInclusionProof(3, 10, leaf.subarray(1), proof), { code: 'bad_argument' });
  // The verifiers never throw, whatever they are given.
  const junk: unknown[] = [undefined, null, -1, 2 ** 64, '3', [new Uint8Array(31)], [null], {}];
  for (const j of junk) {
    t.equal(verifyInclusion(j as number, 10, leaf, proof, roots[10]!), false);
    t.equal(verifyInclusion(3, 10, leaf, j as Uint8Array[], roots[10]!), false);
    t.equal(verifyInclusion(3, 10, j as Uint8Array, proof, roots[10]!), false);
    t.equal(verifyConsistency(j as number, 10, [], roots[0]!, roots[10]!), false);
    t.equal(verifyConsistency(4, 10, j as Uint8Array[], roots[4]!, roots[10]!), false);
    t.equal(verifyConsistency(4, 10, refProof(mth, 4, 10), j as Uint8Array, roots[10]!), false);
  }
  // Our policy (docs/log-format.md): from 0 only the empty proof, with the empty root.
  t.ok(verifyConsistency(0, 10, [], EMPTY_ROOT, roots[10]!));
  t.ok(verifyConsistency(0, 0, [], EMPTY_ROOT, EMPTY_ROOT));
  t.notOk(verifyConsistency(0, 10, [roots[10]!], EMPTY_ROOT, roots[10]!));
  t.notOk(verifyConsistency(0, 10, [], roots[1]!, roots[10]!));
  t.notOk(verifyConsistency(0, 0, [], EMPTY_ROOT, roots[1]!));
  t.ok(verifyConsistency(10, 10, [], roots[10]!, roots[10]!));
  t.notOk(verifyConsistency(10, 10, [], roots[10]!, roots[9]!));
  t.notOk(verifyConsistency(10, 10, [roots[10]!], roots[10]!, roots[10]!));
  t.notOk(verifyConsistency(11, 10, [], roots[10]!, roots[10]!));
});
