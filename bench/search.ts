// npm run bench:search — the search's figures of issue 26 (docs/benchmarks.md, docs/api.md#search),
// on bench:readers' log (BENCH_ENTRIES, default 1,000,000: 240,000 papers with abstracts, 760,000
// claims, 2,000 agents; BENCH_LOG_DIR keeps it between runs), each beside its peer in the same run:
//  1. the index built from zero in a new SQLite file (the papers' text read back from the log),
//     beside the replay of the state it is built from; the heap it holds once built (after a
//     forced collection), beside the state's;
//  2. GET /v2/search on loopback, one request at a time (BENCH_QUERIES, default 2,000, of one and two words drawn from
//     the items' own text), while papers land through the record (BENCH_WRITES a second, each
//     with three claims), beside the bare route GET /v1/log/sth under the same writes;
//  3. the catch-up after a restart: the index closed, BENCH_CATCHUP entries logged (papers), an
//     index opened on the same file brought up to date from its head, beside the build from zero.
import { loggedReader } from '../lib/service/logged.js';
import { claimMade } from '../lib/record/views/index.js';
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDeployment } from '../lib/service/deployment.js';
import { generateKeyPair, signPayload } from '../lib/protocol/ed25519.js';
import { LiveRecord } from '../lib/service/live-record.js';
import { PROTOCOL } from '../lib/protocol/service-event.js';
import { FIELDS } from '../lib/protocol/schemas/index.js';
import { Readers } from '../lib/service/readers.js';
import { queryWords, SearchIndex, TIERS } from '../lib/service/search.js';
import { SqliteSearch } from '../lib/service/search-sqlite.js';
import { startServer } from '../api/server.js';
import { registration, type Key } from './build-log.js';
import { timeGets } from './readers.js';
import { buildReadersLog, wordsFrom } from './readers-log.js';
import { fmt, machine, prng, quantile } from './stats.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 50);
const CATCHUP = Number(process.env.BENCH_CATCHUP ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 2000);
const rnd = prng(26);
const words = wordsFrom(rnd);
const run = Date.now().toString(36);

