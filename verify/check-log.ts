// The offline checks of a log copy, for auditors: everything recomputed from the entries and the published log key alone, with
// the code the service uses (log/ for hashes and heads, lib/record for signatures, rules and replay), never with api/.
// The checks (chain, hash, signature, head, rules): docs/log-format.md#what-archive-verify-checks.
import { canonicalize } from '../lib/protocol/canonical-json.js';
import { parseGenesis } from '../lib/protocol/genesis.js';
import { applyEntry, check, emptyState, type State } from '../lib/record/fold/index.js';
import { knownSignedHash } from '../lib/record/admission/index.js';
import { isArchiveError } from '../lib/protocol/errors.js';
import {
  logVerifier,
  rootFromLeafHashes,
  rootFromSubtrees,
  toHex,
  verifyHeadSignature,
  type SignedTreeHead,
  type Subtree,
} from 'tlog-engine';
import type { LogCopy, ServedEntry } from './source.js';
import { ZERO_HASH } from '../lib/protocol/log-entry.js';
import { isWithheld } from './entry-hashes.js';
import type { Problems } from './report.js';
import { pinProblem, type PinnedKey } from './log-key.js';

const HEX64 = /^[0-9a-f]{64}$/;

/** Whether head `h` is signed by the log key. */
export function headSigned(h: SignedTreeHead, logKey: string): boolean {
  return verifyHeadSignature(h, logVerifier(logKey));
}

// Hashes and signatures are checked on worker threads (entry-worker.ts) while this thread replays.
/**
 * seq order and prevHash links (the hashes themselves are checked on workers: entry-pool.ts), from
 * entry `from` on, whose prevHash must be `prev` (an incremental run's: the last entry verified).
 */
export function checkChain(log: LogCopy, problems: Problems, from = 0, prev = ZERO_HASH): void {
  for (let i = from; i < log.entries.length; i++) {
    const e = log.entries[i]!;
    if (e.seq !== i) problems.add('chain', i, `entry ${i} is served with seq ${e.seq}`);
    if (e.prevHash !== prev) problems.add('chain', i, `prevHash ${e.prevHash} is not the entryHash of entry ${i - 1} (${prev})`);
    if (!HEX64.test(e.payloadHash ?? '')) problems.add('hash', i, 'payloadHash is not 64 lowercase hex');
    prev = e.entryHash;
  }
}

/** The operator key the genesis names ('' when there is none to read). */
export function operatorKeyOf(log: LogCopy): string {
  return log.entries[0]?.payload?.event?.operatorKey ?? '';
}

/**
 * The log key every signature and head is checked against: the pinned key when one is given
 * (verify/log-key.ts), else the genesis's, which must name the published key; null when it
 * cannot be had. A published key, origin or genesis that is not the pinned one is a `key` problem.
 */
export function genesisKey(log: LogCopy, problems: Problems, pinned?: PinnedKey): string | null {
  const pin = pinProblem(pinned, log.key, 'the source');
  if (pin !== null) problems.add('key', null, pin);
  const first = log.entries[0];
  if (first === undefined) return pinned?.key ?? log.key.key;
  try {
    const g = parseGenesis(first.type, canonicalize(first.payload)).event;
    if (pin === null && pinned !== undefined && g.logKey !== pinned.key)
      problems.add('key', 0, `the genesis names log key ${g.logKey}; the pinned key (--key) is ${pinned.key}`);
    else if (g.logKey !== log.key.key)
      problems.add('signature', 0, `the genesis names log key ${g.logKey}, the service publishes ${log.key.key}`);
    if (g.origin !== log.key.origin)
      problems.add('signature', 0, `the genesis names origin ${g.origin}, the service publishes ${log.key.origin}`);
    return pinned?.key ?? g.logKey;
  } catch (err) {
    problems.add('signature', 0, (err as Error).message);
    return pinned?.key ?? null;
  }
}

