// The numbers as served (docs/credence.md#claimscore-as-served-by-get-v2credence, 4.1 credence and frontier), as pure functions of
// the state: the service answers with these and the offline verifier recomputes them.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { State } from '../fold/state.js';
import { claimInView } from '../views/in-view.js';
import { CREDENCE_VERSION, round4, servedProbability, valueOfChecking } from './rules.js';
import type { Score } from './score.js';
import { keptCalibrations, keptOperatorCalibration } from './kept.js';
import { CHUNK } from './indexes.js';

/**
 * Claims shown in /v2/credence, the frontier and the lists: a claim whose paper (or external
 * claim) is out of view is left out (types/out-of-view.ts). Nothing on this record freezes
 * a claim, so out of view is the only way to be left out.
 */
export const inView = claimInView;

/** One claim's ClaimScore (credence/0.3). */
export function claimScore(state: State, ref: string) {
  const c = state.claims.get(ref)!;
  const s = state.numbers.scores.get(ref)!;
  return {
    ref: c.ref,
    paper: c.paper,
    external: c.external,
    kind: c.kind,
    prior: servedProbability(s.prior),
    ...(s.calibration === null ? {} : { calibration: round4(s.calibration) }),
    credence: servedProbability(s.credence),
    credenceVerified: servedProbability(s.credenceVerified),
    cap: s.cap,
    status: s.status,
    resolved: s.resolved,
    use: round4(s.use),
    dispute: round4(s.dispute),
    reproduced: s.reproduced,
    families: s.families,
    arguments: s.arguments,
    foundations: s.foundations.map((ref) => {
      const f = state.numbers.scores.get(ref)!;
      return { ref, credence: servedProbability(f.credence), status: f.status };
    }),
    lift: s.lift.map((l) => ({ ref: l.ref, from: servedProbability(l.from), to: servedProbability(l.to), gain: round4(l.gain) })),
  };
}

/** A claim's score serialised once: a Score is replaced, never changed, when its claim is rescored. */
const scoreJson = new WeakMap<Score, string>();

function claimJson(state: State, ref: string): string {
  const s = state.numbers.scores.get(ref)!;
  let json = scoreJson.get(s);
  if (json === undefined) {
    json = JSON.stringify(claimScore(state, ref));
    scoreJson.set(s, json);
  }
  return json;
}

interface Chunk {
  /** The chunkVersion it was made at. */
  version: number;
  /**
   * The chunk's text (its claims' ClaimScores, comma-separated) compressed (`squeeze`): the text
   * repeats the same keys and empty counts claim after claim. Held whole, the text of every claim
   * took more of the heap than the state itself (385 MiB at a million entries of the paper-heavy
   * shape); it is expanded a chunk at a time as it is sent.
   */
  packed: Buffer;
  /** The text's length in bytes; 0 when no claim of the chunk is in view. */
  bytes: number;
}

/**
 * A chunk's text compressed by Brotli at quality 5, with a hint of its size: about a 26th of its bytes, against a 13th
 * for deflate at level 1 (the compression before), at about 135 MB/s against 340 on this machine, and expanded as fast
 * (docs/benchmarks-history.md, "The served credence text by Brotli").
 */
function squeeze(text: string): Buffer {
  const bytes = Buffer.from(text);
  const params = { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length };
  return brotliCompressSync(bytes, { params });
}

// Kept by the state's numbers, which a rebuild of the state replaces (lib/service/live-record.ts).
const chunkCache = new WeakMap<State['numbers'], Chunk[]>();

/**
 * The body of GET /v2/credence, `{version, claims}` with the claims in log order, as pieces of
 * JSON text to send one after another, and their length in bytes. The claims are cut into
 * chunks of CHUNK; a chunk is made again only when a score in it changed, from each claim's
 * cached text, so a write costs the chunks it touched, not the whole body. Every chunk is made
 * (or found fresh) before this returns, so the pieces are the body at this state however many
 * writes land while they are sent; each is expanded only as it is read.
 */
export function credenceParts(state: State): { parts: Iterable<Buffer>; bytes: number } {
  const cache = chunksOf(state);
  const refs = state.numbers.index.refs;
  const head = `{"version":${JSON.stringify(CREDENCE_VERSION)},"claims":[`;
  const chunks: Buffer[] = [];
  let bytes = head.length + 2;
  for (let k = 0; k * CHUNK < refs.length; k++) {
    const chunk = chunkAt(state, cache, k);
    if (chunk.bytes === 0) continue;
    if (chunks.length > 0) bytes++;
    chunks.push(chunk.packed);
    bytes += chunk.bytes;
  }
  return { parts: pieces(head, chunks), bytes };
}

