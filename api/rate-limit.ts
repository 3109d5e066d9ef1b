// A fixed-window rate limit per client address (an IPv6 client by its prefix: client-address.ts), answering 429 with Retry-After
// (docs/credence.md#tiers-quotas-and-rate-limits: thresholds are configuration).
import type Koa from 'koa';
import { ArchiveError } from '../lib/protocol/errors.js';
import { limitKeyOf } from './client-address.js';

export interface RateLimit {
  /** Requests allowed per window and client. */
  max: number;
  windowSeconds: number;
}

export function rateLimit(limit: RateLimit, what: string, now: () => number = Date.now): Koa.Middleware {
  const windows = new Map<string, { start: number; count: number }>();
  return async (ctx, next) => {
    const t = now();
    const windowMs = limit.windowSeconds * 1000;
    // Forget windows that ended, so the map stays as small as the set of recent clients.
    if (windows.size > 10_000) for (const [k, w] of windows) if (t - w.start >= windowMs) windows.delete(k);
    // Counted by the client's address, an IPv6 one by its prefix (client-address.ts).
    const key = limitKeyOf(ctx);
    let w = windows.get(key);
    if (w === undefined || t - w.start >= windowMs) {
      w = { start: t, count: 0 };
      windows.set(key, w);
    }
    if (w.count >= limit.max) {
      const retryAfter = Math.max(1, Math.ceil((w.start + windowMs - t) / 1000));
      throw new ArchiveError(
        'rate_limited',
        `${what} is limited to ${limit.max} per ${limit.windowSeconds} s; retry after ${retryAfter} s`,
        { retryAfter },
      );
    }
    w.count++;
    await next();
  };
}
