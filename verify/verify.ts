// One verification of a log copy: the offline checks (check-log.ts), the consistency of a head
// saved by an earlier run, and, given the service, its served reads against the replay
// (compare.ts). Returns the report; the caller decides what to print and how to exit.
import { ArchiveClient } from '../lib/client/http.js';
import { knownSoundKey } from '../lib/protocol/ed25519.js';
import { type State, emptyState } from '../lib/record/fold/index.js';
import { appendToRange, fromHex, toHex, verifyConsistency, type SignedTreeHead, type Subtree } from 'tlog-engine';
import {
  checkChain,
  checkEntryOutOfView,
  checkHead,
  checkOutOfView,
  genesisKey,
  headSigned,
  operatorKeyOf,
  replay,
  rootOf,
} from './check-log.js';
import { BATCH, checkEntriesOnWorkers } from './entry-pool.js';
import type { Resume } from './saved-state.js';
import { compareReads } from './compare.js';
import { Problems, type Problem, type Report } from './report.js';
import { fetchLog, type LogCopy, type ServedEntry } from './source.js';
import { witnessed, type WitnessPolicy } from './witness.js';
import { vkeyOf, type PinnedKey, type TrustedKey } from './log-key.js';

/** Under a witness policy: the checkpoint holds the quorum, and the entries give its root at its size. */
function checkWitnessed(
  opts: { policy: WitnessPolicy; checkpoint: string },
  log: LogCopy,
  leaves: Uint8Array[],
  logKey: string | null,
  problems: Problems,
): { treeSize: number; cosignedBy: string[] } | undefined {
  const w = witnessed(opts.checkpoint, { origin: log.key.origin, logKey: logKey ?? log.key.key }, opts.policy);
  if (!w.ok) {
    problems.add('witness', null, w.problem);
    return undefined;
  }
  const { treeSize, rootHash } = w.checkpoint;
  if (treeSize > leaves.length) {
    problems.add('witness', null, `the cosigned checkpoint is of size ${treeSize}, beyond the ${leaves.length} entries served`);
    return undefined;
  }
  if (rootOf(leaves, treeSize) !== toHex(rootHash)) {
    problems.add(
      'witness',
      treeSize > 0 ? treeSize - 1 : null,
      `the entries do not give the root the witnesses cosigned at size ${treeSize}: this log is not the one they witnessed (a fork)`,
    );
    return undefined;
  }
  return { treeSize, cosignedBy: w.cosignatures.map((c) => c.name) };
}

export interface VerifyOptions {
  /** The service, to read its consistency proofs and its numbers. */
  client?: ArchiveClient;
  /** A head an earlier run verified: the new head must extend it. */
  savedHead?: SignedTreeHead | null;
  /** Called as the replay goes, with the entries replayed and their number. */
  replayProgress?: (done: number, total: number) => void;
  /** Problems the source found before the entries were checked (a tiles mirror's, verify/tiles.ts). */
  found?: Problem[];
  /** A witness policy and the checkpoint the service served: the entries must give that checkpoint, cosigned by the quorum. */
  witness?: { policy: WitnessPolicy; checkpoint: string };
  /**
   * A replay this verifier saved after verifying the log up to `state.size` (saved-state.ts): only
   * the entries after it are checked and replayed, and the tree is grown from its subtrees.
   */
  resume?: Resume;
  /** The log key pinned with --key: every signature, head and checkpoint is checked against it, and the source must publish it. */
  pinned?: PinnedKey;
}

export interface Verification {
  report: Report;
  problems: Problems;
  state: State;
  /** The complete subtrees of the verified tree (what a saved replay keeps to grow it later). */
  range: Subtree[];
  /** Wall time, and the time spent in each part (hashing and signatures summed over the workers). */
  timings: { totalMs: number; replayMs: number; hashMs: number; signatureMs: number };
}

/**
 * A saved replay holds for this copy: its last entry is the copy's entry at its size (the chain
 * check covers the rest), and its subtrees give the root it was saved with.
 */
function checkResumed(resume: Resume, log: LogCopy, problems: Problems): void {
  const n = resume.state.size;
  if (n > log.entries.length) {
    problems.add('consistency', null, `the saved replay holds ${n} entries, the log served ${log.entries.length}: the log shrank`);
    return;
  }
  // Held from the replay on alone (LogCopy.from), the chain links the first new entry to the last one verified.
  if (log.from !== undefined) return;
  if (n > 0 && log.entries[n - 1]!.entryHash !== resume.lastEntryHash)
    problems.add('consistency', n - 1, `entry ${n - 1} is not the one verified before (${resume.lastEntryHash}): the log was rewritten`);
}

