// A record state as bytes, for what keeps one to start from later: the service's snapshots
// (lib/service/snapshot.ts) and the verifier's saved replay (verify/saved-state.ts). One header line
// of JSON (the format, the folding code's identity, the SHA-256 and length of what follows, and
// whatever the caller binds it to), then the state by V8's structured clone, which keeps Maps,
// Sets and arrays. Pure: the caller reads and writes the bytes.
import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { State } from './state.js';

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

/**
 * The state as it is written: everything but the claims' kept evidence aggregates (objects with
 * methods, which a structured clone does not keep). A restored state builds each again from the
 * claim's items when it next scores the claim, which gives the very same numbers
 * (docs/credence.md#how-the-service-keeps-them).
 */
export function writtenState(state: State): object {
  const n = state.numbers;
  return { ...state, numbers: { ...n, aggregates: { ...n.aggregates, evidence: new Map(), stale: new Set() } } };
}

/** The bytes of `state` under a header of `format` with `extra` members (bound to the head of size state.size whose root is `rootHash`). */
export function encodeState<E extends object>(format: string, code: string, state: State, rootHash: string, extra?: E): Buffer {
  const body = serialize(writtenState(state));
  const header: StateHeader & Partial<E> = {
    ...(extra ?? ({} as E)),
    format,
    code,
    treeSize: state.size,
    rootHash,
    sha256: createHash('sha256').update(body).digest('hex'),
    bytes: body.length,
  };
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
    state = deserialize(body) as State;
  } catch (err) {
    return { problem: `its state cannot be read (${(err as Error).message})` };
  }
  if (state.size !== treeSize) return { problem: `its state holds ${state.size} entries, its header says ${treeSize}` };
  return state;
}
