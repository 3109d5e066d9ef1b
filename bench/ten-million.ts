// npm run bench:ten-million — how each cost grows with the log (issue 26, docs/benchmarks.md). For
// each shape of a log of BENCH_ENTRIES entries (default 10,000,000; BENCH_SHAPES, default both):
//   - review: bench:start's log (bench/build-log.ts: 1,000 agents, 1,000 papers, reviews 86 ms
//     apart, a million a day), every 100th review on one hot claim;
//   - papers: bench:readers' log (bench/readers-log.ts: papers with abstracts, claims, external
//     claims, reviews, 2,000 agents a million of 1,000 operators, one prolific), every 100th review
//     on one hot claim;
// it builds the log through the record (or reuses it from BENCH_CACHE, keyed by the generators'
// version and the size; BENCH_BUILD_ONLY=1 builds and stops), then runs `archive serve` on it (a
// child process, as bench:start does) and prints each figure of the issue beside its goal and its
// peer measured in the same run:
//   - start with no snapshot, to its "serving" line and to its search index ready (peer: reading
//     every entry from the store), then from the snapshot written at its clean shutdown (goal:
//     under 3 s; peer: reading the snapshot files);
//   - GET of a paper, an agent and the hot claim's page, p50 and the service's CPU time a read (goal: under 5 ms; peer: GET /v1/log/sth),
//     once the service has made its served credence text after its start and is idle (how long each took is printed);
//   - GET /v2/search p50 and p99 while a client registers agents as fast as it can (goal: under 20
//     and 200 ms; peer: the bare route under the same writes), and whether a word's inflected form
//     ("learning rate") finds a paper that uses another ("learning rates");
//   - last, `archive verify --url --state --cache`, the whole log and then 10,000 new entries (goal:
//     under 10 s; peer: the whole run; BENCH_NEW changes the 10,000); BENCH_VERIFY=0 leaves both out; BENCH_VERIFY_DIR keeps
//     the auditor's state and cache there, and a first run found there is not run again (it takes most of an hour at 10M);
//   - the snapshot's pause of serving: the longest gap in a steady stream of reads while a snapshot
//     (of the state) is written under writes (goal: under 250 ms; peer: the longest gap
//     of the same stream otherwise);
//   - heap plus array buffers after start from the snapshot, with the readers' indexes
//     (bench/start-heap.ts; goal: at most 2 GiB).
// BENCH_ONLY picks some of the figures: zero, snapshot, reads, search, pause, heap, verify.
// The measures write to the log (registrations, one paper): a log reused grows by them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDeployment } from '../lib/service/deployment.js';
import { snapshotFile } from '../lib/service/snapshot.js';
import { searchFile } from '../lib/service/search-sqlite.js';
import { paperId } from '../lib/protocol/ids.js';
import { generateKeyPair, signPayload } from '../lib/protocol/ed25519.js';
import { PROTOCOL } from '../lib/protocol/service-event.js';
import { HERE, type Code } from './baseline.js';
import { buildLog, registration } from './build-log.js';
import { buildReadersLog } from './readers-log.js';
import { ARCHIVE_ENV, cpuMs, heapAfterStart, serve, stop, timeGets, writesUntil } from './served.js';
import { fmt, machine, prng, quantile } from './stats.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000_000);
const CACHE = process.env.BENCH_CACHE ?? join(tmpdir(), 'bench-ten-million');
const SHAPES = (process.env.BENCH_SHAPES ?? 'review,papers').split(',');
const FIGURES = ['zero', 'snapshot', 'reads', 'search', 'pause', 'heap', 'verify'];
const ONLY = new Set((process.env.BENCH_ONLY ?? FIGURES.join(',')).split(','));
if (process.env.BENCH_VERIFY === '0') ONLY.delete('verify');
const want = (figure: string) => ONLY.has(figure);
/** The generators' version, in the cache's key: raise it when bench/build-log.ts or bench/readers-log.ts changes the log. */
const GENERATOR = 2;
/** Entries written after the log for the incremental verification. */
const NEW = Number(process.env.BENCH_NEW ?? 10_000);
/** Where the auditor's state and cache are kept between runs of the bench (default: a temporary directory, removed). */
const KEPT = process.env.BENCH_VERIFY_DIR;
const SERVE = ['--register-limit', '100000000', '--snapshot-every', '0'];
const code: Code = { name: 'this code', dist: HERE };
const run = promisify(execFile);

const SHAPE: Record<string, (dir: string) => Promise<void>> = {
  review: (dir) => buildLog(dir, ENTRIES, { stepMs: 86, hotEvery: 100 }),
  papers: (dir) => buildReadersLog(dir, ENTRIES, { hotEvery: 100 }),
};

