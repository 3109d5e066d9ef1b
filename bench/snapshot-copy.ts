// npm run bench:snapshot-copy — the snapshot's pause (issue 26) without the service around it: the
// synchronous copy of the record's state (writtenState then copyState, lib/record/fold/state-copy.ts,
// what `serving paused P ms` times) of the state in a snapshot file, for this code and the code before
// in the same run, each reading the file with its own code; and the row index's find and insert (on
// every review's path), 64-hex ids pushed and found, for both codes. BENCH_SNAPSHOT names the file
// (e.g. <bench:ten-million's log>/snapshots/state.snapshot, written by this code), BENCH_BASELINE_SNAPSHOT
// the baseline's when the state's shape differs (default: the same file); BENCH_BASELINE a commit built in
// a temporary directory, or BENCH_BASELINE_DIR its dist built already (default: this code alone);
// BENCH_ROUNDS (default 7) copies each, in turn.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBaseline, HERE, type Code } from './baseline.js';
import { fmt, machine, quantile } from './stats.js';

const FILE = process.env.BENCH_SNAPSHOT;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const IDS = 1_000_000;

interface Codec {
  stateHeader(b: Uint8Array, format: string, code: string): { body: Uint8Array } | { problem: string };
  readState(body: Uint8Array, treeSize: number): object | { problem: string };
  writtenState(state: object): Record<string, unknown>;
}
interface Copier {
  copyState(written: object): { parts: unknown[]; columns: { data?: ArrayBufferView; later?: { length: number; release(): void } }[] };
}
interface Ids {
  push(hex: string): number;
  find(hex: string): number;
}

/** One code's modules and the state it read from the file. */
interface Loaded {
  code: Code;
  codec: Codec;
  copier: Copier;
  HexIds: new () => Ids;
  state: object;
}