/** The head: signed by the log key, of the entries' size, with their root (from `range`, the complete subtrees of the entries' tree). */
export function checkHead(log: LogCopy, range: Subtree[], logKey: string | null, problems: Problems): void {
  const h = log.sth;
  const size = range.reduce((n, s) => n + 2 ** s.level, 0);
  if (logKey !== null && !headSigned(h, logKey)) problems.add('head', null, `the head of size ${h.treeSize} is not signed by the log key`);
  if (h.treeSize !== size) problems.add('head', null, `the head has size ${h.treeSize}, the log served ${size} entries`);
  const root = toHex(rootFromSubtrees(range.map((s) => s.hash)));
  if (h.rootHash !== root) problems.add('head', null, `the head's root ${h.rootHash} is not the root of the entries (${root})`);
}

/** The root of the first `size` leaves. */
export function rootOf(leaves: Uint8Array[], size: number): string {
  return toHex(rootFromLeafHashes(leaves.slice(0, size)));
}

/** How often the replay reports its progress, in entries. */
const PROGRESS_EVERY = 1024;

/**
 * Replays the entries through the record's rules. Entries served whole are checked as the
 * record admits writes, then applied; an entry with fields withheld is applied as the log shows
 * it (its type, ids and outcome count; the withheld text does not). Stops at the first entry the
 * rules refuse: the state after it would not be the service's. Replays up to entry `until`;
 * `signed` gives the signed hashes of entries from `signed.from` on, computed by the workers.
 */
export function replay(
  log: LogCopy,
  problems: Problems,
  state: State = emptyState(),
  progress?: (done: number, total: number) => void,
  until = log.entries.length,
  signed?: { from: number; hashes: string[] },
): State {
  const total = log.entries.length;
  for (let i = state.size; i < until; i++) {
    if (progress !== undefined && i % PROGRESS_EVERY === 0) progress(i, total);
    const e: ServedEntry = log.entries[i]!;
    // An item out of view is served with its text null; its entry names its id (a hash of that text).
    const entry = { seq: i, ts: e.ts, type: e.type, logged: e.payload, ...(e.subject === undefined ? {} : { id: e.subject }) };
    const hash = signed?.hashes[i - signed.from];
    if (hash !== undefined && hash !== '') knownSignedHash(entry, hash);
    try {
      if (!isWithheld(e)) {
        const verdict = check(state, entry);
        if (verdict !== undefined) {
          problems.add(
            'rules',
            i,
            `${e.type}: the record answers it "already so" (${JSON.stringify(verdict.already)}); it should not be on the log`,
          );
          return state;
        }
      }
      applyEntry(state, entry);
      if (progress !== undefined && i === total - 1) progress(total, total);
    } catch (err) {
      problems.add('rules', i, `${e.type}: ${isArchiveError(err) ? `${err.code}: ${err.detail}` : (err as Error).message}`);
      return state;
    }
  }
  return state;
}

/**
 * The entries served with their text withheld as an item out of view are exactly the entries of
 * the items the replayed record holds out of view, each under the id the record gives it: text
 * hidden that the record does not withhold, a wrong id, or withheld text served whole, is caught.
 * Checks the entries from `from` on (an incremental run from a cache holds no others).
 */
export function checkOutOfView(log: LogCopy, state: State, problems: Problems, from = 0): void {
  for (let i = from; i < log.entries.length; i++) checkEntryOutOfView(log.entries[i]!, state, problems);
}

/** checkOutOfView of one entry. */
export function checkEntryOutOfView(e: ServedEntry, state: State, problems: Problems): void {
  const held = state.redacted.get(e.seq);
  if (held === e.subject) return;
  if (held === undefined)
    problems.add('rules', e.seq, `served with its text withheld as ${e.subject}, but the record holds no item out of view at this entry`);
  else
    problems.add(
      'rules',
      e.seq,
      `the record holds ${held} out of view at this entry; it is served ${e.subject === undefined ? 'whole' : `as ${e.subject}`}`,
    );
}
