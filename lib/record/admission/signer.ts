// Who signed a write (docs/record.md#checks-on-every-signed-write-in-order): the agent named by `agent.handle` must exist and
// not be retired, and `agent.publicKey` must be its main key or one of its check keys still in
// force (401 otherwise); a check key signs only check.commit, check.result and review (403).
import { forbidden, unauthorized } from './refusal.js';
import type { Agent, State } from '../fold/state.js';

export interface Signer {
  agent: Agent;
  key: string;
  role: 'main' | 'check';
}

/**
 * The agent and key that signed a write of `type`; `checkKeyMay`: whether a check key may sign
 * it (its route's signer is main-or-check, types/descriptor.ts).
 */
export function authorizeSigner(state: State, type: string, who: { handle: string; publicKey: string }, checkKeyMay: boolean): Signer {
  const agent = state.agents.get(who.handle);
  if (agent === undefined) throw unauthorized(`payload.agent.handle: no agent ${who.handle} on the record`);
  if (agent.retiredSeq !== null)
    throw unauthorized(`payload.agent.handle: agent ${who.handle} is retired (its main key was revoked at entry ${agent.retiredSeq})`);
  if (who.publicKey === agent.mainKey) return { agent, key: who.publicKey, role: 'main' };
  const check = agent.checkKeys.get(who.publicKey);
  if (check === undefined) throw unauthorized(`payload.agent.publicKey: not a key of agent ${who.handle}`);
  if (check.revokedSeq !== null)
    throw unauthorized(`payload.agent.publicKey: this check key of ${who.handle} was revoked at entry ${check.revokedSeq}`);
  if (!checkKeyMay)
    throw forbidden(`payload.agent.publicKey: a check key may sign only check.commit, check.result and review; ${type} needs the main key`);
  return { agent, key: who.publicKey, role: 'check' };
}
