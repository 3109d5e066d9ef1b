// The client's address, which rate limits count by (README.md, "Limits per client address"): the
// socket's peer, unless that peer is a proxy the operator trusts (`--trust-proxy`), and then the
// address that proxy saw, read from X-Forwarded-For right to left, skipping the trusted proxies
// of a chain. An X-Forwarded-For from anyone else is ignored: a client cannot choose its address.
// The MCP connector sends each tool call to this server itself; it names the caller with a token
// only this process knows, so a tool call counts against its own caller, not against the server.
import type Koa from 'koa';
import { BlockList, isIP } from 'node:net';

/** The header the MCP connector names its caller in, with the process's token beside it. */
export const SELF_CLIENT_HEADER = 'x-archive-self-client';
export const SELF_TOKEN_HEADER = 'x-archive-self-token';

/** An IPv4-mapped IPv6 address as the IPv4 address it maps; other addresses as they are. */
export function plainAddress(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m === null ? address : m[1]!;
}

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

/** The client's address for a request from `peer` carrying `forwardedFor` (X-Forwarded-For). */
export function clientOf(peer: string, forwardedFor: string, trusted: BlockList | null): string {
  let client = plainAddress(peer);
  if (trusted === null || !trusts(trusted, client)) return client;
  const hops = forwardedFor.split(',').map((h) => plainAddress(h.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) break;
    client = hop;
    if (!trusts(trusted, hop)) break;
  }
  return client;
}

/** Sets `ctx.request.ip` to the client's address, for every middleware after it. */
export function clientAddress(trusted: BlockList | null, selfToken: string): Koa.Middleware {
  return async (ctx, next) => {
    const self = ctx.get(SELF_CLIENT_HEADER);
    ctx.request.ip =
      self !== '' && ctx.get(SELF_TOKEN_HEADER) === selfToken && isIP(self) !== 0
        ? self
        : clientOf(ctx.req.socket.remoteAddress ?? '', ctx.get('x-forwarded-for'), trusted);
    await next();
  };
}
