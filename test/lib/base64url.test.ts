// lib/protocol/base64url.ts: strict, unpadded base64url (docs/protocol.md).
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { decodeBase64url, encodeBase64url } from '../../lib/protocol/base64url.js';

t.test('round trips every length, matching Node for canonical input', async (t) => {
  for (let n = 0; n <= 70; n++) {
    const bytes = randomBytes(n);
    const s = encodeBase64url(bytes);
    t.notMatch(s, /[=+/]/, `length ${n}: no padding, url alphabet`);
    t.equal(s, bytes.toString('base64url'));
    t.same(Buffer.from(decodeBase64url(s, 'x')), bytes);
  }
});

t.test('encodes a view, not its whole buffer', async (t) => {
  const whole = Uint8Array.from([1, 2, 3, 4, 5]);
  t.equal(encodeBase64url(whole.subarray(1, 3)), Buffer.from([2, 3]).toString('base64url'));
});

t.test('refuses every other spelling, naming the field', async (t) => {
  const refused: [string, RegExp][] = [
    ['AAE=', /not base64url/], // padding
    ['AA+B', /not base64url/], // standard alphabet
    ['AA/B', /not base64url/],
    ['AA B', /not base64url/], // Node would skip the space
    ['AAB\n', /not base64url/],
    ['AAAAA', /impossible length/],
    ['AB', /non-zero trailing bits/], // Node decodes it as [0], which re-encodes as 'AA'
    ['AAF', /non-zero trailing bits/],
  ];
  for (const [s, detail] of refused) {
    t.throws(() => decodeBase64url(s, 'signature'), { code: 'bad_request', detail }, JSON.stringify(s));
    t.throws(() => decodeBase64url(s, 'signature'), { code: 'bad_request', detail: /^signature: / }, 'names the field');
  }
  t.throws(() => decodeBase64url(42 as unknown as string, 'sig'), { code: 'bad_request', detail: /^sig: expected a base64url string/ });
});

t.test('length, when given, is exact', async (t) => {
  t.same(decodeBase64url('AAAA', 'x', 3), new Uint8Array(3));
  t.throws(() => decodeBase64url('AAAA', 'sig', 4), { code: 'bad_request', detail: 'sig: expected 4 bytes, got 3' });
  t.same(decodeBase64url('', 'x'), new Uint8Array(0));
});
