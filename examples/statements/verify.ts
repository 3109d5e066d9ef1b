// The statement log's verifier (docs/engine.md, "The example"): given a copy of the log (its
// key and origin, a signed head, its checkpoint and every entry as served), it checks each
// entry's hashes and chain, each statement under the rule, the root and signature of the head
// and the checkpoint, all with the engine's helpers from log/index.ts. Proof checks take the
// proofs the log serves.
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { logVerifier, parsePublicKey } from '../../lib/protocol/ed25519.js';
import {
  checkpointText,
  fromHex,
  openNote,
  rootFromLeafHashes,
  toHex,
  verifyConsistency,
  verifyHeadSignature,
  verifyInclusion,
  type SignedTreeHead,
} from 'tlog-engine';
import { statementProblem } from './rule.js';
import { entryHashes, ZERO_HASH } from '../../lib/protocol/log-entry.js';

/** An entry as GET /v1/log/entries serves it. */
export interface ServedEntry {
  seq: number;
  ts: string;
  type: string;
  payloadHash: string;
  prevHash: string;
  entryHash: string;
  payload: unknown;
}

export interface StatementLogCopy {
  /** The log key (base64url DER SPKI), trusted out of band, and the log's origin. */
  key: string;
  origin: string;
  sth: SignedTreeHead;
  checkpoint: string;
  entries: ServedEntry[];
}

/** The first problem, naming the entry (seq null: the head), or null when the copy holds. */
export type Problem = { seq: number | null; detail: string } | null;

export function verifyStatementLog(copy: StatementLogCopy): Problem {
  const { key, origin, sth, entries } = copy;
  if (!verifyHeadSignature(sth, logVerifier(key))) return { seq: null, detail: 'the head signature does not verify with the log key' };
  if (entries.length !== sth.treeSize) return { seq: null, detail: `the head has ${sth.treeSize} entries, the copy ${entries.length}` };
  const leaves: Uint8Array[] = [];
  let prevHash = ZERO_HASH;
  for (const [seq, e] of entries.entries()) {
    if (e.seq !== seq) return { seq, detail: `entry served as seq ${e.seq}` };
    if (e.prevHash !== prevHash) return { seq, detail: 'prevHash is not the entry hash before it' };
    const h = entryHashes(seq, e.ts, e.type, canonicalize(e.payload), prevHash);
    if (h.payloadHash !== e.payloadHash) return { seq, detail: 'payloadHash does not recompute from the payload' };
    if (toHex(h.leafHash) !== e.entryHash) return { seq, detail: 'entryHash does not recompute from the leaf fields' };
    const problem = statementProblem(e.type, e.payload);
    if (problem !== null) return { seq, detail: problem };
    leaves.push(h.leafHash);
    prevHash = e.entryHash;
  }
  const root = rootFromLeafHashes(leaves);
  if (toHex(root) !== sth.rootHash) return { seq: null, detail: 'the head rootHash is not the root of the entries' };
  let note: { text: string; verified: boolean } | null = null;
  try {
    note = openNote(copy.checkpoint, { name: origin, rawPublicKey: parsePublicKey(key, 'key').raw }, (_k, m, sig) =>
      logVerifier(key)(m, sig),
    );
  } catch {
    // A malformed note is a checkpoint that does not hold.
  }
  if (note === null || !note.verified || note.text !== checkpointText(origin, sth.treeSize, root))
    return { seq: null, detail: 'the checkpoint does not match the head or does not verify' };
  return null;
}

/** Whether `proof` includes entry `e` in the tree of `sth`. */
export function inclusionHolds(e: ServedEntry, sth: SignedTreeHead, proof: string[]): boolean {
  const { leafHash } = entryHashes(e.seq, e.ts, e.type, canonicalize(e.payload), e.prevHash);
  return verifyInclusion(
    e.seq,
    sth.treeSize,
    leafHash,
    proof.map((h) => fromHex(h, 32)),
    fromHex(sth.rootHash, 32),
  );
}

/** Whether `proof` shows the tree of `older` is a prefix of the tree of `newer`. */
export function consistencyHolds(older: SignedTreeHead, newer: SignedTreeHead, proof: string[]): boolean {
  return verifyConsistency(
    older.treeSize,
    newer.treeSize,
    proof.map((h) => fromHex(h, 32)),
    fromHex(older.rootHash, 32),
    fromHex(newer.rootHash, 32),
  );
}

/** Fetches a copy of the statement log served at `url` (key, head, checkpoint, every entry). */
export async function fetchStatementLog(url: string): Promise<StatementLogCopy> {
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const { key, origin } = (await (await get('/v1/log/key')).json()) as { key: string; origin: string };
  // The head and checkpoint are read one after the other: a write in between is reported as a checkpoint that does not match.
  const sth = (await (await get('/v1/log/sth')).json()) as SignedTreeHead;
  const checkpoint = await (await get('/v1/log/checkpoint')).text();
  const entries: ServedEntry[] = [];
  while (entries.length < sth.treeSize) {
    const page = (await (await get(`/v1/log/entries?from=${entries.length}&limit=1000`)).json()) as { entries: ServedEntry[] };
    if (page.entries.length === 0) break;
    entries.push(...page.entries.slice(0, sth.treeSize - entries.length));
  }
  return { key, origin, sth, checkpoint, entries };
}
