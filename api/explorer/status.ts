// Statuses in words, wherever the explorer shows them, from the rules of docs/credence.md#status
// and #arguments-settlement: what each status means and why a claim has its own (what each piece
// of evidence counts, and why not, is the record's to say: counts.ts).
import type { Claim, Receipt, State } from '../../lib/record/fold/index.js';
import { empty, html, join, type Html } from './html.js';

/** What each status of a claim means (docs/credence.md#status), for an empirical claim. */
export const STATUS_MEANING: Readonly<Record<string, string>> = {
  unchecked:
    'not yet supported, which needs credence from verified operators alone of at least 0.6 and a confirming replication ' +
    'by a verified operator.',
  supported: 'credence from verified operators alone is at least 0.6, with a confirming replication by a verified operator.',
  established:
    'credence from verified operators alone is near 1 (at least 1 - 0.1 e^(-use/5)), with confirming replications ' +
    'by verified operators of at least two operators and two model families.',
  contested: "verified operators' replications disagree: those confirming and those failing weigh about the same.",
  refuted:
    'credence from verified operators alone is at most 0.35, with a failed replication by a verified operator ' +
    'or an upheld refuting argument.',
};

/** The legend of statuses, for a list that shows them. */
export function statusLegend(): Html {
  const rows = Object.entries(STATUS_MEANING).map(([s, m]) => html`<dt>${s}</dt><dd>${m}</dd>`);
  return html`<dl class="legend" id="legend">${join(rows, '')}</dl>
<p><small>Status reads only what verified operators did; results by operators not verified are shown and move credence, never status. The \
author operator's own evidence never counts. A conceptual claim's status follows its arguments instead (the rules: \
<code>docs/credence.md#status</code>).</small></p>`;
}

/**
 * Whether a verified operator has an agent on the record (not retired) to file evidence that
 * status reads: until one has, no claim can leave unchecked.
 */
export function verifiedCanAct(state: State): boolean {
  for (const id of state.verified.keys())
    for (const handle of state.agents.ofOperator(id)) if (state.agents.get(handle)?.retiredSeq === null) return true;
  return false;
}

/** What a new deployment's pages say until a verified operator has an agent (docs/credence.md#status, docs/cli.md#archive-pair). */
export function noVerifiedNotice(state: State): Html {
  if (verifiedCanAct(state)) return empty;
  return html`<div class="notice" id="no-verified"><p>No claim can leave <b>unchecked\
</b> yet: status reads only what verified operators did, and no verified operator has an agent on the record. The deployment's own \
operator, <code>${state.operator}</code>, is verified from the start; its agents join by pairing (<code>archive pair\
</code>, signed with the operator key). Until an agent of a verified operator files a confirming replication, every claim stays unchecked \
whatever its credence; credence moves meanwhile.</p></div>`;
}

/** The receipts of a claim with a result that counts one way or the other, by operators other than the author's. */
const resulted = (state: State, claim: Claim): Receipt[] =>
  (state.receiptsByClaim.get(claim.ref) ?? [])
    .map((id) => state.receipts.get(id)!)
    .filter((r) => r.result !== null && r.result.outcome !== 'inconclusive' && r.operatorId !== claim.operatorId);

/**
 * Why a claim has its status, in words: the status reads only what verified operators did; what
 * the others did is shown, and counts towards credence only.
 */
export function whyStatus(state: State, claim: Claim, status: string, credenceVerified: number): string {
  const results = resulted(state, claim);
  const verified = results.filter((r) => state.verified.has(r.operatorId));
  const confirming = verified.filter((r) => r.kind === 'replication' && r.result!.outcome === 'confirmed').length;
  const others = results.length - verified.length;
  const cv = credenceVerified.toFixed(4);
  const apart =
    others === 0
      ? ''
      : ` ${others} result${others === 1 ? '' : 's'} by operators not verified ${others === 1 ? 'is' : 'are'} shown and \
count${others === 1 ? 's' : ''} towards credence, not towards status.`;
  if (claim.kind === 'conceptual')
    return `A conceptual claim's status follows its arguments: refuted by an upheld counterexample or contradiction, contested while \
capped, supported once attacks were dismissed by checks of two verified operators (credence from verified operators alone ${cv}).`;
  const because: Record<string, string> = {
    refuted: `credence from verified operators alone is ${cv} (at most 0.35), with a failed replication by a verified operator or an \
upheld refuting argument.`,
    contested: 'the replications by verified operators disagree: those confirming and those failing weigh about the same.',
    established: `credence from verified operators alone is ${cv}, with confirming replications by at least two verified operators and \
two model families.`,
    supported: `credence from verified operators alone is ${cv} (at least 0.6), with ${confirming} confirming \
replication${confirming === 1 ? '' : 's'} by verified operators.`,
    unchecked: `supported needs credence from verified operators alone of at least 0.6 (here ${cv}) and a confirming replication by a \
verified operator (here ${confirming}).`,
  };
  return `${status[0]!.toUpperCase()}${status.slice(1)}: ${because[status] ?? ''}${apart}`;
}

/** What an argument's status means (docs/credence.md#arguments-settlement). */
export function argumentStatusMeaning(status: string, settledSeq: number | null): string {
  const rule =
    'An argument settles when the latest checks of verified operators (one voice per set of model families; ' +
    "the claim's author operator has none) give one side at least two voices and three times the other's.";
  if (status === 'open') return `: not settled yet, so it moves nothing. ${rule}`;
  return `${settledSeq === null ? '' : ` at entry ${settledSeq}`}: ${
    status === 'upheld'
      ? 'checks of verified operators hold that it holds; it now moves the claim.'
      : 'checks of verified operators hold that it does not; it moves nothing.'
  } ${rule}`;
}
