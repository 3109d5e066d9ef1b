// Snapshots of the record's state (docs/log-format.md, "Snapshots"): a cache the service starts
// from, never an authority. A state restored from a snapshot and fed the rest of the log is the
// state replayed from zero, deeply equal in everything the fold keeps; a snapshot that does not
// hold against the log or the code (truncated, corrupt, of another log, of other code) is
// discarded with one line, and the service replays from zero; a snapshot half written by a
// crash leaves the previous one in use.
import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  stateDigest,
  replayEntries,
  replayStore,
  recordEntry,
  applyEntry,
  emptyState,
  type RecordEntry,
  type State,
  writtenState,
  readState,
  stateBody,
  stateBodySync,
} from '../../lib/record/fold/index.js';
import { appendTo } from '../../lib/record/stores/index.js';
import { claimScore, frontier, operatorCalibration } from '../../lib/record/numbers/index.js';
import { keptCalibrations } from '../../lib/record/numbers/kept.js';
import {
  decodeSnapshot,
  encodeSnapshot,
  encodeSnapshotAsync,
  recordSnapshots,
  SNAPSHOT_FORMAT,
  snapshotFile,
} from '../../lib/service/snapshot.js';
import { codeId } from '../../lib/protocol/code-id.js';
import { readBoundState } from 'tlog-engine';
import { fixtureText } from '../helpers/fixtures.js';
import { seededState } from '../helpers/fold.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, register, send, type TestAgent } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';

function fixture(name: string): { start: () => State; log: RecordEntry[] } {
  const lines = fixtureText(`record/${name}.jsonl`)
    .split('\n')
    .filter((l) => l !== '');
  const parse = (line: string) => {
    const r = JSON.parse(line) as { seq: number; ts: string; type: string; payload: string };
    return { seq: r.seq, ts: r.ts, type: r.type, logged: JSON.parse(r.payload), text: r.payload };
  };
  if (name === 'fold') {
    const { verified } = JSON.parse(lines[0]!) as { verified: string[] };
    return { start: () => seededState(verified), log: lines.slice(1).map(parse) };
  }
  return { start: emptyState, log: lines.map(parse) };
}

/**
 * Everything the fold keeps (writtenState), with each column as a list of its numbers: an
 * append-only list read back from a snapshot is its column until its next append (Rows,
 * lib/record/stores/columns.ts), where the state folded from zero holds an array.
 */
const kept = (s: State): unknown => {
  const plain = (v: unknown, seen = new Map<object, unknown>()): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return seen.get(v);
    if (ArrayBuffer.isView(v)) return Array.from(v as Int32Array);
    if (Array.isArray(v)) return v.map((x) => plain(x, seen));
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, plain(x, seen)]));
    if (v instanceof Set) return new Set([...v].map((x) => plain(x, seen)));
    const o: Record<string, unknown> = {};
    seen.set(v, o);
    for (const [k, x] of Object.entries(v)) o[k] = plain(x, seen);
    return o;
  };
  return plain(writtenState(s));
};
const keptEqual = (a: State, b: State): boolean => isDeepStrictEqual(kept(a), kept(b));

/** What a reader is served of a state: every claim's numbers and the frontier. */
const served = (s: State) => JSON.stringify({ claims: [...s.numbers.index.refs].map((r) => claimScore(s, r)), frontier: frontier(s, 50) });

for (const name of ['concurrency', 'governance', 'replay', 'fold']) {
  t.test(`${name}: restored at any size and fed the rest, the state replayed from zero`, async (t) => {
    const { start, log } = fixture(name);
    const cuts = [...new Set([0, 1, Math.floor(log.length / 4), Math.floor(log.length / 2), Math.floor((3 * log.length) / 4), log.length])];
    for (const k of cuts) {
      // Reads keep caches in the state (the frontier's ranks): a fresh replay for each cut.
      const whole = replayEntries(log, start());
      const upTo = replayEntries(log.slice(0, k), start());
      const decoded = decodeSnapshot(encodeSnapshot(upTo, 'root'));
      if ('problem' in decoded) throw new Error(decoded.problem);
      const restored = decoded.state;
      for (const e of log.slice(k)) applyEntry(restored, e);
      t.equal(stateDigest(restored), stateDigest(whole), `cut at ${k}: the same state digest`);
      t.ok(keptEqual(restored, whole), `cut at ${k}: everything the fold keeps, deeply equal`);
      t.equal(served(restored), served(whole), `cut at ${k}: the same numbers and frontier served`);
    }
  });
}

