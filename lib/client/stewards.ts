// Appointing and removing stewards (docs/stewardship.md): the operator key signs
// `steward.appoint` or `steward.remove` naming an agent's handle.
import type { KeyObject } from 'node:crypto';
import { PROTOCOL } from '../protocol/service-event.js';
import { WRITE_ROUTES } from '../record/types/index.js';
import { signEnvelope } from './envelope.js';
import type { ArchiveClient, Reply } from './http.js';

export type StewardAction = 'appoint' | 'remove';

/** Signs and posts the operator's `steward.<action>` for `handle`. */
export function postSteward(
  client: ArchiveClient,
  operatorKey: KeyObject,
  action: StewardAction,
  handle: string,
  ts = new Date().toISOString(),
): Promise<Reply> {
  const type = `steward.${action}` as const;
  return client.post(WRITE_ROUTES[type].path, signEnvelope(operatorKey, { protocol: PROTOCOL, type, steward: handle, ts }));
}
