// A log served over HTTP for the client side's tests: the engine's read paths under a prefix
// (key, sth, checkpoint, tile/..., consistency, inclusion) over a real Log, on node:http, and a
// plain static file server, what a tiles mirror is. (The engine's own router is E1's
// tlog-engine/http; these answer the same paths the same way.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { generateKeyPairSync, sign } from 'node:crypto';
import { LogError, MemoryStore, openLog, parseTilePath, type Log, type LogSigner } from '../../src/index.js';
import { logKeyString as logKeySpelling } from '../../src/keys.js';
import { verifierKey } from '../../src/checkpoint.js';

type Teardown = { teardown(fn: () => unknown): void };

/** A log key for tests: its signer and its spelling as `<prefix>/key` serves it. */
export function logKey(): { signer: LogSigner; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
  return { signer: { publicKey: raw, sign: (m) => sign(null, m, privateKey) }, key: logKeySpelling(raw) };
}

/** A new log on a memory store, closed at teardown. */
export async function memoryLog(t: Teardown, signer: LogSigner, origin: string): Promise<Log> {
  const log = await openLog({ store: new MemoryStore(), signer, origin });
  t.teardown(() => log.close());
  return log;
}

const hex = (hs: Uint8Array[]) => JSON.stringify(hs.map((h) => Buffer.from(h).toString('hex')));

async function listen(t: Teardown, server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Serves `log` (signed by the key spelled `key`) under `prefix` on a loopback port; its URL,
 * without the prefix. `checkpoint` replaces the log's own (a cosigned one).
 */
export async function serveLog(
  t: Teardown,
  log: Log,
  key: string,
  opts: { prefix?: string; checkpoint?: () => string } = {},
): Promise<string> {
  const prefix = opts.prefix ?? '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string | Uint8Array) => res.writeHead(status, { 'content-type': type }).end(body);
    const json = (body: string) => send(200, 'application/json', body);
    const num = (name: string) => Number(url.searchParams.get(name));
    if (!url.pathname.startsWith(`${prefix}/`)) return send(404, 'text/plain', 'not found');
    const path = url.pathname.slice(prefix.length + 1);
    (async () => {
      if (path === 'key') return json(JSON.stringify({ key, origin: log.origin, vkey: verifierKey(log.origin, rawOf(key)) }));
      if (path === 'sth') return json(JSON.stringify(log.sth()));
      if (path === 'checkpoint') return send(200, 'text/plain; charset=utf-8', (opts.checkpoint ?? (() => log.checkpoint()))());
      if (path === 'consistency') {
        const [first, second] = [num('first'), num('second')];
        return json(`{"first":${first},"second":${second},"proof":${hex(await log.consistencyProof(first, second))}}`);
      }
      if (path === 'inclusion') {
        const [seq, size] = [num('seq'), num('size')];
        return json(`{"seq":${seq},"treeSize":${size},"proof":${hex(await log.inclusionProof(seq, size))}}`);
      }
      if (path.startsWith('tile/')) {
        const rest = path.slice('tile/'.length);
        const entries = rest.startsWith('entries/');
        const tile = parseTilePath(entries ? rest.slice('entries/'.length) : rest, entries ? 'entries' : 'hashes');
        const bytes = entries ? await log.entryBundle(tile) : await log.hashTile(tile);
        return bytes === null ? send(404, 'text/plain', 'beyond the tree') : send(200, 'application/octet-stream', bytes);
      }
      send(404, 'text/plain', 'not found');
    })().catch((err) => send(err instanceof LogError ? 400 : 500, 'text/plain', String(err)));
  });
  return listen(t, server);
}

function rawOf(key: string): Uint8Array {
  return new Uint8Array(Buffer.from(key, 'base64url').subarray(12));
}

/** Serves the files of `dir` on a loopback port; 404 for anything else. */
export async function serveStatic(t: Teardown, dir: string): Promise<string> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    readFile(join(dir, path)).then(
      (bytes) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes),
      () => res.writeHead(404).end('not found'),
    );
  });
  return listen(t, server);
}