const id = (i: number) => createHash('sha256').update(`review ${i}`).digest('hex');
const review = (i: number) => ({
  id: id(i),
  seq: 10 + i,
  claim: `rec:claim-${i % 7}`,
  agent: `agent-${i % 5}`,
  operatorId: `op-${i % 3}`,
  forecast: (i % 100) / 100,
  models: i % 2 === 0 ? [] : ['m-1'],
  signerKey: `key-${i % 4}`,
  ts: i % 50 === 0 ? '2030-01-01T00:00:00Z' : new Date(Date.UTC(2030, 0, 1) + i * 86).toISOString(),
});

/** An empty state but for the seven claims `review` names (a review's claim is its row among the state's claims). */
function stateOfClaims(): State {
  const state = emptyState();
  for (let c = 0; c < 7; c++) {
    const claim = { ref: `rec:claim-${c}`, paper: 'rec:claim', external: false, kind: 'empirical' as const, confidence: 0.5 };
    state.claims.add({ ...claim, source: null, operatorId: 'op-0', agent: 'agent-0', seq: c }, null);
  }
  return state;
}

t.test('the reviews restored: their id index read back finds every id, and their columns, their own, grow with new reviews', async (t) => {
  const N = 3000;
  const state = stateOfClaims();
  for (let i = 0; i < N; i++) state.reviews.add(review(i));
  const body = Buffer.concat(stateBodySync(state));
  const back = readState(body, state.size);
  if ('problem' in back) throw new Error(back.problem);
  // The restored columns are the state's own: the snapshot's bytes overwritten after the read change nothing.
  body.fill(0);
  t.ok(
    Array.from({ length: N }, (_, i) => i).every((i) => back.reviews.rowOf(id(i)) === i),
    `each of ${N} ids found at its row by the index read back`,
  );
  t.equal(back.reviews.rowOf(id(-1)), -1, 'an id never added is not found');
  t.same(back.reviews.get(id(50)), state.reviews.get(id(50)), 'a review read back as it was (an odd ts too)');
  // Past the room of each column (an eighth) and past the index's half: every column grows, the index resizes.
  for (let i = N; i < 3 * N; i++) {
    back.reviews.add(review(i));
    state.reviews.add(review(i));
  }
  t.ok(
    Array.from({ length: 3 * N }, (_, i) => i).every((i) => back.reviews.rowOf(id(i)) === i),
    `each of ${3 * N} ids found at its row after ${2 * N} more`,
  );
  t.ok(isDeepStrictEqual([...back.reviews.values()], [...state.reviews.values()]), 'every review as in the state never written');
  t.ok(isDeepStrictEqual(writtenState(back), writtenState(state)), 'its columns and index as the state never written keeps them');
});

