// The directory's HTTP server, with Node's http module alone: POST /keys, GET /keys/<name>, GET /keys/<name>/history and
// GET /checkpoint; every refusal a 4xx {error, detail} naming the field, nothing written (README.md#the-http-contract).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { checkName, KeyDirError, parseStatement } from './binding.js';
import type { KeyDir } from './keydir.js';

/** The largest body taken: a statement is a few hundred bytes. */
export const MAX_BODY = 4096;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const tooLarge = new KeyDirError(413, 'too_large', `body: at most ${MAX_BODY} bytes`);
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
    throw new KeyDirError(400, 'bad_request', 'body: not JSON');
  }
}

function allow(req: IncomingMessage, methods: string[]): void {
  if (!methods.includes(req.method ?? ''))
    throw new KeyDirError(
      405,
      'method_not_allowed',
      `method: ${req.method} is not one of ${methods.join(', ')}`,
      {},
      { Allow: methods.join(', ') },
    );
}

/** The name in a path `/keys/<name>`, percent-decoded and checked. */
function nameOf(raw: string): string {
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    throw new KeyDirError(400, 'bad_request', 'name: not a valid percent-encoding');
  }
  checkName(name);
  return name;
}

async function handle(dir: KeyDir, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/keys') {
    allow(req, ['POST']);
    const s = parseStatement(await jsonBody(req));
    const { seq, time } = await dir.bind(s);
    send(res, 201, { name: s.name, publicKey: s.publicKey, seq, time }, { Location: `/keys/${s.name}` });
    return;
  }
  const m = /^\/keys\/([^/]+)(\/history)?$/.exec(path);
  if (m !== null) {
    allow(req, ['GET']);
    const name = nameOf(m[1]!);
    send(res, 200, m[2] === undefined ? await dir.lookup(name) : await dir.history(name));
  } else if (path === '/checkpoint') {
    allow(req, ['GET']);
    send(res, 200, dir.log.checkpoint());
  } else {
    throw new KeyDirError(404, 'not_found', `path: no route ${path}`);
  }
}

/** An HTTP server (not yet listening) for the directory. */
export function keydirServer(dir: KeyDir): Server {
  return createServer((req, res) => {
    handle(dir, req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof KeyDirError) return send(res, err.status, { error: err.code, detail: err.message, ...err.extra }, err.headers);
      console.error(err); // a bug
      send(res, 500, { error: 'internal', detail: 'the server failed; this is a bug' });
    });
  });
}
