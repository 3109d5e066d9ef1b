// The HTTP service: a Koa app over a deployment.
import Koa from 'koa';
import { randomBytes } from 'node:crypto';
import { clientAddress, trustedProxies } from './client-address.js';
import type { Deployment } from '../lib/service/deployment.js';
import { clientWentAway, errorMiddleware, noteClientGone } from './error-middleware.js';
import { logRoutes } from './routes/log.js';
import { writeRoutes } from './routes/writes.js';
import type { Verify } from './envelope.js';
import type { LiveRecord } from '../lib/service/live-record.js';
import { servedEntry, entryRecords } from '../lib/record/views/index.js';
import type { RateLimit } from './rate-limit.js';
import { Cursors } from './paging.js';
import { mcpRoutes } from './mcp.js';
import type { DoorbellRinger } from '../lib/service/doorbell/ringer.js';
import { earlierRoutes } from './routes/earlier.js';
import { READ_TABLE, READS, readRouter, type Read } from './reads/index.js';
import { openApiText } from './openapi.js';
import { constitutionInForce } from '../lib/record/governance/index.js';
import { loadScreening, type Screening } from '../lib/service/screening.js';
import type { Witnesses } from '../lib/service/witnesses.js';
import { REGISTER_PATH, WRITE_ROUTES } from '../lib/record/types/index.js';
import { forwardWrites, type NodeRole } from './forward.js';
import { batchRoute } from './forward-batch.js';
import { minSeq } from './min-seq.js';
import { isLeadership, Readers } from '../lib/service/readers.js';
import { recordEntry } from '../lib/record/fold/index.js';
import { explorerStatements } from './explorer/shell.js';
import { loggedReader } from '../lib/service/logged.js';

export interface AppOptions {
  /** The audit's rate limit per client (default: 2 a minute). */
  auditLimit?: RateLimit;
  /** Registrations per client address (default: REGISTER_LIMIT; null: none, for tests and benchmarks). */
  registerLimit?: RateLimit | null;
  /** Proxies whose X-Forwarded-For names the client: addresses or CIDR prefixes (default: none). */
  trustProxy?: readonly string[];
  /** The IPv6 prefix length a client is counted by in the limits per client address (default 64; 128: each address). */
  ipv6Prefix?: number;
  /** Verifies the signatures of writes (default: inline on the main thread). */
  verify?: Verify;
  /** Where 500s are reported (default: console.error). */
  report?: (err: unknown) => void;
  /** Where one-line notices go, such as a client that went away mid-request (default: console.warn). */
  note?: (line: string) => void;
  /** The doorbell ringer, whose marks (a failing doorbell) the heartbeat shows. */
  ringer?: DoorbellRinger;
  /** The witnesses that cosign the log's checkpoints (docs/log-format.md, "Witnesses"). */
  witnesses?: Witnesses;
  /** Screening rules for papers and challenges (default: `<data>/screening.json`, written with the defaults when missing). */
  screening?: Screening;
  /** On a database many nodes share: this node's place among them; writes are forwarded while it does not lead (api/forward.ts). */
  role?: NodeRole;
  /** Longest wait of a read for its `Min-Seq`, in ms (default 5000). */
  minSeqWaitMs?: number;
  /** Longest wait of a forwarded write for a node to lead, in ms (default 10000), and for its answer (default 30000). */
  forwardWaitMs?: number;
  forwardTimeoutMs?: number;
  /** The readers' indexes (default: made here, following the record; the search index is brought up to date in the background). */
  readers?: Readers;
}

/** A read as the index lists it: its path and the names of its query parameters. */
const endpointOf = (r: Read): string => {
  const query = (r.params ?? []).filter((p) => p.in === 'query').map((p) => `${p.name}=`);
  return `GET ${r.path}${query.length === 0 ? '' : `?${query.join('&')}`}`;
};

