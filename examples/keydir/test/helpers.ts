// What the tests share: temporary directories, a real server on port 0, key holders with real
// Ed25519 keys (node:crypto), and HTTP calls.
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { generateLogKey, rawPublicKey } from 'tlog-engine';
import { signStatement } from '../src/client.js';
import { KeyDir, openKeyDir } from '../src/keydir.js';
import { keydirServer } from '../src/server.js';

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keydir-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Someone holding an Ed25519 key: its public key as the directory spells it, and statements it signs. */
export interface Holder {
  privateKey: KeyObject;
  publicKey: string;
}

export function holder(): Holder {
  const privateKey = generateLogKey(); // an Ed25519 key, as any other
  return { privateKey, publicKey: Buffer.from(rawPublicKey(privateKey)).toString('base64url') };
}

/** A first binding of `name` to `h`'s key, signed by it. */
export const first = (name: string, h: Holder) => signStatement(h.privateKey, { name, publicKey: h.publicKey });

/** A rotation of `name` to `to`'s key, replacing entry `prev`, signed by `by` (the current holder, if it is right). */
export const rotation = (name: string, to: Holder, prev: number, by: Holder) =>
  signStatement(by.privateKey, { name, publicKey: to.publicKey, prev });

export interface Running {
  dir: KeyDir;
  url: string;
  close(): Promise<void>;
}

/** Serves `dir` on a free port until the test ends (or `close`). */
export async function serve(dir: KeyDir): Promise<Running> {
  const server = keydirServer(dir);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await dir.close();
  };
  after(close);
  return { dir, url, close };
}

/** The directory kept in `data`, served. */
export async function start(data: string, opts: { say?: (line: string) => void } = {}): Promise<Running> {
  return serve(await openKeyDir(data, opts));
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers of every shape
}

export async function call(url: string, path: string, init: { method?: string; body?: unknown; raw?: string } = {}): Promise<Answer> {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const res = await fetch(`${url}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), body });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
  return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : text };
}

export const post = (url: string, body: unknown) => call(url, '/keys', { body });

/** The size of the log's latest checkpoint. */
export async function treeSize(url: string): Promise<number> {
  return Number((await call(url, '/checkpoint')).body.split('\n')[1]);
}