t.test(
  'the columns copied on write: rows indexed and counts changed between the copy and its bytes, in every turn, change nothing written',
  async (t) => {
    // Reviews (the id index) and report pairs (their index) from row `from` to `to`; each also changes an earlier pair's latest
    // review and counts in place. Two counts past a byte and two bytes, while the copy is made, make those columns wider.
    const wide = (i: number) => ({ reports: i === 3500 ? 300 : i % 5, right: i === 3600 ? 70_000 : i % 3 });
    const fill = (s: State, from: number, to: number) => {
      const pairs = s.numbers.tallies.pairs;
      for (let i = from; i < to; i++) {
        s.reviews.add(review(i));
        pairs.rowOf(`op-${i % 97}`, i);
        const earlier = Math.imul(i, 7919) >>> 0;
        pairs.noteReview(earlier % (i + 1), i);
        pairs.setCounted(earlier % (i + 1), wide(i).reports, wide(i).right);
      }
    };
    // 3,000 rows: each index has 8,192 slots (8 pages), and 1,000 more fit before it resizes.
    const N = 3000;
    const state = stateOfClaims();
    fill(state, 0, N);
    const atCopy = stateOfClaims();
    fill(atCopy, 0, N);
    let n = N;
    let turns = 0;
    const body = await stateBody(state, async () => {
      turns++;
      // A resize leaves the copy the slots before as they are: first the rows that land in place.
      const more = n < N + 900 ? 300 : 5;
      fill(state, n, (n += more));
      await new Promise((r) => setImmediate(r));
    });
    t.ok(n > N + 1000, `${n - N} rows indexed in ${turns} turns while the copy was made bytes (the indexes resized on the way)`);
    const counts = state.numbers.tallies.pairs.pack();
    t.same(
      [counts.reports.constructor.name, counts.right.constructor.name],
      ['Uint16Array', 'Int32Array'],
      'the counts widened while the copy was made',
    );
    const [at3500, at3600] = [3500, 3600].map((i) => state.numbers.tallies.pairs.counted(Math.imul(i, 7919) % (i + 1)));
    t.same([at3500!.reports, at3600!.right], [300, 70_000], 'and hold the counts past a byte and two bytes');
    const bytes = Buffer.concat(body);
    t.ok(bytes.equals(Buffer.concat(stateBodySync(atCopy))), 'the bytes of the state at the copy');
    const back = readState(bytes, 0);
    if ('problem' in back) throw new Error(back.problem);
    t.ok(isDeepStrictEqual(writtenState(back), writtenState(atCopy)), 'read back: the state at the copy, its indexes and counts too');
    t.ok(
      Array.from({ length: N }, (_, i) => i).every(
        (i) => back.reviews.rowOf(id(i)) === i && back.numbers.tallies.pairs.find(`op-${i % 97}`, i) === i,
      ),
      'each review and pair found at its row',
    );
    t.equal(back.reviews.rowOf(id(N)), -1, 'a review that landed after the copy is not in it');
    t.equal(back.numbers.tallies.pairs.find(`op-${N % 97}`, N), -1, 'nor a pair');
  },
);

t.test('an append-only list is read back as its column, an array from its next append, and written the same either way', async (t) => {
  const state = emptyState();
  const long = Array.from({ length: 100 }, (_, i) => 3 * i);
  for (const row of long) appendTo(state.reviewsByAgent, 'prolific', row);
  appendTo(state.reviewsByAgent, 'rare', 7);
  const readOf = (body: Buffer) => {
    const back = readState(body, state.size);
    if ('problem' in back) throw new Error(back.problem);
    return back;
  };
  const body = Buffer.concat(stateBodySync(state));
  const read = () => readOf(body);
  const back = read();
  const list = back.reviewsByAgent.get('prolific')!;
  t.notOk(Array.isArray(list), 'a long list read back as its column, no array made at start');
  t.same(Array.from(list), long, 'its numbers');
  t.same(back.reviewsByAgent.get('rare'), [7], 'a short list an array, as written');
  const again = readOf(Buffer.concat(stateBodySync(back)));
  t.ok(keptEqual(again, state), 'written again while a column, and read back: the state written first');
  t.notOk(Array.isArray(again.reviewsByAgent.get('prolific')), 'a column again');
  // A snapshot begun before an append, made into bytes after it: the list as it stood.
  const encoding = stateBody(back, () => new Promise((r) => setImmediate(r)));
  appendTo(back.reviewsByAgent, 'prolific', 300);
  appendTo(back.reviewsByAgent, 'rare', 8);
  appendTo(back.reviewsByAgent, 'newcomer', 9);
  const grown = back.reviewsByAgent.get('prolific')!;
  t.ok(Array.isArray(grown), 'an array from its first append');
  t.same(grown, [...long, 300], 'its numbers, then the new one');
  const begun = readOf(Buffer.concat(await encoding)).reviewsByAgent;
  t.same(Array.from(begun.get('prolific')!), long, 'the snapshot begun before the append holds the list as it stood');
  t.same(begun.get('rare'), [7], 'a short list as it stood');
  t.same([...begun.keys()], ['prolific', 'rare'], 'and no list begun after it');
  appendTo(back.reviewsByAgent, 'prolific', 303);
  t.same(read().reviewsByAgent.get('prolific'), list, 'the column read back is not written by the appends (another read is the same)');
  t.same(Array.from(list), long, 'the column itself unchanged');
});

