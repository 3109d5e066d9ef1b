// Replays and last-writer-wins, rules of the fold so that the live service, a replay and the verifier agree
// (docs/record.md#replays-and-last-writer-wins).
import { conflict, invalid } from './refusal.js';
import { payloadId } from '../../protocol/ids.js';
import { sha256TextHex } from 'tlog-engine';
import { payloadOf, type RecordEntry, type State } from '../fold/state.js';
import { isoMs, tsMs } from '../stores/columns.js';

/** How far a signed write's ts may be from the time it is taken (docs/record.md#service-events-and-time). */
export const TS_WINDOW_MS = 10 * 60 * 1000;
export const DOORBELL_TS_WINDOW_MS = 5 * 60 * 1000;

/** The window of a write type: 5 minutes for the doorbell, 10 for every other. */
export const tsWindow = (type: string): number => (type.startsWith('doorbell.') ? DOORBELL_TS_WINDOW_MS : TS_WINDOW_MS);

/**
 * How long (in log time after its entry) a signed write stays in the index. Its payload ts is
 * at most one window from its entry's ts, and a copy is refused by the window once its own
 * entry's ts is more than one window past that payload ts: two windows cover every copy the
 * window lets through.
 */
export const SEEN_FOR_MS = 2 * TS_WINDOW_MS;

/** Whether an entry is a signed write ({payload, signature}): every type but registrations and service events. */
export const isSignedWrite = (e: RecordEntry, serviceEvents: ReadonlySet<string>): boolean =>
  e.type !== 'agent.register' && !serviceEvents.has(e.type);

/** `{"payload":` opens a signed write's logged text; `,"signature":"<86 base64url>"}` closes it. */
const PAYLOAD_HEAD = '{"payload":';
const SIGNATURE_HEAD = ',"signature":"';
const SIGNATURE_TAIL_LENGTH = SIGNATURE_HEAD.length + 86 + 2;

/**
 * The signed bytes of a signed write's logged text: the canonical JSON of {payload, signature}
 * holds the payload's canonical JSON between its head and the signature (docs/log-format.md).
 * Null when the text is not of that shape.
 */
function signedSlice(text: string): string | null {
  const end = text.length - SIGNATURE_TAIL_LENGTH;
  if (end <= PAYLOAD_HEAD.length || !text.startsWith(PAYLOAD_HEAD) || !text.startsWith(SIGNATURE_HEAD, end) || !text.endsWith('"}'))
    return null;
  return text.slice(PAYLOAD_HEAD.length, end);
}

/** The signed bytes of signed write `e` (its payload's canonical JSON) as its logged text holds them, or null without the text. */
export const signedText = (e: RecordEntry): string | null => (e.text === undefined ? null : signedSlice(e.text));

/**
 * SHA-256 of the signed bytes (the canonical JSON of the payload), computed once per entry:
 * from the slice of the logged text when the entry carries it, else by canonicalizing the payload.
 */
export function signedHash(e: RecordEntry): string {
  // Kept on the entry rather than in a WeakMap by entry: a replay reads it three times an entry,
  // and a WeakMap of a million entries costs the collector more than the field does.
  let h = e.signedHash;
  if (h === undefined) {
    const signed = signedText(e);
    e.signedHash = h = signed === null ? payloadId(payloadOf(e) ?? {}) : sha256TextHex(signed);
  }
  return h;
}

/**
 * Gives entry `e` its signed hash computed elsewhere from the same text (the verifier's workers
 * hash every entry's text already), so that signedHash need not canonicalize its payload again.
 */
export function knownSignedHash(e: RecordEntry, hash: string): void {
  e.signedHash = hash;
}

/**
 * The entry's ts in ms as `isoMs` reads it (NaN when not spelled as the log spells it), read once
 * for the entry: the replay index, its pruning and the reviews each keep or compare it.
 */
export function entryIsoMs(e: RecordEntry): number {
  let ms = e.isoMs;
  if (ms === undefined) e.isoMs = ms = isoMs(e.ts);
  return ms;
}

/** Date.parse of the entry's ts (stores/columns.ts, tsMs), read once for the entry. */
export function entryMs(e: RecordEntry): number {
  const ms = entryIsoMs(e);
  return Number.isNaN(ms) ? Date.parse(e.ts) : ms;
}

/** 400 when the payload's ts is more than the window from the entry's ts; 409 when its signed bytes are on the log already. */
export function assertFreshAndNew(state: State, e: RecordEntry): void {
  const ts = payloadOf(e)?.ts;
  const skew = typeof ts === 'string' ? tsMs(ts) - entryMs(e) : NaN;
  const window = tsWindow(e.type);
  if (Number.isNaN(skew)) throw invalid(`payload.ts: expected an ISO-8601 UTC time, got ${JSON.stringify(ts)}`);
  if (Math.abs(skew) > window) {
    throw invalid(
      `payload.ts: ${ts} is ${(Math.abs(skew) / 60000).toFixed(1)} minutes ${skew < 0 ? 'before' : 'after'} the entry's ts (${e.ts}); ` +
        `the limit is ${window / 60000} minutes`,
    );
  }
  const hash = signedHash(e);
  const seen = state.seen.get(hash);
  if (seen !== undefined)
    throw conflict(`payload: these signed bytes (SHA-256 ${hash}) are on the log already at entry ${seen.seq}; an envelope counts once`);
}

/** Notes a signed write in the index, last in log order. */
export function noteSigned(state: State, e: RecordEntry): void {
  state.seen.note(signedHash(e), e.seq, e.ts, entryIsoMs(e));
}

/** Drops from the index what the window refuses anyway: writes logged more than SEEN_FOR_MS before entry `e`. */
export function pruneSeen(state: State, e: RecordEntry): void {
  state.seen.prune(entryMs(e) - SEEN_FOR_MS);
}

/**
 * A slot write's time: the earlier of its payload ts and its entry's ts. A write may be signed
 * up to a window ahead of its entry, but it holds its slot only from the log time it was taken
 * at: a ts ahead of the log locks the slot against nobody who writes after it.
 */
export function slotTime(e: RecordEntry): string {
  const ts = payloadOf(e)?.ts ?? '';
  return tsMs(ts) > entryMs(e) ? e.ts : ts;
}

/** 409 when a write to `slot` is not signed later than the time of the write that set it last (slotTime). */
export function assertLater(state: State, slot: string, e: RecordEntry): void {
  const last = state.slots.get(slot);
  const ts = payloadOf(e)?.ts ?? '';
  if (last !== undefined && !(Date.parse(ts) > Date.parse(last.ts))) {
    throw conflict(
      `payload.ts: ${ts} is not later than ${last.ts}, the time of entry ${last.seq}, which set ${slot} last ` +
        `(the earlier of its payload ts and its ts); an older write never overwrites a newer one`,
    );
  }
}

/** Keeps the time (slotTime) of the write that set `slot`. */
export function noteSlot(state: State, slot: string, e: RecordEntry): void {
  state.slots.set(slot, { seq: e.seq, ts: slotTime(e) });
}
