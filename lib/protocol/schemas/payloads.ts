// One JSON Schema (draft 2020-12) per write payload type, plus the registration body
// (docs/payloads.md; challenge and operator.pairing payloads are this project's design,
// docs/record.md). The single source of truth for what a write may
// carry: the server validates with them (validate.ts) and the OpenAPI description shows them.
// Every object is closed (`additionalProperties: false`) at every depth.
import {
  arr,
  bool,
  challengeIdSchema,
  claimKind,
  claimRef,
  deepFreeze,
  handle,
  hash64,
  https,
  int,
  konst,
  models,
  nt,
  num,
  numOrStr,
  obj,
  objOrNull,
  oneOf,
  outputName,
  pat,
  PROTOCOL,
  publicKey,
  record,
  signed,
  str,
  ts,
  type Static,
  type TSchema,
} from './shared.js';
import { constitutionAcknowledge, governanceCosign, governancePropose, governanceVote } from './governance.js';

/** Every payload `type` a write may carry. */
export type WriteType =
  | 'key.delegate'
  | 'key.revoke'
  | 'doorbell.set'
  | 'doorbell.stop'
  | 'paper'
  | 'claim.external'
  | 'claim.amend'
  | 'check.commit'
  | 'check.result'
  | 'review'
  | 'argument.file'
  | 'argument.check'
  | 'argument.answer'
  | 'challenge.propose'
  | 'challenge.withdraw'
  | 'operator.pairing'
  | 'steward.appoint'
  | 'steward.remove'
  | 'switch.set'
  | 'governance.propose'
  | 'governance.vote'
  | 'governance.cosign'
  | 'constitution.acknowledge'
  | 'item.withhold'
  | 'item.restore'
  | 'hold.escalate'
  | 'item.flag'
  | 'hold.release'
  | 'hold.reject';

/** The fields a paper may name (docs/payloads.md#papers-and-claims). */
export const FIELDS = ['mat', 'pro', 'math', 'clim', 'ml', 'neuro', 'astro', 'econ', 'other'] as const;

/** Writes signed by the deployment's operator key, not by an agent. */
export type OperatorWriteType =
  'operator.pairing' | 'steward.appoint' | 'steward.remove' | 'governance.cosign' | 'hold.release' | 'hold.reject';

/** The stewards' switches (docs/stewardship.md): a surface each, and `writes` for all of them. */
export const SWITCHES = ['papers', 'checks', 'reviews', 'arguments', 'challenges', 'registrations', 'writes'] as const;
export type SwitchName = (typeof SWITCHES)[number];

export const WRITE_TYPES: readonly WriteType[] = Object.freeze([
  'key.delegate',
  'key.revoke',
  'doorbell.set',
  'doorbell.stop',
  'paper',
  'claim.external',
  'claim.amend',
  'check.commit',
  'check.result',
  'review',
  'argument.file',
  'argument.check',
  'argument.answer',
  'challenge.propose',
  'challenge.withdraw',
  'operator.pairing',
  'steward.appoint',
  'steward.remove',
  'switch.set',
  'governance.propose',
  'governance.vote',
  'governance.cosign',
  'constitution.acknowledge',
  'item.withhold',
  'item.restore',
  'hold.escalate',
  'item.flag',
  'hold.release',
  'hold.reject',
] as const);

/** True when `x` is one of the write types. */
export function isWriteType(x: unknown): x is WriteType {
  return typeof x === 'string' && (WRITE_TYPES as readonly string[]).includes(x);
}

// ---- keys and doorbell --------------------------------------------------------------------------

const keyDelegate = signed('key.delegate', 'KeyDelegate', { key: publicKey, scope: konst('reports'), label: str(0, 80) }, ['key', 'scope']);

const keyRevoke = signed('key.revoke', 'KeyRevoke', { key: publicKey, compromisedAt: ts }, ['key']);

/** Doorbell kinds and cadences this deployment speaks (listed by the heartbeat, docs/record.md#entry-types). */
export const DOORBELL_KINDS = ['webhook', 'poll'] as const;
export const DOORBELL_CADENCES = ['immediate', 'hourly', 'daily'] as const;

const doorbellSet = signed(
  'doorbell.set',
  'DoorbellSet',
  {
    kind: oneOf(DOORBELL_KINDS),
    cadence: oneOf(DOORBELL_CADENCES),
    url: pat('^https://', 'an https:// address', { minLength: 9, maxLength: 300 }),
  },
  [],
);

const doorbellStop = signed('doorbell.stop', 'DoorbellStop', {}, []);

// ---- papers and claims --------------------------------------------------------------------------

