// npm run bench:numbers — the figures of issue 4 (docs/benchmarks.md). A record of 100,000
// claims and 1,000,000 evidence items is folded by the real state machine, then:
//  1. writes that land (reviews, commitments, seals, results, papers, arguments): the time to
//     apply each, which includes updating every number it moves (median, p99, max);
//  2. GET /v2/credence over HTTP on loopback, timed by curl (apt-get install curl): after a
//     write (the chunks it touched made again), again at the same tree size, and with
//     If-None-Match (304);
//  3. GET /v2/frontier over HTTP: after a write and at the same tree size.
// Entries are applied without signatures (the fold's apply never verifies them: the record
// checks them before admitting, replay and the verifier before applying), so the figures are
// those of the numbers, not of Ed25519. BENCH_CLAIMS and BENCH_ITEMS change the sizes.
import Koa from 'koa';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { applyEntry, emptyState, type RecordEntry, type State } from '../lib/record/fold/index.js';
import { drawCrossCheck } from '../lib/record/types/index.js';
import { PROTOCOL } from '../lib/protocol/service-event.js';
import { sha256TextHex } from 'tlog-engine';
import { readRoutes } from '../api/reads/index.js';
import type { LiveRecord } from '../lib/service/live-record.js';
import { errorMiddleware } from '../api/error-middleware.js';
import { Cursors } from '../api/paging.js';
import { generateKeyPairSync } from 'node:crypto';
import { fmt, machine, prng, quantile } from './stats.js';

const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 100_000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1_000_000);
const OPERATORS = 1000;
const AGENTS_PER_OPERATOR = 2;
/** The deployment's own operator (verified at genesis) runs more agents: its cross-checks verify others. */
const HOUSE_AGENTS = 20;
const CLAIMS_PER_PAPER = 5;
/** Share of evidence items that are receipts (the rest reviews), and of papers that build on an earlier one. */
const RECEIPT_SHARE = 0.4;
const BUILDS_ON_SHARE = 0.3;
const HOUSE = 'op_archive';
const MODELS = [undefined, ['claude-3.5-sonnet'], ['gpt-4o'], ['llama-3-70b'], ['gemini-1.5-pro'], ['qwen2-72b']];

/** What an entry's apply reported that the builder reads: the id, and a paper's claims. */
interface Made {
  id: string;
  claims: string[];
}
const idOf = (o: unknown): Made => {
  if (typeof o !== 'object' || o === null || !('id' in o) || typeof o.id !== 'string') return { id: '', claims: [] };
  const claims = 'claims' in o && Array.isArray(o.claims) ? o.claims.filter((c): c is string => typeof c === 'string') : [];
  return { id: o.id, claims };
};

