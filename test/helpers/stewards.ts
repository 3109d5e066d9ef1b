// Stewards and the operator key for HTTP tests: writes signed by the deployment's operator key, a
// steward appointed, and a steward's withholding and restoring of an item (docs/stewardship.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyFromPem, signPayload } from '../../lib/protocol/ed25519.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import type { TestService } from './service.js';
import { register, send, type TestAgent } from './agents.js';

/** A write signed by the deployment's operator key. */
export function operatorWrite(s: TestService, path: string, payload: Record<string, unknown>) {
  const key = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'));
  const p = { protocol: PROTOCOL, ts: new Date(s.record.now()).toISOString(), ...payload };
  return s.post(path, { payload: p, signature: signPayload(key, p) });
}

/** Registers `sam` and appoints it steward. */
export async function withSteward(s: TestService): Promise<TestAgent> {
  const sam = await register(s, 'sam', { operatorId: 'lab-s' });
  const r = await operatorWrite(s, '/v2/stewards', { type: 'steward.appoint', steward: 'sam' });
  if (r.status !== 201) throw new Error(r.text);
  return sam;
}

export const withhold = (s: TestService, a: TestAgent, subject: string, status = 'review') =>
  send(s, a, 'item.withhold', { subject, status, reason: 'Names a private person; looking at it.' });
export const restore = (s: TestService, a: TestAgent, subject: string) =>
  send(s, a, 'item.restore', { subject, reason: 'Looked at it: nothing out of order.' });
