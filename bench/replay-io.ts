// npm run bench:replay-io — the verifier's saved replay (`archive verify --state`, verify/saved-state.ts) written and read back at
// the size of a given state (issue 26: the parts of an incremental run that grow with the log). The state is a service's snapshot
// (BENCH_SNAPSHOT, a copy: never the service's own file), read with the record's decoder; BENCH_DIR is where the replays are
// written (default: a temporary directory). Each of BENCH_ROUNDS rounds (default 3), in turn:
//   - saveReplay, and its peer: the bytes written the way it wrote them before (encodeStateChunks: the body hashed whole, then
//     written; not the copy of the state's columns it also made before, since stateBodySync shares them);
//   - loadReplay, and its peer: the file read whole and decoded in one pass (readFileSync, stateHeader, readState), as before;
//   - the floors: the same number of bytes written from one buffer, and the file read whole.
// Wall time and CPU time (all threads) of each; medians printed.
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStateFile, type Subtree } from 'tlog-engine';
import { codeId } from '../lib/protocol/code-id.js';
import { encodeStateChunks, readState, readStateFrom, stateHeader, type State } from '../lib/record/fold/index.js';
import { SNAPSHOT_FORMAT } from '../lib/service/snapshot.js';
import { loadReplay, REPLAY_FORMAT, saveReplay } from '../verify/saved-state.js';
import { fmt, machine, quantile } from './stats.js';

const SNAPSHOT = process.env.BENCH_SNAPSHOT;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Wall and CPU milliseconds of `f`. */
async function timed(f: () => unknown): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await f();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

/** Subtrees that cover `size` leaves (their hashes made up: the replay's tree is not what is measured). */
function subtreesOf(size: number): Subtree[] {
  const out: Subtree[] = [];
  for (let level = 52; level >= 0; level--)
    if (Math.floor(size / 2 ** level) % 2 === 1) out.push({ level, hash: new Uint8Array(32).fill(level + 1) });
  return out;
}

/** The snapshot's state, read with the record's decoder, its code taken from its own header (the state of the code that wrote it). */
async function stateOf(file: string): Promise<State> {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(4096);
  const n = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const h = JSON.parse(head.subarray(0, head.subarray(0, n).indexOf(10)).toString('utf8')) as { code: string };
  if (h.code !== codeId()) console.log(`note: the snapshot was written by other code (${h.code.slice(0, 12)}), read as this code's state`);
  const read = await readStateFile<State>(file, SNAPSHOT_FORMAT, h.code, () => null, readStateFrom);
  if (read === null || 'problem' in read) throw new Error(`the snapshot cannot be read: ${JSON.stringify(read)}`);
  return read.state;
}

async function main(): Promise<void> {
  if (SNAPSHOT === undefined) throw new Error('BENCH_SNAPSHOT: a copy of a service snapshot (state.snapshot) to take the state from');
  console.log(`bench:replay-io on ${machine()}: the state of ${SNAPSHOT}`);
  const t0 = performance.now();
  const state = await stateOf(SNAPSHOT);
  console.log(`the state of ${fmt(state.size)} entries read in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), 'bench-replay-io-'));
  const range = subtreesOf(state.size);
  const last = 'ab'.repeat(32);
  const file = join(dir, 'verified.json.replay');
  const before = join(dir, 'before.replay');
  const floor = join(dir, 'floor.bin');
  const rows: Record<string, { wall: number; cpu: number }[]> = {};
  const note = (name: string, r: { wall: number; cpu: number }) => (rows[name] ??= []).push(r);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      note('saveReplay (this code)', await timed(() => saveReplay(file, state, range, last)));
      note('the write before (encodeStateChunks, written in turn)', await timed(() => writeBefore(before, state, range, last)));
      const bytes = statSync(file).size;
      note('floor: the same bytes written from one buffer', await timed(() => writeFloor(floor, bytes)));
      let loaded: unknown;
      note('loadReplay (this code)', await timed(async () => (loaded = await loadReplay(file))));
      if (loaded === null || (loaded as { problem?: string }).problem !== undefined)
        throw new Error(`not loaded: ${JSON.stringify(loaded)}`);
      loaded = undefined;
      note('the read before (read whole, decoded in one pass)', await timed(() => readBefore(before)));
      note('floor: the file read whole', await timed(() => readFileSync(file).length));
      console.log(`round ${round + 1} of ${ROUNDS} done; the replay ${fmt(bytes / 2 ** 20)} MiB`);
    }
  } finally {
    if (process.env.BENCH_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n| what | wall (median of ${ROUNDS}) | CPU, all threads (median) |\n|---|---|---|`);
  for (const [name, rs] of Object.entries(rows)) {
    const wall = quantile(
      rs.map((r) => r.wall).sort((a, b) => a - b),
      0.5,
    );
    const cpu = quantile(
      rs.map((r) => r.cpu).sort((a, b) => a - b),
      0.5,
    );
    console.log(`| ${name} | ${fmt(wall / 1000, 2)} s | ${fmt(cpu / 1000, 2)} s |`);
  }
}

/** saveReplay as it was: encodeStateChunks (its chunks hashed first), then each chunk written. */
function writeBefore(file: string, state: State, range: Subtree[], last: string): void {
  const chunks = encodeStateChunks(REPLAY_FORMAT, codeId(), state, 'cd'.repeat(32), {
    range: range.map((s) => ({ level: s.level, hash: Buffer.from(s.hash).toString('hex') })),
    lastEntryHash: last,
  });
  const fd = openSync(file, 'w');
  try {
    for (const c of chunks) for (let at = 0; at < c.length;) at += writeSync(fd, c, at, c.length - at);
  } finally {
    closeSync(fd);
  }
}

/** loadReplay's read as it was: the file whole, its digest, then the state decoded in one pass. */
function readBefore(file: string): void {
  const h = stateHeader(readFileSync(file), REPLAY_FORMAT, codeId());
  if ('problem' in h) throw new Error(h.problem);
  const state = readState(h.body, h.header.treeSize);
  if ('problem' in state) throw new Error(state.problem);
}

function writeFloor(file: string, bytes: number): void {
  const b = Buffer.alloc(bytes, 7);
  const fd = openSync(file, 'w');
  try {
    for (let at = 0; at < b.length;) at += writeSync(fd, b, at, b.length - at);
  } finally {
    closeSync(fd);
  }
}

await main();
