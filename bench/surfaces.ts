// npm run bench:surfaces — the figures of the agents' surfaces (docs/benchmarks.md):
//  1. GET / (JSON) and GET /openapi.json on loopback, requests/s, with autocannon (64
//     connections, BENCH_SECONDS each, default 10) against a real service in a child process:
//     plain, and revalidated with If-None-Match (304);
//  2. an MCP tool call round trip in process: the SDK's client calling `get_record` on /mcp of a
//     service in this process, one call at a time; median and p99 of 2,000 calls;
//  3. the Atom feed of every field on a record of 1,000 papers (bench/build-log.ts): made with its
//     50 abstracts read from the LevelDB log, and with them kept (as the service keeps them), beside
//     its items from the state alone; and GET /feeds/all.atom served (made once per log size)
//     beside GET /v1/log/sth, one request at a time over loopback;
//  4. the explorer's pages on a record of BENCH_EXPLORER_ENTRIES entries (default 100,000: 1,000
//     agents, 1,000 papers, reviews, every 20th on one hot claim, spread along the log), each GET
//     one at a time over loopback as a browser asks (Accept: text/html), beside GET /v1/log/sth in
//     the same run: the hot claim's page (20 items a list, and 200), a paper's page and its JSON
//     read, the papers list, an agent's and an operator's pages, and a search.
// BENCH_PARTS (default 1,2,3,4) runs only the parts named.
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
import { atomFeed, feedItems } from '../lib/record/views/index.js';
import { abstractReader, loggedReader } from '../lib/service/logged.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3,4').split(','));
const EXPLORER_ENTRIES = Number(process.env.BENCH_EXPLORER_ENTRIES ?? 100_000);

async function load(url: string, headers: Record<string, string>): Promise<{ rps: number; p99: number; non2xx: number }> {
  const r = await autocannon({ url, connections: 64, duration: SECONDS, headers });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx };
}

/** Times `n` calls of `f` one at a time; milliseconds. */
async function time(n: number, f: (i: number) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f(i);
    out.push(performance.now() - t0);
  }
  return out;
}

const p50 = (xs: number[]) => `median ${fmt(quantile(xs, 0.5), 2)} ms (p99 ${fmt(quantile(xs, 0.99), 2)} ms)`;

/** 1. GET / and GET /openapi.json under load, from a service in a child process. */
async function loadRoutes(dir: string): Promise<void> {
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
        `   ${name}: ${fmt(plain.rps)} requests/s (p99 ${plain.p99} ms, non-2xx ${plain.non2xx}); with If-None-Match (304): ` +
          `${fmt(cached.rps)} requests/s (p99 ${cached.p99} ms)`,
      );
    }
  } finally {
    child.kill('SIGTERM');
  }
}

/** 2. An MCP tool call round trip, in process. */
async function mcpCalls(dir: string): Promise<void> {
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
    `2. MCP tool call round trip in process (get_record): median ${fmt(quantile(times, 0.5), 2)} ms, p99 ` +
      `${fmt(quantile(times, 0.99), 2)} ms (n=2000)`,
  );
  await client.close();
  await server.close();
  await d.close();
}