t.test('read from its file a piece at a time and hashed apart, as a service starts: the state written', async (t) => {
  const { start, log } = fixture('concurrency');
  const state = replayEntries(log, start());
  const file = join(tempDir(t), 'state.snapshot');
  const root = new Uint8Array(32).fill(3);
  writeFileSync(file, encodeSnapshot(state, Buffer.from(root).toString('hex')));
  const read = (hashApart: number) =>
    readBoundState(file, async () => root, SNAPSHOT_FORMAT, codeId(), { size: state.size, of: "the log's" }, recordSnapshots.decodeFrom!, {
      hashApart,
    });
  for (const hashApart of [0, Infinity]) {
    const r = await read(hashApart);
    if (r === null || 'problem' in r) throw new Error(`not read: ${JSON.stringify(r)}`);
    t.equal(stateDigest(r.state), stateDigest(state), `hashed ${hashApart === 0 ? 'apart' : 'here'}: the same state digest`);
    t.ok(keptEqual(r.state, state), 'everything the fold keeps, deeply equal');
  }
  const good = readFileSync(file);
  const flipped = Buffer.from(good);
  flipped[flipped.length - 100] = flipped[flipped.length - 100]! ^ 0xff;
  writeFileSync(file, flipped);
  t.match(await read(0), { problem: 'its state does not hash to its digest' }, 'a byte changed: set aside, though it was read');
});

t.test("a state read from its snapshot holds no operator's calibration sums; keptCalibrations makes them, a step a turn", async (t) => {
  const { start, log } = fixture('concurrency');
  const state = replayEntries(log, start());
  const back = readState(Buffer.concat(stateBodySync(state)), state.size);
  if ('problem' in back) throw new Error(back.problem);
  const claimsOf = back.numbers.index.claimsByOperator;
  const claims = [...claimsOf.values()].reduce((n, own) => n + own.length, 0);
  t.ok(claimsOf.size > 1 && claims > claimsOf.size, `operators (${claimsOf.size}) with several claims (${claims} in all)`);
  t.equal(back.numbers.aggregates.calibration.size, 0, 'none read back');
  let steps = 0;
  for (const _ of keptCalibrations(back, 1)) steps++;
  t.ok(steps >= claims, `a claim a step: ${steps} steps for ${claims} claims`);
  for (const [operatorId, own] of claimsOf) {
    const c = back.numbers.aggregates.calibration.get(operatorId);
    t.ok(c !== undefined && c.valid === own.length, `${operatorId}: its sums made to its last claim`);
    t.same(operatorCalibration(back, operatorId), operatorCalibration(state, operatorId), `${operatorId}: the calibration replayed`);
  }
  t.equal(stateDigest(back), stateDigest(state), 'the state digest unchanged');
});

t.test('a snapshot written while serving is the state when its writing began, whatever lands meanwhile', async (t) => {
  const { start, log } = fixture('fold');
  const k = Math.floor(log.length / 2);
  const state = replayEntries(log.slice(0, k), start());
  const atK = stateDigest(state);
  const encoding = encodeSnapshotAsync(state, 'root');
  // The state moves on while the copy is hashed.
  for (const e of log.slice(k)) applyEntry(state, e);
  const bytes = await encoding;
  t.same(bytes, encodeSnapshot(replayEntries(log.slice(0, k), start()), 'root'), 'the same bytes as a snapshot taken at that size');
  const decoded = decodeSnapshot(bytes);
  if ('problem' in decoded) throw new Error(decoded.problem);
  t.equal(decoded.treeSize, k);
  t.equal(stateDigest(decoded.state), atK, 'the state at that size');
});

async function workload(s: TestService, n: number): Promise<void> {
  const a = await register(s, `writer-${n}`);
  const paper = await send(s, a, 'paper', make.paper(2));
  t.equal(paper.status, 201);
  const b = await register(s, `reviewer-${n}`);
  for (const ref of paper.body.claims as string[]) {
    const r = await send(s, b, 'review', {
      claim: ref,
      forecast: 0.7,
      rationale: 'The method section reads as sound and the data are public.',
    });
    t.equal(r.status, 201);
  }
  t.equal((await send(s, b, 'argument.file', make.argument((paper.body.claims as string[])[0]!))).status, 201);
}

