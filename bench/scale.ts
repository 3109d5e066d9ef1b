// `npm run bench:scale`: the figures of a deployment past one machine (docs/benchmarks.md), LevelDB
// and PostgreSQL side by side in one run.
//   1. durable appends/s on PostgreSQL beside LevelDB, same entries, same writers: 4,000
//      concurrent writers, each appending a 561-byte entry and waiting for its acknowledgement,
//      through a deployment (openDeployment) on each store in turn, BENCH_ROUNDS times; with each
//      rate, the commits' count, mean batch and mean time (store.commit, from call to answer).
//      With BENCH_BASELINE (a commit, built in a temporary directory: bench/baseline.ts), that
//      code's deployment on each store too, in the same rounds.
//   2. signed writes/s over HTTP (reviews signed before the run, autocannon, 64 connections,
//      BENCH_SECONDS each): to a LevelDB node alone, to the leader of two PostgreSQL nodes, and
//      through the follower (which forwards each to the leader); with BENCH_BASELINE, through a follower of that
//      code too (a third node), in the same rounds.
//   3. follower lag under load: while autocannon loads the leader with writes, one more write at
//      a time goes to the leader and, the moment it is acknowledged, a read of the follower with
//      Min-Seq: its seq: how long until the follower answers with that entry; beside the same read
//      of the leader (which has it: one round trip under the same load).
//   4. proof reads/s (GET /v1/log/inclusion at random seqs, autocannon): one LevelDB node, one
//      PostgreSQL node, and the two PostgreSQL nodes at once (one autocannon each).
//   5. failover time with the default lease: the leader of three nodes killed (SIGKILL) while a
//      client writes through the others: until a node says it leads, and until a write is
//      taken again; BENCH_FAILOVERS times.
// Every node is `archive serve` in its own process; the PostgreSQL server is a new cluster in a
// temporary directory (tlog-engine/testing) with PostgreSQL's defaults for durability
// (fsync on, synchronous_commit on). All share this machine's cores, and so does the load.
// Options: BENCH_ENTRIES (default 300000), BENCH_ROUNDS (default 2), BENCH_SECONDS (default 10),
// BENCH_FAILOVERS (default 3), BENCH_BASELINE (none); BENCH_WRITE_ROUNDS (default 1): how many times the
// writes of 2. go to the leader and then through the follower, in turn (the ratio is of the sums);
// BENCH_ONLY picks some of the figures: appends, writes, lag, proofs, failover. BENCH_PROFILE=<dir>: the
// two PostgreSQL nodes write their CPU profiles there (node --cpu-prof) when they stop.
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Deployment } from '../lib/service/deployment.js';
import type { CommitBatch } from 'tlog-engine';
import { HERE, buildBaseline, type Code } from './baseline.js';
import type { Served } from '../lib/client/http.js';
import { startPostgres } from 'tlog-engine/testing';
import { startNodeProcess, type NodeProcess } from '../test/helpers/node-process.js';
import { CONNECTIONS, loadPosts, reviewersOn, signedReviews } from './http-load.js';
import { fmt, machine, quantile } from './stats.js';
import { cpuMs } from './served.js';

const N = Number(process.env.BENCH_ENTRIES ?? 300_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FAILOVERS = Number(process.env.BENCH_FAILOVERS ?? 3);
const WRITERS = 4000;
const BASELINE = process.env.BENCH_BASELINE;
const PROFILE = process.env.BENCH_PROFILE;
const WRITE_ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 1);
const FIGURES = ['appends', 'writes', 'lag', 'proofs', 'failover'];
const ONLY = new Set((process.env.BENCH_ONLY ?? FIGURES.join(',')).split(','));
const want = (figure: string) => ONLY.has(figure);

/** A signed review's envelope as logged: 561 bytes for i of 6 digits. */
const payload = (i: number) =>
  `{"payload":{"agent":{"handle":"bench-agent","publicKey":"MCowBQYDK2VwAyEA${'A'.repeat(43)}"},` +
  `"claim":"rec:${(i % 65536).toString(16).padStart(16, '0')}#C1","forecast":0.7,"protocol":"archive/0.2",` +
  `"rationale":"${'r'.repeat(200)} ${i}","ts":"2026-11-22T10:00:00Z","type":"review"},"signature":"${'s'.repeat(86)}"}`;

