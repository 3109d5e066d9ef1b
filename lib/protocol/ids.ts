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

/**
 * paperId of the payload whose canonical JSON is `text` and whose `ts` is `ts`, worked out from the text
 * rather than by writing the payload again: the text without its `ts` member is the canonical JSON
 * paperId hashes (docs/record.md#identifiers). The member is found as the one place `"ts":<ts as
 * JSON>` occurs in the text; when it occurs more than once (a nested member of that name and
 * value), the answer is null and the caller canonicalizes.
 */
export function paperIdOfText(text: string, ts: string): string | null {
  const member = `"ts":${JSON.stringify(ts)}`;
  const at = text.indexOf(member);
  if (at < 0 || text.includes(member, at + 1)) return null;
  const end = at + member.length;
  // The member goes with the comma before it, or after it when it is the first; an only member leaves {}.
  const rest =
    text[at - 1] === ','
      ? text.slice(0, at - 1) + text.slice(end)
      : text[end] === ','
        ? text.slice(0, at) + text.slice(end + 1)
        : text.slice(0, at) + text.slice(end);
  return `rec:${sha256TextHex(rest).slice(0, 16)}`;
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