/** Two reviews of `claim` by each of `reviewers`: the claim's list of reviews grows and its pairs' latest reviews move. */
async function reviews(s: TestService, claim: string, reviewers: TestAgent[]): Promise<void> {
  for (const a of reviewers)
    for (const forecast of [0.6, 0.8]) {
      const r = await send(s, a, 'review', { claim, forecast, rationale: 'The method section reads as sound and the data are public.' });
      t.equal(r.status, 201);
    }
}

const reviewers = async (s: TestService, n: number): Promise<TestAgent[]> => {
  const out: TestAgent[] = [];
  for (let i = 0; i < n; i++) out.push(await register(s, `many-${i}`));
  return out;
};

t.test('a snapshot taken while writes land restores to the state at its own size, not a later one', async (t) => {
  const s = await startService(t);
  const a = await register(s, 'writer');
  const paper = await send(s, a, 'paper', make.paper(2));
  const claim = (paper.body.claims as string[])[0]!;
  const many = await reviewers(s, 45);
  // More than 64 reviews of one claim: its list of review rows is written as a column.
  await reviews(s, claim, many.slice(0, 40));
  const k = s.d.log.size;
  // The writes that land while the snapshot is written: reviews by the same reviewers (their pairs' latest rows change in
  // place), and by new ones.
  await reviews(s, claim, many.slice(35));
  const end = s.d.log.size;
  const state = await replayStore(s.d.log, k);
  const atK = stateDigest(state);
  const later = await s.d.log.records(k, end - k);
  const encoding = encodeSnapshotAsync(state, 'root');
  // The later entries land before the copy's parts and lists are made bytes: its lists that only
  // grow at their end (the claim's review rows, the reviewers' claims) are read at their length at the copy.
  for (const r of later) applyEntry(state, recordEntry(r));
  t.equal(state.size, end, 'the state moved on while the snapshot was written');
  const decoded = decodeSnapshot(await encoding);
  if ('problem' in decoded) throw new Error(decoded.problem);
  t.equal(decoded.treeSize, k, 'taken at its own size');
  t.equal(decoded.state.reviews.size, 80, "its own size's reviews");
  t.equal(stateDigest(decoded.state), atK, 'the state at its own size');
  t.not(stateDigest(decoded.state), stateDigest(state), 'not the later one');
  t.ok(keptEqual(decoded.state, await replayStore(s.d.log, k)), 'everything the fold keeps, deeply equal');
  await s.stop();
});

t.test("the service's snapshot taken while writes land restores to the state at its own size", async (t) => {
  const dataDir = tempDir(t);
  const file = snapshotFile(dataDir);
  const s = await startService(t, { dataDir, snapshot: file });
  const a = await register(s, 'writer');
  const paper = await send(s, a, 'paper', make.paper(2));
  const claim = (paper.body.claims as string[])[0]!;
  const many = await reviewers(s, 40);
  await reviews(s, claim, many.slice(0, 35));
  const writes = reviews(s, claim, many.slice(30));
  const taken = await s.record.snapshot(file);
  await writes;
  t.ok(taken !== null && taken.treeSize > 0);
  const decoded = decodeSnapshot(readFileSync(file));
  if ('problem' in decoded) throw new Error(decoded.problem);
  t.equal(decoded.treeSize, taken!.treeSize);
  t.ok(s.d.log.size > decoded.treeSize, 'the log moved on');
  t.equal(stateDigest(decoded.state), stateDigest(await replayStore(s.d.log, decoded.treeSize)), 'the state at its own size');
  await s.stop();
});

t.test('a service starts from its snapshot, replays the tail, and ends where a replay from zero ends', async (t) => {
  const dataDir = tempDir(t);
  const file = snapshotFile(dataDir);
  const first = await startService(t, { dataDir, snapshot: file });
  await workload(first, 1);
  const taken = await first.record.snapshot(file);
  t.equal(taken?.treeSize, first.d.log.size, 'taken at the committed head');
  await workload(first, 2);
  await first.stop();

  const lines: string[] = [];
  const second = await startService(t, { dataDir, snapshot: file, say: (l) => lines.push(l) });
  t.match(lines, [new RegExp(`starting from the snapshot at entry ${taken!.treeSize} of ${second.d.log.size}`)], 'one line says so');
  t.equal(second.record.startedFrom, taken!.treeSize);
  await workload(second, 3);
  const zero = await replayStore(second.d.log, second.d.log.size);
  t.equal(stateDigest(second.record.state), stateDigest(zero), 'the same state as a replay from zero');
  t.equal(served(second.record.state), served(zero), 'the same numbers served');
  await second.stop();
});

