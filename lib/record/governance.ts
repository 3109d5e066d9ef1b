// governance/0.1 (docs/governance.md; docs/governance.md): proposals to amend the
// constitution, operators' votes, the operator key's co-signature (R2), the tally at the close,
// the versions enacted and who has acknowledged them. Plain data kept by the fold
// (handlers/governance.ts); the tally is a pure function of it and of the electorate.
import { constitutionHash, loadConstitution, type Article, type Constitution } from '../protocol/constitution.js';
import type { State } from './state.js';

/** Votes are taken for 14 days after a proposal is logged (docs/governance.md#who-proposes-who-votes). */
export const VOTING_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

export type Vote = 'yes' | 'no';

/**
 * How a closed proposal ended: adopted (and enacted); rejected (under two thirds voting yes);
 * no_quorum (under a fifth of the electorate voting); not_cosigned (it amends Article 0 and the
 * operator key did not co-sign); superseded (another amendment was enacted first, so the text
 * it would enact no longer amends the constitution in force).
 */
export type Outcome = 'adopted' | 'rejected' | 'no_quorum' | 'not_cosigned' | 'superseded';

export interface Proposal {
  id: string;
  seq: number;
  ts: string;
  agent: string;
  operatorId: string;
  title: string;
  rationale: string;
  /** The constitution in force when it was logged: what it amends. */
  amends: { version: string; hash: string };
  articles: Article[];
  /** Ids of the articles whose text differs from the version it amends. */
  changes: string[];
  /** It changes Article 0, so it also needs the operator key's co-signature (R2). */
  entrenched: boolean;
  /** Milliseconds since the epoch: the first instant at which voting is closed. */
  closesAt: number;
  /** The latest vote of each operator, by any of its agents. */
  votes: Map<string, { vote: Vote; agent: string; seq: number }>;
  cosign: { seq: number } | null;
  closed: { seq: number; ts: string; tally: Tally; outcome: Outcome; enactedIn: string | null } | null;
}

/** A constitution version enacted by the log, and the entry (a governance.close) that enacted it. */
export interface Enacted extends Constitution {
  seq: number;
  proposal: string;
}

export interface Governance {
  proposals: Map<string, Proposal>;
  enacted: Map<string, Enacted>;
  /** The latest version each agent acknowledged with constitution.acknowledge. */
  acknowledged: Map<string, { version: string; seq: number }>;
}

export function emptyGovernance(): Governance {
  return { proposals: new Map(), enacted: new Map(), acknowledged: new Map() };
}

export interface Tally {
  yes: number;
  no: number;
  voters: number;
  electorate: number;
  /** Voters needed: one fifth of the electorate, rounded up. */
  quorum: number;
  quorumMet: boolean;
  /** yes / (yes + no) >= 2/3, with at least one voter. */
  passing: boolean;
}

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
  return { yes, no, voters, electorate, quorum: Math.ceil(electorate / 5), quorumMet: 5 * voters >= electorate, passing: voters > 0 && 3 * yes >= 2 * voters };
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
