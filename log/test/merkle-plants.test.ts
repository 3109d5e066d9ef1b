// The rolling digests of draft-ietf-plants-merkle-tree-certs' "Subtree Test Vectors" (tree of
// 130 leaves, d[i] = the byte i). Each digest is SHA-256 over one text line per case, in the
// fixture's loop order: `for end in 0..130` and `for start in 0..end` are both inclusive (the
// empty ranges [s, s) count), for every valid subtree: start = 0, start = end, or start a
// multiple of bit_ceil(end - start).
// Subtrees starting at 0 are computed by log/merkle.ts (root, inclusion and consistency plans);
// valid subtrees at a non-zero start are aligned, so their inclusion proofs are our plans shifted
// right; only their hash and consistency proof come from the reference (test/log/reference.ts).
import { createHash } from 'node:crypto';
import t from 'tap';
import { bitCeil } from '../src/bits.js';
import { toHex } from '../src/hash.js';
import { EMPTY_ROOT, applyPlan, consistencyPlan, hashLeaf, inclusionPlan, rootFromLeafHashes } from '../src/merkle.js';
import { fixtureJson } from './helpers/fixtures.js';
import { mthOf, refSubtreeProof } from './reference.js';

const N = 130;
const leafHashes = Array.from({ length: N }, (_, i) => hashLeaf(Uint8Array.of(i)));
const ref = mthOf(leafHashes);
const valid = (start: number, end: number): boolean => start === 0 || start === end || start % bitCeil(end - start) === 0;
const line = (prefix: string, proof: Uint8Array[]): string => prefix + proof.map((h) => ` ${toHex(h)}`).join('') + '\n';

/** MTH(D[start:end]): ours for start = 0, the reference otherwise. */
function subtreeHash(start: number, end: number): Uint8Array {
  if (start === end) return EMPTY_ROOT;
  return start === 0 ? rootFromLeafHashes(leafHashes.slice(0, end)) : ref(start, end);
}

/** PATH(index - start, D[start:end]) from our plan for a tree of end - start leaves, shifted to start. */
function subtreeInclusion(index: number, start: number, end: number): Uint8Array[] {
  const plan = inclusionPlan(index - start, end - start);
  const hashes = plan.nodes.map(({ level, index: i }) => {
    const b = start + i * 2 ** level; // start is a multiple of bit_ceil(end - start) >= 2^level
    return rootFromLeafHashes(leafHashes.slice(b, b + 2 ** level));
  });
  return applyPlan(plan, hashes);
}

/** The subtree consistency proof of [start, end) in D[0:n]; for start = 0 it is PROOF(end, D[0:n]). */
function subtreeConsistency(start: number, end: number, n: number): Uint8Array[] {
  if (start !== 0) return refSubtreeProof(ref, start, end, n);
  const plan = consistencyPlan(end, n);
  return applyPlan(
    plan,
    plan.nodes.map(({ level, index }) => ref(index * 2 ** level, (index + 1) * 2 ** level)),
  );
}

function digest(write: (emit: (s: string) => void) => void): string {
  const h = createHash('sha256');
  write((s) => h.update(s));
  return h.digest('hex');
}

const v = fixtureJson('merkle/plants-subtree-rolling-digests.json');
const want = (name: string): string => v.vectors.find((x: any) => x.name === name).sha256;

t.test('subtreeHash digest', async (t) => {
  const got = digest((emit) => {
    for (let end = 0; end <= N; end++)
      for (let start = 0; start <= end; start++) if (valid(start, end)) emit(`[${start}, ${end}) ${toHex(subtreeHash(start, end))}\n`);
  });
  t.equal(got, want('subtreeHash'));
});

t.test('subtreeInclusion digest', async (t) => {
  const got = digest((emit) => {
    for (let end = 0; end <= N; end++)
      for (let start = 0; start <= end; start++)
        if (valid(start, end))
          for (let index = start; index < end; index++) emit(line(`${index} [${start}, ${end})`, subtreeInclusion(index, start, end)));
  });
  t.equal(got, want('subtreeInclusion'));
});

t.test('subtreeConsistency digest', async (t) => {
  const got = digest((emit) => {
    for (let n = 0; n <= N; n++)
      for (let end = 0; end <= n; end++)
        for (let start = 0; start <= end; start++)
          if (valid(start, end)) emit(line(`[${start}, ${end}) ${n}`, subtreeConsistency(start, end, n)));
  });
  t.equal(got, want('subtreeConsistency'));
});

t.test('a changed line changes the digest', async (t) => {
  // The digest is sensitive: dropping the empty ranges gives a different value.
  const got = digest((emit) => {
    for (let end = 1; end <= N; end++)
      for (let start = 0; start < end; start++) if (valid(start, end)) emit(`[${start}, ${end}) ${toHex(subtreeHash(start, end))}\n`);
  });
  t.not(got, want('subtreeHash'));
});
