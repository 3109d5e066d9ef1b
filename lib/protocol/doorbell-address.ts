// Where a doorbell may ring: a host named by a DNS name, never an IP literal (doorbellUrlProblem, a pure check of the payload),
// and never an address of the refused ranges below, checked when the doorbell is rung (lib/service/doorbell/ringer.ts).
// The rule: docs/record.md#doorbells.
import { BlockList, isIP } from 'node:net';

// Refused so that a doorbell cannot make the service call its own neighbours, a cloud's metadata address, or a private address
// reached through a translation or tunnel prefix (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo).
/** One refused range: its prefix, the registry's name for it, and the RFC that reserves it. */
interface Range {
  prefix: string;
  bits: number;
  name: string;
  rfc: string;
}

const r = (cidr: string, name: string, rfc: string): Range => {
  const [prefix, bits] = cidr.split('/');
  return { prefix: prefix!, bits: Number(bits), name, rfc };
};

/** The IPv4 ranges refused (IANA IPv4 Special-Purpose Address Registry, and multicast). */
export const IPV4_REFUSED: readonly Range[] = [
  r('0.0.0.0/8', '"this network"', 'RFC 791 section 3.2'),
  r('10.0.0.0/8', 'private-use', 'RFC 1918'),
  r('100.64.0.0/10', 'shared address space', 'RFC 6598'),
  r('127.0.0.0/8', 'loopback', 'RFC 1122 section 3.2.1.3'),
  r('169.254.0.0/16', 'link-local', 'RFC 3927'),
  r('172.16.0.0/12', 'private-use', 'RFC 1918'),
  r('192.0.0.0/24', 'IETF protocol assignments', 'RFC 6890 section 2.1'),
  r('192.0.2.0/24', 'documentation (TEST-NET-1)', 'RFC 5737'),
  r('192.31.196.0/24', 'AS112-v4', 'RFC 7535'),
  r('192.52.193.0/24', 'AMT', 'RFC 7450'),
  r('192.88.99.0/24', 'deprecated 6to4 relay anycast', 'RFC 7526'),
  r('192.168.0.0/16', 'private-use', 'RFC 1918'),
  r('192.175.48.0/24', 'direct delegation AS112 service', 'RFC 7534'),
  r('198.18.0.0/15', 'benchmarking', 'RFC 2544'),
  r('198.51.100.0/24', 'documentation (TEST-NET-2)', 'RFC 5737'),
  r('203.0.113.0/24', 'documentation (TEST-NET-3)', 'RFC 5737'),
  r('224.0.0.0/4', 'multicast', 'RFC 5771'),
  r('240.0.0.0/4', 'reserved', 'RFC 1112 section 4'),
  r('255.255.255.255/32', 'limited broadcast', 'RFC 919, RFC 8190'),
];

/** The IPv6 ranges refused (IANA IPv6 Special-Purpose Address Registry, and more). */
export const IPV6_REFUSED: readonly Range[] = [
  r('::/128', 'unspecified', 'RFC 4291'),
  r('::1/128', 'loopback', 'RFC 4291'),
  r('::/96', 'IPv4-compatible (deprecated)', 'RFC 4291 section 2.5.5.1'),
  r('::ffff:0:0/96', 'IPv4-mapped', 'RFC 4291'),
  r('64:ff9b::/96', 'IPv4-IPv6 translation (NAT64)', 'RFC 6052'),
  r('64:ff9b:1::/48', 'local-use IPv4-IPv6 translation', 'RFC 8215'),
  r('100::/64', 'discard-only', 'RFC 6666'),
  r('100:0:0:1::/64', 'dummy IPv6 prefix', 'RFC 9780'),
  r('2001::/23', 'IETF protocol assignments', 'RFC 2928'),
  r('2001::/32', 'Teredo', 'RFC 4380, RFC 8190'),
  r('2001:2::/48', 'benchmarking', 'RFC 5180'),
  r('2001:db8::/32', 'documentation', 'RFC 3849'),
  r('2002::/16', '6to4', 'RFC 3056'),
  r('2620:4f:8000::/48', 'direct delegation AS112 service', 'RFC 7534'),
  r('3fff::/20', 'documentation', 'RFC 9637'),
  r('5f00::/16', 'segment routing (SRv6) SIDs', 'RFC 9602'),
  r('fc00::/7', 'unique-local', 'RFC 4193, RFC 8190'),
  r('fe80::/10', 'link-local unicast', 'RFC 4291'),
  r('fec0::/10', 'site-local (deprecated)', 'RFC 3879'),
  r('ff00::/8', 'multicast', 'RFC 4291'),
];

