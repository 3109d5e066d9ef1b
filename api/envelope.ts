// Envelope checks, in the order and with the errors of docs/record.md#checks-on-every-signed-write-in-order; the record's own
// checks come after.
import { badRequest, unauthorized } from '../lib/protocol/errors.js';
import { verifyPayload, verifySignature } from '../lib/protocol/ed25519.js';
import { canonicalize } from '../lib/protocol/canonical-json.js';
import { authorizeSigner, tsWindow } from '../lib/record/admission/index.js';
import { CHECK_KEY_TYPES, type WriteType } from '../lib/record/types/index.js';
import type { State } from '../lib/record/fold/index.js';
import { PROTOCOL } from '../lib/protocol/service-event.js';
import { validatePayload } from '../lib/record/validation/index.js';

const TS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?Z$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface Envelope {
  payload: Record<string, unknown>;
  signature: string;
}

/** The body as {payload, signature} and nothing else. */
export function envelopeShape(body: unknown): Envelope {
  if (!isObject(body)) throw badRequest('body: expected an envelope {payload, signature}');
  for (const k of Object.keys(body)) {
    if (k !== 'payload' && k !== 'signature')
      throw badRequest(`body: unknown member ${JSON.stringify(k)}; an envelope is exactly {payload, signature}`);
  }
  if (!isObject(body.payload)) throw badRequest('body.payload: required, an object');
  if (typeof body.signature !== 'string') throw badRequest('body.signature: required, a base64url string');
  return body as unknown as Envelope;
}

/** protocol and type: what this route takes. */
export function routeType<T extends string>(payload: Record<string, unknown>, types: readonly T[]): T {
  if (payload.protocol !== PROTOCOL) throw badRequest(`payload.protocol: expected ${PROTOCOL}, got ${JSON.stringify(payload.protocol)}`);
  if (!types.includes(payload.type as T))
    throw badRequest(`payload.type: this endpoint takes ${types.join(' or ')}, got ${JSON.stringify(payload.type)}`);
  return payload.type as T;
}

/** `ts` well formed and within `windowMs` of `now` (ms): the record's window (docs/record.md), here against the clock. */
export function freshTs(ts: unknown, now: number, windowMs: number): void {
  const m = typeof ts === 'string' ? TS.exec(ts) : null;
  const t = m === null ? NaN : Date.parse(ts as string);
  if (m === null || Number.isNaN(t) || new Date(t).toISOString().slice(0, 19) !== (ts as string).slice(0, 19)) {
    throw badRequest(`payload.ts: expected an ISO-8601 UTC time YYYY-MM-DDTHH:MM:SS[.sss]Z, got ${JSON.stringify(ts)}`);
  }
  const skew = t - now;
  if (Math.abs(skew) > windowMs) {
    const minutes = (Math.abs(skew) / 60000).toFixed(1);
    throw badRequest(
      `payload.ts: ${minutes} minutes ${skew < 0 ? 'behind' : 'ahead of'} the service clock (${new Date(now).toISOString()}); the limit ` +
        `is ${windowMs / 60000} minutes`,
    );
  }
}

/** Every check of a signed write by an agent, in the order of the spec; returns its type. */
/** Verifies a signature over the UTF-8 bytes of `message` (a VerifyPool, or inline). */
export type Verify = (key: string, message: string, signature: string) => boolean | Promise<boolean>;

export const verifyInline: Verify = (key, message, signature) => verifySignature(key, new TextEncoder().encode(message), signature);

export async function checkAgentEnvelope<T extends WriteType>(
  body: unknown,
  types: readonly T[],
  state: State,
  now: number,
  verify: Verify = verifyInline,
): Promise<{ type: T; envelope: Envelope; text: string }> {
  const envelope = envelopeShape(body);
  const p = envelope.payload;
  const type = routeType(p, types);
  const agent = p.agent;
  if (!isObject(agent) || typeof agent.handle !== 'string' || typeof agent.publicKey !== 'string') {
    throw badRequest('payload.agent: required, {handle, publicKey} strings');
  }
  authorizeSigner(state, type, { handle: agent.handle, publicKey: agent.publicKey }, CHECK_KEY_TYPES.has(type));
  freshTs(p.ts, now, tsWindow(type));
  const signed = canonicalize(p, 'payload');
  if (!(await verify(agent.publicKey, signed, envelope.signature))) {
    throw unauthorized('signature: does not verify with payload.agent.publicKey over the canonical JSON of payload');
  }
  validatePayload(type, p);
  // The logged text: the canonical JSON of {payload, signature}, built from the bytes verified.
  return { type, envelope, text: `{"payload":${signed},"signature":${JSON.stringify(envelope.signature)}}` };
}

/** The same for a write signed by the deployment's operator key (pairing). */
export function checkOperatorEnvelope<T extends WriteType>(
  body: unknown,
  types: readonly T[],
  operatorKey: string,
  now: number,
): { type: T; envelope: Envelope; text?: string } {
  const envelope = envelopeShape(body);
  const p = envelope.payload;
  const type = routeType(p, types);
  freshTs(p.ts, now, tsWindow(type));
  if (!verifyPayload(operatorKey, p, envelope.signature))
    throw unauthorized("signature: does not verify with the deployment's operator key");
  validatePayload(type, p);
  return { type, envelope };
}
