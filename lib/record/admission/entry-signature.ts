// The signature of one logged entry, checked from its text (docs/log-format.md#entries): whether it verifies under the key the
// entry names (an agent's) or implies (the log or operator key). Who may sign is the state machine's question (signer.ts).
import { verifySignature } from '../../protocol/ed25519.js';
import { WRITE_ROUTES } from '../types/registry.js';
import type { WriteType } from '../types/registry.js';

export interface LogKeys {
  logKey: string;
  operatorKey: string;
}

/** `,"signature":"<86 base64url>"}` closes every signed logged object. */
const SIGNATURE_TAIL = /,"signature":"([A-Za-z0-9_-]{86})"\}$/;
/** The agent a payload names: handle and publicKey, in canonical order. */
const AGENT = /"agent":\{"handle":"[A-Za-z0-9-]+","publicKey":"([A-Za-z0-9_-]{20,200})"\}/;

const encoder = new TextEncoder();

/** Entry types logged without a signature of their own (a registration's body). */
export const UNSIGNED_TYPES: ReadonlySet<string> = new Set(['agent.register']);

// Canonical JSON writes members in order and each value in its own canonical form, so the signed bytes are a slice of the
// logged text: nothing is re-serialised.
/** Why entry `type` with logged text `text` fails its signature, or null when it verifies. */
export function signatureProblem(type: string, text: string, keys: LogKeys, isEvent: (type: string) => boolean): string | null {
  if (UNSIGNED_TYPES.has(type)) return null;
  const tail = SIGNATURE_TAIL.exec(text);
  if (tail === null) return 'no signature';
  const event = isEvent(type);
  const head = event ? '{"event":' : '{"payload":';
  if (!text.startsWith(head)) return `expected ${event ? '{event, signature}' : '{payload, signature}'}`;
  const signed = text.slice(head.length, tail.index);
  let key: string;
  if (event) key = keys.logKey;
  else if (WRITE_ROUTES[type as WriteType]?.signer === 'operator') key = keys.operatorKey;
  else {
    const agent = AGENT.exec(signed);
    if (agent === null) return 'payload names no agent key';
    key = agent[1]!;
  }
  // For genesis the log key is the one it names; the caller reads it from entry 0 first.
  return verifySignature(key, encoder.encode(signed), tail[1]!) ? null : 'signature does not verify';
}
