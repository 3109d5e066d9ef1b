// Conditional GETs: a response names its version with an ETag, and a client that already holds
// that version (If-None-Match, RFC 9110 13.1.2: weak comparison, or *) gets 304 with no body.
import type Koa from 'koa';

/** Sets `etag` (and Cache-Control: no-cache) on the response; answers 304 and returns true when the client holds it. */
export function notModified(ctx: Koa.Context, etag: string): boolean {
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'no-cache');
  const held = ctx
    .get('If-None-Match')
    .split(',')
    .some((t) => {
      const v = t.trim();
      return v === '*' || v === etag || v === `W/${etag}`;
    });
  if (held) ctx.status = 304;
  return held;
}
