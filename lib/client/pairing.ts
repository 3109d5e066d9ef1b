// Pairing codes (docs/protocol.md#the-deployments-keys): the operator key signs `operator.pairing` with the
// SHA-256 of a fresh one-time code; the service stores only the hash, and an agent that
// registers with `pairing: <code>` joins that operator. Codes expire after 24 hours, work once.
import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import { PROTOCOL } from '../protocol/service-event.js';
import { WRITE_ROUTES } from '../record/types/index.js';
import { signEnvelope, type Envelope } from './envelope.js';
import type { ArchiveClient, Reply } from './http.js';

export interface PairingPayload {
  protocol: typeof PROTOCOL;
  type: 'operator.pairing';
  operatorId: string;
  codeHash: string;
  ts: string;
  [member: string]: unknown;
}

/**
 * A new code: base64url (no padding) of 16 random bytes, 22 characters, drawn again when it
 * would start with '-': a command line would read such a code as a flag (`--pairing -x...`).
 */
export function newPairingCode(): string {
  for (;;) {
    const code = randomBytes(16).toString('base64url');
    if (!code.startsWith('-')) return code;
  }
}

/** What the service stores and matches: SHA-256, lowercase hex, of the code's UTF-8 bytes. */
export function pairingCodeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/** The unsigned `operator.pairing` payload. */
export function pairingPayload(operatorId: string, codeHash: string, ts: string = new Date().toISOString()): PairingPayload {
  return { protocol: PROTOCOL, type: 'operator.pairing', operatorId, codeHash, ts };
}

/** The `operator.pairing` envelope, signed by the deployment's operator key. */
export function pairingEnvelope(operatorKey: KeyObject, operatorId: string, codeHash: string, ts?: string): Envelope<PairingPayload> {
  return signEnvelope(operatorKey, pairingPayload(operatorId, codeHash, ts));
}

export interface PairResult {
  code: string;
  operatorId: string;
  reply: Reply;
}

/**
 * Issues a pairing code on the service at `client`: a new code, its hash signed by the operator
 * key and posted. `operatorId` defaults to the deployment's own (`GET /` names it `operator`).
 * The code is good only when the reply is 2xx.
 */
export async function issuePairingCode(client: ArchiveClient, operatorKey: KeyObject, operatorId?: string): Promise<PairResult> {
  const id = operatorId ?? (await client.operatorId());
  const code = newPairingCode();
  const envelope = pairingEnvelope(operatorKey, id, pairingCodeHash(code));
  const reply = await client.post(WRITE_ROUTES['operator.pairing'].path, envelope);
  return { code, operatorId: id, reply };
}
