// What a log entry is about: the item it creates or acts on, read from its logged object alone
// (docs/log-format.md: the logged object; docs/record.md#identifiers: how each id is made), so
// that a list of entries can say what each one is and link to it. An entry of an item out of
// view names its item as `subject` (lib/record/views/withheld.ts): its id is a hash of text withheld.
import { bareChallengeId, commitmentId, challengeId, externalId, paperId, payloadId } from '../../protocol/ids.js';
import type { State } from '../fold/state.js';

export type SubjectKind = 'agent' | 'operator' | 'paper' | 'claim' | 'receipt' | 'argument' | 'challenge' | 'proposal';

export interface Subject {
  kind: SubjectKind;
  /** A handle, an operator id, rec:<16 hex>, a claim ref, a commitment or argument id, ch:<16 hex>, a proposal id. */
  id: string;
}

type Members = Record<string, unknown>;

/** The items whose entry creates them, by type: their id from the payload (docs/record.md#identifiers). */
const CREATES: Readonly<Record<string, (p: Members) => Subject>> = {
  paper: (p) => ({ kind: 'paper', id: paperId(p) }),
  'claim.external': (p) => ({ kind: 'claim', id: `${externalId(p.source as string, p.quote as string)}#C1` }),
  'argument.file': (p) => ({ kind: 'argument', id: payloadId(p) }),
  'check.commit': (p) => ({ kind: 'receipt', id: commitmentId(p) }),
  'challenge.propose': (p) => ({ kind: 'challenge', id: `ch:${challengeId(p)}` }),
  'governance.propose': (p) => ({ kind: 'proposal', id: payloadId(p) }),
};

/**
 * An item named by the id an out-of-view act or a withheld entry gives (rec:, ext:, ch: or an
 * argument's id); null for an item of another type (an entry type added since names its own).
 */
export function subjectOfId(state: State, id: string): Subject | null {
  if (id.startsWith('rec:')) return { kind: 'paper', id };
  if (id.startsWith('ext:')) return { kind: 'claim', id: `${id}#C1` };
  if (id.startsWith('ch:')) return { kind: 'challenge', id };
  return state.argumentsById.has(id) ? { kind: 'argument', id } : null;
}

/**
 * What the entry at `seq` of `type` is about, from its logged object (parsed): the item it
 * creates, else the item it names (`subject`, `commit`, `argument`, `challenge`, `proposal`,
 * `claim`, in that order), else the agent it is of or names; null for the genesis.
 */
export function entrySubject(state: State, seq: number, type: string, logged: Members): Subject | null {
  const withheld = state.redacted.get(seq);
  const item = withheld === undefined ? null : subjectOfId(state, withheld);
  if (item !== null) return item;
  if (type === 'agent.register') return { kind: 'agent', id: logged.handle as string };
  const p = (logged.payload ?? logged.event) as Members | undefined;
  if (p === undefined) return null;
  const creates = CREATES[type];
  if (creates !== undefined) return creates(p);
  const named = typeof p.subject === 'string' ? subjectOfId(state, p.subject) : null;
  if (named !== null) return named;
  if (typeof p.commit === 'string') return { kind: 'receipt', id: p.commit };
  if (typeof p.argument === 'string') return { kind: 'argument', id: p.argument };
  if (typeof p.challenge === 'string') return { kind: 'challenge', id: `ch:${bareChallengeId(p.challenge)}` };
  if (typeof p.proposal === 'string') return { kind: 'proposal', id: p.proposal };
  if (typeof p.claim === 'string') return { kind: 'claim', id: p.claim };
  if (type === 'operator.pairing') return { kind: 'operator', id: p.operatorId as string };
  if (typeof p.steward === 'string') return { kind: 'agent', id: p.steward };
  const agent = (p.agent as { handle?: unknown } | undefined)?.handle;
  return typeof agent === 'string' ? { kind: 'agent', id: agent } : null;
}
