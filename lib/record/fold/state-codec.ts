// A record state as bytes, for the service's snapshots and the verifier's saved replay: one header line of JSON, then the state
// in parts by V8's structured clone, the columns as their raw bytes (state-copy.ts;
// docs/log-format.md#snapshots-of-the-records-state-a-cache-not-protocol). Pure: the caller reads and writes the bytes.
import { copyBytes, copyBytesSync, copyState, readCopy, readCopyFrom, type BodySource } from './state-copy.js';
import { frameSnapshot, frameSnapshotChunks, openSnapshot } from 'tlog-engine';
import type { State } from './state.js';
import { Reviews, type ReviewsData } from '../stores/review-store.js';
import { Claims, type ClaimsData } from '../stores/claim-store.js';
import { Papers, type PapersData } from '../stores/paper-store.js';
import { Agents, Operators, type AgentsData, type OperatorsData } from '../stores/agent-store.js';
import { appendOnly, appendOnlyEach } from '../stores/columns.js';
import { Reports, type ReportsData } from '../stores/reports.js';
import { SeenIndex, type SeenData } from '../stores/replay-index.js';
import { ClaimReviews, type ClaimReviewsData } from '../numbers/claim-reviews.js';
import { History, type HistoryData } from '../numbers/history.js';
import { ReportPairs, type ReportPairsData } from '../numbers/report-pairs.js';
import { Scores, type ScoresData } from '../numbers/score-store.js';
import { packRanks, unpackRanks, type Numbers, type RanksData } from '../numbers/indexes.js';

/** A state's header line (the engine's snapshot header; the folding code's identity is lib/protocol/code-id.ts). */
export type { SnapshotHeader as StateHeader } from 'tlog-engine';

/** The state as it is written: the stores of columns as their data (`pack`). */
interface Written extends Omit<State, 'agents' | 'operators' | 'papers' | 'claims' | 'reviews' | 'reportsByKey' | 'seen' | 'numbers'> {
  agents: AgentsData;
  operators: OperatorsData;
  papers: PapersData;
  claims: ClaimsData;
  reviews: ReviewsData;
  reportsByKey: ReportsData;
  seen: SeenData;
  numbers: Omit<Numbers, 'index' | 'history' | 'tallies' | 'scores' | 'ranks'> & {
    /** Without the refs: they are the claims' (`claims.refs`), written once there. */
    index: Omit<Numbers['index'], 'reviewsByClaim' | 'refs'> & { reviewsByClaim: ClaimReviewsData };
    scores: ScoresData;
    ranks: RanksData;
    history: HistoryData;
    tallies: Omit<Numbers['tallies'], 'pairs'> & { pairs: ReportPairsData };
  };
}

/**
 * The state as it is written: the stores of columns as their columns, and everything else but
 * two caches of the fold: the claims' kept evidence aggregates (objects with methods, which a
 * structured clone does not keep) and the operators' calibration prefix sums (a list a claim, which
 * a snapshot would copy). A restored state builds each again, an aggregate from the claim's items
 * when it next scores the claim and a prefix from the operator's claims when it next reads it,
 * which gives the very same numbers (docs/credence.md#how-the-service-keeps-them).
 */
export function writtenState(state: State): Written {
  const n = state.numbers;
  const { refs: _refs, ...index } = n.index;
  return {
    ...state,
    agents: state.agents.pack(),
    operators: state.operators.pack(),
    papers: state.papers.pack(),
    claims: state.claims.pack(),
    reviews: state.reviews.pack(),
    reportsByKey: state.reportsByKey.pack(),
    seen: state.seen.pack(),
    numbers: {
      ...n,
      index: { ...index, reviewsByClaim: n.index.reviewsByClaim.pack() },
      scores: n.scores.pack(),
      history: n.history.pack(),
      ranks: packRanks(n.ranks),
      tallies: { ...n.tallies, pairs: n.tallies.pairs.pack() },
      aggregates: { ...n.aggregates, evidence: new Map(), stale: new Set(), calibration: new Map() },
    },
  };
}

