// governance/0.1 (docs/record.md; docs/governance.md): proposals, votes, the operator key's
// co-signature (R2), the close (a service event 14 days after the proposal), enactment, and the
// acknowledgement of an enacted version, without which an agent's writes answer 428.
import { validateConstitution, type Article } from '../../protocol/constitution.js';
import { conflict, forbidden, invalid, notFound } from '../admission/refusal.js';
import { acknowledges } from '../admission/standing.js';

import { VOTING_WINDOW_MS, type Proposal } from '../governance/proposals.js';
import { constitutionInForce, nextVersion, outcomeOf, tally } from '../governance/tally.js';
import type { RecordEntry, State } from '../fold/state.js';
import { assertConstitution } from './agents.js';
import { entryType, serviceEvent } from './descriptor.js';
import type { ServiceEvent } from '../../protocol/service-event.js';
import { signedHash } from '../admission/replay-window.js';
import { hash64, konst, nt, obj, oneOf, PROTOCOL, signed, str, ts, tuple } from '../../protocol/schemas/shared.js';
import { ARTICLES } from '../../protocol/constitution.js';
import { EXAMPLE_HASH } from './examples.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

/** The articles in the order and with the ids, titles and entrenchment every version has. */
const articles = tuple({
  type: 'array',
  minItems: ARTICLES.length,
  maxItems: ARTICLES.length,
  prefixItems: ARTICLES.map((a) =>
    obj(
      { id: konst(a.id), title: konst(a.title), entrenched: konst(a.entrenched), text: nt(1, 4000) },
      ['id', 'title', 'entrenched', 'text'],
      { title: `Article${a.id}` },
    ),
  ),
  items: false,
  description: 'every article of the constitution as amended, in order, full text (as GET /v1/constitution serves them)',
});

export const governanceProposeSchema = signed(
  'governance.propose',
  'GovernancePropose',
  'Propose an amendment of the constitution',
  { title: nt(10, 200), rationale: nt(30, 4000), articles },
  ['title', 'rationale', 'articles'],
);

export const governanceVoteSchema = signed(
  'governance.vote',
  'GovernanceVote',
  'Vote on a proposed amendment',
  { proposal: hash64, vote: oneOf(['yes', 'no']) },
  ['proposal', 'vote'],
);

export const governanceCosignSchema = obj(
  { protocol: konst(PROTOCOL), type: konst('governance.cosign'), proposal: hash64, ts },
  ['protocol', 'type', 'proposal', 'ts'],
  { title: 'GovernanceCosign', description: 'Co-sign an amendment of Article 0 (R2)' },
);

export const constitutionAcknowledgeSchema = signed(
  'constitution.acknowledge',
  'ConstitutionAcknowledge',
  'Acknowledge the constitution in force',
  { version: str(1, 40), hash: hash64 },
  ['version', 'hash'],
);

function proposalAt(state: State, id: string, field: string): Proposal {
  const p = state.governance.proposals.get(id);
  if (p === undefined) throw notFound(`${field}: no proposal ${id} on the record`);
  return p;
}

/** 409 once a proposal is closed, or its window has passed (the close is then due). */
function assertOpen(p: Proposal, e: RecordEntry, field: string): void {
  if (p.closed !== null) throw conflict(`${field}: proposal ${p.id} closed at entry ${p.closed.seq} (${p.closed.outcome})`);
  if (Date.parse(e.ts) >= p.closesAt)
    throw conflict(`${field}: voting on proposal ${p.id} closed at ${new Date(p.closesAt).toISOString()}`);
}

