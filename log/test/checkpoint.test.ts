// C2SP signed-note and tlog-checkpoint: golang.org/x/mod and C2SP vectors, a real Tessera log's
// checkpoints, and strict parsing. Ed25519 comes from node:crypto, injected as functions.
import crypto from 'node:crypto';
import t from 'tap';
import {
  checkpointText,
  noteKeyId,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  signNote,
  verifierKey,
  type NoteVerifier,
} from '../src/checkpoint.js';
import { toHex } from '../src/hash.js';
import { applyPlan, consistencyPlan, hashLeaf, rootFromLeafHashes, verifyConsistency } from '../src/merkle.js';
import { fixtureJson } from './helpers/fixtures.js';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A signed-note private key "PRIVATE+KEY+name+id+base64(0x01 || seed)" as node:crypto keys. */
function signerFrom(skey: string): { name: string; pub: Uint8Array; sign: (m: Uint8Array) => Uint8Array } {
  const parts = skey.split('+'); // PRIVATE, KEY, name, id, then base64 (which may hold '+')
  const name = parts[2];
  const seed = Buffer.from(parts.slice(4).join('+'), 'base64').subarray(1);
  const privateKey = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = crypto.createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { name: name!, pub: spki.subarray(SPKI_PREFIX.length), sign: (m) => crypto.sign(null, m, privateKey) };
}

const verify: NoteVerifier = (pub, msg, sig) =>
  crypto.verify(null, msg, crypto.createPublicKey({ key: Buffer.concat([SPKI_PREFIX, pub]), format: 'der', type: 'spki' }), sig);

t.test('signed-note vectors', async (t) => {
  const v = fixtureJson('merkle/signed-note.json');
  const [neumann, example, tampered] = v.notes;

  // Key IDs and verifier keys round-trip.
  for (const n of [neumann, example]) {
    for (const vk of n.verifierKeys as string[]) {
      const key = parseVerifierKey(vk);
      t.equal(toHex(noteKeyId(key.name, key.rawPublicKey)), n.keyIds[key.name], `key id of ${key.name}`);
      t.equal(verifierKey(key.name, key.rawPublicKey), vk, `verifier key of ${key.name}`);
    }
  }

  // Ed25519 is deterministic: signing gives the published line byte for byte.
  const signer = signerFrom(neumann.testOnlySignerKey);
  t.equal(verifierKey(signer.name, signer.pub), neumann.verifierKeys[0]);
  const signed = signNote(neumann.text, signer.name, signer.pub, signer.sign);
  t.equal(signed, `${neumann.text}\n${neumann.expectedSignatureLineFromSigner}`);
  t.ok(neumann.signedNote.startsWith(signed), 'the first line of the published note');

  // Every listed key verifies the good notes; the tampered note does not.
  for (const n of [neumann, example]) {
    for (const vk of n.verifierKeys) {
      t.same(openNote(n.signedNote, vk, verify), { text: n.text, verified: true }, `${vk.split('+')[0]} signed`);
    }
  }
  t.ok(tampered.wantErr);
  t.equal(openNote(tampered.signedNote, tampered.verifierKeys[0], verify).verified, false, 'tampered note');

  // A key that signed nothing in the note, and a key with the same name but another ID.
  t.equal(openNote(example.signedNote, neumann.verifierKeys[0], verify).verified, false);
  const otherSpki = crypto.generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  const otherKey = { name: 'example.com/foo', rawPublicKey: otherSpki.subarray(SPKI_PREFIX.length) };
  t.equal(openNote(example.signedNote, otherKey, verify).verified, false);
  // The object form of the key works as the string form does.
  const key = parseVerifierKey(example.verifierKeys[0]);
  t.equal(openNote(example.signedNote, key, verify).verified, true);
  // A signature line for the key whose signature is wrong makes the note unverified.
  const forged = signNote(example.text, key.name, key.rawPublicKey, () => new Uint8Array(64));
  t.equal(openNote(forged, key, verify).verified, false);

  // go.sum's legacy tree note body parses as a checkpoint, with a size above 2^32.
  const sumdb = v.sumdbTreeNoteBody;
  const cp = parseCheckpoint(sumdb.body);
  t.equal(cp.treeSize, sumdb.treeSize);
  t.equal(toHex(cp.rootHash), toHex(hashLeaf(utf8(sumdb.rootIsLeafHashOf))));
  t.equal(checkpointText(cp.origin, cp.treeSize, cp.rootHash), sumdb.body);
});

