// The engine's HTTP servers, on plain node:http, in the subpath `tlog-engine/servers` apart from what a client that
// only verifies loads: a witness's and a monitor's gossip endpoint (docs/engine.md#witnesses, docs/engine.md#monitors),
// and runServer, an application's server from the command line (docs/engine.md#the-client-side-reading-and-checking-a-log-over-http).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import type { MonitorState } from './client/monitor-state.js';
import type { WitnessEndpoint } from './witness/endpoint.js';

/** Largest add-checkpoint body read: 63 proof lines and a note with 100 signatures fit well within. */
export const MAX_ADD_CHECKPOINT_BODY = 64 * 1024;

/**
 * What is read and dropped of a body over the limit before the connection is cut: a client still
 * sending when the witness answers and closes would be reset, and could lose the answer.
 */
const MAX_DROPPED = 1024 * 1024;

const TEXT = 'text/plain; charset=utf-8';
const CHECKPOINT_PATH = /^\/([0-9a-f]{64})\/checkpoint$/;

function reply(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(body);
}

/**
 * The body of `req` as text; 'too large' when it is over MAX_ADD_CHECKPOINT_BODY, once the rest
 * of it was read and dropped (so the 413 reaches a client that is still sending); 'flood' as soon
 * as even that is over MAX_DROPPED.
 */