/** 3. The feed of every field, on a record of 1,000 papers. */
async function feeds(dir: string): Promise<void> {
  await buildLog(join(dir, 'feeds'), 3000);
  const fd = await openDeployment({ dataDir: join(dir, 'feeds') });
  const fr = await LiveRecord.open(fd);
  // Cold: every abstract read from the log; warm: the service's reader keeps them, so a feed made
  // again after the log grew reads only a new paper's.
  const cold = () => atomFeed(fr.state, 'all', 'http://x', fd.origin, abstractReader(fd, 500), loggedReader(fd));
  const kept = abstractReader(fd, 500);
  const logged = loggedReader(fd);
  const warm = () => atomFeed(fr.state, 'all', 'http://x', fd.origin, kept, logged);
  await time(50, cold);
  const made = await time(500, cold);
  const again = await time(500, warm);
  const items = await time(500, () => feedItems(fr.state, 'all'));
  console.log(
    `3. the feed of every field, ${fr.state.papers.size} papers, ${fr.state.size} entries: made with every abstract read from the log ` +
      `median ${fmt(quantile(made, 0.5), 2)} ms (p99 ${fmt(quantile(made, 0.99), 2)} ms); with the abstracts kept median ` +
      `${fmt(quantile(again, 0.5), 3)} ms; its items from the state alone median ${fmt(quantile(items, 0.5), 3)} ms`,
  );
  const fs = await startServer(fd, fr, 0, '127.0.0.1', { registerLimit: null });
  const get = (path: string) => async () => (await fetch(`${fs.url}${path}`)).arrayBuffer();
  await time(200, get('/feeds/all.atom'));
  await time(200, get('/v1/log/sth'));
  const feed = await time(2000, get('/feeds/all.atom'));
  const sth = await time(2000, get('/v1/log/sth'));
  console.log(`   GET /feeds/all.atom served: ${p50(feed)}; GET /v1/log/sth: ${p50(sth)} (n=2000 each, one at a time)`);
  await fs.close();
  await fd.close();
}

/** 4. The explorer's pages, on a record with a hot claim. */
async function explorer(dir: string): Promise<void> {
  const t0 = performance.now();
  await buildLog(join(dir, 'explorer'), EXPLORER_ENTRIES, { hotEvery: 20 });
  const built = performance.now() - t0;
  const d = await openDeployment({ dataDir: join(dir, 'explorer') });
  const record = await LiveRecord.open(d);
  const server = await startServer(d, record, 0, '127.0.0.1', { registerLimit: null });
  const s = record.state;
  const hot = [...s.papers.values()][0]!.claims[0]!;
  const reviews = s.numbers.index.reviewsByClaim.countOf(s.claims.rowOf(hot));
  console.log(
    `4. the explorer's pages, ${fmt(s.size)} entries (built in ${fmt(built / 1000, 1)} s); the hot claim has ${fmt(reviews)} reviews, ` +
      `every 20th entry; one GET at a time, Accept: text/html`,
  );
  const get = (path: string) => async () => {
    const r = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
  };
  // The search index is built in the background at start: the search waits for it.
  await (await fetch(`${server.url}/v2/search?q=benchmark`)).arrayBuffer();
  const paper = [...s.papers.keys()][500]!;
  const pages: [string, string, number][] = [
    ['GET /v1/log/sth (the bare route)', '/v1/log/sth', 2000],
    ["the hot claim's page (20 items a list)", `/explore/claims/${encodeURIComponent(hot)}`, 500],
    ["the hot claim's page, limit=200", `/explore/claims/${encodeURIComponent(hot)}?limit=200`, 200],
    ["a paper's page", `/explore/papers/${paper}`, 1000],
    ['the papers list (50 a page)', '/explore/papers', 500],
    ['the papers list, filtered by status', '/explore/papers?status=unchecked&limit=20', 500],
    ["an agent's page (its paper, 20 of its ~100 reviews with their rationales)", '/explore/agents/agent-500', 500],
    ["an operator's page", '/explore/operators/lab-500', 500],
    ["the hot claim's author's page (its 4,922 reviews are others')", '/explore/agents/agent-0', 500],
    ['a search page (20 results of 2,000 with snippets)', '/explore/search?q=benchmark', 500],
    ['GET /v2/papers/{id} (its JSON read)', `/v2/papers/${paper}`, 1000],
    ['GET /v1/log/sth again', '/v1/log/sth', 2000],
  ];
  for (const [name, path, n] of pages) {
    await time(Math.min(100, n), get(path));
    console.log(`   ${name}: ${p50(await time(n, get(path)))} (n=${n})`);
  }
  await server.close();
  await d.close();
}

async function main(): Promise<void> {
  console.log(`machine: ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'archive-bench-surfaces-'));
  if (PARTS.has('1')) await loadRoutes(dir);
  if (PARTS.has('2')) await mcpCalls(dir);
  if (PARTS.has('3')) await feeds(dir);
  if (PARTS.has('4')) await explorer(dir);
  rmSync(dir, { recursive: true, force: true });
}

await main();
