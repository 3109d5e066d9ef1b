// A record state as bytes, for what keeps one to start from later: the service's snapshots
// (lib/service/snapshot.ts) and the verifier's saved replay (verify/saved-state.ts). One header line
// of JSON (the format, the folding code's identity, the SHA-256 and length of what follows, and
// whatever the caller binds it to), then the state by V8's structured clone, which keeps Maps,
// Sets, arrays and typed arrays (written as their raw bytes). What the state keeps as columns
// (columns.ts) is written as the columns themselves, and their indexes are built again when read.
// Pure: the caller reads and writes the bytes.
import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { State } from './state.js';
import { Reviews, type ReviewsData } from './review-store.js';
import { Reports, type ReportsData } from './reports.js';
import { SeenIndex, type SeenData } from './seen-index.js';
import { History, type HistoryData } from './numbers/history.js';
import { ReportPairs, type ReportPairsData } from './numbers/report-pairs.js';
import type { Numbers } from './numbers/index.js';

export interface StateHeader {
  format: string;
  /** The folding code's identity (lib/protocol/code-id.ts): a state folded by other code may have another shape. */
  code: string;
  /** The state holds the first `treeSize` entries of the log whose root at that size is `rootHash` (hex). */
  treeSize: number;
  rootHash: string;
  /** SHA-256 and length of the serialized state that follows the header line. */
  sha256: string;
  bytes: number;
}

/** The state as it is written: the stores of columns as their data (`pack`). */
interface Written extends Omit<State, 'reviews' | 'reportsByKey' | 'seen' | 'numbers'> {
  reviews: ReviewsData;
  reportsByKey: ReportsData;
  seen: SeenData;
  numbers: Omit<Numbers, 'history' | 'tallies'> & {
    history: HistoryData;
    tallies: Omit<Numbers['tallies'], 'pairs'> & { pairs: ReportPairsData };
  };
}

/**
 * The state as it is written: the stores of columns as their columns, and everything else but
 * the claims' kept evidence aggregates (objects with methods, which a structured clone does not
 * keep). A restored state builds each aggregate again from the claim's items when it next scores
 * the claim, which gives the very same numbers (docs/credence.md#how-the-service-keeps-them).
 */
export function writtenState(state: State): Written {
  const n = state.numbers;
  return {
    ...state,
    reviews: state.reviews.pack(),
    reportsByKey: state.reportsByKey.pack(),
    seen: state.seen.pack(),
    numbers: {
      ...n,
      history: n.history.pack(),
      tallies: { ...n.tallies, pairs: n.tallies.pairs.pack() },
      aggregates: { ...n.aggregates, evidence: new Map(), stale: new Set() },
    },
  };
}

/** The state written by `writtenState`, its stores of columns made again. */
function restoredState(w: Written): State {
  const n = w.numbers;
  return {
    ...w,
    reviews: Reviews.unpack(w.reviews),
    reportsByKey: Reports.unpack(w.reportsByKey),
    seen: SeenIndex.unpack(w.seen),
    numbers: {
      ...n,
      history: History.unpack(n.history),
      tallies: { ...n.tallies, pairs: ReportPairs.unpack(n.tallies.pairs) },
    },
  };
}

/** The bytes of `state` under a header of `format` with `extra` members (bound to the head of size state.size whose root is `rootHash`). */
export function encodeState<E extends object>(format: string, code: string, state: State, rootHash: string, extra?: E): Buffer {
  const body = serialize(writtenState(state));
  return framed(format, code, state.size, rootHash, body, createHash('sha256').update(body).digest('hex'), extra);
}

/**
 * encodeState, reading the state in one synchronous step (its structured clone, a copy made at
 * about the speed of memory for the columns), then hashing the copy and putting it under its
 * header a slice at a time between turns of the event loop (framedInTurns), so that the state
 * may move on meanwhile and the service answers while the bytes are made.
 */
