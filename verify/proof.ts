// An offline proof bundle for one entry, in the spirit of C2SP tlog-proof: the entry as served,
// its RFC 9162 inclusion proof, and the signed head the proof ends at. `verifyProof` checks it
// with nothing but the log key: the entry's hashes, the proof to the head's root, the head's
// signature.
import { ArchiveClient } from '../lib/client/http.js';
import { fromHex, verifyInclusion, type SignedTreeHead } from 'tlog-engine';
import { entryHashes } from './entry-hashes.js';
import { headSigned } from './check-log.js';
import type { ServedEntry } from './source.js';
import type { PinnedKey } from './log-key.js';

export const PROOF_FORMAT = 'archive-proof/1';

export interface ProofBundle {
  format: typeof PROOF_FORMAT;
  origin: string;
  entry: ServedEntry;
  inclusion: { seq: number; treeSize: number; proof: string[] };
  sth: SignedTreeHead;
}

/** Fetches the bundle of entry `seq` at the service's current head. */
export async function fetchProof(client: ArchiveClient, seq: number): Promise<ProofBundle> {
  const get = async (path: string) => {
    const r = await client.get(path);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const key = await get('/v1/log/key');
  const sth = await get('/v1/log/sth');
  if (seq >= sth.treeSize) throw new Error(`seq ${seq} is not in the log (size ${sth.treeSize})`);
  const page = await get(`/v1/log/entries?from=${seq}&limit=1`);
  const inclusion = await get(`/v1/log/inclusion?seq=${seq}&size=${sth.treeSize}`);
  return { format: PROOF_FORMAT, origin: key.origin, entry: page.entries[0], inclusion, sth };
}

/** Why the bundle does not hold under the pinned key, or null when it does. */
export function proofProblem(b: ProofBundle, pinned: PinnedKey): string | null {
  if (b?.format !== PROOF_FORMAT) return `not a proof bundle (expected format ${PROOF_FORMAT})`;
  const e = b.entry;
  if (pinned.origin !== null && b.origin !== pinned.origin)
    return `the bundle is of origin ${b.origin}; the pinned vkey (--key) names ${pinned.origin}`;
  if (!headSigned(b.sth, pinned.key)) return `the head of size ${b.sth.treeSize} is not signed by the pinned key ${pinned.key}`;
  if (b.inclusion.seq !== e.seq || b.inclusion.treeSize !== b.sth.treeSize) return 'the inclusion proof is not for this entry and head';
  const { leaf, problems } = entryHashes(e, e.seq);
  if (problems.length > 0) return problems[0]!;
  let proof: Uint8Array[];
  try {
    proof = b.inclusion.proof.map((h) => fromHex(h, 32));
  } catch {
    return 'the inclusion proof is not a list of 64-hex hashes';
  }
  if (!verifyInclusion(e.seq, b.sth.treeSize, leaf, proof, fromHex(b.sth.rootHash, 32)))
    return `the inclusion proof does not lead to the head's root`;
  return null;
}
