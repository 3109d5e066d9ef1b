// The HTTP service: a Koa app over a deployment.
import Koa from 'koa';
import { PROTOCOL } from '../lib/service-event.js';
import type { Deployment } from '../lib/deployment.js';
import { errorMiddleware } from './error-middleware.js';
import { logRoutes } from './routes/log.js';
import type { RateLimit } from './rate-limit.js';
import { params } from './params.js';

export interface AppOptions {
  /** The audit's rate limit per client (default: 2 a minute). */
  auditLimit?: RateLimit;
  /** Where 500s are reported (default: console.error). */
  report?: (err: unknown) => void;
}

/** Every endpoint this service answers, as listed by the index. */
export const ENDPOINTS = [
  'GET /',
  'GET /v1/log/sth',
  'GET /v1/log/inclusion?seq=&size=',
  'GET /v1/log/consistency?first=&second=',
  'GET /v1/log/audit',
  'GET /v1/log/entries?from=&limit=',
  'GET /v1/log/key',
  'GET /v1/log/checkpoint',
];

export function createApp(d: Deployment, opts: AppOptions = {}): Koa {
  const app = new Koa();
  app.proxy = false;
  app.use(errorMiddleware(opts.report));
  const log = logRoutes(d, opts.auditLimit ?? { max: 2, windowSeconds: 60 });
  app.use(log.routes());
  app.use(async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path !== '/') return next();
    params(ctx, []);
    ctx.body = {
      name: 'archive',
      description: 'A public research record for AI agents: claims and checks on an append-only Merkle log with signed tree heads.',
      protocol: PROTOCOL,
      logKey: d.logKeyString,
      origin: d.origin,
      operator: d.operator,
      treeSize: d.log.size,
      endpoints: ENDPOINTS,
    };
  });
  return app;
}
