// lib/protocol/ed25519.ts against public vectors (docs/protocol.md: the accept/reject set of the
// one verify function is pinned by the vectors in fixtures/crypto/).
import t from 'tap';
import {
  SPKI_PREFIX,
  parsePublicKey,
  privateKeyFromSeed,
  publicKeyOf,
  rawPublicKey,
  sign,
  signBytes,
  verifySignature,
} from '../../lib/protocol/ed25519.js';
import { fixtureJson } from '../helpers/fixtures.js';

const hex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const b64u = (h: string): string => Buffer.from(h, 'hex').toString('base64url');
/** The key spelling of a raw 32-byte key given in hex. */
const spell = (h: string): string => Buffer.concat([SPKI_PREFIX, Buffer.from(h, 'hex')]).toString('base64url');
/** The detail parsePublicKey gives, or 'ok'. */
const keyVerdict = (s: string): string => {
  try {
    parsePublicKey(s);
    return 'ok';
  } catch (e) {
    return (e as { detail: string }).detail;
  }
};

t.test('RFC 8032 section 7.1: exact signatures, and they verify', async (t) => {
  const { vectors } = fixtureJson('crypto/ed25519-rfc8032.json');
  t.equal(vectors.length, 5);
  for (const v of vectors) {
    const k = privateKeyFromSeed(hex(v.secretKey));
    const msg = hex(v.message);
    t.equal(publicKeyOf(k), v.publicKeySpkiB64u, `${v.name} public key spelling`);
    t.equal(spell(v.publicKey), v.publicKeySpkiB64u);
    t.same(rawPublicKey(k), hex(v.publicKey), `${v.name} raw public key`);
    t.same(signBytes(k, msg), hex(v.signature), `${v.name} signature bytes`);
    t.equal(sign(k, msg), v.signatureB64u, `${v.name} signature spelling`);
    t.ok(verifySignature(v.publicKeySpkiB64u, msg, v.signatureB64u), `${v.name} verifies`);
    t.equal(parsePublicKey(v.publicKeySpkiB64u).spelling, v.publicKeySpkiB64u, `${v.name} key registers`);
    const tampered = Uint8Array.from([...msg, 0]);
    t.notOk(verifySignature(v.publicKeySpkiB64u, tampered, v.signatureB64u), `${v.name} longer message fails`);
  }
});

t.test('Wycheproof: valid verifies, invalid does not', async (t) => {
  const w = fixtureJson('crypto/wycheproof-ed25519.json');
  const wrong: string[] = [];
  let n = 0;
  for (const g of w.testGroups) {
    const key = Buffer.from(g.publicKeyDer, 'hex').toString('base64url');
    t.equal(key, spell(g.publicKey.pk), 'publicKeyDer is the SPKI of pk');
    for (const c of g.tests) {
      n++;
      const got = verifySignature(key, hex(c.msg), b64u(c.sig));
      if (got !== (c.result === 'valid')) wrong.push(`tcId ${c.tcId} (${c.result}, ${c.comment})`);
    }
  }
  t.equal(n, w.numberOfTests);
  t.same(wrong, [], 'no case disagrees');
});

t.test('ed25519-speccheck: verify accepts exactly what node:crypto was measured to accept', async (t) => {
  const cases = fixtureJson<{ message: string; pub_key: string; signature: string }[]>('crypto/ed25519-speccheck-cases.json');
  const results = fixtureJson('crypto/ed25519-speccheck-results.json');
  t.equal(cases.length, 12);
  const accepted: number[] = [];
  cases.forEach((c, i) => {
    const got = verifySignature(spell(c.pub_key), hex(c.message), b64u(c.signature));
    t.equal(got, results.rows[i].node, `case ${i} (${results.rows[i].desc})`);
    if (got) accepted.push(i);
  });
  // Cofactorless OpenSSL: small/mixed-order A and R pass when the plain equation holds
  // (0-3); a non-canonical A is hashed as sent (11 passes, 10 does not); S >= L and a
  // non-canonical R always fail; the cofactored-only cases 4 and 5 fail.
  t.same(accepted, [0, 1, 2, 3, 11]);
});

t.test('ed25519-speccheck: which keys registration refuses', async (t) => {
  const cases = fixtureJson<{ pub_key: string }[]>('crypto/ed25519-speccheck-cases.json');
  const verdicts = cases.map((c) => keyVerdict(spell(c.pub_key)));
  const small = 'publicKey: small-order point';
  const mixed = 'publicKey: point is not torsion-free (has a small-order component)';
  const nonCanonical = 'publicKey: non-canonical point encoding';
  t.same(verdicts, [small, small, mixed, mixed, mixed, mixed, 'ok', 'ok', mixed, mixed, nonCanonical, nonCanonical]);
  // So every case verify accepts (0-3, 11) is under a key that could never be registered.
});

interface CctvVector {
  number: number;
  key: string;
  sig: string;
  msg: string;
  flags: string[] | null;
}

t.test('C2SP CCTV: reject non_canonical_R and low_order_residue, accept everything else', async (t) => {
  // The CCTV README: "The most common verification behavior, derived from the ref10
  // implementation and exhibited by Go and OpenSSL amongst others, is to reject
  // non_canonical_R and low_order_residue and to accept everything else." node:crypto
  // (OpenSSL 3) does exactly that on all 914 vectors, including the reencoded_k ones (all
  // of them have a low-order A, so their k agrees with the hash of the bytes as sent).
  const vectors = fixtureJson<CctvVector[]>('crypto/cctv-ed25519vectors.json');
  t.equal(vectors.length, 914);
  const wrong: number[] = [];
  let accepted = 0;
  for (const v of vectors) {
    const flags = v.flags ?? [];
    const expected = !flags.includes('non_canonical_R') && !flags.includes('low_order_residue');
    const got = verifySignature(spell(v.key), new TextEncoder().encode(v.msg), b64u(v.sig));
    if (got !== expected) wrong.push(v.number);
    if (got) accepted++;
  }
  t.same(wrong, [], 'every vector as its flags say');
  t.equal(accepted, 208, 'accepted count');
});

t.test('C2SP CCTV: registration refuses exactly the keys flagged on A', async (t) => {
  const vectors = fixtureJson<CctvVector[]>('crypto/cctv-ed25519vectors.json');
  const wrong: string[] = [];
  const seen = new Set<string>();
  for (const v of vectors) {
    if (seen.has(v.key)) continue;
    seen.add(v.key);
    const flags = v.flags ?? [];
    const verdict = keyVerdict(spell(v.key));
    let expected = 'ok';
    if (flags.includes('non_canonical_A')) expected = 'publicKey: non-canonical point encoding';
    else if (flags.includes('low_order_A')) expected = 'publicKey: small-order point';
    else if (flags.includes('low_order_component_A')) expected = 'publicKey: point is not torsion-free (has a small-order component)';
    if (verdict !== expected) wrong.push(`${v.key}: ${verdict}, expected ${expected}`);
  }
  t.ok(seen.size > 20, `${seen.size} distinct keys`);
  t.same(wrong, []);
});