class Builder {
  state: State = emptyState();
  now = Date.parse('2030-01-01T00:00:00.000Z');
  rand = prng(20261122);
  agents: { handle: string; operatorId: string }[] = [];
  papers: string[] = [];
  claims: string[] = [];
  arguments: string[] = [];
  /** Milliseconds each entry took to apply, by type, while `timing`. */
  times = new Map<string, number[]>();
  timing = false;

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }

  apply(type: string, logged: object): Made {
    const e: RecordEntry<object> = { seq: this.state.size, ts: new Date(this.now).toISOString(), type, logged };
    this.now += 1000;
    if (!this.timing) return idOf(applyEntry(this.state, e));
    const t0 = performance.now();
    const out = idOf(applyEntry(this.state, e));
    const ms = performance.now() - t0;
    const list = this.times.get(type) ?? [];
    list.push(ms);
    this.times.set(type, list);
    return out;
  }

  signed(handle: string, type: string, members: Record<string, unknown>) {
    return {
      payload: {
        protocol: PROTOCOL,
        type,
        agent: { handle, publicKey: `key-of-${handle}` },
        ts: new Date(this.now).toISOString(),
        ...members,
      },
      signature: 'bench',
    };
  }

  event(type: string, members: Record<string, unknown>) {
    return this.apply(type, { event: { protocol: PROTOCOL, type, ts: new Date(this.now).toISOString(), ...members }, signature: 'bench' });
  }

  setup(): void {
    this.event('log.genesis', {
      logKey: 'bench-log-key',
      operatorKey: 'bench-operator-key',
      operator: HOUSE,
      origin: 'bench.local',
      constitution: { version: '1', hash: '0'.repeat(64) },
    });
    for (let o = 0; o < OPERATORS; o++) {
      const operatorId = o === 0 ? HOUSE : `lab-${o}`;
      for (let a = 0; a < (o === 0 ? HOUSE_AGENTS : AGENTS_PER_OPERATOR); a++) {
        const handle = `agent-${o}-${a}`;
        const body: Record<string, unknown> = {
          handle,
          publicKey: `key-of-${handle}`,
          constitution: { version: '1', hash: '0'.repeat(64) },
        };
        if (o === 0) {
          const code = `bench-pairing-${handle}`;
          this.apply('operator.pairing', { payload: { codeHash: sha256TextHex(code), operatorId }, signature: 'bench' });
          body.pairing = code;
        } else body.operatorId = operatorId;
        this.apply('agent.register', body);
        this.agents.push({ handle, operatorId });
      }
    }
  }

  paper(): void {
    const by = this.pick(this.agents);
    const buildsOn =
      this.papers.length > 0 && this.rand() < BUILDS_ON_SHARE
        ? [{ id: this.pick(this.papers), rel: 'extends', basis: 'reviewed', note: 'Relied on its claims as stated in the paper.' }]
        : [];
    const claims = Array.from({ length: CLAIMS_PER_PAPER }, (_, i) => ({
      text: `Claim ${i} of paper ${this.papers.length}`,
      confidence: 0.5 + 0.45 * this.rand(),
      test: 'A replication that fails refutes it',
    }));
    const out = this.apply(
      'paper',
      this.signed(by.handle, 'paper', {
        title: `Paper ${this.papers.length}`,
        abstract: 'An abstract of at least fifty characters for the benchmark.',
        field: 'ml',
        claims,
        builds_on: buildsOn,
      }),
    );
    this.papers.push(out.id);
    this.claims.push(...out.claims);
  }

  /** A claim and an agent of another operator than its author's. */
  target(): { claim: string; by: string } {
    for (;;) {
      const claim = this.pick(this.claims);
      const by = this.pick(this.agents);
      if (this.state.claims.get(claim)!.operatorId !== by.operatorId) return { claim, by: by.handle };
    }
  }

  review(): void {
    const { claim, by } = this.target();
    const models = this.pick(MODELS);
    this.apply(
      'review',
      this.signed(by, 'review', {
        claim,
        forecast: this.rand(),
        rationale: 'A rationale of thirty characters at least.',
        ...(models ? { models } : {}),
      }),
    );
  }

  receipt(): void {
    const { claim, by } = this.target();
    const models = this.pick(MODELS);
    const bundle = {
      repo: 'https://example.org/r.git',
      commit: 'a'.repeat(40),
      run: `make run ${this.state.size}`,
      outputs: [{ name: 'acc', tolerance: 0.01 }],
      runtimeMinutes: 5 + Math.floor(this.rand() * 240),
    };
    const id = this.apply(
      'check.commit',
      this.signed(by, 'check.commit', {
        target: claim,
        kind: this.rand() < 0.8 ? 'replication' : 'rerun',
        bundle,
        ...(models ? { models } : {}),
      }),
    ).id;
    const seed = Math.floor(this.rand() * 2 ** 31);
    const crossCheck = drawCrossCheck(this.state, this.state.receipts.get(id)!, seed);
    this.event('check.seal', { commit: id, seal: 'bench', seed, crossCheck });
    let cross = null;
    if (crossCheck !== null) {
      const acc = this.state.receipts.get(crossCheck)!.result!.outputs.acc as number;
      cross = { receipt: crossCheck, outputs: { acc: this.rand() < 0.95 ? acc : acc + 1 } };
    }
    const u = this.rand();
    const outcome = u < 0.7 ? 'confirmed' : u < 0.9 ? 'failed' : 'inconclusive';
    this.apply('check.result', this.signed(by, 'check.result', { commit: id, outcome, outputs: { acc: 0.9 }, crossCheck: cross }));
  }

  argument(): void {
    if (this.arguments.length === 0 || this.rand() < 0.3) {
      const { claim, by } = this.target();
      const text = `An argument of eighty characters or more about ${claim}, entry ${this.state.size}.`.padEnd(90, '.');
      this.arguments.push(
        this.apply(
          'argument.file',
          this.signed(by, 'argument.file', {
            claim,
            stance: this.pick(['refutes', 'qualifies', 'supports']),
            grounds: 'logical-gap',
            text,
            confidence: 0.6,
          }),
        ).id,
      );
      return;
    }
    const a = this.state.argumentsById.get(this.pick(this.arguments))!;
    const by = this.pick(this.agents);
    if (a.status !== 'open' || by.operatorId === a.operatorId) return;
    this.apply(
      'argument.check',
      this.signed(by.handle, 'argument.check', { argument: a.id, holds: this.rand() < 0.7, note: 'A note of twenty characters.' }),
    );
  }

  /** One evidence item (a review, or a receipt: commit, seal, result). */
  item(): void {
    if (this.rand() < RECEIPT_SHARE) this.receipt();
    else this.review();
  }
}

const run = promisify(execFile);

/**
 * One GET timed by curl, a client in another process (a client in this one would share the
 * server's thread): from connecting to the last byte read.
 */
