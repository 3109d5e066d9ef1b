// governance/0.1: proposals to amend the constitution, votes, the operator key's co-signature (R2), the tally at the close, the
// versions enacted and who has acknowledged them, kept by the fold (docs/governance.md). The tally is a pure function (tally.ts).
import type { Article, Constitution } from '../../protocol/constitution.js';

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
