// A real service for HTTP tests: a LevelDB deployment in a temp dir and a server on port 0.
import type { Test } from 'tap';
import { startServer, type RunningServer } from '../../api/server.js';
import type { AppOptions } from '../../api/app.js';
import { openDeployment, type Deployment } from '../../lib/deployment.js';
import { tempDir } from './tmp.js';

export interface TestService {
  d: Deployment;
  server: RunningServer;
  dataDir: string;
  get(path: string): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  /** Closes the server and the deployment (also done at teardown). */
  stop(): Promise<void>;
}

export async function startService(t: Test, opts: AppOptions & { dataDir?: string; clock?: () => number } = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? tempDir(t);
  const d = await openDeployment({ dataDir, clock: opts.clock });
  const server = await startServer(d, 0, '127.0.0.1', opts);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.close();
    await d.close();
  };
  t.teardown(stop);
  return {
    d,
    server,
    dataDir,
    stop,
    async get(path) {
      const res = await fetch(server.url + path);
      const text = await res.text();
      let body: unknown = undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: res.status, headers: res.headers, body, text };
    },
  };
}
