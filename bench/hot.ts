// npm run bench:hot — the shapes of issue 14 (docs/benchmarks.md): the cost of applying one
// entry, numbers included, on a claim with 10, 1,000 and 100,000 reviews (from 2,000 operators,
// most re-reviewing): a review, an argument filed on it, a paper relying on it; and of a paper
// (one claim) by an operator with 10 and 100,000 claims.
// Each shape is its own record folded by the real state machine; then TIMED more entries of
// the same kind are applied one by one and timed (median, p99), after as many untimed
// on another claim or by another operator (warm-up). Entries are applied without
// signatures (the fold never verifies them), so the figures are those of the fold. The ratio
// largest/smallest is the figure (goal: at most 2). BENCH_HOT="10,1000,100000" and
// BENCH_PROLIFIC="10,100000" change the sizes.
import { applyEntry, emptyState, type RecordEntry, type State } from '../lib/record/fold/index.js';
import { PROTOCOL } from '../lib/protocol/service-event.js';
import { fmt, machine, quantile } from './stats.js';

const HOT = (process.env.BENCH_HOT ?? '10,1000,100000').split(',').map(Number);
const PROLIFIC = (process.env.BENCH_PROLIFIC ?? '10,100000').split(',').map(Number);
const REVIEWERS = 2000;
const TIMED = 500;
const MODELS = [undefined, ['claude-3.5-sonnet'], ['gpt-4o'], ['llama-3-70b'], ['gemini-1.5-pro'], ['claude-3-opus', 'gpt-4o']];

class Rec {
  state: State = emptyState();
  now = Date.parse('2030-01-01T00:00:00.000Z');
  n = 0;

  apply(type: string, logged: object): unknown {
    const e = { seq: this.state.size, ts: new Date(this.now).toISOString(), type, logged } as RecordEntry;
    this.now += 1000;
    return applyEntry(this.state, e);
  }

  timed(type: string, logged: object): number {
    const t0 = performance.now();
    this.apply(type, logged);
    return performance.now() - t0;
  }

  signed(handle: string, type: string, members: Record<string, unknown>) {
    const ts = new Date(this.now).toISOString();
    return { payload: { protocol: PROTOCOL, type, agent: { handle, publicKey: `key-of-${handle}` }, ts, ...members }, signature: 'bench' };
  }

  constructor(operators: number) {
    const event = { protocol: PROTOCOL, type: 'log.genesis', ts: new Date(this.now).toISOString() };
    this.apply('log.genesis', {
      event: {
        ...event,
        logKey: 'k',
        operatorKey: 'k',
        operator: 'op_archive',
        origin: 'bench.local',
        constitution: { version: '1', hash: '0'.repeat(64) },
      },
      signature: 'bench',
    });
    for (let o = 0; o < operators; o++)
      this.apply('agent.register', {
        handle: `agent-${o}`,
        publicKey: `key-of-agent-${o}`,
        operatorId: `lab-${o}`,
        constitution: { version: '1', hash: '0'.repeat(64) },
      });
  }

  paper(by: string): string {
    const claims = [
      { text: `Claim of paper ${this.n}`, confidence: 0.5 + ((this.n * 7) % 10) / 25, test: 'A replication that fails refutes it' },
    ];
    const members = {
      title: `Paper ${this.n}`,
      abstract: 'An abstract of at least fifty characters for the benchmark.',
      field: 'ml',
      claims,
      builds_on: [],
    };
    this.n++;
    return (this.apply('paper', this.signed(by, 'paper', members)) as { claims: string[] }).claims[0]!;
  }

  review(by: string, claim: string, i: number) {
    const models = MODELS[i % MODELS.length];
    return this.signed(by, 'review', {
      claim,
      forecast: ((i * 37) % 100) / 100,
      rationale: `A rationale of thirty characters at least, ${i}.`,
      ...(models ? { models } : {}),
    });
  }
}

