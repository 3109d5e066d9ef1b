// npm run bench:surfaces — the figures of the agents' surfaces (docs/benchmarks.md):
//  1. GET / (JSON) and GET /openapi.json on loopback, requests/s, with autocannon (64
//     connections, BENCH_SECONDS each, default 10) against a real service in a child process:
//     plain, and revalidated with If-None-Match (304);
//  2. an MCP tool call round trip in process: the SDK's client calling `get_record` on /mcp of a
//     service in this process, one call at a time; median and p99 of 2,000 calls;
//  3. the Atom feed of every field on a record of 1,000 papers (bench/build-log.ts): made with its
//     50 abstracts read from the LevelDB log, and with them kept (as the service keeps them), beside
//     its items from the state alone; and GET /feeds/all.atom served (made once per log size)
//     beside GET /v1/log/sth, one request at a time over loopback.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openDeployment } from '../lib/service/deployment.js';
import { LiveRecord } from '../lib/service/live-record.js';
import { startServer } from '../api/server.js';
import { fmt, machine, quantile } from './stats.js';
import { buildLog } from './build-log.js';
import { atomFeed, feedItems } from '../lib/record/feeds.js';
import { abstractReader } from '../api/logged.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function load(url: string, headers: Record<string, string>): Promise<{ rps: number; p99: number; non2xx: number }> {
  const r = await autocannon({ url, connections: 64, duration: SECONDS, headers });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx };
}

async function main(): Promise<void> {
  console.log(`machine: ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'archive-bench-surfaces-'));
  const child = spawn(process.execPath, [join(import.meta.dirname, 'record-server.js'), join(dir, 'http')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    const base: string = JSON.parse(line).service;
    const index = await fetch(`${base}/`);
    const openapi = await fetch(`${base}/openapi.json`);
    const indexTag = index.headers.get('etag')!;
    const openapiTag = openapi.headers.get('etag')!;
    console.log(`1. on loopback, autocannon in this process (64 connections, ${SECONDS} s each)`);
    for (const [name, path, tag] of [
      ['GET / (JSON)', '/', indexTag],
      ['GET /openapi.json', '/openapi.json', openapiTag],
    ] as const) {
      const plain = await load(`${base}${path}`, { accept: 'application/json' });
      const cached = await load(`${base}${path}`, { accept: 'application/json', 'if-none-match': tag });
      console.log(
        `   ${name}: ${fmt(plain.rps)} requests/s (p99 ${plain.p99} ms, non-2xx ${plain.non2xx}); with If-None-Match (304): ${fmt(cached.rps)} requests/s (p99 ${cached.p99} ms)`,
      );
    }
  } finally {
    child.kill('SIGTERM');
  }

  // 2. MCP in process.
  const d = await openDeployment({ dataDir: join(dir, 'mcp') });
  const record = await LiveRecord.open(d);
  const server = await startServer(d, record, 0, '127.0.0.1', { registerLimit: null });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  for (let i = 0; i < 200; i++) await client.callTool({ name: 'get_record', arguments: {} });
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'get_record', arguments: {} });
    times.push(performance.now() - t0);
    if (r.isError) throw new Error('get_record failed');
  }
  console.log(
    `2. MCP tool call round trip in process (get_record): median ${fmt(quantile(times, 0.5), 2)} ms, p99 ${fmt(quantile(times, 0.99), 2)} ms (n=2000)`,
  );
  await client.close();
  await server.close();
  await d.close();

  // 3. The feed of every field, on a record of 1,000 papers.
  await buildLog(join(dir, 'feeds'), 3000);
  const fd = await openDeployment({ dataDir: join(dir, 'feeds') });
  const fr = await LiveRecord.open(fd);
  const time = async (n: number, f: () => unknown): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await f();
      out.push(performance.now() - t0);
    }
    return out;
  };
  // Cold: every abstract read from the log; warm: the service's reader keeps them, so a feed made
  // again after the log grew reads only a new paper's.
  const cold = () => atomFeed(fr.state, 'all', 'http://x', fd.origin, abstractReader(fd, 500));
  const kept = abstractReader(fd, 500);
  const warm = () => atomFeed(fr.state, 'all', 'http://x', fd.origin, kept);
  await time(50, cold);
  const made = await time(500, cold);
  const again = await time(500, warm);
  const items = await time(500, () => feedItems(fr.state, 'all'));
  console.log(
    `3. the feed of every field, ${fr.state.papers.size} papers, ${fr.state.size} entries: made with every abstract read from the log median ${fmt(quantile(made, 0.5), 2)} ms (p99 ${fmt(quantile(made, 0.99), 2)} ms); with the abstracts kept median ${fmt(quantile(again, 0.5), 3)} ms; its items from the state alone median ${fmt(quantile(items, 0.5), 3)} ms`,
  );
  const fs = await startServer(fd, fr, 0, '127.0.0.1', { registerLimit: null });
  const get = (path: string) => async () => (await fetch(`${fs.url}${path}`)).arrayBuffer();
  await time(200, get('/feeds/all.atom'));
  await time(200, get('/v1/log/sth'));
  const feed = await time(2000, get('/feeds/all.atom'));
  const sth = await time(2000, get('/v1/log/sth'));
  console.log(
    `   GET /feeds/all.atom served: median ${fmt(quantile(feed, 0.5), 2)} ms (p99 ${fmt(quantile(feed, 0.99), 2)} ms); GET /v1/log/sth: median ${fmt(quantile(sth, 0.5), 2)} ms (p99 ${fmt(quantile(sth, 0.99), 2)} ms) (n=2000 each, one at a time)`,
  );
  await fs.close();
  await fd.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
