// Identifiers (docs/record.md#identifiers): every id is a hash of the canonical JSON of what it names,
// so anyone can recompute it from the log.
import { canonicalize } from './canonical-json.js';
import { sha256TextHex } from 'tlog-engine';

const hashOf = (value: unknown): string => sha256TextHex(canonicalize(value));

function withoutTs(payload: object): object {
  const { ts: _ts, ...rest } = payload as { ts?: unknown };
  return rest;
}

/** Paper `rec:<16 hex>`: SHA-256 of the paper payload without `ts`, first 16 hex. */
export function paperId(payload: object): string {
  return `rec:${hashOf(withoutTs(payload)).slice(0, 16)}`;
}

/** External claim `ext:<16 hex>`: SHA-256 of `{quote, source}`, first 16 hex. */
export function externalId(source: string, quote: string): string {
  return `ext:${hashOf({ quote, source }).slice(0, 16)}`;
}

/** Commitment id: SHA-256 of the check.commit payload without `ts`. */
export function commitmentId(payload: object): string {
  return hashOf(withoutTs(payload));
}

/** Argument and proposal ids (and review ids): SHA-256 of the whole signed payload. */
export function payloadId(payload: object): string {
  return hashOf(payload);
}

/** Challenge id: the first 16 hex of SHA-256 of the whole signed payload. */
export function challengeId(payload: object): string {
  return hashOf(payload).slice(0, 16);
}

/** A challenge id as given (`ch:` optional) to its bare 16 hex. */
export function bareChallengeId(id: string): string {
  return id.startsWith('ch:') ? id.slice(3) : id;
}

/** `rec:<16 hex>#C<n>` → its paper id and claim number. */
export function splitRef(ref: string): { paper: string; n: number } {
  const i = ref.indexOf('#C');
  return { paper: ref.slice(0, i), n: Number(ref.slice(i + 2)) };
}
