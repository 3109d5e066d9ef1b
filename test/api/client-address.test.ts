// How the limits per client address spell and group an address (docs/cli.md, "archive serve:
// limits per client address"): one spelling per address, RFC 5952's for IPv6, checked against the WHATWG URL
// parser's; an IPv4-mapped address as its IPv4 address; an IPv6 client by its prefix.
import t from 'tap';
import { canonicalAddress, limitKey } from '../../api/client-address.js';

t.test('one spelling per address', async (t) => {
  const cases: [string, string | null][] = [
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7:51000', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['0:0:0:0:0:ffff:203.0.113.7', '203.0.113.7'],
    ['[::ffff:203.0.113.7]:443', '203.0.113.7'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8::1%eth0', '2001:db8::1'],
    ['fe80::1%25en0', 'fe80::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:8080', '2001:db8::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['::203.0.113.7', '::cb00:7107'],
    ['64:ff9b::203.0.113.7', '64:ff9b::cb00:7107'],
    ['unknown', null],
    ['', null],
    ['01.2.3.4', null],
    ['2001:db8::1::2', null],
  ];
  for (const [spelled, canonical] of cases) t.equal(canonicalAddress(spelled), canonical, JSON.stringify(spelled));
});

t.test('IPv6 spelled as the WHATWG URL parser serializes it, for addresses with zero runs anywhere', async (t) => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let n = 0; n < 2000; n++) {
    const groups = Array.from({ length: 8 }, () => (random() < 0.45 ? 0 : Math.floor(random() * 0x10000)));
    if (groups.slice(0, 5).every((g) => g === 0) && (groups[5] === 0xffff || groups[5] === 0)) groups[0] = 1;
    const full = groups.map((g) => g.toString(16).padStart(4, '0').toUpperCase()).join(':');
    const url = new URL(`http://[${full}]/`).hostname.slice(1, -1);
    t.equal(canonicalAddress(full), url, full);
  }
});

t.test('an IPv6 client is counted by its prefix; IPv4 by its address', async (t) => {
  t.equal(limitKey('203.0.113.7', 64), '203.0.113.7');
  t.equal(limitKey('2001:db8:1:2:3:4:5:6', 64), '2001:db8:1:2::/64');
  t.equal(limitKey('2001:db8:1:2::', 64), '2001:db8:1:2::/64');
  t.equal(limitKey('2001:db8:1:2ff:3:4:5:6', 56), '2001:db8:1:200::/56');
  t.equal(limitKey('2001:db8:1:2:3:4:5:6', 56), '2001:db8:1::/56');
  t.equal(limitKey('2001:db8:1:2ff:3:4:5:6', 60), '2001:db8:1:2f0::/60');
  t.equal(limitKey('2001:db8:1:2:3:4:5:6', 48), '2001:db8:1::/48');
  t.equal(limitKey('2001:db8:1:2:3:4:5:6', 1), '::/1');
  t.equal(limitKey('ffff:db8:1:2:3:4:5:6', 1), '8000::/1');
  t.equal(limitKey('2001:db8:1:2:3:4:5:6', 127), '2001:db8:1:2:3:4:5:6/127');
  t.equal(limitKey('2001:db8:1:2:3:4:5:7', 127), '2001:db8:1:2:3:4:5:6/127');
  t.equal(limitKey('2001:db8:1:2:3:4:5:6', 128), '2001:db8:1:2:3:4:5:6');
});
