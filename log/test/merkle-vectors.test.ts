// log/merkle.ts against public vectors: the CT reference tree, transparency-dev's corrupted
// proof probes, the draft-ietf-plants byte tree (derived proofs) and a real Tessera log.
import t from 'tap';
import { fromHex, toHex } from '../src/hash.js';
import {
  EMPTY_ROOT,
  applyPlan,
  consistencyPlan,
  hashChildren,
  hashLeaf,
  inclusionPlan,
  rootFromInclusionProof,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
  type NodeId,
  type ProofPlan,
} from '../src/merkle.js';
import { fixtureJson } from './helpers/fixtures.js';

const hexes = (xs: string[]): Uint8Array[] => xs.map((x) => fromHex(x));
const hexList = (xs: Uint8Array[]): string[] => xs.map(toHex);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Builds a proof from a plan, reading node hashes through `node`. */
function prove(plan: ProofPlan, node: (id: NodeId) => Uint8Array): Uint8Array[] {
  return applyPlan(plan, plan.nodes.map(node));
}

/** Node hashes of a tree given its leaf hashes, computed with rootFromLeafHashes. */
function nodeOf(leafHashes: Uint8Array[]): (id: NodeId) => Uint8Array {
  return ({ level, index }) => {
    const begin = index * 2 ** level;
    const end = begin + 2 ** level;
    if (end > leafHashes.length) throw new Error(`node (${level}, ${index}) is outside the tree`);
    return rootFromLeafHashes(leafHashes.slice(begin, end));
  };
}

t.test('rfc6962-ct-reference-8', async (t) => {
  const v = fixtureJson('merkle/rfc6962-ct-reference-8.json');
  const [empty, emptyLeaf, leaf, node] = v.hasher;
  t.equal(toHex(EMPTY_ROOT), empty.want, empty.desc);
  t.equal(toHex(hashLeaf(fromHex(emptyLeaf.leaf))), emptyLeaf.want, emptyLeaf.desc);
  t.equal(toHex(hashLeaf(fromHex(leaf.leaf))), leaf.want, leaf.desc);
  t.equal(toHex(hashChildren(fromHex(node.left), fromHex(node.right))), node.want, node.desc);

  const leafHashes = (v.leaves as string[]).map((l) => hashLeaf(fromHex(l)));
  t.same(hexList(leafHashes), v.leafHashes, 'leaf hashes');
  for (let n = 0; n <= 8; n++) {
    t.equal(toHex(rootFromLeafHashes(leafHashes.slice(0, n))), v.roots[n], `root of size ${n}`);
  }
  const byLevel = v.nodeHashesByLevel as string[][];
  const node8 = nodeOf(leafHashes);
  byLevel.forEach((hashes, level) => hashes.forEach((h, index) => t.equal(toHex(node8({ level, index })), h, `node (${level}, ${index})`)));
  // Plans read the published node hashes, as a log reads its store.
  const stored = ({ level, index }: NodeId): Uint8Array => fromHex(byLevel[level]![index]!);

  for (const c of v.inclusion) {
    const name = `inclusion ${c.index} in ${c.size}`;
    const proof = hexes(c.proof);
    t.ok(verifyInclusion(c.index, c.size, fromHex(c.leafHash), proof, fromHex(c.root)), name);
    t.equal(toHex(rootFromInclusionProof(c.index, c.size, fromHex(c.leafHash), proof)), c.root, `${name} root`);
    if (c.size === 8) t.same(hexList(prove(inclusionPlan(c.index, c.size), stored)), c.proof, `${name} from plan`);
    t.same(hexList(prove(inclusionPlan(c.index, c.size), nodeOf(leafHashes.slice(0, c.size)))), c.proof);
  }
  for (const c of v.consistency) {
    const name = `consistency ${c.first} to ${c.second}`;
    t.ok(verifyConsistency(c.first, c.second, hexes(c.proof), fromHex(c.firstRoot), fromHex(c.secondRoot)), name);
    if (c.second === 8) t.same(hexList(prove(consistencyPlan(c.first, c.second), stored)), c.proof, `${name} from plan`);
    t.same(hexList(prove(consistencyPlan(c.first, c.second), nodeOf(leafHashes.slice(0, c.second)))), c.proof);
  }
});

t.test('tdmerkle inclusion probes', async (t) => {
  const v = fixtureJson('merkle/tdmerkle-inclusion-probes.json');
  t.equal(v.probes.length, 98);
  let accepted = 0;
  for (const p of v.probes) {
    // Indexes such as 2^64 - 1 arrive as unsafe floats; the verifier must refuse them.
    const got = verifyInclusion(p.index, p.size, fromHex(p.leafHash), hexes(p.proof), fromHex(p.root));
    t.equal(got, !p.wantErr, `${p.file}: ${p.desc}`);
    if (got) accepted++;
  }
  t.equal(accepted, v.positive, 'exactly the happy paths verify');
});