const p = (xs: number[]) => `p50 ${fmt(quantile(xs, 0.5), 2)} ms, p99 ${fmt(quantile(xs, 0.99), 2)} ms`;
const held = () => {
  global.gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const mib = (b: number) => `${fmt(b / 2 ** 20)} MiB`;

async function main(): Promise<void> {
  console.log(`machine: ${machine()}`);
  const kept = process.env.BENCH_LOG_DIR;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'archive-bench-search-log-'));
  if (!existsSync(join(dir, 'db'))) {
    const t0 = performance.now();
    await buildReadersLog(dir, ENTRIES);
    console.log(`built a log of ${fmt(ENTRIES)} entries in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }
  // The clock runs after the log's last entry (its builder's clock ran one millisecond an entry).
  let now = Date.now() + 2 * ENTRIES;
  const clock = () => now++;
  const d = await openDeployment({ dataDir: dir, clock });
  let t0 = performance.now();
  const record = await LiveRecord.open(d, clock);
  const replay = performance.now() - t0;
  const stateHeld = held();
  const s = record.state;

  // 1. The index built from zero, and the heap it holds.
  const searchDir = mkdtempSync(join(tmpdir(), 'archive-bench-search-'));
  const file = join(searchDir, 'search.sqlite');
  const built = new SearchIndex(d.log, new SqliteSearch(file, TIERS), { say: () => undefined });
  built.reset(s);
  await built.ready;
  const { ms: buildMs, items } = built.lastBuild!;
  const withIndex = held();
  await built.close();
  console.log(
    `1. ${fmt(s.size)} entries (${fmt(s.agents.size)} agents, ${fmt(s.papers.size)} papers, ${fmt(s.claims.size)} claims): the index of ` +
      `${fmt(items)} items built from zero in ${fmt(buildMs / 1000, 1)} s, beside the replay of the state in ${fmt(replay / 1000, 1)} s ` +
      `(${fmt(buildMs / replay, 2)} times); file ${mib(statSync(file).size)}`,
  );
  console.log(
    `   heap and array buffers held by the search once built: ${mib(withIndex - stateHeld)}, beside the state's ${mib(stateHeld)}`,
  );

  // 2. Searches while papers land.
  const readers = Readers.follow(record, d, { store: new SqliteSearch(file, TIERS), say: (l) => console.log(l) });
  await readers.search.ready;
  const server = await startServer(d, record, 0, '127.0.0.1', { readers, registerLimit: null, verifyWorkers: 0 });
  const base = server.url;
  const c = s.constitution;
  const writers: { handle: string; k: Key }[] = [];
  for (let i = 0; i < 20; i++) {
    // Handles of this run: a kept log (BENCH_LOG_DIR) holds the writes of the runs before.
    const w = { handle: `bench-writer-${run}-${i}`, k: generateKeyPair() };
    const a = record.admit('agent.register', registration(w.handle, w.k, `lab-writer-${run}-${i}`, c));
    if (!('committed' in a)) throw new Error('a writer was not registered');
    await a.committed;
    writers.push(w);
  }
  let n = 0;
  const writePaper = () => {
    const w = writers[n % writers.length]!;
    const payload = {
      protocol: PROTOCOL,
      type: 'paper',
      agent: { handle: w.handle, publicKey: w.k.publicKey },
      ts: new Date(now).toISOString(),
      title: words(9),
      abstract: words(70),
      field: FIELDS[n++ % FIELDS.length],
      claims: [0, 1, 2].map(() => ({ text: words(14), confidence: 0.5, test: words(12) })),
      builds_on: [],
    };
    const a = record.admit('paper', { payload, signature: signPayload(w.k.privateKey, payload) });
    if (!('committed' in a)) throw new Error('a paper was answered as already so');
    return a.committed;
  };
  let writing = true;
  let written = 0;
  const pending: Promise<unknown>[] = [];
  const writer = (async () => {
    for (const start = performance.now(); writing;) {
      pending.push(writePaper());
      written++;
      const due = start + (written * 1000) / WRITES;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    }
  })();
  const papers = [...s.papers.values()];
  // Their statements read from the papers' entries (the state keeps none), the claims picked first.
  const picked = Array.from({ length: QUERIES }, () => s.claims.get(papers[Math.floor(rnd() * papers.length)]!.claims[0]!)!);
  const logged = loggedReader(d);
  const statements = await Promise.all(picked.map(async (c) => (await claimMade(c, logged)).text));
  const queries = statements.map((text, i) => {
    const ws = text.split(' ');
    const a = ws[Math.floor(rnd() * ws.length)]!;
    return i % 2 === 0 ? a : `${a} ${ws[Math.floor(rnd() * ws.length)]}`;
  });
  const sizeBefore = d.log.size;
  const t1 = performance.now();
  const bare = await timeGets(base, QUERIES / 2, () => '/v1/log/sth');
  const search = await timeGets(base, QUERIES, (i) => `/v2/search?q=${encodeURIComponent(queries[i % queries.length]!)}`);
  const filtered = await timeGets(
    base,
    QUERIES / 4,
    (i) => `/v2/search?q=${encodeURIComponent(queries[i % queries.length]!)}&operator=lab-prolific&status=unchecked`,
  );
  const bare2 = await timeGets(base, QUERIES / 2, () => '/v1/log/sth');
  writing = false;
  await writer;
  await Promise.all(pending);
  const rate = ((d.log.size - sizeBefore) / (performance.now() - t1)) * 1000;
  const quiet = await timeGets(base, QUERIES / 2, (i) => `/v2/search?q=${encodeURIComponent(queries[i % queries.length]!)}`);
  const inProcess: number[] = [];
  for (const q of queries.slice(0, QUERIES / 4)) {
    const t = performance.now();
    await readers.search.search(queryWords(q), {}, null, 20);
    inProcess.push(performance.now() - t);
  }
  console.log(
    `2. GET /v2/search, 20 results with snippets, while ${fmt(rate, 0)} entries/s land (papers of 3 claims): ${p(search)}; with filters ` +
      `(operator, status): ${p(filtered)}`,
  );
  console.log(
    `   the bare route GET /v1/log/sth under the same writes: ${p([...bare, ...bare2])}; GET /v2/search once writes stopped: ` +
      `${p(quiet)}; the index's lookup in process: ${p(inProcess)}`,
  );
  await server.close();

  // 3. The catch-up after a restart: the index closed, entries logged, brought up to date from its head.
  await readers.search.close();
  const head = readers.search.size;
  const more: Promise<unknown>[] = [];
  for (let i = 0; i < CATCHUP; i++) {
    more.push(writePaper());
    if (more.length >= 2000) await Promise.all(more.splice(0));
  }
  await Promise.all(more);
  t0 = performance.now();
  const again = new SearchIndex(d.log, new SqliteSearch(file, TIERS));
  again.reset(record.state);
  await again.ready;
  const catchUp = performance.now() - t0;
  if (again.lastBuild?.from !== head) throw new Error(`the index was not brought up to date from its head ${head}`);
  console.log(
    `3. catch-up after a restart: ${fmt(d.log.size - head)} entries (${fmt(again.lastBuild.items)} items) in ${fmt(catchUp / 1000, 2)} ` +
      `s, beside ${fmt(buildMs / 1000, 1)} s to build the index from zero`,
  );
  await again.close();
  await d.close();
  rmSync(searchDir, { recursive: true, force: true });
  if (kept === undefined) rmSync(dir, { recursive: true, force: true });
}

await main();