t.test('a snapshot that does not hold is discarded with one line, and the service replays from zero', async (t) => {
  const dataDir = tempDir(t);
  const file = snapshotFile(dataDir);
  const s = await startService(t, { dataDir });
  await workload(s, 1);
  await s.record.snapshot(file);
  await workload(s, 2);
  const digest = stateDigest(s.record.state);
  await s.stop();
  const good = readFileSync(file);

  // Another log, shorter: its own snapshot is not a prefix of this one.
  const otherDir = tempDir(t);
  const other = await startService(t, { dataDir: otherDir });
  await register(other, 'someone-else');
  await other.record.snapshot(snapshotFile(otherDir));
  await other.stop();
  const foreign = readFileSync(snapshotFile(otherDir));

  const header = JSON.parse(good.subarray(0, good.indexOf(10)).toString()) as Record<string, unknown>;
  const rewrite = (h: Record<string, unknown>) =>
    Buffer.concat([Buffer.from(`${JSON.stringify(h)}\n`), good.subarray(good.indexOf(10) + 1)]);
  const flipped = Buffer.from(good);
  flipped[flipped.length - 100] = flipped[flipped.length - 100]! ^ 0xff;
  const cases: [string, Buffer, RegExp][] = [
    ['truncated', good.subarray(0, good.length - 1000), /truncated/],
    ['a byte changed', flipped, /does not hash to its digest/],
    ['of another log', foreign, /is not a prefix of this log/],
    ['of other code', rewrite({ ...header, code: '0'.repeat(64) }), /written by other code/],
    ['of another format', rewrite({ ...header, format: 'archive-snapshot/0' }), /its format is "archive-snapshot\/0"/],
    ['not a snapshot', Buffer.from('hello'), /header is not JSON/],
  ];
  for (const [what, bytes, why] of cases) {
    writeFileSync(file, bytes);
    const lines: string[] = [];
    const again = await startService(t, { dataDir, snapshot: file, say: (l) => lines.push(l) });
    t.equal(lines.length, 1, `${what}: one line`);
    t.match(lines[0], why, `${what}: says why`);
    t.match(lines[0], /replaying the log from its first entry/);
    t.equal(again.record.startedFrom, 0, `${what}: replayed from zero`);
    t.equal(stateDigest(again.record.state), digest, `${what}: the right state all the same`);
    await again.stop();
  }
});

t.test('a snapshot half written by a crash leaves the previous one in use', async (t) => {
  const dataDir = tempDir(t);
  const file = snapshotFile(dataDir);
  const s = await startService(t, { dataDir });
  await workload(s, 1);
  const taken = await s.record.snapshot(file);
  await workload(s, 2);
  await s.stop();
  // What a crash mid-write leaves: the temporary file beside the snapshot, cut short (the engine's writeFileAtomic).
  writeFileSync(`${file}.tmp`, readFileSync(file).subarray(0, 500));
  const lines: string[] = [];
  const again = await startService(t, { dataDir, snapshot: file, say: (l) => lines.push(l) });
  t.match(lines, [new RegExp(`starting from the snapshot at entry ${taken!.treeSize} `)], 'the previous snapshot, whole');
  const zero = await replayStore(again.d.log, again.d.log.size);
  t.equal(stateDigest(again.record.state), stateDigest(zero));
  // The next snapshot replaces both.
  await workload(again, 3);
  const next = await again.record.snapshot(file);
  t.equal(next?.treeSize, again.d.log.size);
  t.throws(() => readFileSync(`${file}.tmp`), /ENOENT/, 'no temporary file left');
  t.equal(join(dataDir, 'snapshots', 'state.snapshot'), file);
  await again.stop();
});
