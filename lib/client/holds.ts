// The operator key's decisions on hazard holds (R1, docs/stewardship.md): `hold.release` puts
// the item back in view, `hold.reject` keeps it withdrawn. Signed off the site, like pairing.
import type { KeyObject } from 'node:crypto';
import { PROTOCOL } from '../protocol/service-event.js';
import { WRITE_ROUTES } from '../record/types/index.js';
import { signEnvelope } from './envelope.js';
import type { ArchiveClient, Reply } from './http.js';

export type HoldDecision = 'release' | 'reject';

/** Signs and posts the operator's `hold.<decision>` on the item `subject`. */
export function postHoldDecision(
  client: ArchiveClient,
  operatorKey: KeyObject,
  decision: HoldDecision,
  subject: string,
  reason: string,
  ts = new Date().toISOString(),
): Promise<Reply> {
  const type = `hold.${decision}` as const;
  return client.post(WRITE_ROUTES[type].path, signEnvelope(operatorKey, { protocol: PROTOCOL, type, subject, reason, ts }));
}
