// npm run bench:readers — the readers' figures of issue 16 (docs/benchmarks.md):
//  1. the readers' indexes made at start: a log of BENCH_ENTRIES entries (default 1,000,000)
//     holding about a million indexed items (2,000 agents of 1,000 operators, one of them with 200
//     agents; 240,000 papers of 3 claims, 40,000 external claims; reviews for the rest), built
//     through the record with real signatures, is opened again: the replay of the state, the read
//     index made from it, and the search index built anew in a new file (the papers' text read
//     back from the store; `npm run bench:search` has the search's own figures);
//  2. GET /v2/search on loopback, one request at a time, for queries of one and two words drawn
//     from the items' own text (so that common words are asked often): p50 and p99, beside the
//     index's own lookup in process;
//  3. GET /v2/papers/{id} and GET /v2/agents/{handle} (the prolific operator's agents included),
//     p50 and p99, beside a bare route (GET /v1/log/sth) measured in the same run.
// BENCH_LOG_DIR keeps the log and reuses it on the next run.
import { loggedReader } from '../lib/service/logged.js';
import { claimMade } from '../lib/record/views/index.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDeployment } from '../lib/service/deployment.js';
import { LiveRecord } from '../lib/service/live-record.js';
import { FIELDS } from '../lib/protocol/schemas/index.js';
import { Readers } from '../lib/service/readers.js';
import { queryWords, TIERS } from '../lib/service/search.js';
import { SqliteSearch } from '../lib/service/search-sqlite.js';
import { startServer } from '../api/server.js';
import { buildReadersLog, readersShape } from './readers-log.js';
import { fmt, machine, prng, quantile } from './stats.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const PROLIFIC = readersShape(ENTRIES).prolific;

const rnd = prng(16);

/** Times `n` sequential GETs of the paths `pick` gives (after 100 to warm up); milliseconds. */
export async function timeGets(base: string, n: number, pick: (i: number) => string): Promise<number[]> {
  for (let i = 0; i < 100; i++) await (await fetch(base + pick(i))).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const path = pick(i);
    const t0 = performance.now();
    const r = await fetch(base + path);
    await r.arrayBuffer();
    times.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
  }
  return times;
}

const p = (xs: number[]) => `p50 ${fmt(quantile(xs, 0.5), 2)} ms, p99 ${fmt(quantile(xs, 0.99), 2)} ms`;

async function main(): Promise<void> {
  console.log(`machine: ${machine()}`);
  const kept = process.env.BENCH_LOG_DIR;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'archive-bench-readers-'));
  if (!existsSync(join(dir, 'db'))) {
    const t0 = performance.now();
    await buildReadersLog(dir, ENTRIES);
    console.log(`built a log of ${fmt(ENTRIES)} entries in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }

  // 1. At start: the replay, then the readers' indexes.
  const d = await openDeployment({ dataDir: dir });
  let t0 = performance.now();
  const record = await LiveRecord.open(d);
  const replay = performance.now() - t0;
  global.gc?.();
  const stateHeap = process.memoryUsage().heapUsed;
  t0 = performance.now();
  const searchDir = mkdtempSync(join(tmpdir(), 'archive-bench-search-'));
  const readers = Readers.follow(record, d, { store: new SqliteSearch(join(searchDir, 'search.sqlite'), TIERS) });
  const readIndex = performance.now() - t0;
  await readers.search.ready;
  const { ms, items } = readers.search.lastBuild!;
  global.gc?.();
  const heap = process.memoryUsage().heapUsed;
  const s = record.state;
  console.log(
    `1. at start, ${fmt(s.size)} entries (${fmt(s.agents.size)} agents, ${fmt(s.papers.size)} papers, ${fmt(s.claims.size)} claims): ` +
      `replay ${fmt(replay / 1000, 1)} s; read index ${fmt(readIndex, 0)} ms; search index of ${fmt(items)} items ${fmt(ms / 1000, 1)} ` +
      `s (heap: ${fmt(stateHeap / 2 ** 20)} MiB after the replay, ${fmt(heap / 2 ** 20)} MiB with the indexes)`,
  );

  const server = await startServer(d, record, 0, '127.0.0.1', { readers, registerLimit: null, verifyWorkers: 0 });
  const base = server.url;

  // 2. Queries of one or two words from the items' own text.
  const papers = [...s.papers.values()];
  // Their statements read from the papers' entries (the state keeps none), the claims picked first.
  const picked = Array.from({ length: 2000 }, () => s.claims.get(papers[Math.floor(rnd() * papers.length)]!.claims[0]!)!);
  const logged = loggedReader(d);
  const statements = await Promise.all(picked.map(async (c) => (await claimMade(c, logged)).text));
  const queries = statements.map((text, i) => {
    const ws = text.split(' ');
    const a = ws[Math.floor(rnd() * ws.length)]!;
    return i % 2 === 0 ? a : `${a} ${ws[Math.floor(rnd() * ws.length)]}`;
  });
  const inProcess: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await readers.search.search(queryWords(q), {}, null, 20);
    inProcess.push(performance.now() - t);
  }
  const bare = await timeGets(base, 2000, () => '/v1/log/sth');
  const search = await timeGets(base, 2000, (i) => `/v2/search?q=${encodeURIComponent(queries[i % queries.length]!)}`);
  const filtered = await timeGets(
    base,
    1000,
    (i) => `/v2/search?q=${encodeURIComponent(queries[i % queries.length]!)}&operator=lab-prolific&status=unchecked`,
  );
  console.log(
    `2. GET /v2/search, 20 results with snippets, ${fmt(items)} items: ${p(search)}; the index's lookup in process: ${p(inProcess)}`,
  );
  console.log(`   with filters (operator, status): ${p(filtered)}`);
  console.log(`   the bare route GET /v1/log/sth: ${p(bare)}`);

  // 3. Paper and agent reads.
  const paperReads = await timeGets(base, 2000, () => `/v2/papers/${papers[Math.floor(rnd() * papers.length)]!.id}`);
  const handles = [...s.agents.keys()];
  const agentReads = await timeGets(base, 1000, () => `/v2/agents/${handles[Math.floor(rnd() * handles.length)]}`);
  const prolific = await timeGets(base, 500, () => `/v2/agents/${handles[Math.floor(rnd() * PROLIFIC)]}`);
  const list = await timeGets(base, 1000, (i) => `/v2/papers?field=${FIELDS[i % FIELDS.length]}&status=unchecked`);
  const bare2 = await timeGets(base, 2000, () => '/v1/log/sth');
  console.log(
    `3. GET /v2/papers/{id}: ${p(paperReads)} (${fmt(quantile(paperReads, 0.5) / quantile(bare2, 0.5), 1)} times the bare route)`,
  );
  console.log(`   GET /v2/agents/{handle}: ${p(agentReads)}; the prolific operator's agents: ${p(prolific)}`);
  console.log(`   GET /v2/papers?field=&status=: ${p(list)}`);
  console.log(`   the bare route again: ${p(bare2)}`);

  await server.close();
  await d.close();
  rmSync(searchDir, { recursive: true, force: true });
  if (kept === undefined) rmSync(dir, { recursive: true, force: true });
}

// Run as a script (bench:search imports from here).
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
