// Snapshots of the record's state: a cache that lets the service start without replaying the
// whole log (docs/log-format.md, "Snapshots"). A snapshot is bound to the head it was taken at
// (tree size and root), to the code that folded it, and to the SHA-256 of its own bytes; at
// start-up it is used only if all three hold against the log and the code that is running, and
// otherwise discarded with one line saying why: the service then replays from zero. It is never
// an authority: the verifier never reads one.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import type { Log } from '../../log/index.js';
import { toHex } from '../../log/index.js';
import type { State } from '../record/state.js';
import { writeFileAtomic } from './atomic-file.js';

/** The format's name; a snapshot of another format is discarded, never migrated. */
export const SNAPSHOT_FORMAT = 'archive-snapshot/1';

/** Where a deployment keeps its snapshot: one file, replaced atomically. */
export const snapshotFile = (dataDir: string): string => join(dataDir, 'snapshots', 'state.snapshot');

interface Header {
  format: string;
  /** The folding code's identity (codeId): a state folded by other code may have another shape. */
  code: string;
  treeSize: number;
  rootHash: string;
  /** SHA-256 and length of the serialized state that follows the header line. */
  sha256: string;
  bytes: number;
}

let code: string | undefined;

/**
 * SHA-256 over the record's compiled code (every file of lib/record and lib/protocol, by path and
 * content): a snapshot written by other code is discarded, whatever its version says.
 */
export function codeId(): string {
  if (code !== undefined) return code;
  const h = createHash('sha256');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => {
        const p = join(dir, name);
        return statSync(p).isDirectory() ? walk(p) : p.endsWith('.js') ? [p] : [];
      });
  for (const p of [...walk(join(root, 'record')), ...walk(join(root, 'protocol'))]) {
    h.update(`${relative(root, p)}\n`);
    h.update(readFileSync(p));
  }
  return (code = h.digest('hex'));
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

/** The bytes of a snapshot of `state`, taken at the head of size state.size whose root is `rootHash`. */
export function encodeSnapshot(state: State, rootHash: string): Buffer {
  const body = serialize(writtenState(state));
  const header: Header = {
    format: SNAPSHOT_FORMAT,
    code: codeId(),
    treeSize: state.size,
    rootHash,
    sha256: createHash('sha256').update(body).digest('hex'),
    bytes: body.length,
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]);
}

/**
 * Writes a snapshot of `state` to `file`, atomically: a crash leaves the previous snapshot whole.
 * The state must be the committed log's (state.size === log.size); null when it moved on before
 * it could be serialized (the caller tries again). Serializing blocks the event loop for as long
 * as it takes (docs/benchmarks.md, bench:start).
 */
export async function writeSnapshot(file: string, state: State, log: Log): Promise<{ treeSize: number; bytes: number; ms: number } | null> {
  const size = state.size;
  if (size !== log.size) throw new Error(`the state holds ${size} entries, the committed log ${log.size}`);
  const t0 = performance.now();
  // The root first (the tree of this size never changes), then the state in one synchronous step.
  const root = toHex(await log.rootAt(size));
  if (state.size !== size) return null;
  const bytes = encodeSnapshot(state, root);
  const ms = performance.now() - t0;
  await mkdir(join(file, '..'), { recursive: true });
  await writeFileAtomic(file, bytes);
  return { treeSize: state.size, bytes: bytes.length, ms };
}

/** A snapshot's state, or why it cannot be used. */
export type Loaded = { state: State; treeSize: number } | { problem: string };

/** The state a snapshot's bytes hold, checked against its header and the running code (not yet against a log). */
export function decodeSnapshot(bytes: Buffer): (Loaded & { rootHash?: string }) | { problem: string } {
  const nl = bytes.indexOf(10);
  let h: Header;
  try {
    if (nl < 0) throw new Error('no header line');
    h = JSON.parse(bytes.subarray(0, nl).toString('utf8')) as Header;
  } catch {
    return { problem: 'its header is not JSON' };
  }
  if (h.format !== SNAPSHOT_FORMAT) return { problem: `its format is ${JSON.stringify(h.format)}, not ${SNAPSHOT_FORMAT}` };
  if (h.code !== codeId()) return { problem: 'it was written by other code than this' };
  const body = bytes.subarray(nl + 1);
  if (body.length !== h.bytes) return { problem: `it holds ${body.length} bytes of state, its header says ${h.bytes} (truncated)` };
  if (createHash('sha256').update(body).digest('hex') !== h.sha256) return { problem: 'its state does not hash to its digest' };
  let state: State;
  try {
    state = deserialize(body) as State;
  } catch (err) {
    return { problem: `its state cannot be read (${(err as Error).message})` };
  }
  if (state.size !== h.treeSize) return { problem: `its state holds ${state.size} entries, its head says ${h.treeSize}` };
  return { state, treeSize: h.treeSize, rootHash: h.rootHash };
}

/** Reads the snapshot in `file` and checks it against `log` and the running code; null when there is none. */
export async function loadSnapshot(file: string, log: Log): Promise<Loaded | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `it cannot be read (${(err as Error).message})` };
  }
  const d = decodeSnapshot(bytes);
  if ('problem' in d) return d;
  if (d.treeSize > log.size) return { problem: `it was taken at size ${d.treeSize}, beyond the log's ${log.size} entries` };
  if (toHex(await log.rootAt(d.treeSize)) !== d.rootHash)
    return { problem: `its head (size ${d.treeSize}, root ${d.rootHash}) is not a prefix of this log` };
  return { state: d.state, treeSize: d.treeSize };
}