/** Checks that `head` extends `saved`: recomputed locally from the entries, and by the service's proof. */
async function checkSaved(
  saved: SignedTreeHead,
  log: LogCopy,
  leaves: Uint8Array[] | null,
  logKey: string | null,
  client: ArchiveClient | undefined,
  problems: Problems,
): Promise<void> {
  const head = log.sth;
  if (logKey !== null && !headSigned(saved, logKey)) {
    problems.add('consistency', null, `the saved head of size ${saved.treeSize} is not signed by this log's key`);
    return;
  }
  if (saved.treeSize > head.treeSize) {
    problems.add('consistency', null, `the log shrank: a head of size ${saved.treeSize} was seen before, now ${head.treeSize}`);
    return;
  }
  // Resumed from a replay saved at this head, the tree was grown from that head's subtrees:
  // consistent by construction (checkResumed).
  if (leaves !== null && rootOf(leaves, saved.treeSize) !== saved.rootHash) {
    problems.add(
      'consistency',
      saved.treeSize > 0 ? saved.treeSize - 1 : null,
      `the entries do not give the saved head's root at size ${saved.treeSize} (${saved.rootHash}, signed ${saved.timestamp}): the log ` +
        `was rewritten`,
    );
    return;
  }
  if (client === undefined || saved.treeSize === 0) return;
  const r = await client.get(`/v1/log/consistency?first=${saved.treeSize}&second=${head.treeSize}`);
  const proof: string[] | undefined = r.body?.proof;
  if (r.status !== 200 || !Array.isArray(proof)) {
    problems.add('consistency', null, `GET /v1/log/consistency answered ${r.status}`);
    return;
  }
  const ok = verifyConsistency(
    saved.treeSize,
    head.treeSize,
    proof.map((h) => fromHex(h, 32)),
    fromHex(saved.rootHash, 32),
    fromHex(head.rootHash, 32),
  );
  if (!ok)
    problems.add('consistency', null, `the service's consistency proof from size ${saved.treeSize} to ${head.treeSize} does not verify`);
}

/**
 * Why entries were served with fields withheld (docs/record.md#what-served-entries-withhold):
 * results whose own outputs are sealed until their receipt is cross-checked or revealed, and
 * items out of view (their entry names a `subject`). The rest are doorbells' addresses.
 */
function withheldBy(entries: readonly ServedEntry[], from: number): { sealed: number; outOfView: number } {
  let sealed = 0;
  let outOfView = 0;
  for (let i = from; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.withheld === undefined || e.withheld.length === 0) continue;
    if (e.subject !== undefined) outOfView++;
    else if (e.type === 'check.result' && e.withheld.includes('payload.outputs')) sealed++;
  }
  return { sealed, outOfView };
}

/**
 * checkOutOfView for the entries before `held`, which an incremental run does not hold: those of
 * items the new entries put out of view (or back in view) are fetched, and must now be served so.
 */
async function checkOlderOutOfView(
  client: ArchiveClient,
  before: Map<number, string>,
  state: State,
  held: number,
  problems: Problems,
): Promise<void> {
  const changed = new Set<number>();
  for (const [seq, id] of state.redacted) if (seq < held && before.get(seq) !== id) changed.add(seq);
  for (const seq of before.keys()) if (!state.redacted.has(seq)) changed.add(seq);
  for (const seq of changed) {
    const page = await getEntry(client, seq);
    if (page === undefined) problems.add('rules', seq, `GET /v1/log/entries?from=${seq}&limit=1 serves no entry`);
    else checkEntryOutOfView(page, state, problems);
  }
}

/** Entry `seq` as the service serves it now. */
async function getEntry(client: ArchiveClient, seq: number): Promise<ServedEntry | undefined> {
  const r = await client.get(`/v1/log/entries?from=${seq}&limit=1`);
  const e = r.status === 200 ? r.body?.entries?.[0] : undefined;
  return e?.seq === seq ? e : undefined;
}

/** The key the report names: the pinned one, else the genesis's (or the published one when there is none to read). */
function trusted(log: LogCopy, logKey: string | null, pinned: PinnedKey | undefined): TrustedKey {
  const key = logKey ?? log.key.key;
  return { key, vkey: vkeyOf(pinned?.origin ?? log.key.origin, key), pinned: pinned !== undefined };
}

