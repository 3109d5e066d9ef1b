// The statement log's HTTP service, a Koa app: the engine's router of the log's reads under /v1/log, and the application's one
// write, POST /statements (README.md#the-http-contract). The data directory holds `db/` and `log.key` (README.md#run-it).
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import Koa from 'koa';
import { isMissingKeyFile, loadOrCreateKeyFile, logSigner, openLevelStore, openLog, restartable, verifierKey, type Log } from 'tlog-engine';
import { logRouter } from 'tlog-engine/http';
import { admitStatement, StatementError } from './rule.js';

/** The origin of a new log when none is given. */
export const DEFAULT_ORIGIN = 'statements.localhost';
/** The largest body taken. */
export const MAX_BODY = 16 * 1024;

/** A statement log: the engine's log, and the vkey of the key that signs its checkpoints. */
export interface StatementLog {
  log: Log;
  vkey: string;
  close(): Promise<void>;
}

/**
 * Opens (or makes) the statement log kept in `dir`. `origin`: a new log's (default
 * DEFAULT_ORIGIN); an existing log keeps its own, and refuses another.
 */
export async function openStatementLog(dir: string, opts: { origin?: string } = {}): Promise<StatementLog> {
  await mkdir(dir, { recursive: true });
  const store = await restartable(() => openLevelStore(join(dir, 'db')));
  try {
    const head = await store.readHead();
    // A log's origin is the first line of its checkpoints: fixed when it is made.
    const origin = head === null ? (opts.origin ?? DEFAULT_ORIGIN) : head.checkpoint.slice(0, head.checkpoint.indexOf('\n'));
    if (opts.origin !== undefined && opts.origin !== origin)
      throw new Error(`${dir} holds the log of "${origin}", not of "${opts.origin}": the origin is fixed when the log is made`);
    // The log key is made with the log, and never again.
    const key = await loadOrCreateKeyFile(join(dir, 'log.key'), { create: head === null }).catch((err: unknown) => {
      throw isMissingKeyFile(err)
        ? new Error(`${join(dir, 'log.key')} is missing, and the log it signs exists: its key cannot be made again`)
        : err;
    });
    const log = await openLog({ store, signer: logSigner(key), origin });
    return { log, vkey: verifierKey(log.keyName, log.publicKey), close: () => log.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const tooLarge = new StatementError(413, 'too_large', `body: at most ${MAX_BODY} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) throw tooLarge;
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    n += chunk.length;
    if (n > MAX_BODY) throw tooLarge;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new StatementError(400, 'bad_request', 'body: not JSON');
  }
}

/** Appends an admitted entry; resolves once it is durable. A log stopped by a failed write recovers first. */
async function append(log: Log, entry: Uint8Array) {
  try {
    if (log.stopped) await log.recover();
    return await log.append(entry);
  } catch (err) {
    throw new StatementError(503, 'unavailable', `the log cannot write now, nothing was logged (${(err as Error).message})`);
  }
}

/** The application's HTTP service: the engine's log reads, and POST /statements. */
export function statementApp(s: StatementLog): Koa {
  const app = new Koa();
  app.use(logRouter(s.log).routes());
  app.use(async (ctx) => {
    try {
      if (ctx.path !== '/statements') throw new StatementError(404, 'not_found', `path: no route ${ctx.path}`);
      if (ctx.method !== 'POST')
        throw new StatementError(405, 'method_not_allowed', `method: ${ctx.method} is not POST`, { Allow: 'POST' });
      const entry = admitStatement(await jsonBody(ctx.req));
      ctx.status = 201;
      ctx.body = await append(s.log, entry);
    } catch (err) {
      if (!(err instanceof StatementError)) console.error(err); // a bug
      const e = err instanceof StatementError ? err : new StatementError(500, 'internal', 'the server failed; this is a bug');
      ctx.status = e.status;
      ctx.set(e.headers);
      ctx.body = { error: e.code, detail: e.message };
    }
  });
  return app;
}

/** An HTTP server (not yet listening) for the statement log. */
export function statementServer(s: StatementLog): Server {
  return createServer(statementApp(s).callback());
}