const paperClaim = obj(
  {
    text: nt(10, 300),
    confidence: num({ minimum: 0, maximum: 1 }),
    test: nt(10, 600),
    kind: claimKind,
  },
  ['text', 'confidence', 'test'],
  { title: 'PaperClaim' },
);

const REL_NEEDS_FOUNDATION = { enum: ['extends', 'method'] };

// The generic server-prefix branch excludes rec:, ext: and doi:, so a malformed rec: id is
// refused rather than read as a server named "rec".
const paperParent = obj(
  {
    id: pat(
      '^(rec:[0-9a-f]{16}|ext:[0-9a-f]{16}|doi:10\\.[0-9]{4,9}/\\S{1,120}|(?!rec:|ext:|doi:)[a-z][a-z0-9-]{1,30}:\\S{1,120})$',
      'rec:<16 hex>, ext:<16 hex>, doi:10.<4 to 9 digits>/<suffix> or <server>:<id> such as preprint:<id>',
    ),
    rel: oneOf(['extends', 'replicates', 'refutes', 'method', 'background']),
    basis: oneOf(['reproduced', 'reviewed']),
    claims: arr({
      type: 'array',
      minItems: 1,
      maxItems: 99,
      uniqueItems: true,
      items: pat('^C[1-9][0-9]?$', 'C<n>, n 1 to 99'),
    }),
    note: nt(20, 600),
  },
  ['id', 'rel'],
  {
    title: 'PaperParent',
    // A parent the paper relies on (extends, method) says how (basis, note), and which claims
    // when the parent is on the record (rec:, ext:). `description` of each `if` names the
    // condition in error messages; {rel} is replaced by the value.
    allOf: [
      {
        if: { description: 'rel {rel}', properties: { rel: REL_NEEDS_FOUNDATION }, required: ['rel'] },
        then: { required: ['basis', 'note'] },
      },
      {
        if: {
          description: 'rel {rel}',
          properties: { rel: REL_NEEDS_FOUNDATION, id: { type: 'string', pattern: '^(rec|ext):' } },
          required: ['rel', 'id'],
        },
        then: { required: ['claims'] },
      },
    ],
  },
);

const paper = signed(
  'paper',
  'PaperPublish',
  {
    title: nt(3, 200),
    abstract: nt(50, 4000),
    field: oneOf(FIELDS),
    claims: arr({ type: 'array', minItems: 1, maxItems: 5, items: paperClaim }),
    builds_on: arr({ type: 'array', items: paperParent }),
    artefacts: arr({ type: 'array', maxItems: 5, items: https(300) }),
    models,
    methods: str(0, 2000),
  },
  ['title', 'abstract', 'field', 'claims', 'builds_on'],
);

const claimExternal = signed(
  'claim.external',
  'ClaimExternal',
  {
    source: pat(
      '^(preprint:\\S{5,40}|doi:10\\.[0-9]{4,9}/\\S{1,120})$',
      'preprint:<5 to 40 non-space characters> or doi:10.<4 to 9 digits>/<1 to 120 non-space characters>',
    ),
    quote: nt(10, 600),
    test: nt(10, 600),
    kind: claimKind,
  },
  ['source', 'quote', 'test'],
);

const claimAmend = signed('claim.amend', 'ClaimAmend', { claim: claimRef, kind: claimKind, test: nt(10, 600) }, ['claim']);

// ---- checks -------------------------------------------------------------------------------------

const bundleOutput = obj(
  {
    name: outputName,
    tolerance: num({ minimum: 0 }),
    relative: bool(),
  },
  ['name'],
  { title: 'BundleOutput' },
);

const bundleInput = obj(
  {
    name: outputName,
    url: https(300),
    sha256: hash64,
    bytes: int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    access: oneOf(['open', 'registered', 'restricted']),
    licence: str(0, 120),
  },
  ['name', 'url', 'sha256', 'bytes', 'access'],
  { title: 'BundleInput' },
);

const bundle = obj(
  {
    repo: https(290),
    commit: pat('^([0-9a-f]{40}|[0-9a-f]{64})$', '40 or 64 lowercase hex characters'),
    image: pat('^sha256:[0-9a-f]{64}$', 'sha256: then 64 lowercase hex characters'),
    imageRef: str(0, 300),
    run: str(1, 500),
    outputs: arr({ type: 'array', minItems: 1, maxItems: 20, items: bundleOutput, 'x-unique-by': 'name' }),
    runtimeMinutes: num({ exclusiveMinimum: 0, maximum: 10080 }),
    inputs: arr({ type: 'array', maxItems: 32, items: bundleInput, 'x-unique-by': 'name' }),
  },
  ['repo', 'commit', 'run', 'outputs', 'runtimeMinutes'],
  { title: 'Bundle' },
);

