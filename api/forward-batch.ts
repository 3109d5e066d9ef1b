// Forwarded writes in batches, between the nodes only (docs/deploy.md#writes-reads-and-reading-your-own-writes): a follower sends
// the writes that gather while an exchange with the leader is in flight as one request (api/forward.ts), and the leader runs
// each through this app's own request handler, as if it had come alone, and answers each one's status, headers and body.
// Not part of the public API: a request without the nodes' shared secret is refused before any write is read.
import type Koa from 'koa';
import { timingSafeEqual } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ArchiveError, badRequest, forbidden } from '../lib/protocol/errors.js';
import { SELF_CLIENT_HEADER, SELF_TOKEN_HEADER } from './client-address.js';
import { mediaType, readAtMost } from './body.js';

/** Where a follower sends a batch: the nodes' own route, not in the OpenAPI or MCP surfaces. */
export const BATCH_PATH = '/v1/node/writes';
/** The media type of a batch and of its answer: frames, each a head (JSON) and a body, each preceded by its length. */
export const BATCH_TYPE = 'application/vnd.archive.write-batch';
/** At most this many writes a batch, and this many bytes (frames included); each write's own body at most MAX_BODY_BYTES, as alone. */
export const BATCH_WRITES = 64;
export const BATCH_BYTES = 1024 * 1024;

/** The answer's headers relayed to the client. */
export const RELAYED = ['content-type', 'retry-after', 'archive-seq'] as const;

/** One write as the follower forwards it: its path, the client's address (after the follower's --trust-proxy), its bytes. */
export interface ForwardedWrite {
  path: string;
  client: string;
  contentType: string;
  body: Buffer;
}

/** An answer as the leader gave it: its status, the headers relayed to the client, its body. */
export interface Answer {
  status: number;
  headers: Partial<Record<(typeof RELAYED)[number], string>>;
  body: Buffer;
}

/** One frame: the head's length (4 bytes, big-endian), the head as JSON, the body's length, the body. */
export function frame(head: object, body: Buffer): Buffer[] {
  const h = Buffer.from(JSON.stringify(head));
  const lengths = Buffer.allocUnsafe(4);
  lengths.writeUInt32BE(h.length);
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(body.length);
  return [lengths, h, b, body];
}

/** The bytes a write takes in a batch. */
export const frameBytes = (w: ForwardedWrite): number => 8 + Buffer.byteLength(JSON.stringify(headOf(w))) + w.body.length;

const headOf = (w: ForwardedWrite) => ({ path: w.path, client: w.client, contentType: w.contentType });

export const encodeWrites = (ws: readonly ForwardedWrite[]): Buffer => Buffer.concat(ws.flatMap((w) => frame(headOf(w), w.body)));

export const encodeAnswers = (as: readonly Answer[]): Buffer =>
  Buffer.concat(as.flatMap((a) => frame({ status: a.status, headers: a.headers }, a.body)));

/** The frames of `buf`, or an error naming where they break. */
export function decodeFrames(buf: Buffer, what: string): { head: unknown; body: Buffer }[] {
  const frames: { head: unknown; body: Buffer }[] = [];
  let at = 0;
  const take = (n: number) => {
    if (at + n > buf.length) throw badRequest(`${what} ${frames.length}: cut short at byte ${buf.length}`);
    const part = buf.subarray(at, at + n);
    at += n;
    return part;
  };
  while (at < buf.length) {
    const head = take(take(4).readUInt32BE());
    const body = take(take(4).readUInt32BE());
    let parsed: unknown;
    try {
      parsed = JSON.parse(head.toString());
    } catch {
      throw badRequest(`${what} ${frames.length}: its head is not JSON`);
    }
    frames.push({ head: parsed, body });
  }
  return frames;
}

/** The answers of a batch as the leader framed them; throws when they are not (the follower then cannot tell what was logged). */
export function decodeAnswers(buf: Buffer, count: number): Answer[] {
  const frames = decodeFrames(buf, 'answer');
  if (frames.length !== count) throw new Error(`the leader answered ${frames.length} writes of ${count}`);
  return frames.map(({ head, body }) => {
    const h = head as { status?: unknown; headers?: Record<string, unknown> };
    if (typeof h?.status !== 'number' || typeof h.headers !== 'object' || h.headers === null) throw new Error('an answer without a status');
    const headers: Answer['headers'] = {};
    for (const name of RELAYED) if (typeof h.headers[name] === 'string') headers[name] = h.headers[name];
    return { status: h.status, headers, body };
  });
}