export async function encodeStateAsync<E extends object>(
  format: string,
  code: string,
  state: State,
  rootHash: string,
  extra?: E,
): Promise<Buffer> {
  const size = state.size;
  const body = serialize(writtenState(state));
  return framedInTurns(format, code, size, rootHash, [body], extra);
}

/** Bytes hashed or copied in one turn of the event loop: a few milliseconds' work. */
const SLICE = 4 * 2 ** 20;
const turn = () => new Promise((r) => setImmediate(r));

/** Each slice of at most SLICE bytes of `chunks`, in order, a turn of the event loop after each. */
async function eachSlice(chunks: readonly Uint8Array[], f: (slice: Uint8Array) => void): Promise<void> {
  for (const c of chunks)
    for (let at = 0; at < c.length; at += SLICE) {
      f(c.subarray(at, at + SLICE));
      await turn();
    }
}

/**
 * The body made of `chunks`, in order, under a header of `format` and `code` (and `extra`
 * members), bound to the head of size `treeSize` whose root is `rootHash`. Hashed, then copied
 * into one buffer, a slice at a time between turns of the event loop: a snapshot of a hundred
 * MiB joined or hashed in one call would hold the service for most of a second.
 */
export async function framedInTurns<E extends object>(
  format: string,
  code: string,
  treeSize: number,
  rootHash: string,
  chunks: readonly Uint8Array[],
  extra?: E,
): Promise<Buffer> {
  const hash = createHash('sha256');
  let bytes = 0;
  await eachSlice(chunks, (slice) => {
    hash.update(slice);
    bytes += slice.length;
  });
  const header: StateHeader & Partial<E> = { ...(extra ?? ({} as E)), format, code, treeSize, rootHash, sha256: hash.digest('hex'), bytes };
  const line = Buffer.from(`${JSON.stringify(header)}\n`);
  const out = Buffer.allocUnsafe(line.length + bytes);
  line.copy(out, 0);
  let at = line.length;
  await eachSlice(chunks, (slice) => {
    out.set(slice, at);
    at += slice.length;
  });
  return out;
}

function framed<E extends object>(
  format: string,
  code: string,
  treeSize: number,
  rootHash: string,
  body: Buffer,
  sha256: string,
  extra: E | undefined,
): Buffer {
  const header: StateHeader & Partial<E> = { ...(extra ?? ({} as E)), format, code, treeSize, rootHash, sha256, bytes: body.length };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]);
}

/** The header of state bytes, checked against `format` and `code`, or why they cannot be used; the state is read only by `readState`. */
export function stateHeader<E extends object>(
  bytes: Buffer,
  format: string,
  code: string,
): { header: StateHeader & Partial<E>; body: Buffer } | { problem: string } {
  const nl = bytes.indexOf(10);
  let h: StateHeader & Partial<E>;
  try {
    if (nl < 0) throw new Error('no header line');
    h = JSON.parse(bytes.subarray(0, nl).toString('utf8')) as StateHeader & Partial<E>;
  } catch {
    return { problem: 'its header is not JSON' };
  }
  if (h.format !== format) return { problem: `its format is ${JSON.stringify(h.format)}, not ${format}` };
  if (h.code !== code) return { problem: 'it was written by other code than this' };
  if (!Number.isSafeInteger(h.treeSize) || h.treeSize < 0) return { problem: 'its header names no tree size' };
  const body = bytes.subarray(nl + 1);
  if (body.length !== h.bytes) return { problem: `it holds ${body.length} bytes of state, its header says ${h.bytes} (truncated)` };
  if (createHash('sha256').update(body).digest('hex') !== h.sha256) return { problem: 'its state does not hash to its digest' };
  return { header: h, body };
}

/** The state of a body `stateHeader` accepted, or why it cannot be read. */
export function readState(body: Buffer, treeSize: number): State | { problem: string } {
  let state: State;
  try {
    state = restoredState(deserialize(body) as Written);
  } catch (err) {
    return { problem: `its state cannot be read (${(err as Error).message})` };
  }
  if (state.size !== treeSize) return { problem: `its state holds ${state.size} entries, its header says ${treeSize}` };
  return state;
}