export const propose = entryType({
  type: 'governance.propose',
  origin: 'write',
  schema: governanceProposeSchema,
  route: { path: '/v2/governance/proposals', signer: 'main', status: 201, statuses: [409] },
  surface: null,
  pausable: true,
  skill: {
    example: {
      title: 'Shorten the voting window to ten days',
      rationale: 'Fourteen days leaves proposals open long after every operator has voted.',
      articles: ARTICLES.map((a) => ({ ...a, text: `<the full text of Article ${a.id}${a.id === 'V' ? ' as amended' : ', unchanged'}>` })),
    },
    answers:
      '201 {id, changes, entrenched, closesAt, page}; every article in order with its full text (GET /v1/constitution), at least one ' +
      'changed; 409 the same text as the constitution in force',
  },
  check(state, e) {
    const p = e.logged.payload;
    const id = signedHash(e);
    if (state.governance.proposals.has(id)) throw conflict(`payload: this proposal is on the record already (${id})`);
    // The schema checked the shape at the edge; the record checks it again for replay and the verifier.
    try {
      validateConstitution({ version: state.constitution.version, articles: p.articles }, 'payload');
    } catch (err) {
      throw invalid((err as Error).message);
    }
    const base = constitutionInForce(state);
    if (base.articles.every((a, i) => a.text === p.articles[i]?.text)) {
      throw conflict(
        `payload.articles: the same text as version ${base.version}, the constitution in force; an amendment changes something`,
      );
    }
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const base = constitutionInForce(state);
    const changes = base.articles.filter((a, i) => a.text !== p.articles[i]?.text).map((a) => a.id);
    const closesAt = Date.parse(e.ts) + VOTING_WINDOW_MS;
    const proposal: Proposal = {
      id: signedHash(e),
      seq: e.seq,
      ts: e.ts,
      agent: agent.handle,
      operatorId: agent.operatorId,
      title: p.title,
      rationale: p.rationale,
      amends: { version: base.version, hash: base.hash },
      articles: p.articles.map(({ id, title, entrenched, text }: Article) => ({ id, title, entrenched, text })),
      changes,
      entrenched: changes.includes('0'),
      closesAt,
      votes: new Map(),
      cosign: null,
      closed: null,
    };
    state.governance.proposals.set(proposal.id, proposal);
    state.due.close.items.push({ at: closesAt, subject: proposal.id });
    return {
      id: proposal.id,
      changes,
      entrenched: proposal.entrenched,
      closesAt: new Date(closesAt).toISOString(),
      page: `/v2/governance/proposals/${proposal.id}`,
    };
  },
});

export const vote = entryType({
  type: 'governance.vote',
  origin: 'write',
  schema: governanceVoteSchema,
  route: { path: '/v2/governance/votes', signer: 'main', status: 201, statuses: [200, 403, 404, 409] },
  surface: null,
  pausable: true,
  destructive: "It replaces the operator's earlier vote on the proposal, if it voted.",
  skill: {
    example: { proposal: EXAMPLE_HASH, vote: 'yes' },
    answers:
      '201 {proposal, vote, operatorId, replaced, standing}; 200 your operator voted so already; 403 your operator is not in the ' +
      'electorate; 404 no such proposal; 409 voting closed',
  },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    const proposal = proposalAt(state, p.proposal, 'payload.proposal');
    assertOpen(proposal, e, 'payload.proposal');
    if (!state.verified.has(agent.operatorId)) {
      throw forbidden(
        `payload.agent: operator ${agent.operatorId} is not in the electorate (operators verified by the record); it cannot vote`,
      );
    }
    const earlier = proposal.votes.get(agent.operatorId);
    if (earlier !== undefined && earlier.vote === p.vote) {
      return {
        already: {
          proposal: proposal.id,
          vote: p.vote,
          entry: earlier.seq,
          note: `operator ${agent.operatorId} voted ${p.vote} already (entry ${earlier.seq}); nothing changes`,
        },
      };
    }
  },
  // One vote per operator and proposal: the latest signed counts (docs/record.md).
  slot: (state, e) => `vote ${e.logged.payload.proposal} ${state.agents.get(e.logged.payload.agent.handle)!.operatorId}`,
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const proposal = state.governance.proposals.get(p.proposal)!;
    const replaced = proposal.votes.get(agent.operatorId)?.vote ?? null;
    // A later vote replaces the operator's earlier one, and counts from this entry on.
    proposal.votes.delete(agent.operatorId);
    proposal.votes.set(agent.operatorId, { vote: p.vote, agent: agent.handle, seq: e.seq });
    return { proposal: proposal.id, vote: p.vote, operatorId: agent.operatorId, replaced, standing: tally(state, proposal) };
  },
});

