// The audit (spec 4.2 GET /v1/log/audit): re-walks the stored chain and recomputes every
// payload hash, entry hash, stored interior hash and the root, and checks the signed head and
// its checkpoint. It reports the first problem found, naming its seq (null for the head).
import { checkpointText, openNote } from './checkpoint.js';
import { ZERO_HASH, hashLeafText, leafInput, parseLeafInput, splitEntryRecord } from './entry.js';
import { bytesEqual, sha256TextHex, toHex } from './hash.js';
import { verifyHeadSignature, type LogVerifier } from './head.js';
import type { LogStore } from './store.js';
import { TILE_HEIGHT, TILE_WIDTH, decodeTile, type TileId } from './tiles.js';
import { TreeEdge, type WrittenTile } from './tree-edge.js';

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
  /** The log key's raw 32 bytes: the checkpoint's note key. */
  publicKey: Uint8Array;
  /** Entries read per store call. */
  page?: number;
}

export async function auditLog(opts: AuditOptions): Promise<AuditReport> {
  const { store, verify, origin, publicKey } = opts;
  const page = opts.page ?? 8192;
  const head = await store.readHead();
  const bad = (seq: number | null, detail: string, size = head?.treeSize ?? 0): AuditReport => ({
    intact: false,
    problem: { seq, detail },
    treeSize: size,
  });
  if (head === null) {
    if ((await store.readEntries(0, 1)).length > 0) return bad(0, 'entry stored without a signed head');
    return { intact: true, problem: null, treeSize: 0 };
  }
  if (!verifyHeadSignature(head, verify)) return bad(null, 'head signature does not verify with the log key');

  const edge = new TreeEdge(0);
  let prev = ZERO_HASH;
  for (let from = 0; from < head.treeSize; from += page) {
    const n = Math.min(page, head.treeSize - from);
    const records = await store.readEntries(from, n);
    let entryProblem: AuditProblem | null = null;
    for (let i = 0; i < n && entryProblem === null; i++) {
      const seq = from + i;
      const problem = checkEntry(records[i], seq, prev);
      if (typeof problem === 'string') entryProblem = { seq, detail: problem };
      else {
        edge.push(problem.leafHash);
        prev = problem.entryHash;
      }
    }
    // Stored tiles must hold exactly the hashes recomputed so far; a tile problem at an
    // earlier seq than an entry problem in the same page is the first problem.
    const tileSeq = await firstTileMismatch(store, edge.takeChanged(), edge.size === head.treeSize);
    if (tileSeq !== null && (entryProblem === null || tileSeq < entryProblem.seq!)) {
      return bad(tileSeq, 'stored interior hashes do not match the entries');
    }
    if (entryProblem !== null) return bad(entryProblem.seq, entryProblem.detail);
  }
  if ((await store.readEntries(head.treeSize, 1)).length > 0) return bad(head.treeSize, 'entry stored beyond the signed head');
  const root = edge.root();
  if (toHex(root) !== head.rootHash) return bad(null, 'head rootHash does not match the entries');
  if (!checkpointHolds(head.checkpoint, checkpointText(origin, head.treeSize, root), origin, publicKey, verify)) {
    return bad(null, 'checkpoint does not match the head or its signature does not verify');
  }
  return { intact: true, problem: null, treeSize: head.treeSize };
}

/** Checks one stored entry record; its hashes, or what is wrong with it. */
function checkEntry(record: string | undefined, seq: number, prev: string): { leafHash: Uint8Array; entryHash: string } | string {
  if (record === undefined) return 'entry missing';
  const { leaf, payload } = splitEntryRecord(record);
  const fields = parseLeafInput(leaf);
  if (fields === null || leafInput(fields) !== leaf) return 'leaf input is not canonical';
  if (fields.seq !== seq) return `entry says seq ${fields.seq}`;
  if (fields.prevHash !== prev) return 'prevHash is not the previous entry hash';
  if (fields.payloadHash !== sha256TextHex(payload)) return 'payloadHash does not match the payload';
  const leafHash = hashLeafText(leaf);
  return { leafHash, entryHash: toHex(leafHash) };
}

/**
 * Compares recomputed tiles with the stored ones: every recomputed hash must be stored in its
 * place, and at the end of the log a stored tile may hold nothing more. Returns the seq at which
 * the first mismatching node was completed (its last leaf), or null.
 */
async function firstTileMismatch(store: LogStore, tiles: WrittenTile[], atEnd: boolean): Promise<number | null> {
  const stored = await store.getTiles(tiles.map((t) => t.id));
  let first: number | null = null;
  tiles.forEach((t, i) => {
    const want = decodeTile(t.bytes)!;
    const have = stored[i] === undefined ? undefined : decodeTile(stored[i]!);
    for (let r = 0; r < TILE_HEIGHT; r++) {
      const n = atEnd ? Math.max(want[r]!.length, have?.[r]?.length ?? 0) : want[r]!.length;
      for (let p = 0; p < n; p++) {
        const a = want[r]![p];
        const b = have?.[r]?.[p];
        if (a === undefined || b === undefined || !bytesEqual(a, b)) {
          const seq = completedAt(t.id, r, a === undefined ? want[r]!.length : p);
          if (first === null || seq < first) first = seq;
          break;
        }
      }
    }
  });
  return first;
}

/** The seq of the last leaf under node (row, pos) of tile `id`. */
function completedAt(id: TileId, row: number, pos: number): number {
  const level = TILE_HEIGHT * id.level + row;
  const index = id.index * (TILE_WIDTH / 2 ** row) + pos;
  return (index + 1) * 2 ** level - 1;
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
