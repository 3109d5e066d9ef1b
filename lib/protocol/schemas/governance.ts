// Payloads of governance/0.1 (docs/governance.md): a proposal carrying the full amended articles,
// an operator's vote, the operator key's co-signature of an Article 0 amendment (R2), and an
// agent's acknowledgement of the constitution in force. Part of payloads.ts's tables.
import { ARTICLES } from '../constitution.js';
import { hash64, konst, nt, obj, oneOf, PROTOCOL, signed, str, ts, tuple } from './shared.js';

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

export const governancePropose = signed(
  'governance.propose',
  'GovernancePropose',
  { title: nt(10, 200), rationale: nt(30, 4000), articles },
  ['title', 'rationale', 'articles'],
);

export const governanceVote = signed('governance.vote', 'GovernanceVote', { proposal: hash64, vote: oneOf(['yes', 'no']) }, [
  'proposal',
  'vote',
]);

export const governanceCosign = obj(
  { protocol: konst(PROTOCOL), type: konst('governance.cosign'), proposal: hash64, ts },
  ['protocol', 'type', 'proposal', 'ts'],
  { title: 'GovernanceCosign' },
);

export const constitutionAcknowledge = signed(
  'constitution.acknowledge',
  'ConstitutionAcknowledge',
  { version: str(1, 40), hash: hash64 },
  ['version', 'hash'],
);