export async function verifyLog(log: LogCopy, opts: VerifyOptions = {}): Promise<Verification> {
  const started = performance.now();
  const problems = new Problems();
  for (const p of opts.found ?? []) problems.add(p.kind, p.seq, p.detail);
  const logKey = genesisKey(log, problems, opts.pinned);
  const resume = opts.resume;
  // A witness policy checks the cosigned size against every leaf: it needs a full run.
  if (resume !== undefined && opts.witness !== undefined) throw new Error('a witness policy needs every entry checked: no resume');
  const first = resume?.state.size ?? 0;
  const held = log.from ?? 0;
  if (held !== 0 && held !== first) throw new Error(`a copy held from entry ${held} needs a replay saved there`);
  checkChain(log, problems, held, held === 0 ? undefined : resume!.lastEntryHash);
  if (resume !== undefined) checkResumed(resume, log, problems);
  // The items out of view before the new entries, to find those the new entries put out of view or back (checkOlderOutOfView).
  const hiddenBefore = held === 0 ? undefined : new Map(resume!.state.redacted);
  // Hashes and signatures on worker threads while this thread replays the log.
  let state = resume?.state ?? emptyState();
  let replayMs = 0;
  const total = log.entries.length;
  const keys = logKey === null ? null : { logKey, operatorKey: operatorKeyOf(log) };
  const checks = await checkEntriesOnWorkers(
    log.entries,
    keys,
    async (batch) => {
      // Batch by batch as the workers finish them: the workers' signed hashes spare this thread
      // canonicalizing every payload again; the replay stops at the first entry the rules refuse.
      for (let from = first; from < total && state.size === from; from += BATCH) {
        const { signed, sound } = await batch((from - first) / BATCH);
        // The keys' points the worker checked (entry-worker.ts): the replay's checks skip them.
        for (const k of sound) knownSoundKey(k);
        const t0 = performance.now();
        state = replay(log, problems, state, opts.replayProgress, Math.min(total, from + BATCH), { from, hashes: signed });
        replayMs += performance.now() - t0;
      }
      if (state.size === total) checkOutOfView(log, state, problems, held);
    },
    undefined,
    first,
    log.lines,
  );
  for (const p of checks.problems) problems.add(p.kind, p.seq, p.detail);
  const { leaves, withheld } = checks;
  const why = withheldBy(log.entries, held);
  if (hiddenBefore !== undefined && state.size === total && opts.client !== undefined)
    await checkOlderOutOfView(opts.client, hiddenBefore, state, held, problems);
  const range = appendToRange(resume?.range ?? [], leaves);
  checkHead(log, range, logKey, problems);
  if (opts.savedHead) await checkSaved(opts.savedHead, log, resume === undefined ? leaves : null, logKey, opts.client, problems);
  const witnessedBy = opts.witness === undefined ? undefined : checkWitnessed(opts.witness, log, leaves, logKey, problems);
  // Numbers are compared only with a replay of the whole log, and of a log that holds together.
  let compared: string[] = [];
  const sound = !problems.has('rules') && !problems.has('chain') && !problems.has('hash');
  if (opts.client !== undefined && sound) compared = await compareReads(opts.client, log, state, problems);
  const list = problems.list();
  return {
    report: {
      ok: list.length === 0,
      origin: log.key.origin,
      logKey: trusted(log, logKey, opts.pinned),
      treeSize: log.sth.treeSize,
      rootHash: log.sth.rootHash,
      entries: log.entries.length,
      withheld,
      sealed: why.sealed,
      outOfView: why.outOfView,
      compared,
      ...(resume === undefined ? {} : { resumedFrom: first }),
      ...(witnessedBy === undefined ? {} : { witnessed: witnessedBy }),
      problems: list,
    },
    problems,
    state,
    range,
    timings: { totalMs: performance.now() - started, replayMs, hashMs: checks.hashMs, signatureMs: checks.signatureMs },
  };
}

/** Where an incremental run's copy starts (LogCopy.from): the saved replay's size, its genesis, and where older entries are read. */
export interface HeldFrom {
  seq: number;
  genesis: ServedEntry;
  older: (seq: number) => Promise<ServedEntry>;
}

/**
 * Fetches a service's log and verifies it. The served reads are compared after the entries are
 * fetched, so on a service taking writes they may be of a later head: when numbers differ and
 * the log grew meanwhile, the new entries are fetched and everything is checked again (up to
 * `attempts` times in all).
 */
export async function verifyService(
  client: ArchiveClient,
  opts: {
    savedHead?: SignedTreeHead | null;
    have?: ServedEntry[];
    /** Hold no entry before the saved replay's but the genesis, and read older ones from a cache (LogCopy.from). */
    from?: HeldFrom;
    progress?: (held: number, size: number) => void;
    replayProgress?: (done: number, total: number) => void;
    attempts?: number;
    /** Hold the log to this witness policy (its checkpoint is read before the entries, so they cover it). */
    policy?: WitnessPolicy | null;
    /** A saved replay to resume from, read afresh for each attempt (a replay changes the state it is given). */
    resume?: () => Resume | undefined;
    pinned?: PinnedKey;
  } = {},
): Promise<Verification & { log: LogCopy }> {
  let witness: { policy: WitnessPolicy; checkpoint: string } | undefined;
  if (opts.policy) {
    const r = await client.get('/v1/log/checkpoint');
    witness = { policy: opts.policy, checkpoint: typeof r.body === 'string' ? r.body : '' };
  }
  const from = opts.from;
  const fetch = (have: ServedEntry[] | undefined) => fetchLog(client, { have, from, progress: opts.progress });
  let log = { ...(await fetch(opts.have)), ...(from === undefined ? {} : { older: from.older }) };
  for (let attempt = 1; ; attempt++) {
    const resume = opts.resume?.();
    const v = await verifyLog(log, {
      client,
      savedHead: opts.savedHead,
      replayProgress: opts.replayProgress,
      witness,
      resume,
      pinned: opts.pinned,
    });
    if (v.report.ok || !v.problems.has('numbers') || attempt >= (opts.attempts ?? 3)) return { ...v, log };
    const head = await client.get('/v1/log/sth');
    if (head.status !== 200 || head.body?.treeSize === log.sth.treeSize) return { ...v, log };
    log = { ...(await fetch(log.entries)), older: log.older };
  }
}
