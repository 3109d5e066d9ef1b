// The statement log's HTTP server (README, "The HTTP contract"), with Node's http module alone:
// one write, and the few reads of the log its verifier needs, with the paths (under /v1/log)
// and bodies of the router of the log's reads the engine is getting (tlog-engine/http).
//
//   POST /statements                      {statement, publicKey, signature}: 201 once durable
//   GET  /v1/log/key                      {origin, vkey}
//   GET  /v1/log/checkpoint               the signed checkpoint
//   GET  /v1/log/entries?from&limit       a page of entries {seq, data (base64), leafHash (hex)}
//   GET  /v1/log/inclusion?seq&size       an inclusion proof (hex hashes)
//   GET  /v1/log/consistency?first&second a consistency proof (hex hashes)
//
// The data directory (openStatementLog) holds `db/` (the engine's LevelDB store) and `log.key`.
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { openLevelStore, openLog, restartable, verifierKey, type Log } from 'tlog-engine';
import { loadOrMakeLogKey } from './key.js';
import { admitStatement, StatementError } from './rule.js';

/** The origin of a new log when none is given. */
export const DEFAULT_ORIGIN = 'statements.localhost';
/** The largest body taken. */
export const MAX_BODY = 16 * 1024;
/** The most entries a page holds, and how many when `limit` is not given. */
export const PAGE = { max: 1000, default: 100 };

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
    const signer = await loadOrMakeLogKey(join(dir, 'log.key'), head === null);
    const log = await openLog({ store, signer, origin });
    return { log, vkey: verifierKey(origin, signer.publicKey), close: () => log.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}

const badRequest = (detail: string) => new StatementError(400, 'bad_request', detail);

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
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
    throw badRequest('body: not JSON');
  }
}

/** The query's integer parameters, strictly: only `names`, each once, in canonical decimal. */
function intParams(query: URLSearchParams, names: string[]): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {};
  for (const k of new Set(query.keys())) {
    if (!names.includes(k)) throw badRequest(`${k}: unexpected parameter (this route takes ${names.join(', ')})`);
    const values = query.getAll(k);
    if (values.length > 1) throw badRequest(`${k}: given more than once`);
    if (!/^(0|[1-9][0-9]{0,15})$/.test(values[0]!) || !Number.isSafeInteger(Number(values[0])))
      throw badRequest(`${k}: expected an integer at least 0, got ${JSON.stringify(values[0])}`);
    out[k] = Number(values[0]);
  }
  return out;
}

const hex = (hashes: Uint8Array[]) => hashes.map((h) => Buffer.from(h).toString('hex'));

/** The log's reads (the engine's committed tree only). */
async function read(log: Log, route: string, query: URLSearchParams): Promise<unknown> {
  const size = log.size;
  switch (route) {
    case 'checkpoint':
      intParams(query, []);
      return log.checkpoint();
    case 'entries': {
      const { from = 0, limit = PAGE.default } = intParams(query, ['from', 'limit']);
      if (limit < 1 || limit > PAGE.max) throw badRequest(`limit: from 1 to ${PAGE.max}`);
      if (from > size) throw badRequest(`from: ${from} is beyond the tree size ${size}`);
      const entries = await log.entries(from, Math.min(limit, size - from));
      return {
        treeSize: size,
        from,
        count: entries.length,
        next: from + entries.length < size ? from + entries.length : null,
        entries: entries.map((e) => ({
          seq: e.seq,
          data: Buffer.from(e.bytes).toString('base64'),
          leafHash: Buffer.from(e.leafHash).toString('hex'),
        })),
      };
    }
    case 'inclusion': {
      const { seq, size: at = size } = intParams(query, ['seq', 'size']);
      if (seq === undefined) throw badRequest('seq: required');
      if (at > size) throw new StatementError(404, 'not_found', `size: ${at} is beyond the tree of ${size}`);
      if (seq >= at) throw badRequest(`seq: ${seq} is not in a tree of size ${at}`);
      return { seq, treeSize: at, proof: hex(await log.inclusionProof(seq, at)) };
    }
    case 'consistency': {
      const { first, second } = intParams(query, ['first', 'second']);
      if (first === undefined || second === undefined) throw badRequest(`${first === undefined ? 'first' : 'second'}: required`);
      if (second > size) throw new StatementError(404, 'not_found', `second: ${second} is beyond the tree of ${size}`);
      if (first > second) throw badRequest(`first: ${first} is larger than second (${second})`);
      return { first, second, proof: hex(await log.consistencyProof(first, second)) };
    }
  }
  throw new StatementError(404, 'not_found', `path: no route /v1/log/${route}`);
}

function allow(req: IncomingMessage, method: string): void {
  if (req.method !== method)
    throw new StatementError(405, 'method_not_allowed', `method: ${req.method} is not ${method}`, { Allow: method });
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

async function handle(s: StatementLog, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/statements') {
    allow(req, 'POST');
    const entry = admitStatement(await jsonBody(req));
    send(res, 201, await append(s.log, entry));
  } else if (url.pathname === '/v1/log/key') {
    allow(req, 'GET');
    intParams(url.searchParams, []);
    send(res, 200, { origin: s.log.origin, vkey: s.vkey });
  } else if (url.pathname.startsWith('/v1/log/')) {
    allow(req, 'GET');
    send(res, 200, await read(s.log, url.pathname.slice('/v1/log/'.length), url.searchParams));
  } else {
    throw new StatementError(404, 'not_found', `path: no route ${url.pathname}`);
  }
}

/** An HTTP server (not yet listening) for the statement log. */
export function statementServer(s: StatementLog): Server {
  return createServer((req, res) => {
    handle(s, req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof StatementError) return send(res, err.status, { error: err.code, detail: err.message }, err.headers);
      console.error(err); // a bug
      send(res, 500, { error: 'internal', detail: 'the server failed; this is a bug' });
    });
  });
}