/** Appends `n` entries from WRITERS concurrent writers; the seconds it took, and the store's commits (count, ms in all). */
async function appendAll(d: Deployment, n: number): Promise<{ seconds: number; commits: number; commitMs: number }> {
  let next = 0;
  const commits = { commits: 0, commitMs: 0 };
  const store = d.store as { commit(b: CommitBatch): Promise<void> };
  const commit = store.commit.bind(store);
  store.commit = async (b) => {
    const t = performance.now();
    await commit(b);
    commits.commits++;
    commits.commitMs += performance.now() - t;
  };
  const t0 = performance.now();
  const writer = async () => {
    while (next < n) {
      const i = next++;
      await d.log.append('review', payload(i));
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return { seconds: (performance.now() - t0) / 1000, ...commits };
}

/** Writes loaded with autocannon: requests/s, p99, and how many were not taken. */
async function loadWrites(url: string, bodies: string[], seconds: number) {
  const from = process.hrtime.bigint() / 1000n;
  const w = await loadPosts(url, bodies, seconds);
  // The run's span on the clock of the nodes' CPU profiles (µs), to cut them by.
  if (PROFILE !== undefined) console.log(`   (profile window of ${url}: ${from} to ${process.hrtime.bigint() / 1000n})`);
  if (w.sent > bodies.length) console.log('   warning: bodies were reused; repeats answer 409 and count as failed');
  return w;
}

/** Inclusion proofs at random seqs of a tree of `size`: requests/s. */
async function loadProofs(url: string, size: number, seconds: number) {
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req: autocannon.Request) => ({ ...req, path: `/v1/log/inclusion?seq=${Math.floor(Math.random() * size)}` }),
      },
    ],
  });
  return { rps: r.requests.average, p99: r.latency.p99, failed: r.non2xx + r.errors };
}

const info = async (n: NodeProcess): Promise<Served> => (await fetch(`${n.url}/v1/node`, { signal: AbortSignal.timeout(1000) })).json();

async function leaderOf(nodes: NodeProcess[]): Promise<NodeProcess | null> {
  for (const n of nodes) if ((await info(n).catch(() => null))?.role === 'leader') return n;
  return null;
}

console.log(`bench:scale on ${machine()}`);
const server = await startPostgres();
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'archive-bench-scale-'));
  dirs.push(d);
  return d;
};
const nodes: NodeProcess[] = [];
let built: Code | undefined;
// BENCH_BASELINE_DIR: a checkout of BENCH_BASELINE built already (a directory bench/baseline.ts made, kept), rather than a new build.
const BASELINE_DIR = process.env.BENCH_BASELINE_DIR;
const baseline = (): Code =>
  (built ??= BASELINE_DIR === undefined ? buildBaseline(BASELINE!) : { name: BASELINE!, dist: join(BASELINE_DIR, 'dist') });