/** The state written by `writtenState`, its stores of columns made again. */
function restoredState(w: Written): State {
  const n = w.numbers;
  appendOnlyEach(n.index.reviewsByOperator);
  appendOnlyEach(n.index.claimsByOperator);
  appendOnlyEach(n.index.papersByOperator);
  appendOnlyEach(w.reviewsByAgent);
  for (const tally of n.tallies.operators.values()) appendOnly(tally.claims);
  const claims = Claims.unpack(w.claims);
  const operators = Operators.unpack(w.operators);
  return {
    ...w,
    agents: new Agents(operators, w.agents),
    operators,
    papers: Papers.unpack(w.papers),
    claims,
    reviews: Reviews.unpack(w.reviews, claims),
    reportsByKey: Reports.unpack(w.reportsByKey),
    seen: SeenIndex.unpack(w.seen),
    numbers: {
      ...n,
      index: { ...n.index, refs: claims.refs, reviewsByClaim: ClaimReviews.unpack(n.index.reviewsByClaim) },
      scores: Scores.unpack(n.scores, claims),
      history: History.unpack(n.history, claims),
      ranks: unpackRanks(n.ranks),
      tallies: { ...n.tallies, pairs: ReportPairs.unpack(n.tallies.pairs) },
    },
  };
}

/** The bytes of `state` under a header of `format` with `extra` members (bound to the head of size state.size whose root is `rootHash`). */
export function encodeState<E extends object>(format: string, code: string, state: State, rootHash: string, extra?: E): Buffer {
  return Buffer.concat(encodeStateChunks(format, code, state, rootHash, extra));
}

/** encodeState's bytes as chunks not joined, to be written in turn before the state changes: the header line, then the state's chunks. */
export function encodeStateChunks<E extends object>(format: string, code: string, state: State, rootHash: string, extra?: E): Uint8Array[] {
  return frameSnapshotChunks({ format, code, treeSize: state.size, rootHash }, stateBodySync(state), extra);
}

/**
 * The state's bytes alone (the body of a snapshot), in chunks, in one synchronous step. The columns' chunks are views of the
 * state's own columns, not copies: they are to be joined or written before the state changes.
 */
export function stateBodySync(state: State): Uint8Array[] {
  return copyBytesSync(copyState(writtenState(state), 3, true));
}

/**
 * The state's bytes alone, in chunks: the state is read in one synchronous step, a copy (its
 * objects, and its columns that may change: state-copy.ts), before this returns; the copy is then
 * serialized a part per turn (`turn` waits for the next turn of the caller's event loop), so that
 * the state may move on meanwhile.
 */
export function stateBody(state: State, turn: () => Promise<unknown>): Promise<Uint8Array[]> {
  return copyBytes(copyState(writtenState(state)), turn);
}

/**
 * encodeState, reading the state in one synchronous step (stateBody's copy), then serializing,
 * hashing and putting the copy under its header between turns (`turn`; the engine's
 * frameSnapshot), so that the state may move on meanwhile; the bytes joined at the end (the
 * service writes the chunks as they are: the engine's Replica.snapshot).
 */
export async function encodeStateAsync<E extends object>(
  format: string,
  code: string,
  state: State,
  rootHash: string,
  turn: () => Promise<unknown>,
  extra?: E,
): Promise<Buffer> {
  const size = state.size;
  const body = stateBody(state, turn);
  return Buffer.concat(await frameSnapshot({ format, code, treeSize: size, rootHash }, await body, extra));
}

/** The header of state bytes, checked against `format` and `code`, or why they cannot be used; the state is read only by `readState`. */
export const stateHeader = openSnapshot;

/** The state of a body `stateHeader` accepted, or why it cannot be read. */
export function readState(body: Uint8Array, treeSize: number): State | { problem: string } {
  let state: State;
  try {
    state = restoredState(readCopy(body) as unknown as Written);
  } catch (err) {
    return { problem: `its state cannot be read (${(err as Error).message})` };
  }
  return sized(state, treeSize);
}

const sized = (state: State, treeSize: number): State | { problem: string } =>
  state.size === treeSize ? state : { problem: `its state holds ${state.size} entries, its header says ${treeSize}` };

/**
 * `readState` of a body read a piece at a time (the engine's SnapshotBody: from a file, each column straight into its own
 * buffer), as the engine's codecs answer (`decodeFrom`): the service's snapshot and the verifier's saved replay alike.
 */
export async function readStateFrom(body: BodySource, treeSize: number): Promise<{ state: State } | { problem: string }> {
  let state: State;
  try {
    state = restoredState((await readCopyFrom(body)) as unknown as Written);
  } catch (err) {
    return { problem: `its state cannot be read (${(err as Error).message})` };
  }
  const s = sized(state, treeSize);
  return 'problem' in s ? s : { state: s };
}
