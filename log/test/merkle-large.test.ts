// Proofs at indexes and sizes beyond 2^31, 2^32 and up to 2^53 - 1, on a synthetic tree whose
// leaves all hash alike except a few "special" ones: any subtree hash is then computable
// lazily (see sparseMth), and the path from a special leaf has a distinct hash at every level.
import t from 'tap';
import { toHex } from '../src/hash.js';
import {
  applyPlan,
  consistencyPlan,
  inclusionPlan,
  rangeNodes,
  rootFromInclusionProof,
  verifyConsistency,
  verifyInclusion,
  type ProofPlan,
} from '../src/merkle.js';
import { coverage, refLeaf, refPath, refProof, sparseMth } from './reference.js';

const MAX = Number.MAX_SAFE_INTEGER; // 2^53 - 1
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const common = refLeaf(enc('common leaf'));
const specialIndexes = [2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 2, 2 ** 33 + 3, 2 ** 52 + 7, MAX - 1];
const special = new Map(specialIndexes.map((i) => [i, refLeaf(enc(`special leaf ${i}`))]));
const mth = sparseMth(common, special);
const leafAt = (i: number): Uint8Array => special.get(i) ?? common;
const hex = (xs: Uint8Array[]): string => xs.map(toHex).join();

const sizes = [2 ** 31 + 1, 2 ** 32, 2 ** 32 + 1, 2 ** 32 + 3, 2 ** 33 + 5, 2 ** 52 + 8, 3 * 2 ** 50 + 12345, MAX];

/** Reads a plan's nodes lazily; records any node that is not a complete subtree of the tree. */
function fetch(plan: ProofPlan, size: number, bad: string[], what: string): Uint8Array[] {
  return plan.nodes.map(({ level, index }) => {
    const [b, e] = coverage(level, index);
    if (!Number.isSafeInteger(e) || e > size || level < 0) bad.push(`${what}: node (${level}, ${index}) outside`);
    return mth(b, e);
  });
}

/** A copy of `h` with its first bit flipped. */
const flip = (h: Uint8Array): Uint8Array => Uint8Array.from(h, (b, i) => (i === 0 ? b ^ 0x80 : b));

t.test('rangeNodes beyond 2^32', async (t) => {
  const all = rangeNodes(0, MAX);
  t.equal(all.length, 53, 'MAX = 2^53 - 1 is 53 complete subtrees');
  t.same(
    all.map((n) => n.level),
    Array.from({ length: 53 }, (_, i) => 52 - i),
  );
  t.same(rangeNodes(0, 2 ** 33 + 5), [
    { level: 33, index: 0 },
    { level: 2, index: 2 ** 31 },
    { level: 0, index: 2 ** 33 + 4 },
  ]);
  t.same(rangeNodes(2 ** 32 - 1, 2 ** 32 + 2), [
    { level: 0, index: 2 ** 32 - 1 },
    { level: 1, index: 2 ** 31 },
  ]);
});

t.test('inclusion proofs beyond 2^32', async (t) => {
  const bad: string[] = [];
  let checked = 0;
  for (const size of sizes) {
    const root = mth(0, size);
    const indexes = new Set([0, 1, size - 1, size - 2, 2 ** 31, Math.floor(size / 3), ...specialIndexes]);
    for (const index of [...indexes].filter((i) => i >= 0 && i < size)) {
      const what = `inclusion ${index}/${size}`;
      checked++;
      const plan = inclusionPlan(index, size);
      const nodes = fetch(plan, size, bad, what);
      const proof = applyPlan(plan, nodes);
      const ref = refPath(mth, index, 0, size);
      if (hex(proof) !== hex(ref)) bad.push(`${what}: differs from PATH`);
      // The fold run holds only the ephemeral node's subtrees: plan length = proof length + run - 1.
      const run = plan.end - plan.begin;
      if (plan.nodes.length !== proof.length + Math.max(run - 1, 0)) bad.push(`${what}: node count`);
      const leaf = leafAt(index);
      if (!verifyInclusion(index, size, leaf, proof, root)) bad.push(`${what}: does not verify`);
      if (toHex(rootFromInclusionProof(index, size, leaf, proof)) !== toHex(root)) bad.push(`${what}: root`);
      for (let pos = 0; pos < proof.length; pos++) {
        const damaged = proof.map((h, i) => (i === pos ? flip(h) : h));
        if (verifyInclusion(index, size, leaf, damaged, root)) bad.push(`${what}: accepts flipped element ${pos}`);
      }
      const other = special.has(index) ? common : refLeaf(enc('not in the tree'));
      if (verifyInclusion(index, size, other, proof, root)) bad.push(`${what}: accepts another leaf`);
      if (verifyInclusion(index, size, leaf, proof, flip(root))) bad.push(`${what}: accepts a wrong root`);
    }
  }
  t.ok(checked > 60, `${checked} (index, size) pairs`);
  t.same(bad, []);
  // The proof of 2^32 in 2^33 + 5 leaves: 33 levels of a perfect subtree, then the right edge.
  const plan = inclusionPlan(2 ** 32, 2 ** 33 + 5);
  t.equal(applyPlan(plan, fetch(plan, 2 ** 33 + 5, [], '')).length, 34);
  t.equal(plan.end - plan.begin, 2, 'the right edge [2^33, 2^33 + 5) folds two subtrees');
});

t.test('consistency proofs beyond 2^32', async (t) => {
  const bad: string[] = [];
  const pairs: [number, number][] = [
    [1, 2 ** 32 + 1],
    [5, 2 ** 33 + 5],
    [2 ** 31, 2 ** 32],
    [2 ** 31 + 1, 2 ** 32 + 3],
    [2 ** 32 - 1, 2 ** 32],
    [2 ** 32, 2 ** 32 + 1],
    [2 ** 32 + 1, 2 ** 33 + 5],
    [2 ** 32 + 3, 2 ** 52 + 8],
    [2 ** 33 + 4, 2 ** 33 + 5],
    [3 * 2 ** 50 + 12345, MAX],
    [MAX - 1, MAX],
    [2 ** 52, MAX],
  ];
  for (const [first, second] of pairs) {
    const what = `consistency ${first}->${second}`;
    const plan = consistencyPlan(first, second);
    const proof = applyPlan(plan, fetch(plan, second, bad, what));
    if (hex(proof) !== hex(refProof(mth, first, second))) bad.push(`${what}: differs from PROOF`);
    const [r1, r2] = [mth(0, first), mth(0, second)];
    if (!verifyConsistency(first, second, proof, r1, r2)) bad.push(`${what}: does not verify`);
    for (let pos = 0; pos < proof.length; pos++) {
      const damaged = proof.map((h, i) => (i === pos ? flip(h) : h));
      if (verifyConsistency(first, second, damaged, r1, r2)) bad.push(`${what}: accepts flipped element ${pos}`);
    }
    if (verifyConsistency(first, second, proof, flip(r1), r2)) bad.push(`${what}: accepts a wrong first root`);
    if (verifyConsistency(first, second, proof, r1, flip(r2))) bad.push(`${what}: accepts a wrong second root`);
  }
  t.same(bad, []);
  t.same(consistencyPlan(0, MAX).nodes, []);
  t.same(consistencyPlan(MAX, MAX).nodes, []);
  t.throws(() => consistencyPlan(MAX, MAX + 1), { code: 'bad_argument' });
  t.notOk(verifyInclusion(MAX, MAX, common, [], mth(0, MAX)), 'index = size is refused');
  t.notOk(verifyInclusion(2 ** 53, 2 ** 53 + 2, common, [], mth(0, 2)), 'unsafe sizes are refused');
});
