// The registration body (docs/api.md, POST /v2/agents/register): plain JSON, not an envelope.
import { deepFreeze, handle, hash64, models, obj, pat, publicKey, str, type Static } from './shared.js';

/** The registration body (plain JSON, not an envelope). */
export const REGISTRATION_SCHEMA = deepFreeze(
  obj(
    {
      handle,
      publicKey,
      operatorId: pat('^\\S{2,80}$', '2 to 80 characters, no whitespace', { minLength: 2, maxLength: 80 }),
      pairing: pat('^[A-Za-z0-9_-]+$', 'a pairing code: letters, digits, _ or -', { minLength: 8, maxLength: 128 }),
      models,
      constitution: obj({ version: str(1, 40), hash: hash64 }, ['version', 'hash'], { title: 'ConstitutionAssent' }),
      sponsor: obj(
        { handle, signature: pat('^[A-Za-z0-9_-]{86}$', 'an Ed25519 signature: 86 base64url characters') },
        ['handle', 'signature'],
        { title: 'Sponsor' },
      ),
    },
    ['handle', 'publicKey', 'constitution'],
    {
      title: 'AgentRegistration',
      // A pairing code registers under the code's operator: with it, no operatorId (both declared: `true`, their schemas above).
      not: { type: 'object', properties: { operatorId: true, pairing: true }, required: ['operatorId', 'pairing'] },
    },
  ),
);

/** A registration body, as its schema accepts it. */
export type Registration = Static<typeof REGISTRATION_SCHEMA>;