function readBody(req: IncomingMessage): Promise<string | 'too large' | 'flood'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_ADD_CHECKPOINT_BODY) chunks.push(c);
      else if (size > MAX_ADD_CHECKPOINT_BODY + MAX_DROPPED) {
        req.pause();
        resolve('flood');
      }
    });
    req.on('end', () => resolve(size > MAX_ADD_CHECKPOINT_BODY ? 'too large' : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Handles the tlog-witness requests of `witness` (c2sp.org/tlog-witness): POST /add-checkpoint
 * (405 for another method; 413 with a line and Connection: close for a body over 64 KiB, once
 * the rest is read and dropped, up to 1 MiB more; 500 when the witness could not keep what it
 * cosigned: nothing was cosigned) and GET /<hex SHA-256 of an origin>/checkpoint,
 * the last checkpoint cosigned for that log. Returns false for any other request, left unanswered.
 */
export function handleWitness(witness: WitnessEndpoint, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '').split('?')[0]!;
  if (path === '/add-checkpoint') {
    if (req.method !== 'POST') {
      reply(res, 405, TEXT, 'add-checkpoint takes POST\n', { allow: 'POST' });
      return true;
    }
    readBody(req).then(
      (body) => {
        if (body === 'too large' || body === 'flood') {
          // Answered in full, then the connection is closed; a flood is cut once the answer is written.
          res.shouldKeepAlive = false;
          if (body === 'flood') res.once('finish', () => req.socket.destroy());
          return reply(res, 413, TEXT, `the body is over ${MAX_ADD_CHECKPOINT_BODY} bytes\n`);
        }
        let answer;
        try {
          answer = witness.add(body);
        } catch (err) {
          // Not kept: nothing was cosigned.
          console.error(`witness: add-checkpoint failed: ${(err as Error).message}`);
          return reply(res, 500, TEXT, 'the witness could not save its state\n');
        }
        reply(res, answer.status, answer.type, answer.body);
      },
      () => res.destroy(),
    );
    return true;
  }
  const m = req.method === 'GET' ? CHECKPOINT_PATH.exec(path) : null;
  const record = m === null ? null : witness.cosigned(m[1]!);
  if (record === null) return false;
  reply(res, 200, TEXT, record.checkpoint);
  return true;
}

async function listen(server: Server, port: number, host: string): Promise<{ server: Server; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}` };
}

/** Serves `witness` on `host`:`port` (0: any free port); anything but its requests is 404. Resolves once listening, with its URL. */
export function serveWitness(port: number, host: string, witness: WitnessEndpoint): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (!handleWitness(witness, req, res)) reply(res, 404, TEXT, 'not found\n');
  });
  return listen(server, port, host);
}

/**
 * Serves a monitor's gossip: GET /head, the latest head it verified (its state without the
 * witness's record; 404 `{error, detail}` before its first). With `witness`, the monitor is a
 * witness too (handleWitness). Resolves once listening, with its URL.
 */
export function serveGossip(
  port: number,
  host: string,
  current: () => MonitorState | null,
  witness?: WitnessEndpoint,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (witness !== undefined && handleWitness(witness, req, res)) return;
    const state = req.method === 'GET' && req.url === '/head' ? current() : undefined;
    if (state === undefined || state === null) {
      const detail = state === null ? 'no head verified yet' : 'this monitor serves GET /head only';
      return reply(res, 404, 'application/json', JSON.stringify({ error: 'not_found', detail }));
    }
    const { witness: _w, ...gossip } = state;
    reply(res, 200, 'application/json', JSON.stringify(gossip), { 'access-control-allow-origin': '*' });
  });
  return listen(server, port, host);
}

/** An application's server as `runServer` runs it. */
export interface Running {
  server: Server;
  /** What it prints once listening at `url`: its key first (`vkey ...`), then `listening <url> ...`. */
  announce(url: string): string[];
  /** Closes what it serves (the log, its store), once the server stopped taking requests. */
  close(): Promise<void>;
}

/** A program that serves a log from the command line: `npm start -- --data DIR [--port P] [--host H] [its own options]`. */
export interface ServerProgram<O extends string> {
  /** Its name, which begins each message it prints on stderr. */
  name: string;
  /** What --data names, for its usage. */
  data: string;
  /** Its own options (taking a value each): each one's argument name and what it is, for the usage. */
  options: Record<O, { arg: string; help: string }>;
  /** Opens what it serves from the directory --data names, with its own options' values. */
  open(data: string, values: Partial<Record<O, string>>): Promise<Running>;
}

/**
 * Runs `program` on the process's arguments: reads `--data DIR` (required), `--port P` (default 0:
 * any free port), `--host H` (default 127.0.0.1) and its own options; opens and serves; prints its
 * lines; stops cleanly on SIGINT or SIGTERM (the server, then what it serves), exiting 0. A bad
 * argument exits 2 with the usage; a failure to open or listen exits 1, with one line saying why.
 */
export async function runServer<O extends string>(program: ServerProgram<O>): Promise<void> {
  const own = Object.entries(program.options) as [O, { arg: string; help: string }][];
  const usageLines: [string, string][] = [
    ['--data', program.data],
    ['--port', 'the port to listen on (default 0: any free port)'],
    ['--host', 'the address to listen on (default 127.0.0.1)'],
    ...own.map(([name, o]): [string, string] => [`--${name}`, o.help]),
  ];
  const width = Math.max(...usageLines.map(([flag]) => flag.length));
  const usage =
    `usage: npm start -- --data DIR [--port P] [--host H]${own.map(([name, o]) => ` [--${name} ${o.arg}]`).join('')}\n` +
    usageLines.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`).join('\n');
  const exit = (code: number, message: string, withUsage = false): never => {
    console.error(`${program.name}: ${message}${withUsage ? `\n${usage}` : ''}`);
    process.exit(code);
  };
  let values: Record<string, string | undefined>;
  try {
    const options = Object.fromEntries(['data', 'port', 'host', ...own.map(([name]) => name)].map((n) => [n, { type: 'string' as const }]));
    ({ values } = parseArgs({ options, strict: true }) as { values: Record<string, string | undefined> });
  } catch (err) {
    return exit(2, (err as Error).message, true);
  }
  if (values.data === undefined) return exit(2, '--data is required', true);
  const portText = values.port ?? '0';
  const port = Number(portText);
  if (!/^[0-9]{1,5}$/.test(portText) || port > 65535) return exit(2, `--port: "${portText}" is not a port number`, true);
  let running: Running;
  try {
    running = await program.open(values.data, Object.fromEntries(own.map(([name]) => [name, values[name]])) as Partial<Record<O, string>>);
  } catch (err) {
    return exit(1, (err as Error).message);
  }
  const { server } = running;
  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (closing) return;
      closing = true;
      server.close();
      server.closeAllConnections();
      running.close().then(
        () => process.exit(0),
        (err: unknown) => exit(1, (err as Error).message),
      );
    });
  }
  let url: string;
  try {
    ({ url } = await listen(server, port, values.host ?? '127.0.0.1'));
  } catch (err) {
    return exit(1, (err as Error).message);
  }
  server.on('error', (err) => exit(1, err.message));
  for (const line of running.announce(url)) console.log(line);
}
