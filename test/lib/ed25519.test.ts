// lib/protocol/ed25519.ts: key spelling, registration checks, the one verify function, key helpers
// (docs/protocol.md).
import t from 'tap';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Point } from '@noble/ed25519';
import {
  generateKeyPair,
  parsePublicKey,
  privateKeyFromPem,
  privateKeyFromSeed,
  privateKeyToPem,
  publicKeyOf,
  rawPublicKey,
  sign,
  signPayload,
  verifyPayload,
  verifySignature,
} from '../../lib/protocol/ed25519.js';

// RFC 8032 TEST 1
const SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const KEY = 'MCowBQYDK2VwAyEA11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const prefixed = (prefix: string, rawHex: string): string => Buffer.from(prefix + rawHex, 'hex').toString('base64url');
const spell = (rawHex: string): string => prefixed('302a300506032b6570032100', rawHex);
const msg = new TextEncoder().encode('archive/0.2');

t.test('parsePublicKey accepts the one spelling', async (t) => {
  const k = parsePublicKey(KEY);
  t.equal(k.spelling, KEY);
  t.same(Buffer.from(k.raw).toString('hex'), 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  t.equal(KEY.length, 59);
});

t.test('parsePublicKey refuses other spellings and unsound points, naming the field', async (t) => {
  const raw = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
  const std = Buffer.from(`302a300506032b6570032100${raw}`, 'hex').toString('base64');
  const refused: [string, string][] = [
    [`${KEY}=`, 'not base64url'], // padded
    [std, 'not base64url'], // standard base64 (has '+' and '=')
    [Buffer.from(raw, 'hex').toString('base64url'), 'expected the 44-byte DER SPKI of an Ed25519 key, got 32 bytes'],
    [raw, 'expected the 44-byte DER SPKI of an Ed25519 key, got 48 bytes'], // hex happens to be base64url text
    [`${KEY.slice(0, -1)}p`, 'not canonical base64url (non-zero trailing bits)'],
    ['MCowBQYDK2Vw', 'expected 20..200 characters, got 12'],
    ['A'.repeat(204), 'expected 20..200 characters, got 204'],
    [prefixed('302a300506032b656e032100', raw), 'not an Ed25519 SPKI (DER prefix 302a300506032b6570032100)'], // X25519
    [spell(`02${'00'.repeat(31)}`), 'not a point on the curve'], // y = 2 has no x
    [spell(`f0${'ff'.repeat(30)}7f`), 'non-canonical point encoding'], // y = p + 3
    [spell(`01${'00'.repeat(30)}80`), 'non-canonical point encoding'], // the identity with x = -0
    [spell(`01${'00'.repeat(31)}`), 'small-order point'], // the identity
    [spell('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05'), 'small-order point'], // order 8
    [spell(`03${'00'.repeat(31)}`), 'point is not torsion-free (has a small-order component)'], // y = 3: mixed order
  ];
  for (const [s, reason] of refused) {
    t.throws(() => parsePublicKey(s, 'delegate.key'), { code: 'bad_request', detail: `delegate.key: ${reason}` }, reason);
  }
  t.throws(() => parsePublicKey(7 as unknown as string), { code: 'bad_request', detail: 'publicKey: expected a string' });
});

t.test('parsePublicKey: the subgroup check (libsodium) agrees with noble on keys with and without a small-order part', async (t) => {
  // A point of order 8, and its multiples of order 4 and 2.
  const t8 = Point.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
  const small = [t8, t8.double(), t8.double().double()];
  for (let i = 0; i < 40; i++) {
    const p = Point.fromBytes(rawPublicKey(generateKeyPair().privateKey));
    t.ok(p.isTorsionFree());
    t.equal(Buffer.from(parsePublicKey(spell(p.toHex())).raw).toString('hex'), p.toHex(), 'a key of prime order is accepted');
    const mixed = p.add(small[i % 3]!);
    t.notOk(mixed.isTorsionFree(), 'noble: not torsion-free');
    t.throws(() => parsePublicKey(spell(mixed.toHex())), {
      code: 'bad_request',
      detail: 'publicKey: point is not torsion-free (has a small-order component)',
    });
  }
});

t.test('parsePublicKey accepts exactly the keys noble finds canonical, of the curve, not of small order and torsion-free', async (t) => {
  // libsodium alone decides acceptance (noble only names the reason of a refusal): its accept set must be noble's whole check.
  const nobleAccepts = (raw: Uint8Array): boolean => {
    try {
      const p = Point.fromBytes(raw, false);
      return Buffer.from(p.toBytes()).equals(raw) && !p.isSmallOrder() && p.isTorsionFree();
    } catch {
      return false;
    }
  };
  const accepts = (raw: Uint8Array): boolean => {
    try {
      parsePublicKey(spell(Buffer.from(raw).toString('hex')));
      return true;
    } catch {
      return false;
    }
  };
  const raws: Uint8Array[] = [];
  // Random encodings (about half on the curve, an eighth of those torsion-free), and random points of each order's coset.
  for (let i = 0; i < 1500; i++) raws.push(new Uint8Array(randomBytes(32)));
  const t8 = Point.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
  for (let i = 0; i < 64; i++) {
    const p = Point.fromBytes(rawPublicKey(generateKeyPair().privateKey));
    let q = p;
    for (let k = 0; k < i % 8; k++) q = q.add(t8);
    raws.push(q.toBytes());
  }
  // The edges: y near 0 and near p, with either sign bit, and the small-order points with either sign bit.
  const le = (n: bigint): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
  const P = 2n ** 255n - 19n;
  for (let d = 0n; d < 40n; d++) for (const y of [d, P - 1n - d, P + d]) raws.push(le(y), le(y | (1n << 255n)));
  let small = t8;
  for (let k = 0; k < 8; k++, small = small.add(t8)) {
    const b = small.toBytes();
    raws.push(
      b,
      Uint8Array.from(b, (x, i) => (i === 31 ? x ^ 0x80 : x)),
    );
  }
  let agree = 0;
  let accepted = 0;
  for (const raw of raws) {
    const want = nobleAccepts(raw);
    if (accepts(raw) === want) agree++;
    else
      t.fail(
        `${Buffer.from(raw).toString('hex')}: parsePublicKey ${want ? 'refuses' : 'accepts'} it, noble ${want ? 'accepts' : 'refuses'}`,
      );
    if (want) accepted++;
  }
  t.equal(agree, raws.length, 'the same verdict on every encoding');
  t.ok(accepted > 50, `keys accepted among them: ${accepted}`);
});

t.test('verifySignature: the round trip, and false (never a throw) for garbage', async (t) => {
  const k = privateKeyFromSeed(SEED);
  const sig = sign(k, msg);
  t.equal(sig.length, 86);
  t.ok(verifySignature(KEY, msg, sig));
  t.ok(verifySignature(parsePublicKey(KEY), msg, sig), 'a parsed PublicKey works too');
  t.ok(verifySignature(KEY, msg, sig), 'again, from the key cache');
  const other = generateKeyPair();
  const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
  const garbage: [string, unknown, unknown, unknown][] = [
    ['other key', other.publicKey, msg, sig],
    ['other message', KEY, new TextEncoder().encode('archive/0.3'), sig],
    ['flipped signature', KEY, msg, flipped],
    ['padded signature', KEY, msg, `${sig}==`],
    ['standard base64 signature', KEY, msg, Buffer.from(sig, 'base64url').toString('base64')],
    ['non-canonical trailing bits', KEY, msg, sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A')],
    ['short signature', KEY, msg, sig.slice(0, 84)],
    ['empty signature', KEY, msg, ''],
    ['signature not a string', KEY, msg, Buffer.from(sig, 'base64url')],
    ['key not a string', 42, msg, sig],
    ['key null', null, msg, sig],
    ['key padded', `${KEY}=`, msg, sig],
    ['key raw 32 bytes', '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', msg, sig],
    [
      'key X25519 prefix',
      prefixed('302a300506032b656e032100', 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
      msg,
      sig,
    ],
    ['message a string', KEY, 'archive/0.2', sig],
    ['message undefined', KEY, undefined, sig],
  ];
  for (const [name, key, m, s] of garbage) {
    t.equal(verifySignature(key as string, m as Uint8Array, s as string), false, name);
  }
  t.ok(
    sig.endsWith('A') || sig.endsWith('Q') || sig.endsWith('g') || sig.endsWith('w'),
    'a 64-byte spelling ends in a char with 4 zero bits',
  );
});

t.test('verifySignature applies no registration checks', async (t) => {
  // A small-order key (0100..00, the identity) with R = identity, S = 0 verifies under
  // cofactorless OpenSSL for any message; registration refuses the key (parsePublicKey).
  const identity = spell(`01${'00'.repeat(31)}`);
  const sig = Buffer.from(`01${'00'.repeat(63)}`, 'hex').toString('base64url');
  t.ok(verifySignature(identity, msg, sig));
  t.throws(() => parsePublicKey(identity), { code: 'bad_request', detail: 'publicKey: small-order point' });
});

t.test('payload signatures are over the canonical JSON', async (t) => {
  const { privateKey, publicKey } = generateKeyPair();
  t.equal(parsePublicKey(publicKey).spelling, publicKey);
  const sig = signPayload(privateKey, { b: [1, 2], a: 'x', n: -0 });
  t.equal(sig, sign(privateKey, new TextEncoder().encode('{"a":"x","b":[1,2],"n":0}')));
  t.ok(verifyPayload(publicKey, { n: 0, a: 'x', b: [1, 2] }, sig), 'member order does not matter');
  t.notOk(verifyPayload(publicKey, { n: 0, a: 'x', b: [2, 1] }, sig), 'array order does');
  t.notOk(verifyPayload(publicKey, { n: NaN }, sig), 'not JSON: false, not a throw');
  t.throws(() => signPayload(privateKey, { text: '\udc00' }), { code: 'bad_request', detail: 'payload.text: lone surrogate' });
});

t.test('key helpers', async (t) => {
  const k = privateKeyFromSeed(SEED);
  t.equal(publicKeyOf(k), KEY);
  t.equal(rawPublicKey(k).length, 32);
  const pem = privateKeyToPem(k);
  t.match(pem, /^-----BEGIN PRIVATE KEY-----\n/);
  t.equal(publicKeyOf(privateKeyFromPem(pem)), KEY, 'PEM round trip');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  t.throws(() => privateKeyFromPem(ec), { code: 'bad_request', detail: 'privateKey: expected an Ed25519 key, got ec' });
  t.throws(() => privateKeyFromPem('not a key'), { code: 'bad_request', detail: /^privateKey: not a readable PEM private key/ });
  t.throws(() => privateKeyFromSeed(new Uint8Array(31)), { code: 'bad_request', detail: /expected a 32-byte seed, got 31/ });
  const { publicKey } = generateKeyPairSync('ed25519');
  t.throws(() => sign(publicKey, msg), { code: 'internal' }, 'signing with a public key is a bug');
  t.throws(() => publicKeyOf(publicKey), { code: 'internal' });
});
