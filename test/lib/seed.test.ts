// lib/protocol/seed.ts (docs/record.md#receipts-seeds-and-cross-checks): ARCHIVE_SEED from a seal signature, the bytes the log key
// signs, and when a cross-check's outputs match the receipt it re-ran.
import t from 'tap';
import { createHash } from 'node:crypto';
import { generateKeyPair, signBytes, verifySignature } from '../../lib/protocol/ed25519.js';
import { outputMatches, outputsMatch, roundingSlack, seedFromSignature, seedMessage } from '../../lib/protocol/seed.js';

/** 64 signature bytes start, start+1, ...; base64url, as a seal is logged. */
const bytesFrom = (start: number) => Buffer.from(Array.from({ length: 64 }, (_, i) => (start + i) % 256));

t.test('seedFromSignature: first 4 bytes of SHA-256 of the signature bytes, big-endian, high bit cleared', async (t) => {
  // Pinned: SHA-256 of the bytes 0..63 begins fd ea b9 ac; of 1..64 begins 20 a7 ec 84.
  const high = bytesFrom(0).toString('base64url');
  const low = bytesFrom(1).toString('base64url');
  t.match(high, /-/, 'this spelling uses the base64url alphabet (a "-")');
  t.match(low, /_/, 'and this one a "_"');
  t.equal(createHash('sha256').update(bytesFrom(0)).digest('hex').slice(0, 8), 'fdeab9ac');
  t.equal(seedFromSignature(high), 0x7deab9ac, '0xfdeab9ac AND 0x7fffffff');
  t.equal(seedFromSignature(high), 2112534956);
  t.equal(createHash('sha256').update(bytesFrom(1)).digest('hex').slice(0, 8), '20a7ec84');
  t.equal(seedFromSignature(low), 0x20a7ec84, 'high bit clear already: unchanged');
  // By hand, from the digest bytes, for a few more.
  for (let start = 2; start < 10; start++) {
    const d = createHash('sha256').update(bytesFrom(start)).digest();
    const byHand = (d[0]! & 0x7f) * 2 ** 24 + d[1]! * 2 ** 16 + d[2]! * 2 ** 8 + d[3]!;
    t.equal(seedFromSignature(bytesFrom(start).toString('base64url')), byHand, `bytes from ${start}`);
  }
});

t.test('seedMessage: the UTF-8 bytes the log key signs, and a seal verifies over them', async (t) => {
  const id = 'ab'.repeat(32);
  t.same(Buffer.from(seedMessage(id)), Buffer.from(`archive/0.2 seed ${id}`, 'utf8'));
  const k = generateKeyPair();
  const seal = Buffer.from(signBytes(k.privateKey, seedMessage(id))).toString('base64url');
  t.ok(verifySignature(k.publicKey, Buffer.from(`archive/0.2 seed ${id}`), seal));
  t.notOk(verifySignature(k.publicKey, seedMessage('cd'.repeat(32)), seal), 'not over another commitment');
  const again = Buffer.from(signBytes(k.privateKey, seedMessage(id))).toString('base64url');
  t.equal(again, seal, 'Ed25519 is deterministic: one seal, one seed per commitment');
  t.ok(seedFromSignature(seal) >= 0 && seedFromSignature(seal) <= 0x7fffffff);
});

t.test('outputMatches: absolute and relative tolerances, strings exactly', async (t) => {
  const cases: [string, { name: string; tolerance?: number; relative?: boolean }, unknown, unknown, boolean][] = [
    ['equal, no tolerance', { name: 'n' }, 42, 42, true],
    ['off by one, no tolerance', { name: 'n' }, 42, 43, false],
    ['off in the last bit, no tolerance: not equal', { name: 'n' }, 0.3, 0.1 + 0.2, false],
    ['within an absolute tolerance', { name: 'acc', tolerance: 0.01 }, 0.9, 0.905, true],
    ['at the edge of an absolute tolerance, below', { name: 'acc', tolerance: 0.01 }, 0.9, 0.89, true],
    ['at the edge of an absolute tolerance, above', { name: 'acc', tolerance: 0.01 }, 0.9, 0.91, true],
    ['at the edge, integers', { name: 'n', tolerance: 2 }, 10, 12, true],
    ['just beyond an absolute tolerance', { name: 'acc', tolerance: 0.01 }, 0.9, 0.9101, false],
    ['beyond it', { name: 'acc', tolerance: 0.01 }, 0.9, 0.95, false],
    ['within a relative tolerance (5% of 200 is 10)', { name: 'loss', tolerance: 0.05, relative: true }, 200, 209, true],
    ['at the edge of a relative tolerance', { name: 'loss', tolerance: 0.05, relative: true }, 0.9, 0.945, true],
    ['relative to the reference, not the value', { name: 'loss', tolerance: 0.05, relative: true }, 200, 190, true],
    ['beyond a relative tolerance', { name: 'loss', tolerance: 0.05, relative: true }, 200, 211, false],
    ['the same tolerance absolute would fail', { name: 'loss', tolerance: 0.05 }, 200, 209, false],
    ['a negative reference, relative', { name: 'd', tolerance: 0.1, relative: true }, -50, -54, true],
    ['relative to a zero reference: exactly', { name: 'd', tolerance: 0.1, relative: true }, 0, 0.0001, false],
    ['a string, exactly', { name: 'label' }, 'cat', 'cat', true],
    ['a string, not quite', { name: 'label' }, 'cat', 'Cat', false],
    ['a string never takes a tolerance', { name: 'label', tolerance: 1 }, 'cat', 'cats', false],
    ['a number for a string', { name: 'label' }, '1', 1, false],
    ['a string for a number', { name: 'n', tolerance: 1 }, 1, '1', false],
    ['a missing value', { name: 'acc', tolerance: 0.01 }, 0.9, undefined, false],
    ['a missing reference', { name: 'acc', tolerance: 0.01 }, undefined, 0.9, false],
    ['both missing', { name: 'acc' }, undefined, undefined, false],
  ];
  for (const [what, decl, reference, value, expected] of cases) t.equal(outputMatches(decl, reference, value), expected, what);
  t.ok(roundingSlack(0.9, 0.91) < 1e-15, 'the rounding slack is a few units in the last place, not a tolerance');
  t.notOk(outputMatches({ name: 'acc', tolerance: 0.01 }, 0.9, 0.91 + 1e-12), 'so a real excess still fails');
});

t.test('outputsMatch: every declared output matches', async (t) => {
  const declared = [{ name: 'acc', tolerance: 0.01 }, { name: 'loss', tolerance: 0.1, relative: true }, { name: 'label' }];
  const reference = { acc: 0.9, loss: 2, label: 'cat' };
  t.ok(outputsMatch(declared, reference, { acc: 0.905, loss: 2.15, label: 'cat' }));
  t.notOk(outputsMatch(declared, reference, { acc: 0.905, loss: 2.25, label: 'cat' }), 'one number beyond its tolerance');
  t.notOk(outputsMatch(declared, reference, { acc: 0.905, loss: 2.15, label: 'dog' }), 'one string differs');
  t.notOk(outputsMatch(declared, reference, { acc: 0.905, loss: 2.15 }), 'one declared output missing');
  t.ok(outputsMatch(declared, reference, { acc: 0.9, loss: 2, label: 'cat', extra: 'ignored' }), 'only declared outputs are compared');
  t.ok(outputsMatch([], reference, {}), 'nothing declared: nothing to disagree on');
});
