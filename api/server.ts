// Starts the HTTP server for a deployment.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deployment } from '../lib/service/deployment.js';
import type { LiveRecord } from '../lib/service/live-record.js';
import { availableParallelism } from 'node:os';
import { VerifyPool } from '../lib/service/verify-pool.js';
import { nextTurn } from 'tlog-engine';
import { afterStart } from '../lib/record/numbers/index.js';
import { createApp, type AppOptions } from './app.js';

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Settles when the operators' calibrations and the served credence text are made for every claim, made while serving after
   * the start (`afterStart`): with the seconds it took, or null when the server closed first.
   */
  credenceMade: Promise<number | null>;
  close(): Promise<void>;
}

export interface ServerOptions extends AppOptions {
  /** Worker threads that verify signatures of writes (default: one fewer than the CPUs; 0: inline). */
  verifyWorkers?: number;
}

export async function startServer(
  d: Deployment,
  record: LiveRecord,
  port: number,
  host: string,
  opts: ServerOptions = {},
): Promise<RunningServer> {
  const workers = opts.verifyWorkers ?? Math.max(1, availableParallelism() - 1);
  const pool = workers > 0 ? new VerifyPool(workers) : null;
  const verify = pool === null ? undefined : (key: string, message: string, signature: string) => pool.verify(key, message, signature);
  const server = createServer(createApp(d, record, { ...opts, verify }).callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  // The operators' calibrations and the served credence text made while serving, a step a turn, so that neither the start
  // nor the first reader of an operator's calibration or of GET /v2/credence waits for all of it.
  let closed = false;
  const made = (async () => {
    const t0 = performance.now();
    for (const _ of afterStart(record.state)) {
      await nextTurn();
      if (closed) return null;
    }
    return (performance.now() - t0) / 1000;
  })();
  return {
    server,
    url: `http://${shown}:${addr.port}`,
    credenceMade: made,
    close: async () => {
      closed = true;
      await made;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await pool?.close();
    },
  };
}