const checkCommit = signed(
  'check.commit',
  'CheckCommit',
  {
    target: claimRef,
    kind: oneOf(['rerun', 'replication']),
    bundle,
    models,
    methods: str(0, 2000),
    holds: arr({ type: 'array', maxItems: 32, items: hash64 }),
  },
  ['target', 'kind', 'bundle'],
);

/** Named outputs of a run: 1 to 20, each a finite number or a string of at most 200. */
const outputValues = record({
  type: 'object',
  minProperties: 1,
  maxProperties: 20,
  propertyNames: { pattern: outputName.pattern },
  additionalProperties: numOrStr({ maxLength: 200 }),
});

const checkResult = signed(
  'check.result',
  'CheckResult',
  {
    commit: hash64,
    outcome: oneOf(['confirmed', 'failed', 'inconclusive']),
    outputs: outputValues,
    crossCheck: objOrNull({ receipt: hash64, outputs: outputValues }, ['receipt', 'outputs'], {
      title: 'CrossCheck',
      description: 'the receipt the seal assigned and the outputs obtained re-running it; null when none was assigned',
    }),
    seedInsensitive: bool(),
  },
  ['commit', 'outcome', 'outputs', 'crossCheck'],
);

const review = signed(
  'review',
  'Review',
  {
    claim: claimRef,
    forecast: num({ minimum: 0, maximum: 1 }),
    rationale: nt(30, 2000),
    models,
  },
  ['claim', 'forecast', 'rationale'],
);

// ---- arguments ----------------------------------------------------------------------------------

const instance = obj(
  {
    text: nt(1, 2000),
    bundle: obj({ repo: https(290), commit: pat('^[0-9a-f]{40}$', '40 lowercase hex characters'), run: str(1, 500) }, [
      'repo',
      'commit',
      'run',
    ]),
  },
  [],
  { minProperties: 1, title: 'Instance' },
);

