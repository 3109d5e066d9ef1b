// The checksum database's HTTP server: the reads of golang.org/x/mod/sumdb's server.go, answered as it answers them, and one write
// of this example's own, POST /add. Node's http module alone: the example depends on nothing but the engine.
// The routes and their answers: README.md#the-http-contract.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseTilePath, tileInTree, TilePathError, type TilePath } from 'tlog-engine';
import { AddError, type SumDB } from './db.js';
import { escapeCase, ModuleError, unescapePath, unescapeVersion } from './module.js';
import { MAX_RECORD_BYTES, RecordError, recordFromBytes, type SumRecord } from './record.js';

const TEXT = 'text/plain; charset=UTF-8';
/** sumdb's server.go: module@version as a lookup path may spell it, before unescaping. */
const MOD_VER = /^[^@]+@v[0-9]+\.[0-9]+\.[0-9]+(-[^@]*)?(\+incompatible)?$/;
/** tlog.ParseTilePath: the tile height, 1 to 30; this database serves height 8 only, as sum.golang.org does. */
const HEIGHT = /^tile\/([1-9][0-9]?)\/(.*)$/;

/** An error answered as Go's http.Error answers: the status, and the message as a line of text. */
class TextError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An error of POST /add (or of a method a path does not take), answered as JSON {error, detail} (and `id` for 409). */
class JsonError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array, head = false): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': bytes.length, 'X-Content-Type-Options': 'nosniff' });
  res.end(head ? undefined : bytes);
}

/** The request's path, percent-decoded as Go's r.URL.Path is. */
function pathOf(req: IncomingMessage): string {
  const raw = (req.url ?? '/').split('?')[0]!;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new TextError(400, 'invalid URL escape');
  }
}

async function lookup(db: SumDB, mod: string): Promise<string> {
  if (!MOD_VER.test(mod)) throw new TextError(400, 'invalid module@version syntax');
  const at = mod.indexOf('@');
  let path: string;
  let version: string;
  try {
    path = unescapePath(mod.slice(0, at));
    version = unescapeVersion(mod.slice(at + 1));
  } catch (err) {
    // server.go answers these 500 (reportError); they are the client's mistake, so 400 here.
    if (err instanceof ModuleError) throw new TextError(400, err.message);
    throw err;
  }
  const id = db.lookup(path, version);
  if (id === undefined) throw new TextError(404, `not found: ${path}@${version}`);
  const [record] = await db.log.records(id, 1);
  if (record === undefined) throw new Error(`record ${id} is missing from the log`);
  // The note is read after the record: its tree holds the record (id < its size).
  return `${id}\n${Buffer.from(record.bytes).toString('utf8')}\n${db.log.checkpoint()}`;
}

/** A tile path after "tile/8/": a hash tile `<L>/<N>[.p/<W>]` or a data tile `data/<N>[.p/<W>]`. */
function parseTile(rest: string): TilePath {
  try {
    return rest.startsWith('data/') ? parseTilePath(rest.slice('data/'.length), 'entries') : parseTilePath(rest, 'hashes');
  } catch (err) {
    if (err instanceof TilePathError) throw new TextError(400, 'invalid tile syntax');
    throw err;
  }
}

async function tile(db: SumDB, path: string): Promise<{ type: string; body: string | Uint8Array }> {
  const m = HEIGHT.exec(path);
  if (m === null || Number(m[1]) > 30) throw new TextError(400, 'invalid tile syntax');
  const t = parseTile(m[2]!);
  if (m[1] !== '8') throw new TextError(404, `not found: this database serves tiles of height 8, not ${m[1]}`);
  if (t.level !== null) {
    const hashes = await db.log.hashTile(t);
    if (hashes === null) throw new TextError(404, `not found: ${path} is beyond the tree of ${db.log.size}`);
    return { type: 'application/octet-stream', body: hashes };
  }
  if (!tileInTree(t, db.log.size)) throw new TextError(404, `not found: ${path} is beyond the tree of ${db.log.size}`);
  const start = t.index * 256;
  const records = await db.log.records(start, t.width);
  if (records.length !== t.width) throw new Error(`records ${start}..${start + t.width - 1} are missing from the log`);
  return { type: TEXT, body: records.map((r) => `${r.seq}\n${Buffer.from(r.bytes).toString('utf8')}\n`).join('') };
}

/** The request body, refused past `limit` bytes. */
async function body(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new JsonError(413, 'too_large', `body: a record is at most ${limit} bytes`);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    n += chunk.length;
    if (n > limit) throw new JsonError(413, 'too_large', `body: a record is at most ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function add(db: SumDB, req: IncomingMessage): Promise<{ id: number; record: SumRecord }> {
  const bytes = await body(req, MAX_RECORD_BYTES);
  try {
    const record = recordFromBytes(bytes);
    return { id: await db.add(record), record };
  } catch (err) {
    if (err instanceof RecordError) throw new JsonError(400, 'bad_record', `record: ${err.message}`);
    if (err instanceof AddError && err.code === 'exists') throw new JsonError(409, 'exists', err.message, { id: err.id });
    if (err instanceof AddError) throw new JsonError(503, 'unavailable', err.message);
    throw err;
  }
}

function allow(req: IncomingMessage, res: ServerResponse, methods: string[]): void {
  if (methods.includes(req.method ?? '')) return;
  res.setHeader('Allow', methods.join(', '));
  throw new JsonError(405, 'method_not_allowed', `method: ${req.method} ${pathOf(req)} takes ${methods.join(' or ')}`);
}

async function handle(db: SumDB, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = pathOf(req);
  const head = req.method === 'HEAD';
  if (path === '/add') {
    allow(req, res, ['POST']);
    const { id, record } = await add(db, req);
    res.setHeader('Location', `/lookup/${escapeCase(record.path)}@${escapeCase(record.version)}`);
    send(res, 201, 'application/json', JSON.stringify({ id }));
    return;
  }
  if (path === '/latest') {
    allow(req, res, ['GET', 'HEAD']);
    send(res, 200, TEXT, db.log.checkpoint(), head);
  } else if (path.startsWith('/lookup/')) {
    allow(req, res, ['GET', 'HEAD']);
    send(res, 200, TEXT, await lookup(db, path.slice('/lookup/'.length)), head);
  } else if (path.startsWith('/tile/')) {
    allow(req, res, ['GET', 'HEAD']);
    const { type, body } = await tile(db, path.slice(1));
    send(res, 200, type, body, head);
  } else {
    throw new TextError(404, '404 page not found');
  }
}

/** An HTTP server (not yet listening) for the database. */
export function sumdbServer(db: SumDB): Server {
  return createServer((req, res) => {
    handle(db, req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof TextError) return send(res, err.status, 'text/plain; charset=utf-8', `${err.message}\n`);
      if (err instanceof JsonError)
        return send(res, err.status, 'application/json', JSON.stringify({ error: err.code, detail: err.message, ...err.extra }));
      // A bug: the server's fault, said as such and logged.
      console.error(err);
      send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
    });
  });
}
