// The audit (spec 4.2 GET /v1/log/audit): re-walks the stored chain and recomputes every
// payload hash, entry hash, stored interior hash and the root, and checks the signed head and
// its checkpoint. It reports the first problem found, naming its seq (null for the head).
import { checkpointText, openNote } from './checkpoint.js';
import { ZERO_HASH, leafInput, parseLeafInput, splitEntryRecord } from './entry.js';
import { foldRight, pushLeaf, type FrontierNode } from './frontier.js';
import { bytesEqual, sha256, toHex } from './hash.js';
import { verifyHeadSignature, type LogVerifier } from './head.js';
import { hashLeaf } from './merkle.js';
import type { LogStore } from './store.js';

export interface AuditProblem {
  /** The first bad entry's seq; null when the problem is in the head. */
  seq: number | null;
  detail: string;
}

export interface AuditReport {
  intact: boolean;
  problem: AuditProblem | null;
  /** Entries walked. */
  treeSize: number;
}

export interface AuditOptions {
  store: LogStore;
  /** Checks a raw signature by the log key. */
  verify: LogVerifier;
  origin: string;
  /** The log key's raw 32 bytes, to recompute the checkpoint's note signature line. */
  publicKey: Uint8Array;
  /** Entries read per store call. */
  page?: number;
}

const encoder = new TextEncoder();

export async function auditLog(opts: AuditOptions): Promise<AuditReport> {
  const { store, verify, origin, publicKey } = opts;
  const page = opts.page ?? 10_000;
  const head = await store.readHead();
  const report = (seq: number | null, detail: string, size: number): AuditReport => ({
    intact: false,
    problem: { seq, detail },
    treeSize: size,
  });
  if (head === null) {
    const stray = await store.readEntries(0, 1);
    if (stray.length > 0) return report(0, 'entry stored without a signed head', 0);
    return { intact: true, problem: null, treeSize: 0 };
  }
  if (!verifyHeadSignature(head, verify)) return report(null, 'head signature does not verify with the log key', 0);

  const frontier: FrontierNode[] = [];
  let prev = ZERO_HASH;
  for (let from = 0; from < head.treeSize; from += page) {
    const n = Math.min(page, head.treeSize - from);
    const [records, groups] = await Promise.all([store.readEntries(from, n), store.readGroups(from, n)]);
    for (let i = 0; i < n; i++) {
      const seq = from + i;
      const record = records[i];
      if (record === undefined) return report(seq, 'entry missing', seq);
      const { leaf, payload } = splitEntryRecord(record);
      const fields = parseLeafInput(leaf);
      if (fields === null || leafInput(fields) !== leaf) return report(seq, 'leaf input is not canonical', seq);
      if (fields.seq !== seq) return report(seq, `entry says seq ${fields.seq}`, seq);
      if (fields.prevHash !== prev) return report(seq, 'prevHash is not the previous entry hash', seq);
      if (fields.payloadHash !== toHex(sha256(encoder.encode(payload)))) {
        return report(seq, 'payloadHash does not match the payload', seq);
      }
      const entryHash = hashLeaf(encoder.encode(leaf));
      const group = pushLeaf(frontier, entryHash, seq);
      const stored = groups[i];
      if (stored === undefined || !bytesEqual(stored, group)) {
        return report(seq, 'stored interior hashes do not match the entries', seq);
      }
      prev = toHex(entryHash);
    }
  }
  const beyond = await store.readEntries(head.treeSize, 1);
  if (beyond.length > 0) return report(head.treeSize, 'entry stored beyond the signed head', head.treeSize);
  const root = foldRight(frontier.map((f) => f.hash));
  if (toHex(root) !== head.rootHash) return report(null, 'head rootHash does not match the entries', head.treeSize);
  if (!checkpointHolds(head.checkpoint, checkpointText(origin, head.treeSize, root), origin, publicKey, verify)) {
    return report(null, 'checkpoint does not match the head or its signature does not verify', head.treeSize);
  }
  return { intact: true, problem: null, treeSize: head.treeSize };
}

/** The stored checkpoint is exactly `text`, signed by the log key (C2SP signed-note). */
function checkpointHolds(note: string, text: string, origin: string, publicKey: Uint8Array, verify: LogVerifier): boolean {
  try {
    const opened = openNote(note, { name: origin, rawPublicKey: publicKey }, (_k, m, sig) => verify(m, sig));
    return opened.verified && opened.text === text;
  } catch {
    return false;
  }
}
