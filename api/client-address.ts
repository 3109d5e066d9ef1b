// The client's address, which the limits per client count by: the socket's peer, or what a trusted proxy saw, spelled one way
// and an IPv6 client counted by its prefix (docs/cli.md#archive-serve-limits-per-client-address).
import type Koa from 'koa';
import { BlockList, isIP } from 'node:net';

/**
 * The header the MCP connector names its caller in, with the process's token beside it: the connector sends each tool call to
 * this server itself, and the token, which only this process knows, lets a tool call count against its caller, not the server.
 */
export const SELF_CLIENT_HEADER = 'x-archive-self-client';
export const SELF_TOKEN_HEADER = 'x-archive-self-token';

/** The default prefix length an IPv6 client is counted by: a /64, what one household or host is given. */
export const IPV6_PREFIX = 64;

/** The eight 16-bit groups of an IPv6 address isIP took (an IPv4 tail read as the last two). */
function groupsOf(v6: string): number[] {
  const [head = '', tail] = v6.split('::');
  const part = (s: string): number[] =>
    s === ''
      ? []
      : s.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const left = part(head);
  if (tail === undefined) return left;
  const right = part(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** RFC 5952's spelling: lower case, no leading zeros, the longest run of two or more zero groups (the first of equals) as `::`. */
function spell(groups: readonly number[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (gs: readonly number[]) => gs.map((g) => g.toString(16)).join(':');
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLength))}`;
}

/**
 * An address as one spelling (docs/cli.md, "archive serve: limits per client address"), or null when it is not
 * one: brackets, a port and an IPv6 zone id dropped; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
 * in any spelling) as the IPv4 address it maps; other IPv6 addresses as RFC 5952 spells them.
 */
export function canonicalAddress(spelled: string): string | null {
  let a = spelled.trim();
  const bracketed = /^\[([^\]]*)\](?::\d{1,5})?$/.exec(a);
  if (bracketed !== null) a = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  a = a.replace(/%.*$/s, '');
  const family = isIP(a);
  if (family === 4) return a;
  if (family !== 6) return null;
  const g = groupsOf(a.toLowerCase());
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return spell(g);
}

/**
 * What the limits per client address count by: an IPv4 address itself, an IPv6 address's first
 * `prefix` bits (`2001:db8:1:2::/64`; at 128, the address itself). One host is given a whole /64
 * and may use any address of it, so counting addresses would let it count itself many times.
 */
export function limitKey(address: string, prefix: number): string {
  if (isIP(address) !== 6 || prefix >= 128) return address;
  const g = groupsOf(address);
  const masked = g.map((x, i) => {
    const bits = Math.min(16, Math.max(0, prefix - i * 16));
    return bits === 16 ? x : x & ~(0xffff >> bits) & 0xffff;
  });
  return `${spell(masked)}/${prefix}`;
}

/** The key the limits count this request by (set by clientAddress; the address itself before it ran). */
export const limitKeyOf = (ctx: Koa.Context): string => (ctx.state as { limitKey?: string }).limitKey ?? ctx.ip;

/** The trusted proxies from a list of addresses and CIDR prefixes; throws naming a bad entry. */
export function trustedProxies(specs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const spec of specs) {
    const [address = '', bits, ...rest] = spec.trim().split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    if (family === 0 || rest.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max))) {
      throw new Error(`--trust-proxy: expected an IP address or CIDR prefix (10.0.0.1, 10.0.0.0/8, fd00::/8), got ${JSON.stringify(spec)}`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

const trusts = (list: BlockList, address: string): boolean => {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
};

/** The client's address for a request from `peer` carrying `forwardedFor` (X-Forwarded-For), spelled as canonicalAddress spells it. */
export function clientOf(peer: string, forwardedFor: string, trusted: BlockList | null): string {
  let client = canonicalAddress(peer) ?? peer;
  if (trusted === null || !trusts(trusted, client)) return client;
  const hops = forwardedFor.split(',').map(canonicalAddress);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === null || hop === undefined) break;
    client = hop;
    if (!trusts(trusted, hop)) break;
  }
  return client;
}

/**
 * Sets `ctx.request.ip` to the client's address, and the key the limits count it by (limitKeyOf),
 * its IPv6 addresses grouped by their first `ipv6Prefix` bits, for every middleware after it.
 */
export function clientAddress(trusted: BlockList | null, selfToken: string, ipv6Prefix = IPV6_PREFIX): Koa.Middleware {
  return async (ctx, next) => {
    const self = ctx.get(SELF_CLIENT_HEADER);
    const named = self !== '' && ctx.get(SELF_TOKEN_HEADER) === selfToken ? canonicalAddress(self) : null;
    ctx.request.ip = named ?? clientOf(ctx.req.socket.remoteAddress ?? '', ctx.get('x-forwarded-for'), trusted);
    (ctx.state as { limitKey?: string }).limitKey = limitKey(ctx.request.ip, ipv6Prefix);
    await next();
  };
}
