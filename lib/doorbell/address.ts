// Where a doorbell may ring: never an address inside the service's own network. An address that
// resolves to loopback, private, link-local, shared (CGNAT), unspecified or multicast ranges is
// refused, so a doorbell cannot make the service call its own neighbours. A setting allows
// loopback, for tests.
import { BlockList, isIP } from 'node:net';

const BLOCKED = new BlockList();
// IPv4
BLOCKED.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network", unspecified
BLOCKED.addSubnet('10.0.0.0', 8, 'ipv4'); // private
BLOCKED.addSubnet('100.64.0.0', 10, 'ipv4'); // shared address space (CGNAT)
BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local
BLOCKED.addSubnet('172.16.0.0', 12, 'ipv4'); // private
BLOCKED.addSubnet('192.0.0.0', 24, 'ipv4'); // IETF protocol assignments
BLOCKED.addSubnet('192.168.0.0', 16, 'ipv4'); // private
BLOCKED.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking
BLOCKED.addSubnet('224.0.0.0', 3, 'ipv4'); // multicast and reserved
// IPv6
BLOCKED.addAddress('::', 'ipv6'); // unspecified
BLOCKED.addSubnet('fc00::', 7, 'ipv6'); // unique local
BLOCKED.addSubnet('fe80::', 10, 'ipv6'); // link-local
BLOCKED.addSubnet('ff00::', 8, 'ipv6'); // multicast

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Why `address` (an IP) may not be rung, or null when it may. */
export function forbiddenAddress(address: string, allowLoopback = false): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it maps.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return forbiddenAddress(mapped[1]!, allowLoopback);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, type)) return allowLoopback ? null : `${address} is a loopback address`;
  if (BLOCKED.check(address, type)) return `${address} is in a private, link-local or reserved range`;
  return null;
}
