// The record's state (state.ts) and the fold that makes it: one entry (apply.ts), the whole log (replay.ts), what falls due
// (scheduler.ts), the state's digest (digest.ts) and the state as bytes (state-codec.ts).
// Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export { applyEntry, check, countsOf } from './apply.js';
export { stateDigest, stateJson } from './digest.js';
export { recordEntry, replayEntries, replayStore } from './replay.js';
export { type DueEvent, dueEvents } from './scheduler.js';
export {
  type Agent,
  type Argument,
  type CheckKey,
  type Claim,
  type Doorbell,
  type Paper,
  DAY,
  emptyState,
  type Receipt,
  type RecordEntry,
  type SignedWrite,
  type State,
  type Tier,
  tierOf,
} from './state.js';
export {
  encodeState,
  encodeStateAsync,
  encodeStateChunks,
  readState,
  readStateFrom,
  stateBody,
  stateBodySync,
  stateHeader,
  writtenState,
} from './state-codec.js';