t.test('tessera-testdata-log checkpoints', async (t) => {
  const v = fixtureJson('merkle/tessera-testdata-log.json');
  const leafHashes = (v.entriesUtf8 as string[]).map((e) => hashLeaf(utf8(e)));
  const signer = signerFrom(v.testOnlySignerKey);
  t.equal(verifierKey(signer.name, signer.pub), v.verifierKey, 'the signing key matches the verifier key');
  const sizes = Object.keys(v.checkpoints).map(Number);
  t.equal(sizes.length, 16);
  let previous: { size: number; root: Uint8Array } | null = null;
  for (const size of sizes) {
    const note: string = v.checkpoints[size];
    const { text, verified } = openNote(note, v.verifierKey, verify);
    t.ok(verified, `checkpoint ${size} verifies`);
    const cp = parseCheckpoint(text);
    t.equal(cp.origin, v.origin);
    t.equal(cp.treeSize, size);
    t.same(cp.extensions, []);
    t.equal(toHex(cp.rootHash), v.roots[size]);
    t.equal(toHex(rootFromLeafHashes(leafHashes.slice(0, size))), v.roots[size]);
    t.equal(checkpointText(cp.origin, cp.treeSize, cp.rootHash), text, 'checkpointText rebuilds the body');
    // Re-signing with the test key reproduces Tessera's note exactly.
    t.equal(signNote(text, signer.name, signer.pub, signer.sign), note, `checkpoint ${size} re-signed`);
    if (previous) {
      const plan = consistencyPlan(previous.size, size);
      const proof = applyPlan(
        plan,
        plan.nodes.map(({ level, index }) => rootFromLeafHashes(leafHashes.slice(index * 2 ** level, (index + 1) * 2 ** level))),
      );
      t.ok(
        verifyConsistency(previous.size, size, proof, previous.root, cp.rootHash),
        `checkpoints ${previous.size} and ${size} are consistent`,
      );
    }
    previous = { size, root: cp.rootHash };
  }
  // A checkpoint whose size was changed no longer verifies.
  const bumped = (v.checkpoints['5'] as string).replace('\n5\n', '\n6\n');
  t.equal(openNote(bumped, v.verifierKey, verify).verified, false);
});

t.test('strict parsing', async (t) => {
  const root = new Uint8Array(32).fill(7);
  const b64 = Buffer.from(root).toString('base64');
  t.same(parseCheckpoint(`o\n0\n${b64}\n`), { origin: 'o', treeSize: 0, rootHash: root, extensions: [] });
  t.same(parseCheckpoint(`o\n12\n${b64}\next one\next two\n`).extensions, ['ext one', 'ext two']);
  t.equal(parseCheckpoint(`o\n${2 ** 53 - 1}\n${b64}\n`).treeSize, 2 ** 53 - 1);
  const bad = [
    `o\n012\n${b64}\n`, // leading zero
    `o\n+12\n${b64}\n`,
    `o\n1e3\n${b64}\n`,
    `o\n 12\n${b64}\n`,
    `o\n${2 ** 53}\n${b64}\n`, // beyond safe integers
    `o\n12\n${b64.slice(0, -1)}\n`, // unpadded
    `o\n12\n${Buffer.from(root).toString('base64url')}\n`, // base64url, unpadded
    `o\n12\n${Buffer.from(root.subarray(1)).toString('base64')}\n`, // 31 bytes
    `o\n12\n${b64.slice(0, 42)}B=\n`, // non-zero padding bits
    `o\n12\n${b64}`, // no final newline
    `o\n12\n${b64}\n\n`, // empty extension line
    `\n12\n${b64}\n`, // empty origin
    `o\n12\n`, // too short
    `o\r\n12\n${b64}\n`, // control character
  ];
  for (const text of bad) t.throws(() => parseCheckpoint(text), { code: 'bad_argument' }, JSON.stringify(text));

  t.equal(checkpointText('example.com/log', 2 ** 33 + 5, root), `example.com/log\n8589934597\n${b64}\n`);
  t.throws(() => checkpointText('a\nb', 1, root), { code: 'bad_argument' });
  t.throws(() => checkpointText('o', -1, root), { code: 'bad_argument' });
  t.throws(() => checkpointText('o', 1, root.subarray(1)), { code: 'bad_argument' });

  const pub = new Uint8Array(32).fill(1);
  const sig = () => new Uint8Array(64);
  t.throws(() => signNote('no newline', 'n', pub, sig), { code: 'bad_argument' });
  t.throws(() => signNote('x\n', 'with space', pub, sig), { code: 'bad_argument' });
  t.throws(() => signNote('x\n', 'a+b', pub, sig), { code: 'bad_argument' });
  t.throws(() => signNote('x\n', 'n', pub.subarray(1), sig), { code: 'bad_argument' });
  t.throws(() => signNote('x\n', 'n', pub, () => new Uint8Array(63)), { code: 'bad_argument' });

  const vk = verifierKey('n', pub);
  t.throws(() => parseVerifierKey(vk.replace(/\+[0-9a-f]{8}\+/, '+00000000+')), { code: 'bad_argument' });
  t.throws(() => parseVerifierKey(vk.toUpperCase()), { code: 'bad_argument' });
  t.throws(() => parseVerifierKey('n+' + vk), { code: 'bad_argument' });
  const good = signNote('x\n', 'n', pub, sig);
  t.equal(openNote(good, vk, () => true).verified, true);
  const malformed = [
    'x\n', // no signatures
    good.replace('\u2014', '-'), // ASCII dash
    good.slice(0, -1), // no final newline
    good.replace(' ', '  '),
    good + 'trailing\n',
    good.replace(/ [A-Za-z0-9+/=]+\n$/, ' AAAA\n'), // shorter than a key ID
  ];
  for (const note of malformed) t.throws(() => openNote(note, vk, () => true), { code: 'bad_argument' }, JSON.stringify(note));
});
