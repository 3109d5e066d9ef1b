// Building and signing a write (docs/api.md, "Signing a write"): the payload is protocol, type,
// agent and ts plus the operation's members; the signature is Ed25519 over the UTF-8 bytes of
// its canonical JSON (docs/protocol.md), base64url without padding.
import type { KeyObject } from 'node:crypto';
import { canonicalize } from '../protocol/canonical-json.js';
import { signPayload } from '../protocol/ed25519.js';
import type { WriteType } from '../record/types/index.js';
import { PROTOCOL } from '../protocol/service-event.js';

/** Who signs: the agent's handle and the spelling of the key that signs (main or check key). */
export interface AgentRef {
  handle: string;
  publicKey: string;
}

export interface Payload {
  protocol: typeof PROTOCOL;
  type: WriteType;
  agent: AgentRef;
  ts: string;
  [member: string]: unknown;
}

/** What is posted: `{payload, signature}` and nothing else (docs/payloads.md#shared-types, Envelope). */
export interface Envelope<P extends object = Payload> {
  payload: P;
  signature: string;
}

/** Members every payload carries, which the operation's members may not set. */
export const RESERVED_MEMBERS: readonly string[] = Object.freeze(['protocol', 'type', 'agent', 'ts']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The payload of a write: `{protocol, type, agent, ts, ...members}`. `members` holds the
 * operation's members only; protocol, type, agent or ts among them is refused (throws), so a
 * payload file can never override who signs or when.
 */
export function buildPayload(
  type: WriteType,
  members: Record<string, unknown>,
  agent: AgentRef,
  ts: string = new Date().toISOString(),
): Payload {
  if (!isObject(members)) throw new Error(`${type}: the members must be an object`);
  const reserved = RESERVED_MEMBERS.filter((k) => Object.prototype.hasOwnProperty.call(members, k));
  if (reserved.length > 0) {
    throw new Error(`${type}: the members may not set ${reserved.join(', ')} (the client fills in protocol, type, agent and ts)`);
  }
  return { protocol: PROTOCOL, type, agent: { handle: agent.handle, publicKey: agent.publicKey }, ts, ...members };
}

/** Signs `payload` with `key` over its canonical JSON: the envelope to post. */
export function signEnvelope<P extends object>(key: KeyObject, payload: P): Envelope<P> {
  return { payload, signature: signPayload(key, payload) };
}

/** The exact text that is signed: the canonical JSON of the payload (its UTF-8 bytes are signed). */
export function signedText(payload: object): string {
  return canonicalize(payload, 'payload');
}