async function get(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; status: number; bytes: number }> {
  const args = [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code} %{time_total} %{size_download}',
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    url,
  ];
  const { stdout } = await run('curl', args, { maxBuffer: 1 << 20 });
  const [status, seconds, bytes] = stdout.trim().split(' ').map(Number);
  return { ms: seconds! * 1000, status: status!, bytes: bytes! };
}

const summary = (xs: number[]) =>
  `median ${fmt(quantile(xs, 0.5), 3)} ms, p90 ${fmt(quantile(xs, 0.9), 3)} ms, p99 ${fmt(quantile(xs, 0.99), 3)} ms, max ` +
  `${fmt(Math.max(...xs), 1)} ms (n=${xs.length})`;

async function main(): Promise<void> {
  console.log(`machine: ${machine()}`);
  const b = new Builder();
  const t0 = performance.now();
  b.setup();
  const papers = Math.ceil(CLAIMS / CLAIMS_PER_PAPER);
  // Papers and evidence interleaved, as a record grows: evidence lands on claims published so far.
  const perPaper = ITEMS / papers;
  let items = 0;
  for (let p = 0; p < papers; p++) {
    b.paper();
    const due = Math.round((p + 1) * perPaper);
    for (; items < due; items++) b.item();
    if ((p + 1) % 2000 === 0)
      console.log(
        `  folded ${fmt(p + 1)} papers, ${fmt(items)} items, ${fmt(b.state.size)} entries, ${fmt((performance.now() - t0) / 1000, 1)} s`,
      );
  }
  for (let i = 0; i < 2000; i++) b.argument();
  const buildS = (performance.now() - t0) / 1000;
  const s = b.state;
  const mem = process.memoryUsage();
  console.log(
    `record: ${fmt(s.claims.size)} claims, ${fmt(s.reviews.size)} reviews, ${fmt(s.receipts.size)} receipts, ` +
      `${fmt(s.argumentsById.size)} arguments, ${fmt(s.size)} entries`,
  );
  console.log(
    `  folded in ${fmt(buildS, 1)} s (${fmt(s.size / buildS)} entries/s with every number kept); verified by the record: ` +
      `${s.verified.size - 1} operators, voided ${s.voided.size}`,
  );
  console.log(`  heap ${fmt(mem.heapUsed / 2 ** 20)} MiB, rss ${fmt(mem.rss / 2 ** 20)} MiB`);

  // 1. Writes that land.
  b.timing = true;
  for (let i = 0; i < 10_000; i++) {
    const u = b.rand();
    if (u < 0.45) b.review();
    else if (u < 0.9) b.receipt();
    else if (u < 0.95) b.paper();
    else b.argument();
  }
  const all = [...b.times.values()].flat();
  console.log(`\n1. a write that lands, applied with every number it moves: ${summary(all)}`);
  for (const [type, xs] of [...b.times].sort()) console.log(`   ${type.padEnd(15)} ${summary(xs)}`);

  // 2 and 3. Reads over HTTP.
  const app = new Koa();
  app.use(errorMiddleware(() => undefined));
  const cursors = Cursors.of(generateKeyPairSync('ed25519').privateKey);
  app.use(readRoutes({ record: { state: s } as LiveRecord, cursors }, ['/v2/credence', '/v2/frontier']).routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  b.timing = false;

  // The first request makes every chunk (the service does this once at start: api/app.ts).
  const first = await get(`${base}/v2/credence`);
  const cold: number[] = [];
  const warm: number[] = [];
  const notModified: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 15; i++) {
    b.review();
    const after = await get(`${base}/v2/credence`);
    cold.push(after.ms);
    bytes = after.bytes;
    for (let j = 0; j < 3; j++) warm.push((await get(`${base}/v2/credence`)).ms);
    const etag = `"credence-${s.size}"`;
    for (let j = 0; j < 3; j++) {
      const r = await get(`${base}/v2/credence`, { 'if-none-match': etag });
      if (r.status !== 304) throw new Error(`expected 304, got ${r.status}`);
      notModified.push(r.ms);
    }
  }
  console.log(`\n2. GET /v2/credence (${fmt(bytes / 2 ** 20, 1)} MiB, ${fmt(s.claims.size)} claims)`);
  console.log(`   first request:        ${fmt(first.ms, 1)} ms (every chunk made)`);
  console.log(`   after a write:        ${summary(cold)}`);
  console.log(`   same tree size:       ${summary(warm)}`);
  console.log(`   If-None-Match (304):  ${summary(notModified)}`);

  const fCold: number[] = [];
  const fWarm: number[] = [];
  for (let i = 0; i < 30; i++) {
    b.review();
    fCold.push((await get(`${base}/v2/frontier`)).ms);
    for (let j = 0; j < 5; j++) fWarm.push((await get(`${base}/v2/frontier`)).ms);
  }
  console.log(`\n3. GET /v2/frontier (limit 10)`);
  console.log(`   after a write:        ${summary(fCold)}`);
  console.log(`   same tree size:       ${summary(fWarm)}`);
  server.close();
}

await main();
