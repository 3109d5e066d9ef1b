// One verification of a log copy: the offline checks (check-log.ts), the consistency of a head
// saved by an earlier run, and, given the service, its served reads against the replay
// (compare.ts). Returns the report; the caller decides what to print and how to exit.
import { ArchiveClient } from '../lib/client/http.js';
import { knownSoundKey } from '../lib/protocol/ed25519.js';
import { type State, emptyState } from '../lib/record/fold/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendToRange, fromHex, rootFromSubtrees, toHex, verifyConsistency, type SignedTreeHead, type Subtree } from 'tlog-engine';
import { ZERO_HASH } from '../lib/protocol/log-entry.js';
import { checkChain, checkEntryOutOfView, checkHead, genesisKey, headSigned, operatorKeyOf, replay } from './check-log.js';
import { BATCH, checkEntriesOnWorkers } from './entry-pool.js';
import type { Resume } from './saved-state.js';
import { compareReads } from './compare.js';
import { Problems, type Problem, type Report } from './report.js';
import { fetchLog, type LogCopy, type ServedEntry } from './source.js';
import { createCache, type Cache } from './cache.js';
import { witnessed, type WitnessPolicy } from './witness.js';
import { vkeyOf, type PinnedKey, type TrustedKey } from './log-key.js';

/** Under a witness policy: the checkpoint holds the quorum, and the entries give its root at its size. */
function checkWitnessed(
  opts: { policy: WitnessPolicy; checkpoint: string },
  log: LogCopy,
  leaves: number,
  rootAt: (size: number) => string,
  logKey: string | null,
  problems: Problems,
): { treeSize: number; cosignedBy: string[] } | undefined {
  const w = witnessed(opts.checkpoint, { origin: log.key.origin, logKey: logKey ?? log.key.key }, opts.policy);
  if (!w.ok) {
    problems.add('witness', null, w.problem);
    return undefined;
  }
  const { treeSize, rootHash } = w.checkpoint;
  if (treeSize > leaves) {
    problems.add('witness', null, `the cosigned checkpoint is of size ${treeSize}, beyond the ${leaves} entries served`);
    return undefined;
  }
  if (rootAt(treeSize) !== toHex(rootHash)) {
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

/** Checks that `head` extends `saved`: recomputed locally from the entries, and by the service's proof. */
async function checkSaved(
  saved: SignedTreeHead,
  log: LogCopy,
  rootAt: ((size: number) => string) | null,
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
  if (rootAt !== null && rootAt(saved.treeSize) !== saved.rootHash) {
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

/** Entries a segment: the most a run from a service holds at once (docs/log-format.md#what-archive-verify-checks). */
export const SEGMENT = Number(process.env.ARCHIVE_VERIFY_SEGMENT) > 0 ? Number(process.env.ARCHIVE_VERIFY_SEGMENT) : 500_000;

/** An entry whose out-of-view check waits for the last state: served with a subject, or under another seq than its place. */
interface Marked {
  at: number;
  seq: number;
  subject: string | undefined;
}

/**
 * A verification under way, segment by segment (each a copy holding some of the entries, in order): what the entries checked so
 * far leave for the checks at the end, which need the whole log (`finish`). It holds no entry: the replayed state, the tree's
 * subtrees, counts, the roots at the sizes the end checks, and the entries of items out of view.
 */
class Pass {
  /** What the segments found: chain, hash, signature, rules and the replay's consistency with the saved replay. */
  private readonly problems = new Problems();
  private readonly keys: { logKey: string; operatorKey: string } | null;
  private readonly resume: Resume | undefined;
  readonly first: number;
  readonly held: number;
  private readonly hiddenBefore: Map<number, string> | undefined;
  state: State;
  range: Subtree[];
  /** The leaves hashed so far (from `first` on). */
  private leaves = 0;
  /** The entryHash the next entry's prevHash must be. */
  private prev: string;
  private withheld = 0;
  private sealed = 0;
  private outOfView = 0;
  /** The sizes the end checks a root at (the saved head's, the cosigned checkpoint's), and the roots once the leaves reach them. */
  private readonly wanted: number[] = [];
  private readonly roots = new Map<number, string>();
  private readonly marked: Marked[] = [];
  private replayMs = 0;
  private hashMs = 0;
  private signatureMs = 0;

  /** `log` is the first segment's copy: its key, and its genesis (entry 0) when there is one. */
  constructor(
    log: LogCopy,
    private readonly opts: VerifyOptions,
  ) {
    const logKey = genesisKey(log, new Problems(), opts.pinned);
    this.resume = opts.resume;
    // A witness policy checks the cosigned size against every leaf: it needs a full run.
    if (this.resume !== undefined && opts.witness !== undefined) throw new Error('a witness policy needs every entry checked: no resume');
    this.first = this.resume?.state.size ?? 0;
    this.held = log.from ?? 0;
    if (this.held !== 0 && this.held !== this.first) throw new Error(`a copy held from entry ${this.held} needs a replay saved there`);
    this.prev = this.held === 0 ? ZERO_HASH : this.resume!.lastEntryHash;
    // The items out of view before the new entries, to find those the new entries put out of view or back (checkOlderOutOfView).
    this.hiddenBefore = this.held === 0 ? undefined : new Map(this.resume!.state.redacted);
    this.state = this.resume?.state ?? emptyState();
    this.range = this.resume?.range ?? [];
    this.keys = logKey === null ? null : { logKey, operatorKey: operatorKeyOf(log) };
    if (this.resume === undefined && opts.savedHead) this.wanted.push(opts.savedHead.treeSize);
    if (opts.witness !== undefined) {
      const w = witnessed(opts.witness.checkpoint, { origin: log.key.origin, logKey: logKey ?? log.key.key }, opts.witness.policy);
      if (w.ok) this.wanted.push(w.checkpoint.treeSize);
    }
  }

  /** Checks and replays entries `from` to `until` (not included) of `log`, which holds them (and the genesis). */
  async segment(log: LogCopy, from: number, until: number): Promise<void> {
    const { problems } = this;
    checkChain(log, problems, from, this.prev);
    if (until > from) this.prev = log.entries[until - 1]!.entryHash;
    // Resumed from a replay but holding the entries before it: the entry at its size is the one verified (the chain covers the rest).
    const n = this.first;
    if (this.resume !== undefined && this.held === 0 && n > 0 && from <= n - 1 && n - 1 < until) {
      if (log.entries[n - 1]!.entryHash !== this.resume.lastEntryHash)
        problems.add(
          'consistency',
          n - 1,
          `entry ${n - 1} is not the one verified before (${this.resume.lastEntryHash}): the log was rewritten`,
        );
    }
    // Hashes and signatures on worker threads while this thread replays the entries.
    const start = Math.max(from, n);
    if (start < until) {
      const progress = this.opts.replayProgress;
      const total = log.sth.treeSize > until ? log.sth.treeSize : until;
      const checks = await checkEntriesOnWorkers(
        log.entries,
        this.keys,
        async (batch) => {
          // Batch by batch as the workers finish them: the workers' signed hashes spare this thread
          // canonicalizing every payload again; the replay stops at the first entry the rules refuse.
          for (let at = start; at < until && this.state.size === at; at += BATCH) {
            const { signed, sound } = await batch((at - start) / BATCH);
            // The keys' points the worker checked (entry-worker.ts): the replay's checks skip them.
            for (const k of sound) knownSoundKey(k);
            const t0 = performance.now();
            const told = progress === undefined ? undefined : (done: number) => progress(done, total);
            this.state = replay(log, problems, this.state, told, Math.min(until, at + BATCH), { from: at, hashes: signed });
            this.replayMs += performance.now() - t0;
          }
        },
        undefined,
        start,
        log.lines,
      );
      for (const p of checks.problems) problems.add(p.kind, p.seq, p.detail);
      const { leaves } = checks;
      for (const size of this.wanted)
        if (size > this.leaves && size <= this.leaves + leaves.length)
          this.roots.set(size, toHex(rootFromSubtrees(appendToRange(this.range, leaves.slice(0, size - this.leaves)).map((s) => s.hash))));
      this.range = appendToRange(this.range, leaves);
      this.leaves += leaves.length;
      this.withheld += checks.withheld;
      this.hashMs += checks.hashMs;
      this.signatureMs += checks.signatureMs;
    }
    const why = withheldBy(log.entries, Math.max(from, this.held));
    this.sealed += why.sealed;
    this.outOfView += why.outOfView;
    for (let i = Math.max(from, this.held); i < until; i++) {
      const e = log.entries[i]!;
      if (e.subject !== undefined || e.seq !== i) this.marked.push({ at: i, seq: e.seq, subject: e.subject });
    }
  }

  /** The root of the first `size` leaves (a full run's: from entry 0). */
  private rootAt(size: number): string {
    return this.roots.get(size) ?? toHex(rootFromSubtrees(size === 0 ? [] : this.range.map((s) => s.hash)));
  }

  /**
   * checkOutOfView of every entry held, at the end: the entries served whole at no item the state holds out of view pass
   * (nothing was kept of them), the others are checked in their order.
   */
  private checkOutOfView(total: number, problems: Problems): void {
    const marked = new Set(this.marked.map((m) => m.at));
    const checks = [...this.marked];
    for (const seq of this.state.redacted.keys())
      if (seq >= this.held && seq < total && !marked.has(seq)) checks.push({ at: seq, seq, subject: undefined });
    checks.sort((a, b) => a.at - b.at);
    for (const c of checks) checkEntryOutOfView({ seq: c.seq, subject: c.subject } as ServedEntry, this.state, problems);
  }

  /** The checks that need the whole log, given the last segment's copy (`log.older` reads the entries before it); the report. */
  async finish(log: LogCopy, started: number): Promise<Verification> {
    const { opts, state } = this;
    const problems = new Problems();
    for (const p of opts.found ?? []) problems.add(p.kind, p.seq, p.detail);
    const logKey = genesisKey(log, problems, opts.pinned);
    problems.absorb(this.problems);
    const total = log.entries.length;
    if (state.size === total) this.checkOutOfView(total, problems);
    if (this.hiddenBefore !== undefined && state.size === total && opts.client !== undefined)
      await checkOlderOutOfView(opts.client, this.hiddenBefore, state, this.held, problems);
    // A saved replay holds for this copy: it is not larger than the log (its last entry was checked with the segment holding it).
    const resume = this.resume;
    if (resume !== undefined && this.first > total)
      problems.add('consistency', null, `the saved replay holds ${this.first} entries, the log served ${total}: the log shrank`);
    checkHead(log, this.range, logKey, problems);
    const rootAt = (size: number) => this.rootAt(size);
    if (opts.savedHead) await checkSaved(opts.savedHead, log, resume === undefined ? rootAt : null, logKey, opts.client, problems);
    const witnessedBy = opts.witness === undefined ? undefined : checkWitnessed(opts.witness, log, this.leaves, rootAt, logKey, problems);
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
        entries: total,
        withheld: this.withheld,
        sealed: this.sealed,
        outOfView: this.outOfView,
        compared,
        ...(resume === undefined ? {} : { resumedFrom: this.first }),
        ...(witnessedBy === undefined ? {} : { witnessed: witnessedBy }),
        problems: list,
      },
      problems,
      state,
      range: this.range,
      timings: {
        totalMs: performance.now() - started,
        replayMs: this.replayMs,
        hashMs: this.hashMs,
        signatureMs: this.signatureMs,
      },
    };
  }
}

export async function verifyLog(log: LogCopy, opts: VerifyOptions = {}): Promise<Verification> {
  const started = performance.now();
  const pass = new Pass(log, opts);
  await pass.segment(log, pass.held, log.entries.length);
  return pass.finish(log, started);
}

/** Where an incremental run's copy starts (LogCopy.from): the saved replay's size, its genesis, and where older entries are read. */
export interface HeldFrom {
  seq: number;
  genesis: ServedEntry;
  older: (seq: number) => Promise<ServedEntry>;
}

/**
 * Fetches a service's log and verifies it, SEGMENT entries at a time (`segment`): each segment is checked and replayed on top
 * of the last, then added to the cache (`cache`, else a temporary one when there is more than one segment), and dropped; the
 * checks that need the whole log run once at the end, reading older entries from the cache. The served reads are compared
 * after the entries are fetched, so on a service taking writes they may be of a later head: when numbers differ and the log grew
 * meanwhile, the new entries are fetched and checked, and everything at the end is checked again (up to `attempts` times in all).
 * `held` is the most entries held at once.
 */
export async function verifyService(
  client: ArchiveClient,
  opts: {
    savedHead?: SignedTreeHead | null;
    /** Entries held already (an export read whole): the run holds them all. */
    have?: ServedEntry[];
    /** Hold no entry before the saved replay's but the genesis, and read older ones from a cache (LogCopy.from). */
    from?: HeldFrom;
    /** The cache to add each segment's entries to, opened given the head (with `from`, the one `from.older` reads). */
    cache?: (head: Pick<LogCopy, 'key' | 'sth'>) => Promise<Cache>;
    /** Entries a segment (SEGMENT unless given). */
    segment?: number;
    progress?: (held: number, size: number) => void;
    replayProgress?: (done: number, total: number) => void;
    attempts?: number;
    /** Hold the log to this witness policy (its checkpoint is read before the entries, so they cover it). */
    policy?: WitnessPolicy | null;
    /** A saved replay to resume from. */
    resume?: () => Promise<Resume | undefined>;
    pinned?: PinnedKey;
  } = {},
): Promise<Verification & { log: LogCopy; held: number }> {
  const started = performance.now();
  let witness: { policy: WitnessPolicy; checkpoint: string } | undefined;
  if (opts.policy) {
    const r = await client.get('/v1/log/checkpoint');
    witness = { policy: opts.policy, checkpoint: typeof r.body === 'string' ? r.body : '' };
  }
  const { from, progress } = opts;
  // An export held whole, or older entries read elsewhere with no cache to add to: one segment.
  const segment = opts.have !== undefined || (from !== undefined && opts.cache === undefined) ? Infinity : (opts.segment ?? SEGMENT);
  let log = await fetchLog(client, { have: opts.have, from, until: (from?.seq ?? 0) + segment, progress });
  let heldMost = 0;
  // The entries a copy holds: those from where it starts, and the genesis before them.
  const held = (copy: LogCopy) => {
    const start = copy.from ?? 0;
    heldMost = Math.max(heldMost, copy.entries.length - start + (start > 0 && copy.entries[0] !== undefined ? 1 : 0));
  };
  let spill: Cache | undefined;
  let temporary: string | undefined;
  try {
    if (opts.cache !== undefined) spill = await opts.cache(log);
    else if (log.entries.length < log.sth.treeSize) {
      temporary = await mkdtemp(join(tmpdir(), 'archive-verify-'));
      spill = await createCache(join(temporary, 'entries.jsonl'), log);
    }
    const pass = new Pass(log, {
      client,
      savedHead: opts.savedHead,
      replayProgress: opts.replayProgress,
      witness,
      resume: await opts.resume?.(),
      pinned: opts.pinned,
    });
    const genesis = log.entries[0];
    let at = pass.held;
    const older = spill === undefined ? from?.older : (seq: number) => spill!.entry(seq);
    for (let attempt = 1; ; attempt++) {
      // The segments up to the head: each checked, added to the cache, and dropped before the next is fetched.
      for (;;) {
        const until = log.entries.length;
        held(log);
        await pass.segment(log, at, until);
        await spill?.add(log.entries, Math.max(at, spill.mark.entries), until);
        at = Math.max(at, until);
        if (at >= log.sth.treeSize) break;
        const head = { key: log.key, sth: log.sth };
        log.entries = [];
        log = await fetchLog(client, { head, from: { seq: at, genesis: genesis! }, until: at + segment, progress });
      }
      const v = await pass.finish({ ...log, ...(older === undefined ? {} : { older }) }, started);
      if (v.report.ok || !v.problems.has('numbers') || attempt >= (opts.attempts ?? 3)) return { ...v, log, held: heldMost };
      const head = await client.get('/v1/log/sth');
      if (head.status !== 200 || head.body?.treeSize === log.sth.treeSize) return { ...v, log, held: heldMost };
      // The new entries: after the cache's, or after those held when there is none.
      log =
        spill === undefined
          ? await fetchLog(client, { have: log.entries, from, progress })
          : await fetchLog(client, { from: { seq: at, genesis: genesis! }, until: at + segment, progress });
    }
  } finally {
    if (temporary !== undefined) {
      await spill?.close();
      await rm(temporary, { recursive: true, force: true });
    }
  }
}