/** The log of `shape` from the cache, built there first when it is not. */
async function cachedLog(shape: string): Promise<string> {
  const dir = join(CACHE, `${shape}-g${GENERATOR}-${ENTRIES}`);
  if (existsSync(join(dir, 'db'))) {
    console.log(`${shape}: reusing the log in ${dir}`);
    return dir;
  }
  // Built aside and moved in place when whole, so that a build cut short is never reused.
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const t0 = performance.now();
  await SHAPE[shape]!(partial);
  const s = (performance.now() - t0) / 1000;
  renameSync(partial, dir);
  console.log(`${shape}: built a log of ${fmt(ENTRIES)} entries in ${dir} in ${fmt(s, 1)} s (${fmt(ENTRIES / s)} entries/s)`);
  return dir;
}

interface Sample {
  size: number;
  readS: number;
  papers: { id: string; title: string }[];
  handles: string[];
  hotClaim: string;
}

/** Reads every entry from the store (the floor of a start with no snapshot) and keeps a sample of papers and agents to ask for. */
async function scan(dir: string): Promise<Sample> {
  const d = await openDeployment({ dataDir: dir });
  const size = d.log.size;
  const papers: { id: string; title: string }[] = [];
  const handles: string[] = [];
  let nPapers = 0;
  let nAgents = 0;
  const t0 = performance.now();
  for (let from = 0; from < size; from += 4096)
    for (const r of await d.log.records(from, Math.min(4096, size - from))) {
      if (r.type === 'paper' && nPapers++ % 97 === 0 && papers.length < 5000) {
        const { payload } = JSON.parse(r.payload) as { payload: { title: string } };
        papers.push({ id: paperId(payload), title: payload.title });
      } else if (r.type === 'agent.register' && nAgents++ % 7 === 0 && handles.length < 2000)
        handles.push((JSON.parse(r.payload) as { handle: string }).handle);
    }
  const readS = (performance.now() - t0) / 1000;
  await d.close();
  // Both generators put every 100th review on the first paper's first claim.
  return { size, readS, papers, handles, hotClaim: `${papers[0]!.id}#C1` };
}

const p50 = (xs: number[]) => `${fmt(quantile(xs, 0.5), 2)} ms`;
const p50p99 = (xs: number[]) => `p50 ${fmt(quantile(xs, 0.5), 2)} ms, p99 ${fmt(quantile(xs, 0.99), 1)} ms`;
const mib = (bytes: number) => `${fmt(bytes / 2 ** 20)} MiB`;

/** A paper titled with `title`, posted by a new agent; answers its id. */
async function postPaper(url: string, title: string): Promise<string> {
  const { constitution } = (await (await fetch(`${url}/v2/record`)).json()) as { constitution: { version: string; hash: string } };
  const k = generateKeyPair();
  const handle = `inflect-${process.pid}-${Date.now()}`;
  const post = async (path: string, body: object) => {
    const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await r.json()) as Record<string, unknown>;
    if (r.status !== 201 && r.status !== 202) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  await post('/v2/agents/register', registration(handle, k, `inflect-lab-${process.pid}`, constitution));
  const payload = {
    protocol: PROTOCOL,
    type: 'paper',
    agent: { handle, publicKey: k.publicKey },
    ts: new Date().toISOString(),
    title,
    abstract: 'How the schedule of warm-up steps changes what a small transformer learns, over twelve runs.',
    field: 'ml',
    claims: [{ text: 'A longer warm-up lowers the final loss', confidence: 0.6, test: 'A replication that fails refutes it' }],
    builds_on: [],
  };
  await post('/v2/papers', { payload, signature: signPayload(k.privateKey, payload) });
  return paperId(payload);
}

/** Whether GET /v2/search?q= lists the item `id` (within its first page of 50). */
async function finds(url: string, q: string, id: string): Promise<boolean> {
  const r = await fetch(`${url}/v2/search?q=${encodeURIComponent(q)}&limit=50`);
  const body = (await r.json()) as { results?: { id: string }[] };
  return r.status === 200 && (body.results ?? []).some((x) => x.id === id || x.id.startsWith(`${id}#`));
}

/**
 * Waits until process `pid` uses less than a twentieth of a core over a second, at most `ms`: the seconds waited. Its CPU
 * time is counted in ticks of 10 ms.
 */
async function settled(pid: number, ms = 60_000): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const c0 = cpuMs(pid);
    await new Promise((r) => setTimeout(r, 1000));
    if (cpuMs(pid) - c0 < 50 || performance.now() - t0 > ms) return (performance.now() - t0) / 1000;
  }
}

