// What a client of the directory does on its own, given nothing but the log's vkey: make signed statements, and check a lookup or
// a history before trusting it, with the engine's verify functions (README.md#checking-an-answer).
import { sign, type KeyObject } from 'node:crypto';
import { ed25519Verify, hashLeaf, openNote, parseCheckpoint, parseVerifierKey, verifyInclusion, type Checkpoint } from 'tlog-engine';
import { parseEntry, signedBy, signedMessage, type Entry } from './binding.js';
import type { HistoryAnswer, LookupAnswer, Proved } from './keydir.js';

/** An answer that does not hold; the message says which part. */
export class ProofError extends Error {}

/** A binding checked against a signed checkpoint. */
export interface Checked extends Entry {
  seq: number;
  /** The size of the tree it was proved in. */
  treeSize: number;
}

/** What POST /keys takes: a statement, `prev` omitted for a first binding. */
export interface StatementBody {
  name: string;
  publicKey: string;
  prev?: number;
  signature: string;
}

/** The statement binding `name` to `publicKey`, signed by `signer` (the key itself for a first binding, else the current key). */
export function signStatement(signer: KeyObject, s: { name: string; publicKey: string; prev?: number }): StatementBody {
  const signature = sign(null, signedMessage({ ...s, prev: s.prev ?? null }), signer).toString('base64url');
  return { name: s.name, publicKey: s.publicKey, ...(s.prev === undefined ? {} : { prev: s.prev }), signature };
}

/** The tree of a checkpoint signed by the log key `vkey`, whose origin is the key's name. */
function checkpointOf(note: unknown, vkey: string): Checkpoint {
  const key = parseVerifierKey(vkey);
  let opened: { text: string; verified: boolean };
  try {
    opened = openNote(String(note), key, ed25519Verify);
  } catch (err) {
    throw new ProofError(`checkpoint: not a signed note (${(err as Error).message})`);
  }
  if (!opened.verified) throw new ProofError('checkpoint: not signed by the log key');
  const cp = parseCheckpoint(opened.text);
  if (cp.origin !== key.name) throw new ProofError(`checkpoint: of the log ${cp.origin}, not ${key.name}`);
  return cp;
}

/** The entry of `p`, once its leaf (its bytes) is shown to be entry `p.seq` of the checkpoint's tree. */
function included(p: Proved, cp: Checkpoint, name: string): Checked {
  if (!Number.isSafeInteger(p.seq) || p.seq < 0 || p.seq >= cp.treeSize)
    throw new ProofError(`seq: ${p.seq} is not in a tree of ${cp.treeSize}`);
  if (typeof p.entry !== 'string' || !Array.isArray(p.proof)) throw new ProofError('entry, proof: expected a string and a list');
  const proof = p.proof.map((h) => Buffer.from(String(h), 'base64'));
  const leafHash = hashLeaf(new TextEncoder().encode(p.entry));
  if (!verifyInclusion(p.seq, cp.treeSize, leafHash, proof, cp.rootHash))
    throw new ProofError(`proof: entry ${p.seq} as given is not in the tree of the checkpoint`);
  let entry: Entry;
  try {
    entry = parseEntry(p.entry);
  } catch (err) {
    throw new ProofError(`entry ${p.seq}: not an entry of the directory (${(err as Error).message})`);
  }
  if (entry.name !== name) throw new ProofError(`entry ${p.seq}: binds ${entry.name}, not ${name}`);
  return { ...entry, seq: p.seq, treeSize: cp.treeSize };
}

/**
 * Checks a lookup of `name` against the log key `vkey`: the checkpoint is the log's, the entry
 * is in its tree, binds `name` to the key the answer says, and (a first binding) is signed by it.
 * The entry of a rotation is signed by the key before it, which the history shows.
 */
export function verifyLookup(answer: LookupAnswer, want: { vkey: string; name: string }): Checked {
  const cp = checkpointOf(answer.checkpoint, want.vkey);
  const b = included(answer, cp, want.name);
  if (answer.name !== want.name) throw new ProofError(`name: the answer is for ${answer.name}, not ${want.name}`);
  if (b.publicKey !== answer.publicKey) throw new ProofError(`publicKey: the entry binds ${b.publicKey}, not ${answer.publicKey}`);
  if (b.prev === null && !signedBy(b, b.publicKey)) throw new ProofError(`entry ${b.seq}: a first binding not signed by its own key`);
  return b;
}

/**
 * Checks a history of `name` against `vkey`: every binding is in the checkpoint's tree, the
 * first is signed by its own key, and each next one names the one before as prev and is signed
 * by its key. Gives the bindings, oldest first.
 */
export function verifyHistory(answer: HistoryAnswer, want: { vkey: string; name: string }): Checked[] {
  const cp = checkpointOf(answer.checkpoint, want.vkey);
  if (answer.name !== want.name) throw new ProofError(`name: the answer is for ${answer.name}, not ${want.name}`);
  if (!Array.isArray(answer.bindings) || answer.bindings.length === 0) throw new ProofError('bindings: none');
  const out: Checked[] = [];
  for (const p of answer.bindings) {
    const b = included(p, cp, want.name);
    const before = out.at(-1);
    if (b.prev !== (before?.seq ?? null))
      throw new ProofError(`entry ${b.seq}: prev ${b.prev} is not the binding before it (${before?.seq ?? 'none'})`);
    if (!signedBy(b, before?.publicKey ?? b.publicKey))
      throw new ProofError(`entry ${b.seq}: not signed by ${before === undefined ? 'its own key' : `the key of entry ${before.seq}`}`);
    out.push(b);
  }
  return out;
}