/** The writes of a batch the leader was sent: each head checked, its path one of `paths`. */
function decodeWrites(buf: Buffer, paths: ReadonlySet<string>): ForwardedWrite[] {
  const frames = decodeFrames(buf, 'batch: write');
  if (frames.length > BATCH_WRITES)
    throw new ArchiveError('payload_too_large', `batch: ${frames.length} writes, more than ${BATCH_WRITES}`);
  return frames.map(({ head, body }, i) => {
    const h = head as Partial<Record<keyof ForwardedWrite, unknown>> | null;
    if (typeof h?.path !== 'string' || !paths.has(h.path)) throw badRequest(`batch: write ${i}: path: expected a write path`);
    if (typeof h.client !== 'string' || typeof h.contentType !== 'string')
      throw badRequest(`batch: write ${i}: client, contentType: expected strings`);
    return { path: h.path, client: h.client, contentType: h.contentType, body };
  });
}

/** Where a write of a batch "came from": no socket, so nothing reads from or waits on the batch's own connection. */
const NO_SOCKET = { readable: false, destroyed: false, remoteAddress: undefined, destroy: () => undefined } as unknown as Socket;

/** Runs `w` through `handle` (the app's own request handler) as a request of its own, and takes its answer as the client would. */
function dispatch(handle: (req: IncomingMessage, res: ServerResponse) => unknown, w: ForwardedWrite, secret: string, host: string) {
  return new Promise<Answer>((resolve) => {
    const req = new IncomingMessage(NO_SOCKET);
    req.method = 'POST';
    req.url = w.path;
    req.httpVersion = '1.1';
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    // The headers a single forwarded write carries (api/forward.ts): the client named with the nodes' secret.
    req.headers = {
      host,
      'content-type': w.contentType,
      'content-length': String(w.body.length),
      [SELF_CLIENT_HEADER]: w.client,
      [SELF_TOKEN_HEADER]: secret,
    };
    if (w.body.length > 0) req.push(w.body);
    req.push(null);
    req.complete = true;
    const res = new ServerResponse(req);
    const chunks: Buffer[] = [];
    const add = (chunk: unknown) => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    };
    res.write = ((chunk: unknown) => (add(chunk), true)) as typeof res.write;
    res.end = ((chunk?: unknown) => {
      add(chunk);
      const headers: Answer['headers'] = {};
      for (const name of RELAYED) {
        const v = res.getHeader(name);
        if (v !== undefined) headers[name] = String(v);
      }
      resolve({ status: res.statusCode, headers, body: Buffer.concat(chunks) });
      return res;
    }) as typeof res.end;
    void handle(req, res);
  });
}

const sameSecret = (given: string, secret: string): boolean => {
  const [a, b] = [Buffer.from(given), Buffer.from(secret)];
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The leader's side: POST BATCH_PATH with the nodes' `secret`, whose writes (each to one of `paths`) are run concurrently through
 * `handler()`, the app's own request handler, each as a single write would be; the answer frames each one's answer, in order.
 */
export function batchRoute(
  secret: string,
  paths: ReadonlySet<string>,
  handler: () => (req: IncomingMessage, res: ServerResponse) => unknown,
): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== BATCH_PATH) return next();
    if (!sameSecret(ctx.get(SELF_TOKEN_HEADER), secret))
      throw forbidden(`${SELF_TOKEN_HEADER}: this route takes batches of forwarded writes from the deployment's nodes only`);
    const type = mediaType(ctx);
    if (type !== BATCH_TYPE) throw badRequest(`content-type: expected ${BATCH_TYPE}, got ${type === '' ? 'none' : type}`);
    const length = ctx.request.length;
    const tooLarge = () => new ArchiveError('payload_too_large', `batch: larger than ${BATCH_BYTES} bytes`);
    if (length !== undefined && length > BATCH_BYTES) throw tooLarge();
    const writes = decodeWrites(await readAtMost(ctx, BATCH_BYTES, tooLarge), paths);
    const handle = handler();
    const answers = await Promise.all(writes.map((w) => dispatch(handle, w, secret, ctx.get('host'))));
    ctx.status = 200;
    ctx.type = BATCH_TYPE;
    ctx.body = encodeAnswers(answers);
  };
}
