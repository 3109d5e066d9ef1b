// A client checks an answer on its own, with the log's vkey alone (README, "Checking an answer"):
// the checkpoint's signature, the entry's leaf hash and its inclusion proof, with the engine's
// verify functions. Answers forged on the way, or by the server, are caught.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { ed25519Verify, hashLeaf, openNote, parseCheckpoint, verifyInclusion } from 'tlog-engine';
import { entryText } from '../src/binding.js';
import { ProofError, verifyHistory, verifyLookup } from '../src/client.js';
import type { HistoryAnswer, LookupAnswer } from '../src/keydir.js';
import type { Folded } from '../src/state.js';
import { call, first, holder, post, rotation, start, tempDir } from './helpers.js';

const ALICE = 'alice@example.org';
const BOB = 'bob@example.org';

describe('checking an answer', async () => {
  const s = await start(tempDir());
  const vkey = s.dir.vkey;
  const [a1, a2, a3, b1] = [holder(), holder(), holder(), holder()];
  for (const st of [first(ALICE, a1), first(BOB, b1), rotation(ALICE, a2, 0, a1), rotation(ALICE, a3, 2, a2)])
    assert.equal((await post(s.url, st)).status, 201);
  const lookup = (await call(s.url, `/keys/${ALICE}`)).body as LookupAnswer;
  const history = (await call(s.url, `/keys/${ALICE}/history`)).body as HistoryAnswer;
  const bob = (await call(s.url, `/keys/${BOB}`)).body as LookupAnswer;
  const want = { vkey, name: ALICE };

  test('step by step: the checkpoint is signed by the vkey, the leaf recomputes, the proof leads to its root', () => {
    const opened = openNote(lookup.checkpoint, vkey, ed25519Verify);
    assert.equal(opened.verified, true, 'the checkpoint is signed by the log key');
    const cp = parseCheckpoint(opened.text);
    assert.deepEqual([cp.origin, cp.treeSize], ['keydir.localhost', 4]);
    const leaf = Buffer.from(lookup.entry, 'utf8');
    const leafHash = hashLeaf(leaf);
    assert.deepEqual(
      Buffer.from(leafHash),
      createHash('sha256').update(Buffer.of(0)).update(leaf).digest(),
      'RFC 6962: SHA-256(0x00 || leaf)',
    );
    const proof = lookup.proof.map((h) => Buffer.from(h, 'base64'));
    assert.equal(verifyInclusion(lookup.seq, cp.treeSize, leafHash, proof, cp.rootHash), true, 'the entry is in the tree');
    const entry = JSON.parse(lookup.entry);
    assert.deepEqual([entry.name, entry.publicKey, entry.prev], [ALICE, a3.publicKey, 2]);
    // verifyLookup does all of this.
    const checked = verifyLookup(lookup, want);
    assert.deepEqual([checked.seq, checked.publicKey, checked.prev, checked.treeSize], [3, a3.publicKey, 2, 4]);
    assert.deepEqual(
      verifyHistory(history, want).map((b) => [b.seq, b.publicKey]),
      [
        [0, a1.publicKey],
        [2, a2.publicKey],
        [3, a3.publicKey],
      ],
    );
  });

  test('a lookup forged on the way is caught', async () => {
    const other = await start(tempDir());
    await post(other.url, first(ALICE, holder()));
    const foreign = (await call(other.url, `/keys/${ALICE}`)).body as LookupAnswer;
    const mallory = holder();
    const swapped = lookup.entry.replace(a3.publicKey, mallory.publicKey);
    const cases: [string, LookupAnswer, RegExp][] = [
      ['the key swapped', { ...lookup, publicKey: mallory.publicKey, entry: swapped }, /^proof: entry 3 as given is not in the tree/],
      ['a proof hash changed', { ...lookup, proof: [Buffer.alloc(32).toString('base64'), ...lookup.proof.slice(1)] }, /^proof: /],
      ['the proof cut short', { ...lookup, proof: lookup.proof.slice(1) }, /^proof: /],
      ['another seq', { ...lookup, seq: 2 }, /^proof: entry 2 as given/],
      ['beyond the tree', { ...lookup, seq: 4 }, /^seq: 4 is not in a tree of 4$/],
      [
        'the checkpoint edited',
        { ...lookup, checkpoint: lookup.checkpoint.replace(/\n4\n/, '\n5\n') },
        /^checkpoint: not signed by the log key$/,
      ],
      ['a checkpoint of another log', { ...foreign }, /^checkpoint: not signed by the log key$/],
      ['not a note', { ...lookup, checkpoint: 'keydir.localhost\n4\n' }, /^checkpoint: not a signed note/],
      ["bob's entry for alice", { ...bob, name: ALICE }, /^entry 1: binds bob@example\.org, not alice@example\.org$/],
      ['a key that is not the entry’s', { ...lookup, publicKey: mallory.publicKey }, /^publicKey: the entry binds /],
      ['the answer of another name', { ...bob }, /^entry 1: binds bob@example\.org/],
    ];
    for (const [what, forged, message] of cases)
      assert.throws(
        () => verifyLookup(forged, want),
        (e) => e instanceof ProofError && message.test(e.message),
        what,
      );
    assert.throws(() => verifyLookup(lookup, { ...want, vkey: other.dir.vkey }), /checkpoint: not signed by the log key/, 'another vkey');
  });

  test('a history forged on the way is caught', () => {
    const [b0, b2, b3] = history.bindings as [HistoryAnswer['bindings'][0], HistoryAnswer['bindings'][0], HistoryAnswer['bindings'][0]];
    const cases: [string, HistoryAnswer, RegExp][] = [
      ['a binding left out in the middle', { ...history, bindings: [b0, b3] }, /^entry 3: prev 2 is not the binding before it \(0\)$/],
      ['the first left out', { ...history, bindings: [b2, b3] }, /^entry 2: prev 0 is not the binding before it \(none\)$/],
      ['reordered', { ...history, bindings: [b0, b3, b2] }, /^entry 3: prev 2 is not the binding before it \(0\)$/],
      ['none', { ...history, bindings: [] }, /^bindings: none$/],
      [
        'an entry edited',
        { ...history, bindings: [b0, { ...b2, entry: b2.entry.replace('"prev":0', '"prev":1') }, b3] },
        /^proof: entry 2/,
      ],
    ];
    for (const [what, forged, message] of cases)
      assert.throws(
        () => verifyHistory(forged, want),
        (e) => e instanceof ProofError && message.test(e.message),
        what,
      );
  });

  test('a rotation the server logged without the holder’s signature: in the log, and caught by the history', async () => {
    // A server that breaks its own rule: it logs a rotation of bob's key to mallory's, signed by mallory.
    const mallory = holder();
    const forged = rotation(BOB, mallory, 1, mallory);
    const admitted = s.dir.replica.admit((_state, at) => {
      const entry: Folded = { ...forged, prev: 1, time: new Date(at.time).toISOString(), seq: at.seq };
      return { data: new TextEncoder().encode(entryText(entry)), entry };
    });
    assert.ok(!('already' in admitted));
    await admitted.committed;
    const served = (await call(s.url, `/keys/${BOB}`)).body as LookupAnswer;
    assert.equal(verifyLookup(served, { vkey, name: BOB }).publicKey, mallory.publicKey, 'a lookup alone shows the entry is logged');
    const h = (await call(s.url, `/keys/${BOB}/history`)).body as HistoryAnswer;
    assert.throws(
      () => verifyHistory(h, { vkey, name: BOB }),
      (e) => e instanceof ProofError && e.message === 'entry 4: not signed by the key of entry 1',
      "the history shows it is not bob's doing, and the log holds the evidence",
    );
  });
});
