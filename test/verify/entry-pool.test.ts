// The verifier's entry checks on worker threads (verify/entry-pool.ts) over many batches: a few are queued on each worker
// at a time and the rest go as workers answer, so every batch is checked, its result handed to the replay in order, and
// the leaves come back in the log's order.
import t from 'tap';
import { toHex } from 'tlog-engine';
import { entryHashes, ZERO_HASH } from '../../lib/protocol/log-entry.js';
import { BATCH, checkEntriesOnWorkers } from '../../verify/entry-pool.js';
import type { ServedEntry } from '../../verify/source.js';

/** `n` registrations (checked for their hashes; a registration carries no signature of its own), chained, as served lines. */
function log(n: number): { entries: ServedEntry[]; lines: string[]; leaves: string[] } {
  const entries: ServedEntry[] = [];
  const lines: string[] = [];
  const leaves: string[] = [];
  let prevHash = ZERO_HASH;
  for (let seq = 0; seq < n; seq++) {
    const ts = '2026-01-01T00:00:00.000Z';
    const type = 'agent.register';
    const text = `{"n":${seq}}`;
    const { payloadHash, leafHash } = entryHashes(seq, ts, type, text, prevHash);
    const entryHash = toHex(leafHash);
    const e = { seq, ts, type, payloadHash, prevHash, entryHash, payload: { n: seq } };
    entries.push(e);
    lines.push(JSON.stringify(e));
    leaves.push(entryHash);
    prevHash = entryHash;
  }
  return { entries, lines, leaves };
}

t.test('twenty batches on two workers: each result in order, every leaf in the log order', async (t) => {
  const n = 20 * BATCH - 5;
  const { entries, lines, leaves } = log(n);
  // One entry altered: its problem is named at its seq.
  const bad = 13 * BATCH + 7;
  lines[bad] = lines[bad]!.replace(`"n":${bad}}`, `"n":${bad + 1}}`);
  const seen: number[] = [];
  const checks = await checkEntriesOnWorkers(
    entries,
    null,
    async (batch) => {
      // As the verifier's replay does: each batch's result in turn, doing other work between them.
      for (let id = 0; id * BATCH < n; id++) {
        const r = await batch(id);
        seen.push(r.id);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    2,
    0,
    lines,
  );
  t.strictSame(
    seen,
    Array.from({ length: 20 }, (_, i) => i),
    'the replay is handed every batch, in order',
  );
  t.equal(checks.leaves.length, n);
  t.strictSame(checks.leaves.map(toHex), leaves, 'the leaves, in the log order');
  t.strictSame(
    checks.problems.map((p) => [p.kind, p.seq]),
    [['hash', bad]],
    'the altered entry, and it alone',
  );
});

t.test('a run from an entry on, with fewer batches than the workers could hold', async (t) => {
  const { entries, lines, leaves } = log(3 * BATCH);
  const checks = await checkEntriesOnWorkers(entries, null, undefined, 2, BATCH + 3, lines);
  t.strictSame(checks.leaves.map(toHex), leaves.slice(BATCH + 3));
  t.strictSame(checks.problems, []);
});