async function load(code: Code, bytes: Buffer): Promise<Loaded> {
  const lib = join(code.dist, 'lib/record');
  const codec = (await import(join(lib, 'fold/state-codec.js'))) as Codec;
  const copier = (await import(join(lib, 'fold/state-copy.js'))) as Copier;
  const { HexIds } = (await import(join(lib, 'stores/columns.js'))) as { HexIds: new () => Ids };
  const header = JSON.parse(bytes.subarray(0, bytes.indexOf(10)).toString()) as { format: string; code: string; treeSize: number };
  const h = codec.stateHeader(bytes, header.format, header.code);
  if ('problem' in h) throw new Error(`${code.name}: ${h.problem}`);
  const t0 = performance.now();
  const state = codec.readState(h.body, header.treeSize);
  if ('problem' in state) throw new Error(`${code.name}: ${String(state.problem)}`);
  console.log(`${code.name}: the state of ${fmt(header.treeSize)} entries read in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  return { code, codec, copier, HexIds, state };
}

/**
 * The pause's work once: the state as written, then its copy (`stores`: of its stores of columns changed in place alone, the
 * reviews and the report pairs); ms, and the bytes of the columns it copies on write (not now).
 */
function copyOnce(l: Loaded, stores: boolean): { ms: number; laterBytes: number } {
  const t0 = performance.now();
  const w = l.codec.writtenState(l.state);
  const numbers = w.numbers as { tallies: { pairs: object } };
  const copy = l.copier.copyState(stores ? { reviews: w.reviews, pairs: numbers.tallies.pairs } : w);
  const ms = performance.now() - t0;
  let laterBytes = 0;
  // The copy's bytes are not made here: its copies on write are let go, as making them would.
  for (const c of copy.columns)
    if (c.later !== undefined) {
      laterBytes += c.later.length * 4;
      c.later.release();
    }
  return { ms, laterBytes };
}

const hex = (i: number) => createHash('sha256').update(`id ${i}`).digest('hex');

/** ns an id pushed, an id found, and an id not found, among IDS ids. */
function ids(l: Loaded, all: string[], absent: string[]): { push: number; find: number; miss: number } {
  const ids = new l.HexIds();
  let t0 = performance.now();
  for (const h of all) ids.push(h);
  const push = ((performance.now() - t0) * 1e6) / all.length;
  let found = 0;
  t0 = performance.now();
  for (let k = 0; k < 3; k++) for (const h of all) found += ids.find(h) >= 0 ? 1 : 0;
  const find = ((performance.now() - t0) * 1e6) / (3 * all.length);
  t0 = performance.now();
  for (const h of absent) found += ids.find(h) >= 0 ? 1 : 0;
  const miss = ((performance.now() - t0) * 1e6) / absent.length;
  if (found !== 3 * all.length) throw new Error(`${l.code.name}: found ${found} ids of ${3 * all.length}`);
  return { push, find, miss };
}

async function main(): Promise<void> {
  if (FILE === undefined) throw new Error('BENCH_SNAPSHOT names the snapshot file');
  console.log(`bench:snapshot-copy on ${machine()}: ${FILE}`);
  const bytes = readFileSync(FILE);
  const baselineBytes = process.env.BENCH_BASELINE_SNAPSHOT ? readFileSync(process.env.BENCH_BASELINE_SNAPSHOT) : bytes;
  const codes: Code[] = [{ name: 'this code', dist: HERE }];
  if (process.env.BENCH_BASELINE_DIR)
    codes.push({ name: `before (${process.env.BENCH_BASELINE_DIR})`, dist: process.env.BENCH_BASELINE_DIR });
  else if (process.env.BENCH_BASELINE) codes.push(buildBaseline(process.env.BENCH_BASELINE));
  const loaded: Loaded[] = [];
  for (const [i, c] of codes.entries()) loaded.push(await load(c, i === 0 ? bytes : baselineBytes));

  const times = loaded.map(() => [] as number[]);
  const storeTimes = loaded.map(() => [] as number[]);
  const later = loaded.map(() => 0);
  // In turn, so that the machine's drift falls on both; the first round of each warms it.
  for (let r = 0; r <= ROUNDS; r++)
    loaded.forEach((l, i) => {
      const { ms, laterBytes } = copyOnce(l, false);
      const stores = copyOnce(l, true);
      if (r > 0) times[i]!.push(ms);
      if (r > 0) storeTimes[i]!.push(stores.ms);
      later[i] = laterBytes;
    });
  const all = Array.from({ length: IDS }, (_, i) => hex(i));
  const absent = Array.from({ length: IDS / 10 }, (_, i) => hex(-1 - i));
  const index = loaded.map(() => ({ push: Infinity, find: Infinity, miss: Infinity }));
  for (let r = 0; r < 3; r++)
    loaded.forEach((l, i) => {
      const x = ids(l, all, absent);
      const m = index[i]!;
      index[i] = { push: Math.min(m.push, x.push), find: Math.min(m.find, x.find), miss: Math.min(m.miss, x.miss) };
    });

  const p50 = (xs: number[]) => quantile(xs, 0.5);
  console.log(
    `\n| code | the state's copy (the pause), p50 / min of ${ROUNDS} | its stores of columns alone (reviews, report pairs), p50 / min | ` +
      'copied on write, later | push | find (hit) | find (miss) (min of 3) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  loaded.forEach((l, i) => {
    const x = index[i]!;
    console.log(
      `| ${l.code.name} | ${fmt(p50(times[i]!), 1)} / ${fmt(Math.min(...times[i]!), 1)} ms | ` +
        `${fmt(p50(storeTimes[i]!), 1)} / ${fmt(Math.min(...storeTimes[i]!), 1)} ms | ${fmt(later[i]! / 2 ** 20, 1)} MiB | ` +
        `${fmt(x.push)} ns | ${fmt(x.find)} ns | ${fmt(x.miss)} ns |`,
    );
  });
  if (loaded.length === 2) {
    const ratio = (a: number, b: number) => fmt(a / b, 2);
    const both = (xs: number[][]) => `${ratio(p50(xs[0]!), p50(xs[1]!))} (p50), ${ratio(Math.min(...xs[0]!), Math.min(...xs[1]!))} (min)`;
    const [a, b] = index as [(typeof index)[0], (typeof index)[0]];
    console.log(
      `\nthis code / before: the copy ${both(times)}; its stores alone ${both(storeTimes)}; ` +
        `push ${ratio(a.push, b.push)}, find ${ratio(a.find, b.find)}, miss ${ratio(a.miss, b.miss)}`,
    );
  }
}

await main();
