// Service events (docs/log-format.md): entries the service itself causes are logged as
// {event, signature}, the signature by the log key over the canonical JSON of `event`, so the
// log verifies itself end to end, as signed writes are logged as {payload, signature}.
import type { KeyObject } from 'node:crypto';
import { canonicalize } from './canonical-json.js';
import { signPayload, verifyPayload } from './ed25519.js';

export const PROTOCOL = 'archive/0.2';

/** Every event names the protocol, its type (also the entry's type) and when it was made. */
export interface ServiceEvent {
  protocol: typeof PROTOCOL;
  type: string;
  ts: string;
  [member: string]: unknown;
}

export interface SignedEvent<E extends ServiceEvent = ServiceEvent> {
  event: E;
  signature: string;
}

/** Signs `event` with the log key. */
export function signEvent<E extends ServiceEvent>(logKey: KeyObject, event: E): SignedEvent<E> {
  return { event, signature: signPayload(logKey, event) };
}

/** True when `logged` is an event signed by the log key `logKey` (its public spelling). */
export function verifyEvent(logKey: string, logged: SignedEvent): boolean {
  return verifyPayload(logKey, logged.event, logged.signature);
}

/** The canonical text under which a signed event is logged. */
export function eventText(signed: SignedEvent): string {
  return canonicalize(signed);
}