t.test('tdmerkle consistency probes', async (t) => {
  const v = fixtureJson('merkle/tdmerkle-consistency-probes.json');
  t.equal(v.probes.length, 98);
  // These probes encode transparency-dev's policy, where first = 0 is always an error. Ours
  // (docs/log-format.md) accepts first = 0 with the empty proof, the empty tree's root as
  // first root and any 32-byte second root. The probes that our policy would accept but that
  // say wantErr are skipped; in this file there are none: every first = 0 probe also has a
  // non-empty proof, a first root other than SHA-256(""), or a malformed 12-byte root, so it
  // is rejected under both policies and is checked below like any other.
  const emptyHex = toHex(EMPTY_ROOT);
  const isRoot = (h: string): boolean => /^[0-9a-f]{64}$/.test(h);
  const firstZeroDiffers = (p: any): boolean =>
    p.wantErr &&
    p.first === 0 &&
    p.proof.length === 0 &&
    p.firstRoot === emptyHex &&
    isRoot(p.secondRoot) &&
    (p.second !== 0 || p.secondRoot === p.firstRoot);
  // One more probe differs, and not at first = 0: "sizes are equal (one) and proof is empty"
  // passes 12-byte "roots" and wants them accepted because they are equal. Our verifier
  // refuses any root that is not 32 bytes (a malformed input is never valid), so for that probe
  // we assert our verdict (false) instead of the file's.
  const malformedRootAccepted = (p: any): boolean => !p.wantErr && !(isRoot(p.firstRoot) && isRoot(p.secondRoot));
  const skipped = v.probes.filter(firstZeroDiffers);
  const rootPolicy = v.probes.filter(malformedRootAccepted);
  t.equal(skipped.length, 0, 'first = 0 probes whose verdict differs from ours');
  t.equal(v.probes.filter((p: any) => p.first === 0).length, 9, 'first = 0 probes, all checked');
  t.same(
    rootPolicy.map((p: any) => p.desc),
    ['sizes are equal (one) and proof is empty'],
  );
  let accepted = 0;
  for (const p of v.probes) {
    if (skipped.includes(p)) continue;
    const got = verifyConsistency(p.first, p.second, hexes(p.proof), fromHex(p.firstRoot), fromHex(p.secondRoot));
    const want = rootPolicy.includes(p) ? false : !p.wantErr;
    t.equal(got, want, `${p.file}: ${p.desc}`);
    if (got) accepted++;
  }
  t.equal(accepted, v.positive - rootPolicy.length, 'exactly the happy paths with 32-byte roots verify');
});

t.test('derived-byte-tree-130', async (t) => {
  const v = fixtureJson('merkle/derived-byte-tree-130.json');
  const leafHashes = (v.leaves as string[]).map((l) => hashLeaf(fromHex(l)));
  t.equal(leafHashes.length, 130);
  const rootBad: number[] = [];
  for (let n = 0; n <= 130; n++) {
    if (toHex(rootFromLeafHashes(leafHashes.slice(0, n))) !== v.roots[n]) rootBad.push(n);
  }
  t.same(rootBad, [], 'roots 0..130');
  const node = nodeOf(leafHashes);
  const inclusion = Object.values(v.inclusion) as { index: number; size: number; proof: string[] }[];
  const consistency = Object.values(v.consistency) as { first: number; second: number; proof: string[] }[];
  const bad: string[] = [];
  for (const c of inclusion) {
    const root = fromHex(v.roots[c.size]);
    if (hexList(prove(inclusionPlan(c.index, c.size), node)).join() !== c.proof.join()) bad.push(`plan ${c.index}/${c.size}`);
    if (!verifyInclusion(c.index, c.size, leafHashes[c.index]!, hexes(c.proof), root)) bad.push(`verify ${c.index}/${c.size}`);
  }
  for (const c of consistency) {
    const [r1, r2] = [fromHex(v.roots[c.first]), fromHex(v.roots[c.second])];
    if (hexList(prove(consistencyPlan(c.first, c.second), node)).join() !== c.proof.join()) bad.push(`plan ${c.first}->${c.second}`);
    if (!verifyConsistency(c.first, c.second, hexes(c.proof), r1, r2)) bad.push(`verify ${c.first}->${c.second}`);
  }
  t.equal(inclusion.length, 159);
  t.equal(consistency.length, 144);
  t.same(bad, [], 'every derived proof equals the plan-built proof and verifies');
});

t.test('tessera-testdata-log roots and proofs', async (t) => {
  const v = fixtureJson('merkle/tessera-testdata-log.json');
  const leafHashes = (v.entriesUtf8 as string[]).map((e) => hashLeaf(utf8(e)));
  t.same(hexList(leafHashes), v.leafHashes, 'leaf hashes of the entries');
  for (let n = 0; n <= leafHashes.length; n++) {
    t.equal(toHex(rootFromLeafHashes(leafHashes.slice(0, n))), v.roots[n], `root ${n}`);
  }
  // The level-0 tile of size n is the first n leaf hashes, concatenated.
  t.equal(v.tiles['tile/0/000.p/15'], v.leafHashes.join(''));
  const node = nodeOf(leafHashes);
  for (const c of v.derivedInclusion) {
    const ok = verifyInclusion(c.index, c.size, leafHashes[c.index]!, hexes(c.proof), fromHex(v.roots[c.size]));
    t.ok(ok && hexList(prove(inclusionPlan(c.index, c.size), node)).join() === c.proof.join(), `inclusion ${c.index}/${c.size}`);
  }
  for (const c of v.derivedConsistency) {
    const ok = verifyConsistency(c.first, c.second, hexes(c.proof), fromHex(v.roots[c.first]), fromHex(v.roots[c.second]));
    t.ok(ok && hexList(prove(consistencyPlan(c.first, c.second), node)).join() === c.proof.join(), `consistency ${c.first}->${c.second}`);
  }
});
