// The rules of governance/0.1 over the record's state (docs/governance.md): the tally at the
// close, what the close decides, the constitution in force and the next version's hash.
import { constitutionHash, loadConstitution, type Article, type Constitution } from '../../protocol/constitution.js';
import type { Outcome, Proposal, Tally } from './proposals.js';
import type { State } from '../fold/state.js';

/**
 * The tally over the electorate as it stands (docs/governance.md#the-close-and-the-tally): operators verified by the
 * record now; a vote counts while its operator is in the electorate. Integer arithmetic only:
 * quorum met when 5 * voters >= electorate; passing when 3 * yes >= 2 * (yes + no).
 */
export function tally(state: State, p: Proposal): Tally {
  let yes = 0;
  let no = 0;
  for (const [op, v] of p.votes) {
    if (!state.verified.has(op)) continue;
    if (v.vote === 'yes') yes++;
    else no++;
  }
  const voters = yes + no;
  const electorate = state.verified.size;
  return {
    yes,
    no,
    voters,
    electorate,
    quorum: Math.ceil(electorate / 5),
    quorumMet: 5 * voters >= electorate,
    passing: voters > 0 && 3 * yes >= 2 * voters,
  };
}

/** What a proposal's close decides, given the tally and the state at the close. */
export function outcomeOf(state: State, p: Proposal, t: Tally): Outcome {
  if (p.amends.version !== state.constitution.version) return 'superseded';
  if (!t.quorumMet) return 'no_quorum';
  if (!t.passing) return 'rejected';
  if (p.entrenched && p.cosign === null) return 'not_cosigned';
  return 'adopted';
}

/** The constitution in force, full text: enacted by the log, or shipped (the genesis version). */
export function constitutionInForce(state: State): Constitution {
  return constitutionVersion(state, state.constitution.version);
}

/** A version the record knows: enacted on the log, else the shipped file. */
export function constitutionVersion(state: State, version: string): Constitution {
  return state.governance.enacted.get(version) ?? loadConstitution(version);
}

/** The version an adopted proposal enacts: the next number, its articles, their hash. */
export function nextVersion(state: State, articles: Article[]): { version: string; hash: string } {
  const version = String(Number(state.constitution.version) + 1);
  return { version, hash: constitutionHash({ version, articles }) };
}