const COMMA = Buffer.from(',');

function* pieces(head: string, chunks: readonly Buffer[]): Generator<Buffer> {
  yield Buffer.from(head);
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0) yield COMMA;
    yield brotliDecompressSync(chunks[i]!);
  }
  yield Buffer.from(']}');
}

/** Claims made into text in one step of credenceMade: a step takes a few milliseconds, a whole chunk tens on a loaded machine. */
export const SLICE = 128;

/**
 * Makes each chunk of credenceParts' body that is not made yet, `slice` claims a step (yielding the chunk the step worked
 * on): a caller takes a turn of its event loop between steps, so that the service answers meanwhile, and the first reader of
 * GET /v2/credence does not make the whole body (a million claims take seconds). A chunk whose scores change while it is made
 * is kept at the version it was begun at, so it is made again when next asked for.
 */
export function* credenceMade(state: State, slice = SLICE): Generator<number> {
  const cache = chunksOf(state);
  for (let k = 0; k * CHUNK < state.numbers.index.refs.length; k++) if (!fresh(state, cache, k)) yield* chunkSteps(state, cache, k, slice);
}

/**
 * What a service makes after it starts, a step at a time (its caller takes a turn of its event loop between steps): each
 * operator's calibration prefix sums (kept.ts, `keptCalibrations`: a snapshot holds none), then the served credence text.
 */
export function* afterStart(state: State): Generator<unknown> {
  yield* keptCalibrations(state);
  yield* credenceMade(state);
}

const chunksOf = (state: State): Chunk[] => {
  let cache = chunkCache.get(state.numbers);
  if (cache === undefined) chunkCache.set(state.numbers, (cache = []));
  return cache;
};

/** Whether chunk `k` is made, and no score in it changed since. */
const fresh = (state: State, cache: Chunk[], k: number): boolean =>
  cache[k] !== undefined && cache[k].version === state.numbers.chunkVersion[k];

/** Chunk `k` of the claims' text, made again if a score in it changed since it was made. */
function chunkAt(state: State, cache: Chunk[], k: number): Chunk {
  if (!fresh(state, cache, k)) for (const _ of chunkSteps(state, cache, k, Infinity));
  return cache[k]!;
}

/** Makes chunk `k` of the claims' text, `slice` claims a step (yields k after each step but the last), and keeps it. */
function* chunkSteps(state: State, cache: Chunk[], k: number, slice: number): Generator<number> {
  const version = state.numbers.chunkVersion[k]!;
  const refs = state.numbers.index.refs;
  const texts: string[] = [];
  const end = Math.min(refs.length, (k + 1) * CHUNK);
  for (let i = k * CHUNK; i < end; i++) {
    const ref = refs.at(i);
    if (inView(state, ref)) texts.push(claimJson(state, ref));
    if ((i + 1 - k * CHUNK) % slice === 0) yield k;
  }
  const text = texts.join(',');
  cache[k] = { version, packed: squeeze(text), bytes: Buffer.byteLength(text) };
  yield k;
}

/** The value of checking a claim: (use + 0.5) p (1 - p), p its credence. */
export function claimValue(state: State, ref: string): number {
  const s = state.numbers.scores.get(ref)!;
  return valueOfChecking(s.use, s.credence);
}

/** The numbers a challenge, a queue item or a heartbeat shows of a claim. */
export function claimNumbers(state: State, ref: string) {
  const s = state.numbers.scores.get(ref)!;
  return {
    credence: servedProbability(s.credence),
    credenceVerified: servedProbability(s.credenceVerified),
    status: s.status,
    use: round4(s.use),
    dispute: round4(s.dispute),
    value: round4(claimValue(state, ref)),
  };
}

/** An operator's calibration over all its resolved paper claims (the heartbeat's standing). */
export function operatorCalibration(state: State, operatorId: string): { rho: number; resolved: number } {
  const c = keptOperatorCalibration(state, operatorId);
  return { rho: round4(c.rho), resolved: c.resolved };
}

/** What the record summary says of operators verified by the record (docs/api.md#the-records-reads). */
export function verifiedByRecord(state: State) {
  return [...state.verified]
    .sort(([a, x], [b, y]) => x.round - y.round || x.seq - y.seq || (a < b ? -1 : 1))
    .map(([operatorId, v]) => ({ operatorId, round: v.round, seq: v.seq, ...pick(v, ['receipts', 'sources', 'reports', 'right']) }));
}

function pick<T extends object>(o: T, keys: (keyof T)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