/**
 * Runs `archive verify --url --state --cache` (the auditor's incremental run once the state exists): seconds, and the verifier's
 * peak resident memory (its maximum RSS, as /usr/bin/time reports it, when there is one).
 */
async function verify(url: string, work: string): Promise<{ seconds: number; rssMiB: number | null }> {
  const t0 = performance.now();
  const args = [
    join(HERE, 'bin/cli.js'),
    'verify',
    '--url',
    url,
    '--state',
    join(work, 'verified.json'),
    '--cache',
    join(work, 'export.jsonl'),
  ];
  const timed = existsSync('/usr/bin/time');
  // Not execFileSync: this process's idle connections to the service must see it close them meanwhile.
  const r = await run(timed ? '/usr/bin/time' : process.execPath, timed ? ['-f', 'maxrss %M', process.execPath, ...args] : args, {
    maxBuffer: 2 ** 26,
    env: ARCHIVE_ENV,
  });
  const kib = /maxrss (\d+)/.exec(r.stderr)?.[1];
  return { seconds: (performance.now() - t0) / 1000, rssMiB: kib === undefined ? null : Number(kib) / 1024 };
}

/** The line `archive serve` prints when it has written a snapshot of the state. */
const SNAPSHOT_LINE = /^archive: snapshot at entry/;
/** How long the snapshot of such a line took to write, from its start (ms). */
const snapshotMs = (line: string): number => Number(/, (\d+) ms \(serving paused/.exec(line)?.[1] ?? 0);

/** The longest gap between reads answered in a steady stream while a snapshot is written, and the longest otherwise. */
async function snapshotPause(dir: string): Promise<{ during: number; otherwise: number; line: string; reads: number }> {
  const s = await serve(code, dir, ['--register-limit', '100000000', '--snapshot-every', '200']);
  await s.line(/the search index (holds|is up to date)/);
  const from = s.lines.length;
  let done = false;
  const landed = { n: 0 };
  const writes = writesUntil(s.url, () => done, landed);
  const answered: number[] = [];
  const began = performance.now();
  const stream = (async () => {
    while (!done) {
      const r = await fetch(`${s.url}/v1/log/sth`);
      await r.arrayBuffer();
      answered.push(performance.now());
    }
  })();
  // The snapshot measured is the first one begun after the stream began: one begun before (at the
  // start, while the search index was built) paused serving when no read was there to see it.
  let at = from;
  let st = await s.line(SNAPSHOT_LINE, at);
  while (st.at - snapshotMs(st.line) < began) {
    at = s.lines.indexOf(st.line, at) + 1;
    st = await s.line(SNAPSHOT_LINE, at);
  }
  await new Promise((r) => setTimeout(r, 1000));
  done = true;
  await Promise.all([writes, stream]);
  await stop(s);
  // The snapshot of the state is written from the time its line gives before that line (the search index is a file of
  // its own, written as the record folds, and has no snapshot).
  const start = st.at - snapshotMs(st.line) - 100;
  const end = st.at + 100;
  let during = 0;
  let otherwise = 0;
  for (let i = 1; i < answered.length; i++) {
    const gap = answered[i]! - answered[i - 1]!;
    if (answered[i]! >= start && answered[i - 1]! <= end) during = Math.max(during, gap);
    else otherwise = Math.max(otherwise, gap);
  }
  return {
    during,
    otherwise,
    line: st.line.replace(/^archive: /, ''),
    reads: answered.length,
  };
}

async function measure(shape: string, dir: string): Promise<string[][]> {
  const rows: string[][] = [];
  const row = (figure: string, goal: string, value: string, peer = '') => {
    rows.push([figure, goal, value, peer]);
    console.log(`  ${figure}: ${value}${peer === '' ? '' : ` (${peer})`}${goal === '' ? '' : ` [goal: ${goal}]`}`);
  };
  const sample = await scan(dir);
  console.log(`${shape}: ${fmt(sample.size)} entries`);
  const floor = `floor: reading every entry from the store ${fmt(sample.readS, 1)} s`;

  // No snapshot: the replay, then the search index built from the state (its file removed).
  if (want('zero') || !existsSync(snapshotFile(dir))) {
    rmSync(snapshotFile(dir), { force: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(searchFile(dir) + suffix, { force: true });
    const zero = await serve(code, dir, SERVE);
    const zeroSearch = await zero.line(/the search index holds/);
    await stop(zero);
    row(
      'start with no snapshot: serving / search ready',
      'stated',
      `${fmt(zero.seconds, 1)} s / ${fmt(zeroSearch.seconds, 1)} s, peak RSS ${fmt(zero.peakMiB)} MiB at serving`,
      floor,
    );
    const shutdown = zero.lines.filter((l) => l.includes('snapshot at entry')).map((l) => l.replace(/^archive: /, ''));
    row('snapshots written at its clean shutdown', '', shutdown.join('; ') || 'none');
  }

  if (want('snapshot') || want('reads') || want('search')) {
    const tf = performance.now();
    // Read in pieces: readFile refuses a file over 2 GiB (the paper-heavy snapshot at 10M is 3.1 GiB).
    let bytes = 0;
    for await (const piece of createReadStream(snapshotFile(dir), { highWaterMark: 2 ** 24 })) bytes += (piece as Buffer).length;
    const readSnapshot = (performance.now() - tf) / 1000;
    const s = await serve(code, dir, SERVE);
    const restored = await s.line(/the search index (holds|is up to date)/);
    const used = s.lines.find((l) => l.includes('starting from the snapshot')) ?? 'the snapshot was not used';
    if (want('snapshot'))
      row(
        'start from the snapshot: serving / search ready',
        '< 3 s',
        `${fmt(s.seconds, 2)} s / ${fmt(restored.seconds, 2)} s, peak RSS ${fmt(s.peakMiB)} MiB (${used.replace(/^archive: /, '')})`,
        `floor: reading the snapshot files (${mib(bytes)}) ${fmt(readSnapshot, 2)} s`,
      );
    const rnd = prng(26);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;

    if (want('reads')) {
      // Once the service has made its served credence text (a chunk of claims a turn after it starts serving, which a read
      // right after the start waits behind): the reads of a service that has started.
      const made = await s.line(/the served credence text is made/);
      // And once the service is idle, so that nothing the start left running (a collection, say) runs beside the first
      // reads. Some runs still spend more CPU on their first reads than others (docs/benchmarks-history.md, "Huge pages
      // for the columns"): this wait did not remove that.
      const idle = await settled(s.child.pid!);
      row(
        'the served credence text made after the start',
        '',
        `${fmt(made.seconds - s.seconds, 1)} s after serving; the service idle ${fmt(idle, 1)} s after that`,
      );
      // Reads of one item, beside the bare route; with the service's CPU time a read (all its
      // threads, the warm-up reads included), which a loaded machine stretches less than the times.
      const timed = async (n: number, path: () => string) => {
        const c0 = cpuMs(s.child.pid!);
        const times = await timeGets(s.url, n, path);
        return { times, cpu: `service CPU ${fmt((cpuMs(s.child.pid!) - c0) / (n + 10), 2)} ms a read` };
      };
      const paper = await timed(500, () => `/v2/papers/${pick(sample.papers).id}`);
      const agent = await timed(300, () => `/v2/agents/${pick(sample.handles)}`);
      const hot = await timed(100, () => `/explore/claims/${encodeURIComponent(sample.hotClaim)}`);
      const bare = await timed(500, () => '/v1/log/sth');
      const bareAgain = `the bare route GET /v1/log/sth p50 ${p50(bare.times)}, ${bare.cpu}`;
      row('GET /v2/papers/{id}', 'p50 < 5 ms', `${p50p99(paper.times)}, ${paper.cpu}`, bareAgain);
      row('GET /v2/agents/{handle}', 'p50 < 5 ms', `${p50p99(agent.times)}, ${agent.cpu}`);
      row(`the hot claim's page GET /explore/claims/{ref}`, 'p50 < 5 ms', `${p50p99(hot.times)}, ${hot.cpu}`);
    }
    if (want('search')) {
      // An index of the format before the table of first columns fills it at start, answering meanwhile from its other table:
      // the search is measured once it is full.
      if (s.lines.some((l) => /is brought to format/.test(l))) {
        const filled = await s.line(/table of first columns is filled: /);
        row(
          'the search index brought to its format at start',
          '',
          `${filled.line.replace(/^archive: /, '')}, ${fmt(filled.seconds, 1)} s after the start`,
        );
      }
      // Search while writes land: one or two words of the sampled papers' titles.
      const queries = Array.from({ length: 1000 }, (_, i) => {
        const ws = pick(sample.papers).title.split(' ');
        return i % 2 === 0 ? pick(ws) : `${pick(ws)} ${pick(ws)}`;
      });
      let done = false;
      const landed = { n: 0 };
      const tw = performance.now();
      const writes = writesUntil(s.url, () => done, landed);
      const search = await timeGets(s.url, queries.length, (i) => `/v2/search?q=${encodeURIComponent(queries[i % queries.length]!)}`);
      const bareUnder = await timeGets(s.url, 500, () => '/v1/log/sth');
      done = true;
      await writes;
      const writeRate = landed.n / ((performance.now() - tw) / 1000);
      row(
        'GET /v2/search while writes land (20 results, snippets)',
        'p50 < 20 ms, p99 < 200 ms',
        p50p99(search),
        `the bare route under the same writes: ${p50p99(bareUnder)}; ${fmt(writeRate)} registrations/s landed`,
      );
      const id = await postPaper(s.url, 'Warm-up schedules for learning rates of small transformers');
      let indexed = false;
      for (const end = Date.now() + 10_000; !indexed && Date.now() < end;) indexed = await finds(s.url, 'learning rates', id);
      const inflected = await finds(s.url, 'learning rate', id);
      row(
        'a search for "learning rate" finds a paper titled "... learning rates ..."',
        'yes',
        indexed ? (inflected ? 'yes' : 'no') : 'the paper was not found by its own words within 10 s',
      );
    }
    await stop(s);
  }

  if (want('pause')) {
    const pause = await snapshotPause(dir);
    row(
      "the snapshot's pause of serving: the longest gap in a stream of reads",
      '< 250 ms',
      `${fmt(pause.during)} ms (${pause.line})`,
      `the longest gap otherwise: ${fmt(pause.otherwise)} ms, ${fmt(pause.reads)} reads in all`,
    );
  }

  if (want('heap')) {
    const heap = heapAfterStart(code, dir, 'snapshot');
    row(
      "heap + array buffers after start from the snapshot, with the readers' indexes and the served credence text",
      '<= 2,048 MiB',
      `${fmt(heap.heapMiB + heap.arrayBuffersMiB)} MiB (${fmt(heap.heapMiB)} + ${fmt(heap.arrayBuffersMiB)}), rss ${fmt(heap.rssMiB)} MiB`,
      `the record and its readers' indexes opened in ${fmt(heap.seconds, 1)} s, then the served credence text made`,
    );
  }
  // The auditor, last (the longest): the whole log, then the entries written since.
  if (want('verify')) {
    const a = await serve(code, dir, SERVE);
    const work = KEPT ?? mkdtempSync(join(tmpdir(), 'bench-ten-million-verify-'));
    try {
      // A first run kept from an earlier one (BENCH_VERIFY_DIR) is not run again: at 10M it takes the better part of an hour.
      const kept = KEPT !== undefined && existsSync(join(work, 'verified.json'));
      const whole = kept ? null : await verify(a.url, work);
      const before = (await (await fetch(`${a.url}/v1/log/sth`)).json()) as { treeSize: number };
      const written = { n: 0 };
      // Eight clients at once: one alone would spend most of its time waiting for each answer.
      await Promise.all(Array.from({ length: 8 }, () => writesUntil(a.url, () => written.n >= NEW, written)));
      const after = (await (await fetch(`${a.url}/v1/log/sth`)).json()) as { treeSize: number };
      const incremental = await verify(a.url, work);
      const rss = (r: { rssMiB: number | null }) => (r.rssMiB === null ? '' : `, peak RSS ${fmt(r.rssMiB)} MiB`);
      row(
        `archive verify --url --state: ${fmt(after.treeSize - before.treeSize)} new entries after ${fmt(before.treeSize)}`,
        '< 10 s',
        `${fmt(incremental.seconds, 1)} s${rss(incremental)}`,
        `${whole === null ? `the first run kept in ${work}` : `the whole log's first run: ${fmt(whole.seconds, 1)} s${rss(whole)}`}; ` +
          'the saved replay ' +
          mib(statSync(join(work, 'verified.json.replay')).size),
      );
    } finally {
      if (KEPT === undefined) rmSync(work, { recursive: true, force: true });
      await stop(a);
    }
  }
  return rows;
}

async function main(): Promise<void> {
  console.log(`bench:ten-million on ${machine()}: ${fmt(ENTRIES)} entries, shapes ${SHAPES.join(', ')}`);
  for (const shape of SHAPES) if (SHAPE[shape] === undefined) throw new Error(`BENCH_SHAPES: no shape ${shape} (review, papers)`);
  for (const shape of SHAPES) {
    const dir = await cachedLog(shape);
    if (process.env.BENCH_BUILD_ONLY === '1') continue;
    const rows = await measure(shape, dir);
    console.log(`\n${shape}, ${fmt(ENTRIES)} entries:\n| figure | goal | this run | peer in the same run |\n|---|---|---|---|`);
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
    console.log();
  }
}

await main();