try {
  // 1. Durable appends.
  if (want('appends')) {
    const codes: Code[] = [...(BASELINE === undefined ? [] : [baseline()]), { name: 'this code', dist: HERE }];
    const opens = await Promise.all(
      codes.map(
        async (c) =>
          ((await import(join(c.dist, 'lib/service/deployment.js'))) as typeof import('../lib/service/deployment.js')).openDeployment,
      ),
    );
    console.log(`1. durable appends: ${fmt(N)} entries of ${payload(N).length} bytes, ${fmt(WRITERS)} writers, ${ROUNDS} rounds`);
    const rates = codes.map(() => ({ leveldb: [] as number[], postgres: [] as number[] }));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, code] of codes.entries()) {
        for (const kind of ['leveldb', 'postgres'] as const) {
          const dataDir = tmp();
          const storeUrl = kind === 'postgres' ? await server.createDatabase() : undefined;
          const d = await opens[i]!({ dataDir, storeUrl });
          const { seconds: s, commits, commitMs } = await appendAll(d, N);
          await d.close();
          rmSync(dataDir, { recursive: true, force: true });
          rates[i]![kind].push(N / s);
          console.log(
            `   round ${round}, ${code.name}, ${kind}: ${fmt(N / s)} durable appends/s (${fmt(s, 1)} s; ${fmt(commits)} commits, ` +
              `mean batch ${fmt(N / commits)}, mean commit ${fmt(commitMs / commits, 1)} ms)`,
          );
        }
      }
    }
    for (const [i, code] of codes.entries()) {
      const pgBest = Math.max(...rates[i]!.postgres);
      const levelBest = Math.max(...rates[i]!.leveldb);
      console.log(
        `   ${code.name}, best of ${ROUNDS}: PostgreSQL ${fmt(pgBest)} /s vs LevelDB ${fmt(levelBest)} /s; ` +
          `PostgreSQL / LevelDB ${fmt(pgBest / levelBest, 2)} (goal >= 0.7)`,
      );
    }
  }

  // The nodes: one LevelDB node alone; two PostgreSQL nodes (the first leads).
  const level = await startNodeProcess({ dataDir: tmp(), id: 'level', args: ['--register-limit', '100000'] });
  nodes.push(level);
  const storeUrl = await server.createDatabase();
  const args = ['--register-limit', '100000'];
  const first = tmp();
  const nodeArgs = PROFILE === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROFILE];
  const a = await startNodeProcess({ storeUrl, dataDir: first, id: 'a', args, nodeArgs });
  const b = await startNodeProcess({ storeUrl, dataDir: tmp(), id: 'b', keysFrom: first, args, nodeArgs });
  nodes.push(a, b);
  // With BENCH_BASELINE, a third node of that code, following too, for the writes through a follower of the code before.
  const before =
    BASELINE !== undefined && want('writes')
      ? await startNodeProcess({ storeUrl, dataDir: tmp(), id: 'before', keysFrom: first, args, nodeArgs, root: dirname(baseline().dist) })
      : undefined;
  if (before !== undefined) nodes.push(before);
  const perRun = Math.ceil(SECONDS * 6000) + 10_000;
  const [onLevel, onPg] = await Promise.all([reviewersOn(level.url), reviewersOn(a.url)]);
  // Review envelopes of the PostgreSQL nodes' reviewers, each signed once: never a repeat (409).
  let signed = 0;
  let signingMs = 0;
  const sign = (n: number) => {
    const t0 = performance.now();
    const out = signedReviews(onPg, signed, n);
    signed += n;
    signingMs += performance.now() - t0;
    return out;
  };
  const line = (w: Awaited<ReturnType<typeof loadWrites>>) =>
    `${fmt(w.rps)} /s (p50 ${w.p50} ms, p99 ${w.p99} ms, ${w.failed} not taken of ${fmt(w.total)})`;
  // The CPU time of each process (the nodes; autocannon's, this one) over a load of writes, in ms a write.
  const withCpu = async (load: () => ReturnType<typeof loadWrites>) => {
    const named: [string, number][] = [
      ['leader', a.child.pid!],
      ['follower', b.child.pid!],
      ...(before === undefined ? [] : ([['follower before', before.child.pid!]] as [string, number][])),
      ['autocannon', process.pid],
    ];
    const at = () => named.map(([, pid]) => cpuMs(pid));
    const from = at();
    const w = await load();
    const per = at().map((ms, i) => `${named[i]![0]} ${fmt((ms - from[i]!) / w.total, 2)} ms`);
    return { ...w, cpu: `CPU a write: ${per.join(', ')}` };
  };

  // 2. Signed writes over HTTP.
  if (want('writes')) {
    console.log(`2. signed writes/s over HTTP, POST /v2/reviews, autocannon ${CONNECTIONS} connections, ${SECONDS} s each`);
    await loadWrites(`${a.url}/v2/reviews`, sign(15_000), 2); // warm up
    const wLevel = await loadWrites(`${level.url}/v2/reviews`, signedReviews(onLevel, 0, perRun), SECONDS);
    console.log(`   LevelDB, one node: ${line(wLevel)}`);
    const sums = { leader: 0, follower: 0, before: 0 };
    for (let round = 1; round <= WRITE_ROUNDS; round++) {
      const [toLeader, throughFollower, throughBefore] = [sign(perRun), sign(perRun), before === undefined ? [] : sign(perRun)];
      const of = WRITE_ROUNDS === 1 ? '' : ` (round ${round} of ${WRITE_ROUNDS})`;
      const wLeader = await withCpu(() => loadWrites(`${a.url}/v2/reviews`, toLeader, SECONDS));
      console.log(`   PostgreSQL, to the leader${of}: ${line(wLeader)}; ${wLeader.cpu}`);
      const wFollower = await withCpu(() => loadWrites(`${b.url}/v2/reviews`, throughFollower, SECONDS));
      console.log(`   PostgreSQL, through the follower${of}: ${line(wFollower)}; ${wFollower.cpu}`);
      sums.leader += wLeader.rps;
      sums.follower += wFollower.rps;
      if (before !== undefined) {
        const wBefore = await withCpu(() => loadWrites(`${before.url}/v2/reviews`, throughBefore, SECONDS));
        console.log(`   PostgreSQL, through a follower of ${BASELINE}${of}: ${line(wBefore)}; ${wBefore.cpu}`);
        sums.before += wBefore.rps;
      }
    }
    console.log(
      `   follower / leader ${fmt(sums.follower / sums.leader, 2)} (goal >= 0.9)` +
        (before === undefined ? '' : `; ${BASELINE}'s follower / leader ${fmt(sums.before / sums.leader, 2)}`) +
        `; leader / LevelDB ${fmt(sums.leader / WRITE_ROUNDS / wLevel.rps, 2)}`,
    );
  }
  const probes = want('lag') || want('failover') ? sign(20_000) : [];
  console.log(`   (signed ${fmt(signed)} review envelopes in ${fmt(signingMs / 1000, 1)} s)`);

  // 3. Follower lag under load.
  if (want('lag')) {
    console.log(`3. follower lag: the leader loaded with writes (${CONNECTIONS} connections, ${SECONDS} s), one probe write at a time`);
    const lag: number[] = [];
    const floor: number[] = [];
    let probing = true;
    const probe = (async () => {
      let i = 0;
      await new Promise((r) => setTimeout(r, 500));
      while (probing && i < probes.length) {
        const res = await fetch(`${a.url}/v2/reviews`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: probes[i++],
        });
        const seq = Number(res.headers.get('archive-seq'));
        await res.arrayBuffer();
        if (res.status !== 201) continue;
        const t1 = performance.now();
        const f = await fetch(`${b.url}/v1/log/sth`, { headers: { 'min-seq': String(seq) } });
        await f.arrayBuffer();
        const t2 = performance.now();
        const l = await fetch(`${a.url}/v1/log/sth`, { headers: { 'min-seq': String(seq) } });
        await l.arrayBuffer();
        const t3 = performance.now();
        if (f.status === 200) lag.push(t2 - t1);
        if (l.status === 200) floor.push(t3 - t2);
      }
    })();
    const wLag = await loadWrites(`${a.url}/v2/reviews`, sign(perRun), SECONDS);
    probing = false;
    await probe;
    console.log(`   load on the leader meanwhile: ${line(wLag)}`);
    console.log(
      `   follower answered Min-Seq after: p50 ${fmt(quantile(lag, 0.5), 1)} ms, ` +
        `p99 ${fmt(quantile(lag, 0.99), 1)} ms (n=${lag.length}); ` +
        `the leader, which has it: p50 ${fmt(quantile(floor, 0.5), 1)} ms, p99 ${fmt(quantile(floor, 0.99), 1)} ms`,
    );
  }

  // 4. Proof reads.
  if (want('proofs')) {
    const [levelSize, pgSize] = [(await info(level)).treeSize as number, (await info(a)).treeSize as number];
    for (let i = 0; i < 100 && (await info(b)).treeSize !== pgSize; i++) await new Promise((r) => setTimeout(r, 100));
    console.log(
      `4. proof reads/s, GET /v1/log/inclusion at random seqs (trees of ${fmt(levelSize)} and ${fmt(pgSize)} entries), ${CONNECTIONS} ` +
        `connections a node, ${SECONDS} s`,
    );
    await loadProofs(a.url, pgSize, 2); // warm up
    const pLevel = await loadProofs(level.url, levelSize, SECONDS);
    const pOne = await loadProofs(a.url, pgSize, SECONDS);
    const [pA, pB] = await Promise.all([loadProofs(a.url, pgSize, SECONDS), loadProofs(b.url, pgSize, SECONDS)]);
    console.log(`   LevelDB, one node: ${fmt(pLevel.rps)} /s (p99 ${pLevel.p99} ms, ${pLevel.failed} failed)`);
    console.log(`   PostgreSQL, one node: ${fmt(pOne.rps)} /s (p99 ${pOne.p99} ms, ${pOne.failed} failed)`);
    console.log(
      `   PostgreSQL, two nodes at once: ${fmt(pA.rps + pB.rps)} /s (${fmt(pA.rps)} + ${fmt(pB.rps)}, ` +
        `p99 ${Math.max(pA.p99, pB.p99)} ms, ` +
        `${pA.failed + pB.failed} failed); two / one ${fmt((pA.rps + pB.rps) / pOne.rps, 2)}`,
    );
  }

  // 5. Failover, with the default lease.
  if (want('failover')) {
    const c = await startNodeProcess({ storeUrl, dataDir: tmp(), id: 'c', keysFrom: first, args });
    nodes.push(c);
    console.log(
      `5. failover: the leader of three nodes killed (SIGKILL), default lease ` +
        `(${(await import('../lib/service/cluster.js')).DEFAULT_LEASE_MS / 1000} s), ${FAILOVERS} times`,
    );
    const led: number[] = [];
    const wrote: number[] = [];
    let nth = 0;
    for (let round = 1; round <= FAILOVERS; round++) {
      const live = nodes.filter((n) => n !== level && n !== before && n.child.exitCode === null && n.child.signalCode === null);
      const leader = (await leaderOf(live))!;
      const rest = live.filter((n) => n !== leader);
      const killed = performance.now();
      leader.child.kill('SIGKILL');
      await leader.exited;
      let ledAt = 0;
      let wroteAt = 0;
      // One client asks who leads every 20 ms; another writes through the surviving nodes.
      const asking = (async () => {
        while (ledAt === 0) {
          if ((await leaderOf(rest)) !== null) ledAt = performance.now();
          else await new Promise((res) => setTimeout(res, 20));
        }
      })();
      while (wroteAt === 0) {
        const r = await fetch(`${rest[nth++ % rest.length]!.url}/v2/reviews`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: probes[probes.length - 1 - nth]!,
          signal: AbortSignal.timeout(20_000),
        }).catch(() => null);
        if (r?.status === 201) wroteAt = performance.now();
        else await new Promise((res) => setTimeout(res, 20));
      }
      await asking;
      led.push(ledAt - killed);
      wrote.push(wroteAt - killed);
      console.log(
        `   round ${round}: a node led after ${fmt((ledAt - killed) / 1000, 2)} s, a write was taken after ` +
          `${fmt((wroteAt - killed) / 1000, 2)} s`,
      );
      // The killed node comes back as a follower, for the next round.
      const again = await startNodeProcess({ storeUrl, dataDir: tmp(), id: `${leader.id}${round}`, keysFrom: first, args });
      nodes.splice(nodes.indexOf(leader), 1, again);
    }
    console.log(
      `   failover (goal < 10 s): a node leads after at most ${fmt(Math.max(...led) / 1000, 2)} s (median ` +
        `${fmt(quantile(led, 0.5) / 1000, 2)} s); ` +
        `writes are taken again after at most ${fmt(Math.max(...wrote) / 1000, 2)} s (median ${fmt(quantile(wrote, 0.5) / 1000, 2)} s)`,
    );
  }
} finally {
  await Promise.all(nodes.map((n) => n.stop()));
  await server.remove();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
