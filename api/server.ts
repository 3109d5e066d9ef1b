// Starts the HTTP server for a deployment.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deployment } from '../lib/deployment.js';
import type { LiveRecord } from '../lib/record/record.js';
import { createApp, type AppOptions } from './app.js';

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startServer(d: Deployment, record: LiveRecord, port: number, host: string, opts: AppOptions = {}): Promise<RunningServer> {
  const server = createServer(createApp(d, record, opts).callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    server,
    url: `http://${shown}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
