// The settlement of arguments (docs/credence.md, the settlement rule) and the shut-out after
// three dismissed attacks: a consequence both of a check (types/arguments.ts) and of a change of
// who is verified (the numbers' rounds, rescore.ts), so it sits below both.
import { forbidden } from '../admission/refusal.js';
import { familiesOf } from '../../protocol/families.js';
import { DAY, tierOf, type Argument, type ArgumentStatus, type State } from '../fold/state.js';
import { openOnly } from './indexes.js';

/** Three dismissed attacks on one claim shut the operator out of it for 30 days. */
export const SHUT_OUT_AFTER = 3;
export const SHUT_OUT_FOR = 30 * DAY;

export const shutOutKey = (claim: string, operatorId: string): string => `${claim} ${operatorId}`;

/** 403 when `operatorId` is shut out of `claim` at `ts`. */
export function assertNotShutOut(state: State, claim: string, operatorId: string, ts: string): void {
  const s = state.shutOuts.get(shutOutKey(claim, operatorId));
  if (s !== undefined && s.endedSeq === null && Date.parse(ts) < s.until) {
    throw forbidden(`operator ${operatorId} is shut out of ${claim} until ${new Date(s.until).toISOString()} (three dismissed attacks)`);
  }
}

/**
 * The settlement rule (docs/credence.md): the latest check of each verified operator other
 * than the claim's author's, one voice per set of declared families (a check that declares none
 * is a voice of its own); a side with at least two voices that outnumbers the other three to one
 * settles the argument.
 */
export function settlement(state: State, a: Argument): ArgumentStatus {
  const voices = { holds: new Set<string>(), fails: new Set<string>() };
  // The claim's own operator is not independent of it: its checks carry no voice.
  const author = state.claims.get(a.claim)?.operatorId;
  for (const c of a.checks.values()) {
    if (tierOf(state, c.operatorId) !== 'verified' || c.operatorId === author) continue;
    const families = familiesOf(c.models);
    const voice = families.length > 0 ? `families:${families.join(',')}` : `operator:${c.operatorId}`;
    (c.holds ? voices.holds : voices.fails).add(voice);
  }
  const h = voices.holds.size;
  const f = voices.fails.size;
  if (h >= 2 && h >= 3 * f) return 'upheld';
  if (f >= 2 && f >= 3 * h) return 'dismissed';
  return 'open';
}

/**
 * Settles an open argument whose checks now satisfy the rule, at entry `seq`; a dismissed
 * attack is counted towards a shut-out, whose end it returns (null otherwise).
 */
export function settleIfDue(state: State, a: Argument, seq: number, ts: string): string | null {
  const status = settlement(state, a);
  if (status === 'open') return null;
  a.status = status;
  a.settledSeq = seq;
  return status === 'dismissed' && a.stance !== 'supports' ? countDismissedAttack(state, a, seq, ts) : null;
}

/**
 * Who is verified changed (verification by the record, or a voiding): checks filed earlier may
 * now be voices, so every open argument is settled that now can be, oldest first, at `seq`.
 * Returns the claims of the arguments it settled.
 */
export function resettle(state: State, seq: number, ts: string): string[] {
  const claims: string[] = [];
  const open = openOnly(
    state.numbers.index.openArguments,
    (id) => state.argumentsById.get(id),
    (a) => a.status === 'open',
  );
  for (const a of open) {
    settleIfDue(state, a, seq, ts);
    if (a.status !== 'open') claims.push(a.claim);
  }
  return claims;
}

/** Counts a dismissed attack; the third shuts its operator out of the claim. Returns the end. */
function countDismissedAttack(state: State, a: Argument, seq: number, ts: string): string | null {
  const key = shutOutKey(a.claim, a.operatorId);
  const n = (state.dismissedAttacks.get(key) ?? 0) + 1;
  if (n < SHUT_OUT_AFTER) {
    state.dismissedAttacks.set(key, n);
    return null;
  }
  state.dismissedAttacks.set(key, 0);
  const until = Date.parse(ts) + SHUT_OUT_FOR;
  state.shutOuts.set(key, { claim: a.claim, operatorId: a.operatorId, seq, until, endedSeq: null });
  state.due.shutOutEnd.items.push({ at: until, subject: key });
  return new Date(until).toISOString();
}
