// A real service for HTTP tests: a LevelDB deployment in a temp dir, its record replayed, and a
// server on port 0. The clock is injected: tests move time with `advance` and log what fell due
// with `tick`.
import type { Test } from 'tap';
import { startServer, type RunningServer } from '../../api/server.js';
import type { AppOptions } from '../../api/app.js';
import { openDeployment, type Deployment } from '../../lib/service/deployment.js';
import { LiveRecord } from '../../lib/service/live-record.js';
import type { LogStore } from 'tlog-engine';
import { tempDir } from './tmp.js';
import type { DoorbellRinger } from '../../lib/service/doorbell/ringer.js';
import { Witnesses, type WitnessConfig } from '../../lib/service/witnesses.js';
import { RecordCluster, isSharedDb } from '../../lib/service/cluster.js';
import type { SnapshotPlace } from 'tlog-engine';
import type { Readers } from '../../lib/service/readers.js';
import { StorageWatch } from '../../lib/service/storage.js';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestService {
  d: Deployment;
  record: LiveRecord;
  server: RunningServer;
  /** The witnesses it submits checkpoints to (none unless `witnessedBy`); rounds run on `witnesses.tick()`. */
  witnesses: Witnesses;
  dataDir: string;
  url: string;
  get(path: string): Promise<Reply>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Moves the service clock forward by `ms` (only with the default test clock). */
  advance(ms: number): void;
  /** Logs what fell due and waits until it is durable. */
  tick(): Promise<void>;
  /** Closes the server and the deployment (also done at teardown). */
  stop(): Promise<void>;
  /** With `node`: this node among those sharing the database. */
  cluster?: RecordCluster;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export async function startService(
  t: Test,
  opts: Omit<AppOptions, 'ringer'> & {
    dataDir?: string;
    clock?: () => number;
    store?: LogStore;
    writesOff?: unknown;
    ringer?: (record: LiveRecord, clock: () => number) => DoorbellRinger;
    witnessedBy?: WitnessConfig[];
    /** Where the witnesses' state changes are logged (default: nowhere). */
    witnessNote?: (line: string) => void;
    /** Start from the snapshot in this file when it holds (lib/service/snapshot.ts); `say` gets the line saying so. */
    snapshot?: string | SnapshotPlace;
    say?: (line: string) => void;
    /**
     * One node of many on the PostgreSQL database `node.storeUrl` (lib/service/cluster.ts): it
     * follows, takes the lease when it is free, and forwards writes while it does not lead.
     */
    node?: { storeUrl: string; id: string; leaseMs?: number; pollMs?: number; say?: (line: string) => void };
    /** The readers' indexes, made over the record and its log (default: the app's own). */
    readersFrom?: (record: LiveRecord, d: Deployment) => Readers;
  } = {},
): Promise<TestService> {
  const dataDir = opts.dataDir ?? tempDir(t);
  let offset = 0;
  const clock = opts.clock ?? (() => Date.now() + offset);
  const n = opts.node;
  const leaseMs = n?.leaseMs ?? 2000;
  const d = await openDeployment({
    dataDir,
    clock,
    store: opts.store,
    storeUrl: n?.storeUrl,
    node: n === undefined ? undefined : { node: n.id, url: '', leaseMs },
  });
  const record = await LiveRecord.open(d, clock, opts.writesOff, {
    snapshot: opts.snapshot,
    say: opts.say ?? (() => {}),
    following: n !== undefined,
  });
  const cluster =
    n === undefined || !isSharedDb(d.store)
      ? undefined
      : new RecordCluster(d.store, record, { node: n.id, leaseMs, pollMs: n.pollMs ?? 200, say: n.say ?? (() => {}) });
  const ringer = opts.ringer?.(record, clock);
  const witnesses = new Witnesses(d.log, opts.witnessedBy ?? [], { intervalMs: 0, note: opts.witnessNote ?? (() => {}) });
  // Tests register many agents from one address: no registration limit unless a test sets one.
  const server = await startServer(d, record, 0, '127.0.0.1', {
    ...opts,
    registerLimit: opts.registerLimit === undefined ? null : opts.registerLimit,
    ringer,
    witnesses,
    role: cluster,
    readers: opts.readersFrom?.(record, d) ?? opts.readers,
  });
  await cluster?.start(server.url);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await cluster?.stop();
    await server.close();
    await d.close();
  };
  t.teardown(stop);
  return {
    d,
    record,
    server,
    witnesses,
    dataDir,
    url: server.url,
    stop,
    cluster,
    advance: (ms) => {
      offset += ms;
    },
    tick: () => record.tick(),
    get: async (path) => reply(await fetch(server.url + path)),
    post: async (path, body, headers = {}) =>
      reply(
        await fetch(server.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
  };
}

/**
 * A storage watch over `s` (by default a 64 KiB reserve, no free-space floor, a probe every 50 ms),
 * stopped at teardown: the watch, and the lines it says.
 */
export function watchStorage(t: Test, s: TestService): { watch: StorageWatch; said: string[] } {
  const said: string[] = [];
  const watch = new StorageWatch(s.dataDir, s.d.log, s.record, {
    reserveBytes: 64 * 1024,
    minFreeBytes: 0,
    probeMs: 50,
    say: (line) => said.push(line),
  });
  t.teardown(() => watch.stop());
  return { watch, said };
}