/** Every endpoint this service answers, as listed by the index: the reads from their table, then the writes. */
export const ENDPOINTS = [
  ...READS.map(endpointOf),
  'POST /mcp',
  `POST ${REGISTER_PATH}`,
  // Every write path, in the order of the write routes, from the table the routes are made from.
  ...new Set(Object.values(WRITE_ROUTES).map((r) => `POST ${r.path}`)),
];

/** Registrations allowed per client address by default: 20 an hour. */
export const REGISTER_LIMIT: RateLimit = { max: 20, windowSeconds: 3600 };

export function createApp(d: Deployment, record: LiveRecord, opts: AppOptions = {}): Koa {
  const app = new Koa();
  app.proxy = false;
  explorerStatements(app, loggedReader(d));
  const report = opts.report ?? ((e: unknown) => console.error(e));
  const note = opts.note ?? ((line: string) => console.warn(line));
  // Errors Koa sees outside the middleware (a connection that broke while the answer was due):
  // a client that went away is one line; anything else is a bug, reported in full.
  app.on('error', (err: unknown, ctx?: Koa.Context) => {
    if (ctx !== undefined && clientWentAway(ctx, err)) noteClientGone(ctx, err, note);
    else if ((err as { expose?: boolean }).expose !== true) report(err);
  });
  app.use(errorMiddleware(report, note));
  // Who the client is, for the limits per client address; the MCP connector's calls to this
  // server name their caller with a token only this process knows (only the deployment's nodes,
  // when many share one database: they forward writes to one another, api/forward.ts).
  const selfToken = opts.role?.secret ?? randomBytes(32).toString('base64url');
  const trusted = opts.trustProxy === undefined || opts.trustProxy.length === 0 ? null : trustedProxies(opts.trustProxy);
  app.use(clientAddress(trusted, selfToken, opts.ipv6Prefix));
  const applied = () => record.state.size;
  app.use(minSeq(record.engineReplica, d.log, opts.minSeqWaitMs ?? 5000));
  if (opts.role !== undefined) {
    const writePaths = new Set([REGISTER_PATH, ...Object.values(WRITE_ROUTES).map((r) => r.path)]);
    app.use(forwardWrites(opts.role, writePaths, { waitMs: opts.forwardWaitMs ?? 10_000, timeoutMs: opts.forwardTimeoutMs ?? 30_000 }));
    // The writes of a batch another node forwarded, each through this app from its start, as it would have come alone.
    let handle: ReturnType<Koa['callback']> | undefined;
    app.use(batchRoute(opts.role.secret, writePaths, () => (handle ??= app.callback())));
  }
  const log = logRoutes(
    d,
    opts.auditLimit ?? { max: 2, windowSeconds: 60 },
    (seq, type, payload) => servedEntry(record.state, seq, type, payload),
    opts.witnesses === undefined ? undefined : () => opts.witnesses!.checkpoint(),
    (e) => entryRecords(recordEntry(e)),
  );
  app.use(log.routes());
  // Every other read, from its row (api/reads/). Every list's cursors are under a key drawn from
  // the log key: every node takes every node's (api/paging.ts).
  const readers = opts.readers ?? Readers.follow(record, d, { cluster: isLeadership(opts.role) ? opts.role : undefined });
  app.use(
    readRouter(READ_TABLE, {
      d,
      record,
      readers,
      cursors: Cursors.of(d.logKey),
      constitution: () => constitutionInForce(record.state),
      applied,
      endpoints: ENDPOINTS,
      reads: READS,
      openApi: openApiText,
      ringer: opts.ringer,
      witnesses: opts.witnesses,
      role: opts.role,
    }).routes(),
  );
  app.use(
    writeRoutes(
      d,
      record,
      opts.screening ?? loadScreening(d.dataDir),
      opts.registerLimit === undefined ? REGISTER_LIMIT : opts.registerLimit,
      opts.verify,
    ).routes(),
  );
  app.use(mcpRoutes(selfToken).routes());
  app.use(earlierRoutes().routes());
  return app;
}
