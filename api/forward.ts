// Many nodes on one database: a write that reaches a node which does not lead is forwarded to the node that does, and its answer
// relayed as it came (docs/deploy.md#writes-reads-and-reading-your-own-writes). Reads are never forwarded.
import type Koa from 'koa';
import type { Pool } from 'undici';
import { ArchiveError } from '../lib/protocol/errors.js';
import { bodyBytes } from './body.js';
import { SELF_CLIENT_HEADER, SELF_TOKEN_HEADER } from './client-address.js';
import {
  type Answer,
  type ForwardedWrite,
  BATCH_BYTES,
  BATCH_PATH,
  BATCH_TYPE,
  BATCH_WRITES,
  RELAYED,
  decodeAnswers,
  encodeWrites,
  frameBytes,
} from './forward-batch.js';

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
// undici is loaded at the first forwarded write: a leader, or a single node, never loads it.
const pools = new Map<string, Pool>();
let undici: Promise<{ Pool: typeof Pool }> | undefined;

async function poolOf(origin: string): Promise<Pool> {
  const { Pool } = await (undici ??= import('undici'));
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
  const res = await (
    await poolOf(u.origin)
  ).request({
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
  /**
   * Exchanges with the leader in flight at once (default EXCHANGES), and writes a batch (default BATCH_WRITES): the writes that
   * come while all are in flight wait and go as one batch. `{ writes: 1, exchanges: Infinity }`: each write alone, as it comes.
   */
  batch?: { writes: number; exchanges: number };
}

/** Exchanges in flight at once: while one batch is answered the next is on its way, and the leader is seldom idle. */
export const EXCHANGES = 2;

const relayedOf = (headers: Record<string, string | string[] | undefined>): Answer['headers'] => {
  const kept: Answer['headers'] = {};
  for (const h of RELAYED) {
    const v = headers[h];
    if (typeof v === 'string') kept[h] = v;
  }
  return kept;
};

/**
 * The writes forwarded to one leader: a write that comes while `exchanges` are in flight waits for one to be answered, and the
 * writes that waited go together, at most BATCH_WRITES of at most BATCH_BYTES, as one batch (forward-batch.ts); one that
 * finds an exchange free goes in the next turn of the event loop with those that came in the same turn (no timer: when writes
 * are few, none waits). A write that goes alone goes as it came, to its own path. A batch that fails as a whole fails each of
 * its writes with its error, as a single write's failure; writes sent one by one fail each with its own.
 */
interface Pending {
  w: ForwardedWrite;
  resolve: (a: Answer) => void;
  reject: (err: unknown) => void;
}

class Batcher {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private turn = false;

  constructor(
    readonly leader: string,
    private readonly secret: string,
    private readonly timeoutMs: number,
    private readonly batch: { writes: number; exchanges: number },
  ) {}

  send(w: ForwardedWrite): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ w, resolve, reject });
      if (!this.turn && this.inFlight < this.batch.exchanges) {
        this.turn = true;
        setImmediate(() => {
          this.turn = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    while (this.queue.length > 0 && this.inFlight < this.batch.exchanges) {
      let n = 0;
      for (let bytes = 0; n < Math.min(this.queue.length, this.batch.writes); n++) {
        bytes += frameBytes(this.queue[n]!.w);
        if (bytes > BATCH_BYTES && n > 0) break;
      }
      this.inFlight++;
      void this.exchange(this.queue.splice(0, n)).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  /** Sends `batch` and settles each of its writes: with its own answer, or with the error of the exchange that carried it. */
  private async exchange(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      let answers: Answer[] | undefined;
      try {
        const res = await postTo(
          `${this.leader}${BATCH_PATH}`,
          { 'content-type': BATCH_TYPE, [SELF_TOKEN_HEADER]: this.secret },
          encodeWrites(batch.map((p) => p.w)),
          this.timeoutMs,
        );
        if (res.status === 200) answers = decodeAnswers(res.body, batch.length);
        // A leader of code before batches: nothing of the batch was read; each goes alone (below). Else refused as a whole.
        else if (res.status !== 404) answers = batch.map(() => ({ status: res.status, headers: relayedOf(res.headers), body: res.body }));
      } catch (err) {
        for (const p of batch) p.reject(err);
        return;
      }
      if (answers !== undefined) {
        batch.forEach((p, i) => p.resolve(answers[i]!));
        return;
      }
    }
    await Promise.all(
      batch.map(({ w, resolve, reject }) =>
        postTo(
          `${this.leader}${w.path}`,
          { 'content-type': w.contentType, [SELF_CLIENT_HEADER]: w.client, [SELF_TOKEN_HEADER]: this.secret },
          w.body,
          this.timeoutMs,
        ).then((res) => resolve({ status: res.status, headers: relayedOf(res.headers), body: res.body }), reject),
      ),
    );
  }
}

/** Forwards POSTs to `paths` while this node does not lead. */
export function forwardWrites(role: NodeRole, paths: ReadonlySet<string>, opts: ForwardOptions): Koa.Middleware {
  // One batcher for the leader of the moment; those of earlier leaders end with the writes they hold.
  let batcher: Batcher | undefined;
  const batch = opts.batch ?? { writes: BATCH_WRITES, exchanges: EXCHANGES };
  const batcherOf = (leader: string): Batcher => {
    if (batcher?.leader !== leader) batcher = new Batcher(leader, role.secret, opts.timeoutMs, batch);
    return batcher;
  };
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
      let res: Answer;
      try {
        res = await batcherOf(leader).send({ path: ctx.path, client: ctx.ip, contentType: ctx.get('content-type'), body });
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
        if (v !== undefined) ctx.set(h, v);
      }
      ctx.set('Archive-Leader', leader);
      ctx.body = res.body;
      return;
    }
  };
}