/** Global unicast (RFC 4291 section 2.4; the IANA IPv6 Address Space registry): nothing else is rung. */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

// Addresses are matched by their bits (node:net BlockList), never by their spelling.
/** One BlockList per range, so that a refusal can say which range it was. */
const lists = (ranges: readonly Range[], type: 'ipv4' | 'ipv6') =>
  ranges.map((range) => {
    const list = new BlockList();
    list.addSubnet(range.prefix, range.bits, type);
    return { range, list };
  });
const V4 = lists(
  [...IPV4_REFUSED].sort((a, b) => b.bits - a.bits),
  'ipv4',
);
// The more specific ranges first, so that Teredo is named as Teredo rather than as 2001::/23.
const V6 = lists(
  [...IPV6_REFUSED].sort((a, b) => b.bits - a.bits),
  'ipv6',
);

const isLoopback = (range: Range) => range.name === 'loopback';

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d, RFC 4291) stands for, or null. */
function mappedIpv4(address: string): string | null {
  const list = new BlockList();
  list.addSubnet('::ffff:0:0', 96, 'ipv6');
  if (!list.check(address, 'ipv6')) return null;
  // node:net spells the last 32 bits either dotted or as two hex groups: read them as bits.
  const tail = address.slice(address.lastIndexOf(':') + 1);
  if (tail.includes('.')) return tail;
  const groups = address.split(':');
  const hi = parseInt(groups[groups.length - 2]! || '0', 16);
  const lo = parseInt(tail || '0', 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Why `address` (an IP) may not be rung, or null when it may. The reason never contains the
 * address: it names the range and its RFC.
 */
export function forbiddenAddress(address: string, allowLoopback = false): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    // An IPv4-mapped address is connected to as the IPv4 address it maps: judged as that one.
    const v4 = mappedIpv4(address);
    if (v4 !== null) return forbiddenAddress(v4, allowLoopback);
  }
  for (const { range, list } of family === 4 ? V4 : V6) {
    if (!list.check(address, family === 4 ? 'ipv4' : 'ipv6')) continue;
    if (isLoopback(range)) return allowLoopback ? null : `a loopback address (${range.rfc})`;
    return `in a private, link-local or reserved range: ${range.name} (${range.rfc})`;
  }
  if (family === 6 && !GLOBAL_UNICAST.check(address, 'ipv6'))
    return 'in a private, link-local or reserved range: outside global unicast 2000::/3 (RFC 4291)';
  return null;
}

/**
 * What is wrong with a doorbell's URL as a payload, or null: it must parse as a URL, and its host
 * must be a DNS name, not an IP literal (an IPv4 address in any spelling the WHATWG URL parser
 * reads as one, such as `0x7f.1` or `2130706433`, or an IPv6 address in brackets). Pure: no
 * lookup, so the record's check and a verifier agree (docs/record.md, "Doorbells").
 */
export function doorbellUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL that parses (WHATWG URL)';
  }
  if (u.protocol !== 'https:') return 'must be an https:// address';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0)
    return 'the host is an IP address; a doorbell names its host by a DNS name, resolved and checked each time it is rung';
  return null;
}
