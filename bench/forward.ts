// `npm run bench:forward`: the cost of the hop a write takes through a follower (api/forward.ts), alone: a stand-in leader
// (Koa, the error middleware, the batch route of api/forward-batch.ts, and a bare route that reads the body and answers 201
// after 5 ms, as a commit would), and a follower in its own process (Koa, the error middleware and forwardWrites, as createApp
// puts them) in front of it. autocannon POSTs a 600-byte body with 64 connections for BENCH_SECONDS (default 5) to the leader
// directly (the floor: the bare route), then through a follower of this code that batches (the writes that come while its
// exchanges with the leader are in flight go as one), then through one of this code that forwards each write alone (the single
// hop), then (with BENCH_BASELINE, a commit built in a temporary directory, or BENCH_BASELINE_DIR, one built already) through a
// follower of that code; BENCH_ROUNDS (default 3) times in turn. Printed: requests/s, and the CPU time a request of the
// follower, the leader and autocannon (this process), from /proc.
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { HERE, buildBaseline } from './baseline.js';
import { cpuMs } from './served.js';
import { errorMiddleware } from '../api/error-middleware.js';
import { batchRoute } from '../api/forward-batch.js';
import { bodyBytes } from '../api/body.js';
import { fmt, machine } from './stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASELINE = process.env.BENCH_BASELINE;
const BASELINE_DIR = process.env.BENCH_BASELINE_DIR;
const PATH = '/v2/reviews';

const listen = (server: Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

const SECRET = 's';
const [mode, arg, leaderUrl, alone] = process.argv.slice(2);
if (mode === 'leader') {
  const leader = new Koa();
  leader.use(errorMiddleware());
  let handle: ReturnType<Koa['callback']> | undefined;
  leader.use(batchRoute(SECRET, new Set([PATH]), () => (handle ??= leader.callback())));
  leader.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== PATH) return next();
    const bytes = (await bodyBytes(ctx)).length;
    await new Promise((r) => setTimeout(r, 5));
    ctx.status = 201;
    ctx.set('archive-seq', '123456');
    ctx.body = { seq: 123456, id: `rev:${'0'.repeat(64)}`, bytes };
  });
  const server = createServer(leader.callback());
  server.keepAliveTimeout = 65_000;
  process.send!(await listen(server));
} else if (mode === 'follower') {
  // `arg`: the dist directory whose api/forward.js and api/error-middleware.js the follower runs; `alone`: each write alone.
  const { forwardWrites } = (await import(join(arg!, 'api/forward.js'))) as typeof import('../api/forward.js');
  const { errorMiddleware } = (await import(join(arg!, 'api/error-middleware.js'))) as typeof import('../api/error-middleware.js');
  const app = new Koa();
  app.use(errorMiddleware());
  const role = { node: 'f', leading: false, leaderUrl: leaderUrl!, leader: () => Promise.resolve(leaderUrl!), secret: SECRET };
  const batch = alone === 'alone' ? { writes: 1, exchanges: Infinity } : undefined;
  app.use(forwardWrites(role, new Set([PATH]), { waitMs: 10_000, timeoutMs: 30_000, batch }));
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  process.send!(await listen(server));
} else {
  console.log(`bench:forward on ${machine()}`);
  const self = fileURLToPath(import.meta.url);
  const start = (args: string[]) =>
    new Promise<{ child: ChildProcess; url: string }>((resolve) => {
      const child = fork(self, args);
      child.once('message', (port) => resolve({ child, url: `http://127.0.0.1:${String(port)}` }));
    });
  const leader = await start(['leader']);
  const codes = [
    { name: 'this code, batched', dist: HERE, alone: '' },
    { name: 'this code, each write alone', dist: HERE, alone: 'alone' },
  ];
  if (BASELINE !== undefined)
    codes.push({
      ...(BASELINE_DIR === undefined ? buildBaseline(BASELINE) : { name: BASELINE, dist: join(BASELINE_DIR, 'dist') }),
      alone: '',
    });
  const followers = await Promise.all(
    codes.map(async (c) => ({ name: c.name, ...(await start(['follower', c.dist, leader.url, c.alone])) })),
  );
  const body = JSON.stringify({ payload: { rationale: 'r'.repeat(480) }, signature: 's'.repeat(86) });
  const load = (url: string, seconds: number) =>
    autocannon({
      url: url + PATH,
      connections: 64,
      duration: seconds,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  for (const f of followers) await load(f.url, 1); // warm up
  const runs = [{ name: 'to the leader directly', url: leader.url, pid: undefined as number | undefined }];
  for (const f of followers) runs.push({ name: `through a follower of ${f.name}`, url: f.url, pid: f.child.pid });
  const sums = new Map<string, { rps: number; follower: number; leader: number }>();
  console.log(`the hop of a forwarded write: autocannon 64 connections, ${SECONDS} s a run, ${ROUNDS} rounds`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const run of runs) {
      const pids = [run.pid, leader.child.pid!, process.pid];
      const before = pids.map((p) => (p === undefined ? 0 : cpuMs(p)));
      const r = await load(run.url, SECONDS);
      const [follower, lead, cannon] = pids.map((p, i) => (p === undefined ? 0 : (cpuMs(p) - before[i]!) / r.requests.total));
      const s = sums.get(run.name) ?? { rps: 0, follower: 0, leader: 0 };
      sums.set(run.name, { rps: s.rps + r.requests.average, follower: s.follower + follower!, leader: s.leader + lead! });
      console.log(
        `   round ${round}, ${run.name}: ${fmt(r.requests.average)} /s (p50 ${r.latency.p50} ms, ${r.non2xx + r.errors} failed); ` +
          `CPU a request: follower ${fmt(follower!, 3)} ms, leader ${fmt(lead!, 3)} ms, autocannon ${fmt(cannon!, 3)} ms`,
      );
    }
  }
  console.log(`mean of ${ROUNDS} rounds:`);
  for (const [name, s] of sums)
    console.log(
      `   ${name}: ${fmt(s.rps / ROUNDS)} /s; CPU a request: follower ${fmt(s.follower / ROUNDS, 3)} ms, ` +
        `leader ${fmt(s.leader / ROUNDS, 3)} ms`,
    );
  leader.child.kill();
  for (const f of followers) f.child.kill();
}
