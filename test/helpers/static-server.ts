// A plain static file server (node:http, no framework): what a mirror of the tiles is.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/** Serves the files of `dir` on a loopback port; 404 for anything else. Closed at teardown. */
export async function serveStatic(t: Test, dir: string): Promise<string> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    readFile(join(dir, path)).then(
      (bytes) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes),
      () => res.writeHead(404).end('not found'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