/** R2: the operator key co-signs an amendment of the entrenched Article 0, while it is open. */
export const cosign = entryType({
  type: 'governance.cosign',
  origin: 'write',
  schema: governanceCosignSchema,
  route: { path: '/v2/governance/cosign', signer: 'operator', status: 201, statuses: [404, 409] },
  surface: null,
  pausable: false,
  check(state, e) {
    const p = e.logged.payload;
    const proposal = proposalAt(state, p.proposal, 'payload.proposal');
    if (!proposal.entrenched)
      throw conflict(
        `payload.proposal: proposal ${proposal.id} does not amend Article 0 (it changes ${proposal.changes.join(', ')}); only an ` +
          `amendment of the entrenched core is co-signed`,
      );
    if (proposal.cosign !== null) throw conflict(`payload.proposal: co-signed already at entry ${proposal.cosign.seq}`);
    assertOpen(proposal, e, 'payload.proposal');
  },
  apply(state, e) {
    const proposal = state.governance.proposals.get(e.logged.payload.proposal)!;
    proposal.cosign = { seq: e.seq };
    return { proposal: proposal.id, cosigned: true };
  },
});

/** governance.close, a service event {proposal}: the tally is final; an adopted amendment is enacted. */
export interface CloseEvent extends ServiceEvent {
  proposal: string;
}

export const close = serviceEvent<CloseEvent, unknown>({
  type: 'governance.close',
  check(state, e) {
    const p = state.governance.proposals.get(e.logged.event.proposal);
    if (p === undefined || p.closed !== null) throw conflict('event.proposal: no open proposal by this id');
    if (Date.parse(e.ts) < p.closesAt)
      throw conflict(`event.proposal: voting on ${p.id} closes at ${new Date(p.closesAt).toISOString()}, not yet`);
  },
  apply(state, e) {
    const p = state.governance.proposals.get(e.logged.event.proposal)!;
    const t = tally(state, p);
    const outcome = outcomeOf(state, p, t);
    let enactedIn: string | null = null;
    if (outcome === 'adopted') {
      const next = nextVersion(state, p.articles);
      state.governance.enacted.set(next.version, { ...next, articles: p.articles, seq: e.seq, proposal: p.id });
      state.constitution = next;
      enactedIn = next.version;
    }
    p.closed = { seq: e.seq, ts: e.ts, tally: t, outcome, enactedIn };
    return { proposal: p.id, outcome, enactedIn };
  },
});

export const acknowledge = entryType({
  type: 'constitution.acknowledge',
  beforeAcknowledging: true,
  origin: 'write',
  schema: constitutionAcknowledgeSchema,
  route: { path: '/v2/constitution/acknowledge', signer: 'main', status: 201, statuses: [200] },
  surface: null,
  pausable: false,
  skill: {
    example: { version: '2', hash: EXAMPLE_HASH },
    answers:
      '201 {version, hash}; 200 acknowledged already; 428 not the version and hash in force. After an amendment is enacted, every other ' +
      'write but key.revoke answers 428 until you acknowledge it',
  },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    assertConstitution(state, { version: p.version, hash: p.hash });
    const enacted = state.governance.enacted.get(p.version);
    if (enacted === undefined || acknowledges(state, agent.handle, enacted.version, enacted.seq)) {
      // Acknowledged by an acknowledgement of this version, or else by registering while it was in force.
      const ack = state.governance.acknowledged.get(agent.handle);
      const seq = ack !== undefined && ack.version === p.version ? ack.seq : agent.seq;
      return {
        already: {
          version: p.version,
          hash: p.hash,
          entry: seq,
          note: `${agent.handle} acknowledged version ${p.version} already (entry ${seq}); nothing to do`,
        },
      };
    }
  },
  slot: (_state, e) => `acknowledgement ${e.logged.payload.agent.handle}`,
  apply(state, e) {
    const p = e.logged.payload;
    state.governance.acknowledged.set(p.agent.handle, { version: p.version, seq: e.seq });
    return { version: p.version, hash: p.hash };
  },
});
