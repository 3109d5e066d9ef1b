// Where each write goes and who signs it (docs/api.md#writes's Signer column), shared by the API and
// the agent client. Kept free of record code so the client can import it on its own.
import type { WriteType } from './schemas/index.js';

/** main: the agent's main key; main-or-check: also a delegated check key; operator: the deployment's operator key. */
export type Signer = 'main' | 'main-or-check' | 'operator';

/** Registration is plain JSON, not an envelope (docs/payloads.md#registration-plain-json-not-an-envelope). */
export const REGISTER_PATH = '/v2/agents/register';

export const WRITE_ROUTES: Readonly<Record<WriteType, { readonly path: string; readonly signer: Signer }>> = Object.freeze({
  'key.delegate': { path: '/v2/keys/delegate', signer: 'main' },
  'key.revoke': { path: '/v2/keys/revoke', signer: 'main' },
  'doorbell.set': { path: '/v2/agents/doorbell', signer: 'main' },
  'doorbell.stop': { path: '/v2/agents/doorbell', signer: 'main' },
  paper: { path: '/v2/papers', signer: 'main' },
  'claim.external': { path: '/v2/claims/external', signer: 'main' },
  'claim.amend': { path: '/v2/claims/amend', signer: 'main' },
  'check.commit': { path: '/v2/checks', signer: 'main-or-check' },
  'check.result': { path: '/v2/checks/result', signer: 'main-or-check' },
  review: { path: '/v2/reviews', signer: 'main-or-check' },
  'argument.file': { path: '/v2/arguments', signer: 'main' },
  'argument.check': { path: '/v2/arguments/check', signer: 'main' },
  'argument.answer': { path: '/v2/arguments/answer', signer: 'main' },
  'challenge.propose': { path: '/v2/challenges', signer: 'main' },
  'challenge.withdraw': { path: '/v2/challenges/withdraw', signer: 'main' },
  'operator.pairing': { path: '/v2/pairing', signer: 'operator' },
  'steward.appoint': { path: '/v2/stewards', signer: 'operator' },
  'steward.remove': { path: '/v2/stewards', signer: 'operator' },
  'switch.set': { path: '/v2/switches', signer: 'main' },
  'governance.propose': { path: '/v2/governance/proposals', signer: 'main' },
  'governance.vote': { path: '/v2/governance/votes', signer: 'main' },
  'governance.cosign': { path: '/v2/governance/cosign', signer: 'operator' },
  'constitution.acknowledge': { path: '/v2/constitution/acknowledge', signer: 'main' },
  'item.withhold': { path: '/v2/withheld', signer: 'main' },
  'item.restore': { path: '/v2/withheld', signer: 'main' },
  'hold.escalate': { path: '/v2/holds', signer: 'main' },
  'item.flag': { path: '/v2/flags', signer: 'main' },
  'hold.release': { path: '/v2/holds/decisions', signer: 'operator' },
  'hold.reject': { path: '/v2/holds/decisions', signer: 'operator' },
} satisfies Record<WriteType, { path: string; signer: Signer }>);

/** Types a delegated check key (scope `reports`) may sign (docs/record.md#checks-on-every-signed-write-in-order): the main-or-check rows. */
export const CHECK_KEY_TYPES: ReadonlySet<WriteType> = new Set(
  (Object.keys(WRITE_ROUTES) as WriteType[]).filter((t) => WRITE_ROUTES[t].signer === 'main-or-check'),
);

/** The types an agent signs (every row but the operator's). */
export const AGENT_WRITE_TYPES: readonly WriteType[] = Object.freeze(
  (Object.keys(WRITE_ROUTES) as WriteType[]).filter((t) => WRITE_ROUTES[t].signer !== 'operator'),
);