function summary(times: number[]) {
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

function hot(reviews: number) {
  const r = new Rec(REVIEWERS + 1);
  const claim = r.paper(`agent-${REVIEWERS}`);
  for (let i = 0; i < reviews; i++) r.apply('review', r.review(`agent-${i % REVIEWERS}`, claim, i));
  // Warm-up (JIT): as many untimed reviews on another claim first.
  const other = r.paper(`agent-${REVIEWERS}`);
  for (let i = 0; i < TIMED; i++) r.apply('review', r.review(`agent-${(i * 7) % REVIEWERS}`, other, i));
  const times: number[] = [];
  for (let i = 0; i < TIMED; i++) times.push(r.timed('review', r.review(`agent-${(i * 13) % REVIEWERS}`, claim, reviews + i)));
  const landed = r.state.numbers.index.reviewsByClaim.countOf(r.state.claims.rowOf(claim));
  if (landed !== reviews + TIMED) throw new Error(`${landed} reviews landed, not ${reviews + TIMED}`);
  return summary(times);
}

/** An argument filed on, and a paper relying on, a claim with N reviews: entries that touch the claim but none of its evidence. */
function hotOthers(reviews: number) {
  const r = new Rec(REVIEWERS + 1);
  const claim = r.paper(`agent-${REVIEWERS}`);
  for (let i = 0; i < reviews; i++) r.apply('review', r.review(`agent-${i % REVIEWERS}`, claim, i));
  const argument = (i: number) =>
    r.signed(`agent-${(i * 13) % REVIEWERS}`, 'argument.file', {
      claim,
      stance: 'qualifies',
      grounds: 'statistical-insufficiency',
      text: `Argument ${i}: eight seeds per learning rate cannot separate the effect claimed from a smaller one at this confidence.`,
      confidence: 0.6,
    });
  const relying = (i: number) =>
    r.signed(`agent-${(i * 17) % REVIEWERS}`, 'paper', {
      title: `Relying paper ${i}`,
      abstract: 'An abstract of at least fifty characters for the benchmark.',
      field: 'ml',
      claims: [{ text: `Claim of relying paper ${i}`, confidence: 0.6, test: 'A replication that fails refutes it' }],
      builds_on: [{ id: claim.split('#')[0]!, rel: 'extends', basis: 'reviewed', note: 'Relied on the claim as stated.', claims: ['C1'] }],
    });
  // Warm-up (JIT): as many untimed of each first.
  for (let i = 0; i < TIMED; i++) r.apply('argument.file', argument(i));
  for (let i = 0; i < TIMED; i++) r.apply('paper', relying(i));
  const args: number[] = [];
  const papers: number[] = [];
  for (let i = TIMED; i < 2 * TIMED; i++) {
    args.push(r.timed('argument.file', argument(i)));
    papers.push(r.timed('paper', relying(i)));
  }
  if (r.state.argumentsByClaim.get(claim)?.length !== 2 * TIMED) throw new Error('arguments refused');
  return { args: summary(args), papers: summary(papers) };
}

function prolific(claims: number) {
  const r = new Rec(2);
  for (let i = 0; i < claims; i++) r.paper('agent-0');
  // Warm-up (JIT): as many untimed papers by another operator first.
  for (let i = 0; i < TIMED; i++) r.paper('agent-1');
  const times: number[] = [];
  for (let i = 0; i < TIMED; i++) {
    const claims = [{ text: `Claim of paper ${r.n}`, confidence: 0.7, test: 'A replication that fails refutes it' }];
    const members = {
      title: `Paper ${r.n++}`,
      abstract: 'An abstract of at least fifty characters for the benchmark.',
      field: 'ml',
      claims,
      builds_on: [],
    };
    times.push(r.timed('paper', r.signed('agent-0', 'paper', members)));
  }
  const own = r.state.numbers.index.claimsByOperator.get('lab-0')?.length;
  if (own !== claims + TIMED) throw new Error(`${own} claims landed, not ${claims + TIMED}`);
  return summary(times);
}

function table(title: string, rows: [string, { median: number; p99: number }][]) {
  console.log(`\n${title}`);
  console.log('| shape | median ms | p99 ms |');
  console.log('|---|---|---|');
  for (const [name, s] of rows) console.log(`| ${name} | ${fmt(s.median, 3)} | ${fmt(s.p99, 3)} |`);
  const med = rows.map(([, s]) => s.median);
  const p99 = rows.map(([, s]) => s.p99);
  console.log(
    `ratio largest/smallest: median ${fmt(Math.max(...med) / Math.min(...med), 2)}, p99 ${fmt(Math.max(...p99) / Math.min(...p99), 2)}`,
  );
}

console.log(`bench:hot on ${machine()}; ${TIMED} timed applies per shape`);
table(
  'A review on a claim with N reviews (2,000 reviewing operators, not verified; most re-reviewing)',
  HOT.map((n) => [`${fmt(n)} reviews`, hot(n)]),
);
const others = HOT.map((n) => [n, hotOthers(n)] as const);
table(
  'An argument filed on a claim with N reviews',
  others.map(([n, o]) => [`${fmt(n)} reviews`, o.args]),
);
table(
  'A paper relying on a claim with N reviews (builds_on extends)',
  others.map(([n, o]) => [`${fmt(n)} reviews`, o.papers]),
);
table(
  'A paper (one claim) by an operator with N claims',
  PROLIFIC.map((n) => [`${fmt(n)} claims`, prolific(n)]),
);
