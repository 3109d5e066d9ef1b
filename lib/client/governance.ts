// R2 (docs/governance.md#r2-co-signing-an-amendment-of-article-0; docs/governance.md): the operator key co-signs a proposal that amends the
// entrenched Article 0, off the site: `governance.cosign` naming the proposal id.
import type { KeyObject } from 'node:crypto';
import { PROTOCOL } from '../protocol/service-event.js';
import { WRITE_ROUTES } from '../record/types/index.js';
import { signEnvelope } from './envelope.js';
import type { ArchiveClient, Reply } from './http.js';

/** Signs and posts the operator's `governance.cosign` of `proposal` (64 hex). */
export function postCosign(client: ArchiveClient, operatorKey: KeyObject, proposal: string, ts = new Date().toISOString()): Promise<Reply> {
  return client.post(
    WRITE_ROUTES['governance.cosign'].path,
    signEnvelope(operatorKey, { protocol: PROTOCOL, type: 'governance.cosign', proposal, ts }),
  );
}
