// The statement log's verifier: given the log's vkey, it fetches the signed checkpoint and every entry and checks them, and the
// proofs the log serves, with the engine's verify functions (README.md#the-verifier).
import {
  bytesEqual,
  ed25519Verify,
  hashLeaf,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  rootFromLeafHashes,
  toHex,
  verifyConsistency,
  verifyInclusion,
  type Checkpoint,
} from 'tlog-engine';
import { entryProblem } from './rule.js';

/** An entry as GET /v1/log/entries serves it: its stored bytes (the leaf) in base64, its leaf hash in hex. */
export interface ServedEntry {
  seq: number;
  data: string;
  leafHash: string;
}

/** A copy of the log as served: its checkpoint, and every entry of its tree. */
export interface StatementLogCopy {
  checkpoint: string;
  entries: ServedEntry[];
}

/** The first problem, naming the entry (seq null: the checkpoint or the whole), or null when the copy holds. */
export type Problem = { seq: number | null; detail: string } | null;

/** The tree of a checkpoint signed by the log key `vkey` whose origin is the key's name, or null when it is not one. */
export function openCheckpoint(note: string, vkey: string): Checkpoint | null {
  try {
    const opened = openNote(note, vkey, ed25519Verify);
    const cp = parseCheckpoint(opened.text);
    return opened.verified && cp.origin === parseVerifierKey(vkey).name ? cp : null;
  } catch {
    return null; // not a signed note, or not a checkpoint
  }
}

/** Strict standard base64 (the entries' `data`), or null. */
function fromBase64(s: unknown): Uint8Array | null {
  if (typeof s !== 'string') return null;
  const bytes = Buffer.from(s, 'base64');
  return bytes.toString('base64') === s ? new Uint8Array(bytes) : null;
}

/** Checks a copy of the log against the log key `vkey`. */
export function verifyStatementLog(copy: StatementLogCopy, vkey: string): Problem {
  const cp = openCheckpoint(copy.checkpoint, vkey);
  if (cp === null) return { seq: null, detail: 'the checkpoint is not signed by the log key' };
  if (copy.entries.length !== cp.treeSize)
    return { seq: null, detail: `the checkpoint's tree has ${cp.treeSize} entries, the copy ${copy.entries.length}` };
  const leafHashes: Uint8Array[] = [];
  for (const [seq, e] of copy.entries.entries()) {
    if (e.seq !== seq) return { seq, detail: `entry served as seq ${e.seq}` };
    const leaf = fromBase64(e.data);
    if (leaf === null) return { seq, detail: 'data is not standard base64' };
    const leafHash = hashLeaf(leaf);
    if (toHex(leafHash) !== e.leafHash) return { seq, detail: 'leafHash does not recompute from data' };
    const problem = entryProblem(leaf);
    if (problem !== null) return { seq, detail: problem };
    leafHashes.push(leafHash);
  }
  if (!bytesEqual(rootFromLeafHashes(leafHashes), cp.rootHash))
    return { seq: null, detail: "the checkpoint's root is not the root of the entries" };
  return null;
}

const hashes = (proof: string[]) => proof.map((h) => Buffer.from(h, 'hex'));

/** Whether `proof` (hex, as GET /v1/log/inclusion serves it) includes entry `e` in the tree of `cp`. */
export function inclusionHolds(e: ServedEntry, cp: Checkpoint, proof: string[]): boolean {
  const leaf = fromBase64(e.data);
  return leaf !== null && verifyInclusion(e.seq, cp.treeSize, hashLeaf(leaf), hashes(proof), cp.rootHash);
}

/** Whether `proof` (hex, as GET /v1/log/consistency serves it) shows the tree of `older` is a prefix of the tree of `newer`. */
export function consistencyHolds(older: Checkpoint, newer: Checkpoint, proof: string[]): boolean {
  return verifyConsistency(older.treeSize, newer.treeSize, hashes(proof), older.rootHash, newer.rootHash);
}

/** Fetches a copy of the statement log served at `url`: its checkpoint, then every entry of that checkpoint's tree. */
export async function fetchStatementLog(url: string): Promise<StatementLogCopy> {
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const checkpoint = await (await get('/v1/log/checkpoint')).text();
  // The size is read before the checkpoint is checked: verifyStatementLog checks it.
  const size = Number(checkpoint.split('\n')[1]);
  const entries: ServedEntry[] = [];
  while (entries.length < size) {
    const page = (await (await get(`/v1/log/entries?from=${entries.length}&limit=1000`)).json()) as { entries: ServedEntry[] };
    if (page.entries.length === 0) break;
    entries.push(...page.entries.slice(0, size - entries.length));
  }
  return { checkpoint, entries };
}