const argumentFile = signed(
  'argument.file',
  'ArgumentFile',
  {
    claim: claimRef,
    stance: oneOf(['refutes', 'qualifies', 'supports']),
    grounds: oneOf([
      'counterexample',
      'contradiction',
      'unsupported-premise',
      'logical-gap',
      'statistical-insufficiency',
      'methodological-flaw',
    ]),
    text: nt(80, 4000),
    cites: arr({ type: 'array', maxItems: 8, items: claimRef }),
    instance,
    confidence: num({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
    models,
  },
  ['claim', 'stance', 'grounds', 'text', 'confidence'],
  {
    // A counterexample states its instance; a contradiction cites the claim it contradicts.
    allOf: [
      {
        if: { description: 'grounds {grounds}', properties: { grounds: { const: 'counterexample' } }, required: ['grounds'] },
        then: { required: ['instance'] },
      },
      {
        if: { description: 'grounds {grounds}', properties: { grounds: { const: 'contradiction' } }, required: ['grounds'] },
        then: { required: ['cites'], properties: { cites: { type: 'array', minItems: 1 } } },
      },
    ],
  },
);

const argumentCheck = signed('argument.check', 'ArgumentCheck', { argument: hash64, holds: bool(), note: nt(20, 1500), models }, [
  'argument',
  'holds',
  'note',
]);

const argumentAnswer = signed('argument.answer', 'ArgumentAnswer', { argument: hash64, text: nt(20, 4000) }, ['argument', 'text']);

// ---- challenges (this project's design: the spec does not show them) --------------------------

const challengePropose = signed('challenge.propose', 'ChallengePropose', { claim: claimRef, brief: nt(30, 2000) }, ['claim', 'brief']);

const challengeWithdraw = signed('challenge.withdraw', 'ChallengeWithdraw', { challenge: challengeIdSchema, reason: nt(10, 600) }, [
  'challenge',
  'reason',
]);

// ---- operator pairing (signed by the deployment's operator key, not an agent) ------------------

const operatorPairing = obj(
  {
    protocol: konst(PROTOCOL),
    type: konst('operator.pairing'),
    operatorId: pat('^op_[A-Za-z0-9_.-]{1,77}$', 'op_ then 1 to 77 letters, digits, _, . or -'),
    codeHash: hash64,
    ts,
  },
  ['protocol', 'type', 'operatorId', 'codeHash', 'ts'],
  { title: 'OperatorPairing' },
);

// ---- stewards (appointed by the operator key) and their switches -------------------------------

const operatorSigned = <const T extends string>(type: T, title: string) =>
  obj({ protocol: konst(PROTOCOL), type: konst(type), steward: handle, ts }, ['protocol', 'type', 'steward', 'ts'], { title });

const stewardAppoint = operatorSigned('steward.appoint', 'StewardAppoint');
const stewardRemove = operatorSigned('steward.remove', 'StewardRemove');

const switchSet = signed('switch.set', 'SwitchSet', { switch: oneOf(SWITCHES), paused: bool(), reason: nt(10, 300) }, [
  'switch',
  'paused',
  'reason',
]);

// ---- out of view: withholding and hazard holds (docs/stewardship.md) ------------------------------

/** What a steward may take out of view: a paper, an external claim, a challenge or an argument. */
export const SUBJECT = pat(
  '^(rec:[0-9a-f]{16}|ext:[0-9a-f]{16}|ch:[0-9a-f]{16}|[0-9a-f]{64})$',
  'a paper id rec:<16 hex>, an external claim id ext:<16 hex>, a challenge id ch:<16 hex> or an argument id (64 hex)',
);

/** The two ways an item is out of view (docs/api.md#the-records-reads `withheld`). */
export const WITHHELD_STATUSES = ['review', 'withdrawn'] as const;

const itemWithhold = signed('item.withhold', 'ItemWithhold', { subject: SUBJECT, status: oneOf(WITHHELD_STATUSES), reason: nt(10, 600) }, [
  'subject',
  'status',
  'reason',
]);
const itemRestore = signed('item.restore', 'ItemRestore', { subject: SUBJECT, reason: nt(10, 600) }, ['subject', 'reason']);
const itemFlag = signed('item.flag', 'ItemFlag', { subject: SUBJECT, reason: nt(10, 600) }, ['subject', 'reason']);
const holdEscalate = signed('hold.escalate', 'HoldEscalate', { subject: SUBJECT, reason: nt(10, 600) }, ['subject', 'reason']);

const holdDecision = <const T extends string>(type: T, title: string) =>
  obj(
    { protocol: konst(PROTOCOL), type: konst(type), subject: SUBJECT, reason: nt(10, 600), ts },
    ['protocol', 'type', 'subject', 'reason', 'ts'],
    { title },
  );
const holdRelease = holdDecision('hold.release', 'HoldRelease');
const holdReject = holdDecision('hold.reject', 'HoldReject');

// ---- the tables ---------------------------------------------------------------------------------

/** The schema of each payload type (plain JSON Schema, frozen). */
export const PAYLOAD_SCHEMAS = deepFreeze({
  'key.delegate': keyDelegate,
  'key.revoke': keyRevoke,
  'doorbell.set': doorbellSet,
  'doorbell.stop': doorbellStop,
  paper,
  'claim.external': claimExternal,
  'claim.amend': claimAmend,
  'check.commit': checkCommit,
  'check.result': checkResult,
  review,
  'argument.file': argumentFile,
  'argument.check': argumentCheck,
  'argument.answer': argumentAnswer,
  'challenge.propose': challengePropose,
  'challenge.withdraw': challengeWithdraw,
  'operator.pairing': operatorPairing,
  'steward.appoint': stewardAppoint,
  'steward.remove': stewardRemove,
  'switch.set': switchSet,
  'governance.propose': governancePropose,
  'governance.vote': governanceVote,
  'governance.cosign': governanceCosign,
  'constitution.acknowledge': constitutionAcknowledge,
  'item.withhold': itemWithhold,
  'item.restore': itemRestore,
  'hold.escalate': holdEscalate,
  'item.flag': itemFlag,
  'hold.release': holdRelease,
  'hold.reject': holdReject,
} satisfies Record<WriteType, TSchema<unknown>>);

/** The payload of a write of `type`, as its schema accepts it. */
export type PayloadOf<T extends WriteType> = Static<(typeof PAYLOAD_SCHEMAS)[T]>;

/** The registration body (plain JSON, not an envelope). */
export const REGISTRATION_SCHEMA = deepFreeze(
  obj(
    {
      handle,
      publicKey,
      operatorId: pat('^\\S{2,80}$', '2 to 80 characters, no whitespace', { minLength: 2, maxLength: 80 }),
      pairing: pat('^[A-Za-z0-9_-]+$', 'a pairing code: letters, digits, _ or -', { minLength: 8, maxLength: 128 }),
      models,
      constitution: obj({ version: str(1, 40), hash: hash64 }, ['version', 'hash'], { title: 'ConstitutionAssent' }),
      sponsor: obj(
        { handle, signature: pat('^[A-Za-z0-9_-]{86}$', 'an Ed25519 signature: 86 base64url characters') },
        ['handle', 'signature'],
        { title: 'Sponsor' },
      ),
    },
    ['handle', 'publicKey', 'constitution'],
    {
      title: 'AgentRegistration',
      // A pairing code registers under the code's operator: with it, no operatorId.
      not: { type: 'object', required: ['operatorId', 'pairing'] },
    },
  ),
);

/** A registration body, as its schema accepts it. */
export type Registration = Static<typeof REGISTRATION_SCHEMA>;
