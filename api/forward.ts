// Many nodes on one database: a write that reaches a node which does not lead is forwarded to the node that does, and its answer
// relayed as it came (docs/deploy.md#writes-reads-and-reading-your-own-writes). Reads are never forwarded.
import type Koa from 'koa';
import { Pool } from 'undici';
import { ArchiveError } from '../lib/protocol/errors.js';
import { bodyBytes } from './body.js';
import { SELF_CLIENT_HEADER, SELF_TOKEN_HEADER } from './client-address.js';

/** What the HTTP layer needs of this node's place among the deployment's nodes (lib/service/cluster.ts). */
export interface NodeRole {
  /** This node's id. */
  readonly node: string;
  /** Whether this node takes writes itself. */
  readonly leading: boolean;
  /** The URL of the node that leads, as far as this one knows; null when none holds the lease. */
  readonly leaderUrl: string | null;
  /** The same, waiting up to `ms` to learn one (a failover under way). */
  leader(ms: number): Promise<string | null>;
  /** The secret the nodes share: a forwarded write names its client with it. */
  readonly secret: string;
}

/** The answer's headers relayed to the client. */
const RELAYED = ['content-type', 'retry-after', 'archive-seq'];

/** Whether a failed request never reached the other end (no connection was made): it may be sent again. */
function notDelivered(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}

// Connections to the leader are kept open between writes, in one undici pool per leader: beside node:http's keep-alive agent
// (npm run bench:forward, the same rounds), a forwarded write costs the follower about a third less CPU, the leader a quarter less.
const pools = new Map<string, Pool>();

function poolOf(origin: string): Pool {
  let pool = pools.get(origin);
  if (pool === undefined) {
    // The lease moved: the pools of earlier leaders close once their writes are answered.
    for (const [o, p] of pools) {
      pools.delete(o);
      void p.close().catch(() => undefined);
    }
    pool = new Pool(origin);
    pools.set(origin, pool);
  }
  return pool;
}

/** POSTs `body` to `url`; the answer whole, or the error of a request that failed or took over `timeoutMs`. */
async function postTo(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const u = new URL(url);
  const res = await poolOf(u.origin).request({
    method: 'POST',
    path: `${u.pathname}${u.search}`,
    headers,
    body,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const chunks: Buffer[] = [];
  for await (const c of res.body) chunks.push(c as Buffer);
  return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
}

export interface ForwardOptions {
  /** Longest wait for a node to lead (a failover under way), in ms. */
  waitMs: number;
  /** Longest wait for the leader's answer, in ms. */
  timeoutMs: number;
}

/** Forwards POSTs to `paths` while this node does not lead. */
export function forwardWrites(role: NodeRole, paths: ReadonlySet<string>, opts: ForwardOptions): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || !paths.has(ctx.path) || role.leading) return next();
    const body = await bodyBytes(ctx);
    const until = Date.now() + opts.waitMs;
    for (;;) {
      // (This node's own URL when it took the lease meanwhile: the body is read, so it goes round.)
      const leader = await role.leader(Math.max(0, until - Date.now()));
      if (leader === null)
        throw new ArchiveError(
          'unavailable',
          `no node holds the sequencer lease (a failover is under way, or the database cannot be reached): nothing of this write was ` +
            `logged; retry`,
          { retryAfter: 1 },
        );
      let res: Awaited<ReturnType<typeof postTo>>;
      try {
        res = await postTo(
          `${leader}${ctx.path}`,
          { 'content-type': ctx.get('content-type'), [SELF_CLIENT_HEADER]: ctx.ip, [SELF_TOKEN_HEADER]: role.secret },
          body,
          opts.timeoutMs,
        );
      } catch (err) {
        // Not sent at all: the leader is gone; ask again who leads, while there is time.
        if (notDelivered(err) && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        throw new ArchiveError(
          'unavailable',
          notDelivered(err)
            ? `the node that leads (${leader}) cannot be reached: nothing of this write was logged; retry`
            : `the node that leads (${leader}) did not answer: this write may or may not be on the log; look for it before sending it ` +
                `again (a copy already logged answers 409)`,
          { retryAfter: 1, cause: err },
        );
      }
      ctx.status = res.status;
      for (const h of RELAYED) {
        const v = res.headers[h];
        if (typeof v === 'string') ctx.set(h, v);
      }
      ctx.set('Archive-Leader', leader);
      ctx.body = res.body;
      return;
    }
  };
}
