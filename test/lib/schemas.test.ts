// lib/protocol/schemas: one JSON Schema per write payload type and the registration body; every refusal
// is a bad_request whose detail names each problem field as a path from the payload root.
import t, { type Test } from 'tap';
import { isArchiveError } from '../../lib/protocol/errors.js';
import { ARTICLES } from '../../lib/protocol/constitution.js';
import { PAYLOAD_SCHEMAS, WRITE_TYPES, type WriteType } from '../../lib/record/types/index.js';
import { payloadErrors, validatePayload } from '../../lib/record/validation/index.js';
import {
  NT_FORBIDDEN,
  REGISTRATION_SCHEMA,
  isRealTs,
  joinDetail,
  ntViolation,
  registrationErrors,
  validateRegistration,
} from '../../lib/protocol/schemas/index.js';

type Obj = Record<string, any>;

const KEY = 'MCowBQYDK2VwAyEA' + 'A'.repeat(43);
const KEY2 = 'MCowBQYDK2VwAyEA' + 'B'.repeat(43);
const HEX64 = 'ab'.repeat(32);
const HEX40 = 'cd'.repeat(20);
const REF = 'rec:0123456789abcdef#C1';
const EXT_REF = 'ext:fedcba9876543210#C1';
const TS = '2025-03-04T05:06:07.123Z';
const x = (n: number, c = 'x'): string => c.repeat(n);

/** A valid payload of each type; `with`/`without` change it. */
function valid(type: WriteType): Obj {
  const common = { protocol: 'archive/0.2', type, agent: { handle: 'alice-1', publicKey: KEY }, ts: TS };
  switch (type) {
    case 'key.delegate':
      return { ...common, key: KEY2, scope: 'reports', label: 'the runner box' };
    case 'key.revoke':
      return { ...common, key: KEY2, compromisedAt: '2025-03-01T00:00:00Z' };
    case 'doorbell.set':
      return { ...common, kind: 'webhook', cadence: 'hourly', url: 'https://example.org/ring' };
    case 'doorbell.stop':
      return { ...common };
    case 'paper':
      return {
        ...common,
        title: 'A paper',
        abstract: x(50, 'a'),
        field: 'ml',
        claims: [
          { text: 'Claim text here', confidence: 0.7, test: 'A failing run refutes', kind: 'empirical' },
          { text: 'Other claim text', confidence: 0, test: 'Another test here' },
        ],
        builds_on: [
          { id: 'rec:0123456789abcdef', rel: 'extends', basis: 'reproduced', claims: ['C1', 'C2'], note: x(20, 'n') },
          { id: 'doi:10.1234/abc.def', rel: 'method', basis: 'reviewed', note: x(20, 'n') },
          { id: 'preprint:2401.00001', rel: 'background' },
          { id: 'ext:fedcba9876543210', rel: 'refutes' },
        ],
        artefacts: ['https://example.org/a'],
        models: ['claude-x', 'gpt-y'],
        methods: 'How it was done',
      };
    case 'claim.external':
      return { ...common, source: 'doi:10.1000/xyz123', quote: 'A verbatim sentence', test: 'What would fail it', kind: 'conceptual' };
    case 'claim.amend':
      return { ...common, claim: REF, kind: 'conceptual', test: 'A sharper test here' };
    case 'check.commit':
      return {
        ...common,
        target: REF,
        kind: 'replication',
        bundle: {
          repo: 'https://github.com/a/b',
          commit: HEX40,
          image: `sha256:${HEX64}`,
          imageRef: 'ghcr.io/a/b:1',
          run: 'python run.py',
          outputs: [{ name: 'acc', tolerance: 0.01, relative: true }, { name: 'loss' }],
          runtimeMinutes: 12.5,
          inputs: [{ name: 'data.csv', url: 'https://example.org/d', sha256: HEX64, bytes: 1024, access: 'open', licence: 'CC-BY-4.0' }],
        },
        models: ['claude-x'],
        methods: 'Own implementation',
        holds: [HEX64],
      };
    case 'check.result':
      return {
        ...common,
        commit: HEX64,
        outcome: 'confirmed',
        outputs: { acc: 0.91, note: 'ok' },
        crossCheck: { receipt: HEX64, outputs: { acc: 0.9 } },
        seedInsensitive: false,
      };
    case 'review':
      return { ...common, claim: EXT_REF, forecast: 0.4, rationale: x(30, 'r'), models: ['gemini-2'] };
    case 'argument.file':
      return {
        ...common,
        claim: REF,
        stance: 'refutes',
        grounds: 'counterexample',
        text: x(80, 't'),
        cites: [EXT_REF],
        instance: { text: 'n = 3 breaks it', bundle: { repo: 'https://github.com/a/b', commit: HEX40, run: 'make' } },
        confidence: 0.6,
        models: ['qwen-2'],
      };
    case 'argument.check':
      return { ...common, argument: HEX64, holds: true, note: x(20, 'c'), models: ['llama-3'] };
    case 'argument.answer':
      return { ...common, argument: HEX64, text: x(20, 'a') };
    case 'challenge.propose':
      return { ...common, claim: REF, brief: x(30, 'b') };
    case 'challenge.withdraw':
      return { ...common, challenge: 'ch:0123456789abcdef', reason: x(10, 'w') };
    case 'operator.pairing': {
      const { agent: _a, ...rest } = common;
      return { ...rest, operatorId: 'op_archive', codeHash: HEX64 };
    }
    case 'steward.appoint':
    case 'steward.remove': {
      const { agent: _a, ...rest } = common;
      return { ...rest, steward: 'alice-1' };
    }
    case 'switch.set':
      return { ...common, switch: 'papers', paused: true, reason: x(10, 'r') };
    case 'governance.propose':
      return {
        ...common,
        title: x(10, 't'),
        rationale: x(30, 'r'),
        articles: ARTICLES.map((a) => ({ ...a, text: `1. Article ${a.id}.` })),
      };
    case 'governance.vote':
      return { ...common, proposal: HEX64, vote: 'no' };
    case 'governance.cosign': {
      const { agent: _a, ...rest } = common;
      return { ...rest, proposal: HEX64 };
    }
    case 'constitution.acknowledge':
      return { ...common, version: '2', hash: HEX64 };
    case 'item.withhold':
      return { ...common, subject: 'rec:0123456789abcdef', status: 'review', reason: x(10, 'r') };
    case 'item.restore':
    case 'hold.escalate':
    case 'item.flag':
      return { ...common, subject: 'ch:0123456789abcdef', reason: x(10, 'r') };
    case 'hold.release':
    case 'hold.reject': {
      const { agent: _a, ...rest } = common;
      return { ...rest, subject: HEX64, reason: x(10, 'r') };
    }
  }
}

function validRegistration(): Obj {
  return {
    handle: 'alice-1',
    publicKey: KEY,
    operatorId: 'lab-7',
    models: ['claude-x'],
    constitution: { version: '1.0', hash: HEX64 },
    sponsor: { handle: 'bob', signature: x(86, 'S') },
  };
}

/** A copy of `obj` with the value at `path` (dot/bracket-free array of keys) set, or removed when `value` is DELETE. */
const DELETE = Symbol('delete');
function edit(obj: Obj, path: (string | number)[], value: unknown): Obj {
  const copy = structuredClone(obj);
  let here: any = copy;
  for (const k of path.slice(0, -1)) here = here[k];
  const last = path[path.length - 1]!;
  if (value === DELETE) {
    if (Array.isArray(here)) here.splice(last as number, 1);
    else delete here[last];
  } else here[last] = value;
  return copy;
}

/** The detail of the bad_request thrown for `payload` as `type`. */
function detailOf(t: Test, type: WriteType, payload: unknown): string {
  try {
    validatePayload(type, payload);
  } catch (e) {
    t.ok(isArchiveError(e, 'bad_request'), 'bad_request');
    return isArchiveError(e) ? e.detail : '';
  }
  t.fail('expected a refusal');
  return '';
}

function registrationDetail(t: Test, body: unknown): string {
  try {
    validateRegistration(body);
  } catch (e) {
    t.ok(isArchiveError(e, 'bad_request'), 'bad_request');
    return isArchiveError(e) ? e.detail : '';
  }
  t.fail('expected a refusal');
  return '';
}

t.test('exactly these types, each with a JSON-serialisable schema', async (t) => {
  t.same([...WRITE_TYPES].sort(), [
    'argument.answer',
    'argument.check',
    'argument.file',
    'challenge.propose',
    'challenge.withdraw',
    'check.commit',
    'check.result',
    'claim.amend',
    'claim.external',
    'constitution.acknowledge',
    'doorbell.set',
    'doorbell.stop',
    'governance.cosign',
    'governance.propose',
    'governance.vote',
    'hold.escalate',
    'hold.reject',
    'hold.release',
    'item.flag',
    'item.restore',
    'item.withhold',
    'key.delegate',
    'key.revoke',
    'operator.pairing',
    'paper',
    'review',
    'steward.appoint',
    'steward.remove',
    'switch.set',
  ]);
  t.same(Object.keys(PAYLOAD_SCHEMAS).sort(), [...WRITE_TYPES].sort());
  for (const type of WRITE_TYPES) {
    const s = PAYLOAD_SCHEMAS[type];
    t.same(JSON.parse(JSON.stringify(s)), s, `${type} round-trips through JSON`);
    t.notMatch(JSON.stringify(s), /"\$(id|ref)"/, `${type} has no $id or $ref`);
    t.ok(Object.isFrozen(s), `${type} is frozen`);
  }
  t.same(JSON.parse(JSON.stringify(REGISTRATION_SCHEMA)), REGISTRATION_SCHEMA);
});

t.test('one valid payload of each type passes', async (t) => {
  for (const type of WRITE_TYPES) {
    t.same(payloadErrors(type, valid(type)), [], type);
    t.doesNotThrow(() => validatePayload(type, valid(type)), type);
  }
  t.same(registrationErrors(validRegistration()), []);
  t.doesNotThrow(() => validateRegistration(validRegistration()));
});

t.test('optional members may be left out', async (t) => {
  const minimal: [WriteType, string[]][] = [
    ['key.delegate', ['label']],
    ['key.revoke', ['compromisedAt']],
    ['doorbell.set', ['kind', 'cadence', 'url']],
    ['paper', ['artefacts', 'models', 'methods']],
    ['claim.external', ['kind']],
    ['claim.amend', ['kind', 'test']],
    ['check.commit', ['models', 'methods', 'holds']],
    ['check.result', ['seedInsensitive']],
    ['review', ['models']],
    ['argument.check', ['models']],
  ];
  for (const [type, members] of minimal) {
    let p = valid(type);
    for (const m of members) p = edit(p, [m], DELETE);
    t.same(payloadErrors(type, p), [], `${type} without ${members.join(', ')}`);
  }
  const p = valid('paper');
  p.builds_on = [];
  t.same(payloadErrors('paper', p), [], 'builds_on may be empty');
  const c = valid('check.commit');
  for (const m of ['image', 'imageRef', 'inputs']) delete c.bundle[m];
  t.same(payloadErrors('check.commit', c), [], 'bundle without image, imageRef, inputs');
  const a = valid('argument.file');
  a.grounds = 'logical-gap';
  delete a.instance;
  delete a.cites;
  delete a.models;
  t.same(payloadErrors('argument.file', a), [], 'argument on other grounds needs neither instance nor cites');
  const r = validRegistration();
  delete r.operatorId;
  delete r.models;
  delete r.sponsor;
  t.same(registrationErrors(r), []);
  t.same(registrationErrors({ ...r, pairing: 'abcdEFGH_-12' }), [], 'pairing without operatorId');
});

// [type, path, bad value, expected field in the detail]
const WRONG: [WriteType, (string | number)[], unknown, RegExp][] = [
  // common members
  ['review', ['protocol'], 'archive/0.1', /payload\.protocol: must be exactly "archive\/0\.2"/],
  ['review', ['type'], 'paper', /payload\.type: must be exactly "review"/],
  ['review', ['agent', 'handle'], '-bad', /payload\.agent\.handle: must match/],
  ['review', ['agent', 'handle'], 'a', /payload\.agent\.handle/],
  ['review', ['agent', 'handle'], x(41, 'h'), /payload\.agent\.handle/],
  ['review', ['agent', 'publicKey'], 'MCowBQYDK2VwAyEA+/==', /payload\.agent\.publicKey: must match/],
  ['review', ['agent', 'publicKey'], x(19, 'A'), /payload\.agent\.publicKey: must be 20 to 200 characters/],
  ['review', ['agent', 'publicKey'], x(201, 'A'), /payload\.agent\.publicKey/],
  ['review', ['agent'], 'alice', /payload\.agent: must be an object/],
  ['review', ['ts'], '2025-03-04 05:06:07Z', /payload\.ts: must match/],
  ['review', ['ts'], '2025-03-04T05:06:07+00:00', /payload\.ts/],
  ['review', ['ts'], '2025-03-04T05:06:07.1234Z', /payload\.ts/],
  ['review', ['ts'], '2025-13-04T05:06:07Z', /payload\.ts: must be a real UTC date and time/],
  ['review', ['ts'], '2025-02-29T05:06:07Z', /payload\.ts: must be a real/],
  ['review', ['ts'], '2025-04-31T05:06:07Z', /payload\.ts/],
  ['review', ['ts'], '2025-04-30T24:00:00Z', /payload\.ts/],
  ['review', ['ts'], 1741064767, /payload\.ts: must be a string/],
  // keys, doorbell
  ['key.delegate', ['key'], x(19, 'K'), /payload\.key/],
  ['key.delegate', ['scope'], 'all', /payload\.scope: must be exactly "reports"/],
  ['key.delegate', ['label'], x(81, 'l'), /payload\.label: must be at most 80 characters/],
  ['key.revoke', ['compromisedAt'], 'yesterday', /payload\.compromisedAt/],
  ['doorbell.set', ['kind'], 'email', /payload\.kind: must be one of "webhook", "poll"/],
  ['doorbell.set', ['cadence'], 'weekly', /payload\.cadence: must be one of/],
  ['doorbell.set', ['url'], 'http://example.org/', /payload\.url: must match \^https:\/\//],
  ['doorbell.set', ['url'], 'https://', /payload\.url: must be 9 to 300 characters/],
  ['doorbell.set', ['url'], 'https://' + x(293, 'u'), /payload\.url/],
  // paper
  ['paper', ['title'], 'ab', /payload\.title: must be 3 to 200 characters \(has 2\)/],
  ['paper', ['abstract'], x(49, 'a'), /payload\.abstract: must be 50 to 4000/],
  ['paper', ['abstract'], x(4001, 'a'), /payload\.abstract/],
  ['paper', ['field'], 'bio', /payload\.field: must be one of/],
  ['paper', ['claims'], [], /payload\.claims: must have 1 to 5 items \(has 0\)/],
  ['paper', ['claims', 0, 'text'], 'too short', /payload\.claims\[0\]\.text: must be 10 to 300 characters/],
  ['paper', ['claims', 1, 'text'], x(301, 't'), /payload\.claims\[1\]\.text/],
  ['paper', ['claims', 0, 'confidence'], 1.01, /payload\.claims\[0\]\.confidence: must be from 0 to 1/],
  ['paper', ['claims', 0, 'confidence'], -0.1, /payload\.claims\[0\]\.confidence/],
  ['paper', ['claims', 0, 'confidence'], '0.5', /payload\.claims\[0\]\.confidence: must be a number/],
  ['paper', ['claims', 0, 'test'], x(9, 't'), /payload\.claims\[0\]\.test/],
  ['paper', ['claims', 0, 'kind'], 'formal', /payload\.claims\[0\]\.kind: must be one of "empirical", "conceptual"/],
  ['paper', ['claims', 0, 'text'], DELETE, /payload\.claims\[0\]\.text: is required/],
  ['paper', ['builds_on'], DELETE, /payload\.builds_on: is required/],
  ['paper', ['builds_on', 2, 'id'], 'arxiv', /payload\.builds_on\[2\]\.id: must match/],
  ['paper', ['builds_on', 2, 'id'], 'rec:0123', /payload\.builds_on\[2\]\.id/],
  ['paper', ['builds_on', 2, 'id'], 'doi:11.1234/x', /payload\.builds_on\[2\]\.id/],
  ['paper', ['builds_on', 2, 'rel'], 'cites', /payload\.builds_on\[2\]\.rel: must be one of/],
  ['paper', ['builds_on', 0, 'basis'], 'trusted', /payload\.builds_on\[0\]\.basis: must be one of "reproduced", "reviewed"/],
  ['paper', ['builds_on', 0, 'claims'], [], /payload\.builds_on\[0\]\.claims: must have 1 to 99 items \(has 0\)/],
  ['paper', ['builds_on', 0, 'claims'], ['C0'], /payload\.builds_on\[0\]\.claims\[0\]: must match/],
  ['paper', ['builds_on', 0, 'claims'], ['C100'], /payload\.builds_on\[0\]\.claims\[0\]/],
  ['paper', ['builds_on', 0, 'claims'], ['C1', 'C1'], /payload\.builds_on\[0\]\.claims: must not repeat an item/],
  ['paper', ['builds_on', 0, 'note'], x(19, 'n'), /payload\.builds_on\[0\]\.note: must be 20 to 600/],
  ['paper', ['artefacts'], ['http://x.org'], /payload\.artefacts\[0\]: must match \^https:\/\//],
  ['paper', ['artefacts'], ['https://' + x(293)], /payload\.artefacts\[0\]: must be at most 300/],
  ['paper', ['artefacts'], Array(6).fill('https://a.org'), /payload\.artefacts: must have at most 5 items/],
  ['paper', ['models'], [], /payload\.models: must have 1 to 8 items/],
  ['paper', ['models'], Array(9).fill('gpt-4'), /payload\.models: must have 1 to 8 items/],
  ['paper', ['models'], ['g'], /payload\.models\[0\]: must be 2 to 80 characters/],
  ['paper', ['methods'], x(2001), /payload\.methods: must be at most 2000/],
  // external, amend
  ['claim.external', ['source'], 'preprint:abc', /payload\.source: must match/],
  ['claim.external', ['source'], 'doi:10.123/x', /payload\.source/],
  ['claim.external', ['source'], 'rec:0123456789abcdef', /payload\.source/],
  ['claim.external', ['quote'], x(601, 'q'), /payload\.quote: must be 10 to 600/],
  ['claim.external', ['test'], x(9), /payload\.test/],
  ['claim.external', ['kind'], 'both', /payload\.kind/],
  ['claim.amend', ['claim'], 'rec:0123456789abcdef#C0', /payload\.claim: must match/],
  ['claim.amend', ['claim'], 'rec:0123456789abcdef#C01', /payload\.claim/],
  ['claim.amend', ['claim'], 'rec:0123456789ABCDEF#C1', /payload\.claim/],
  ['claim.amend', ['claim'], 'ext:0123456789abcdef#C2', /payload\.claim/],
  ['claim.amend', ['test'], x(601), /payload\.test/],
  // check.commit
  ['check.commit', ['target'], 'rec:0123456789abcdef', /payload\.target: must match/],
  ['check.commit', ['kind'], 'review', /payload\.kind: must be one of "rerun", "replication"/],
  ['check.commit', ['bundle', 'repo'], 'git@github.com:a/b', /payload\.bundle\.repo: must match/],
  ['check.commit', ['bundle', 'repo'], 'https://' + x(283), /payload\.bundle\.repo: must be at most 290/],
  ['check.commit', ['bundle', 'commit'], x(41, 'a'), /payload\.bundle\.commit: must match/],
  ['check.commit', ['bundle', 'commit'], HEX40.toUpperCase(), /payload\.bundle\.commit/],
  ['check.commit', ['bundle', 'image'], HEX64, /payload\.bundle\.image: must match/],
  ['check.commit', ['bundle', 'imageRef'], x(301), /payload\.bundle\.imageRef/],
  ['check.commit', ['bundle', 'run'], '', /payload\.bundle\.run: must be 1 to 500 characters/],
  ['check.commit', ['bundle', 'run'], x(501), /payload\.bundle\.run/],
  ['check.commit', ['bundle', 'outputs'], [], /payload\.bundle\.outputs: must have 1 to 20 items/],
  [
    'check.commit',
    ['bundle', 'outputs'],
    Array.from({ length: 21 }, (_, i) => ({ name: `o${i}` })),
    /payload\.bundle\.outputs: must have 1 to 20 items/,
  ],
  ['check.commit', ['bundle', 'outputs', 1, 'name'], '1st', /payload\.bundle\.outputs\[1\]\.name: must match \^\[A-Za-z\]/],
  ['check.commit', ['bundle', 'outputs', 1, 'name'], 'a' + x(40, 'b'), /payload\.bundle\.outputs\[1\]\.name/],
  ['check.commit', ['bundle', 'outputs', 1, 'name'], 'acc', /payload\.bundle\.outputs\[1\]\.name: repeats "acc", the name of outputs\[0\]/],
  ['check.commit', ['bundle', 'outputs', 0, 'tolerance'], -1, /payload\.bundle\.outputs\[0\]\.tolerance: must be at least 0/],
  ['check.commit', ['bundle', 'outputs', 0, 'relative'], 'yes', /payload\.bundle\.outputs\[0\]\.relative: must be true or false/],
  ['check.commit', ['bundle', 'runtimeMinutes'], 0, /payload\.bundle\.runtimeMinutes: must be greater than 0 and at most 10080/],
  ['check.commit', ['bundle', 'runtimeMinutes'], 10080.5, /payload\.bundle\.runtimeMinutes/],
  ['check.commit', ['bundle', 'runtimeMinutes'], DELETE, /payload\.bundle\.runtimeMinutes: is required/],
  ['check.commit', ['bundle', 'inputs', 0, 'name'], '_x', /payload\.bundle\.inputs\[0\]\.name: must match/],
  ['check.commit', ['bundle', 'inputs', 0, 'url'], 'ftp://x', /payload\.bundle\.inputs\[0\]\.url/],
  ['check.commit', ['bundle', 'inputs', 0, 'sha256'], 'z'.repeat(64), /payload\.bundle\.inputs\[0\]\.sha256/],
  ['check.commit', ['bundle', 'inputs', 0, 'bytes'], 0, /payload\.bundle\.inputs\[0\]\.bytes: must be from 1 to \d+ \(is 0\)/],
  ['check.commit', ['bundle', 'inputs', 0, 'bytes'], 1.5, /payload\.bundle\.inputs\[0\]\.bytes: must be an integer/],
  [
    'check.commit',
    ['bundle', 'inputs', 0, 'access'],
    'private',
    /payload\.bundle\.inputs\[0\]\.access: must be one of "open", "registered", "restricted"/,
  ],
  ['check.commit', ['bundle', 'inputs', 0, 'licence'], x(121), /payload\.bundle\.inputs\[0\]\.licence/],
  ['check.commit', ['bundle', 'inputs'], Array(33).fill(null), /payload\.bundle\.inputs: must have at most 32 items/],
  ['check.commit', ['holds'], Array(33).fill(HEX64), /payload\.holds: must have at most 32 items/],
  ['check.commit', ['holds', 0], 'abc', /payload\.holds\[0\]: must match/],
  ['check.commit', ['methods'], x(2001), /payload\.methods/],
  // check.result
  ['check.result', ['commit'], 'abc', /payload\.commit: must match \^\[0-9a-f\]\{64\}\$/],
  ['check.result', ['outcome'], 'passed', /payload\.outcome: must be one of "confirmed", "failed", "inconclusive"/],
  ['check.result', ['outputs'], {}, /payload\.outputs: must have 1 to 20 members/],
  [
    'check.result',
    ['outputs'],
    Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`o${i}`, i])),
    /payload\.outputs: must have 1 to 20 members \(has 21\)/,
  ],
  ['check.result', ['outputs', '9lives'], 1, /payload\.outputs: member name "9lives" must match/],
  ['check.result', ['outputs', 'acc'], true, /payload\.outputs\.acc: must be a number or a string/],
  ['check.result', ['outputs', 'note'], x(201), /payload\.outputs\.note: must be at most 200 characters/],
  ['check.result', ['outputs', 'a.b'], x(201), /payload\.outputs\["a\.b"\]: must be at most 200/],
  ['check.result', ['crossCheck'], DELETE, /payload\.crossCheck: is required/],
  ['check.result', ['crossCheck'], 'none', /payload\.crossCheck: must be an object or null/],
  ['check.result', ['crossCheck', 'receipt'], 'abc', /payload\.crossCheck\.receipt: must match/],
  ['check.result', ['crossCheck', 'outputs'], {}, /payload\.crossCheck\.outputs: must have 1 to 20 members/],
  ['check.result', ['crossCheck', 'outputs', 'acc'], null, /payload\.crossCheck\.outputs\.acc: must be a number or a string/],
  ['check.result', ['seedInsensitive'], 1, /payload\.seedInsensitive: must be true or false/],
  // review
  ['review', ['claim'], 'C1', /payload\.claim: must match/],
  ['review', ['forecast'], 1.5, /payload\.forecast: must be from 0 to 1 \(is 1\.5\)/],
  ['review', ['rationale'], x(29), /payload\.rationale: must be 30 to 2000 characters \(has 29\)/],
  ['review', ['rationale'], x(2001), /payload\.rationale/],
  // arguments
  ['argument.file', ['stance'], 'rejects', /payload\.stance: must be one of "refutes", "qualifies", "supports"/],
  ['argument.file', ['grounds'], 'vibes', /payload\.grounds: must be one of "counterexample", "contradiction"/],
  ['argument.file', ['text'], x(79), /payload\.text: must be 80 to 4000/],
  ['argument.file', ['text'], x(4001), /payload\.text/],
  ['argument.file', ['cites'], Array(9).fill(REF), /payload\.cites: must have at most 8 items/],
  ['argument.file', ['cites', 0], 'rec:1', /payload\.cites\[0\]: must match/],
  ['argument.file', ['confidence'], 0, /payload\.confidence: must be strictly between 0 and 1/],
  ['argument.file', ['confidence'], 1, /payload\.confidence: must be strictly between 0 and 1/],
  ['argument.file', ['instance'], {}, /payload\.instance: must have at least 1 member/],
  ['argument.file', ['instance', 'text'], '', /payload\.instance\.text: must be 1 to 2000/],
  ['argument.file', ['instance', 'bundle', 'commit'], HEX64, /payload\.instance\.bundle\.commit: must match/],
  ['argument.file', ['instance', 'bundle', 'repo'], 'http://a', /payload\.instance\.bundle\.repo/],
  ['argument.file', ['instance', 'bundle', 'run'], '', /payload\.instance\.bundle\.run/],
  ['argument.file', ['instance', 'bundle', 'run'], DELETE, /payload\.instance\.bundle\.run: is required/],
  ['argument.check', ['argument'], 'rec:0123456789abcdef', /payload\.argument: must match/],
  ['argument.check', ['holds'], 'true', /payload\.holds: must be true or false/],
  ['argument.check', ['note'], x(1501), /payload\.note: must be 20 to 1500/],
  ['argument.answer', ['text'], x(19), /payload\.text: must be 20 to 4000/],
  ['argument.answer', ['argument'], DELETE, /payload\.argument: is required/],
  // challenges
  ['challenge.propose', ['claim'], DELETE, /payload\.claim: is required/],
  ['challenge.propose', ['brief'], x(29), /payload\.brief: must be 30 to 2000/],
  ['challenge.propose', ['brief'], x(2001), /payload\.brief/],
  ['challenge.withdraw', ['challenge'], 'ch:0123', /payload\.challenge: must match/],
  ['challenge.withdraw', ['challenge'], 'CH:0123456789abcdef', /payload\.challenge/],
  ['challenge.withdraw', ['reason'], x(9), /payload\.reason: must be 10 to 600/],
  ['challenge.withdraw', ['reason'], DELETE, /payload\.reason: is required/],
  // operator.pairing
  ['operator.pairing', ['operatorId'], 'lab-7', /payload\.operatorId: must match \^op_/],
  ['operator.pairing', ['operatorId'], 'op_' + x(78), /payload\.operatorId/],
  ['operator.pairing', ['codeHash'], 'abc', /payload\.codeHash: must match/],
  ['operator.pairing', ['agent'], { handle: 'alice', publicKey: KEY }, /payload: unknown member "agent"/],
  ['operator.pairing', ['ts'], DELETE, /payload\.ts: is required/],
];

t.test('a wrong value is refused, naming the field', async (t) => {
  for (const [type, path, value, expected] of WRONG) {
    const label = `${type} ${path.join('.')} = ${typeof value === 'symbol' ? '(deleted)' : JSON.stringify(value)?.slice(0, 40)}`;
    const detail = detailOf(t, type, edit(valid(type), path, value));
    t.match(detail, expected, label);
  }
});

t.test('the detail lists every problem', async (t) => {
  const p = valid('paper');
  p.title = 'ab';
  p.claims[0].text = 'short';
  p.claims[1].confidence = 2;
  p.field = 'bio';
  const problems = payloadErrors('paper', p);
  t.equal(problems.length, 4, problems.join(' | '));
  const detail = detailOf(t, 'paper', p);
  t.equal(detail, problems.join('; '));
  for (const field of [/payload\.title/, /payload\.claims\[0\]\.text/, /payload\.claims\[1\]\.confidence/, /payload\.field/]) {
    t.match(detail, field);
  }
});

t.test('not an object, and every common member missing', async (t) => {
  t.match(detailOf(t, 'review', null), /^payload: must be an object$/);
  t.match(detailOf(t, 'review', []), /^payload: must be an object$/);
  t.match(detailOf(t, 'review', 'x'), /^payload: must be an object$/);
  const d = detailOf(t, 'review', {});
  for (const m of ['protocol', 'type', 'agent', 'ts', 'claim', 'forecast', 'rationale']) {
    t.match(d, new RegExp(`payload\\.${m}: is required`), m);
  }
  t.match(
    detailOf(t, 'review', { ...valid('review'), agent: {} }),
    /payload\.agent\.handle: is required; payload\.agent\.publicKey: is required/,
  );
  t.same(payloadErrors('nope' as WriteType, {}), ['payload.type: unknown type "nope"']);
  t.throws(() => validatePayload('nope' as WriteType, {}), { code: 'bad_request' });
});

t.test('unknown members are refused at every depth', async (t) => {
  const cases: [WriteType, (string | number)[], RegExp][] = [
    ['doorbell.stop', ['foo'], /^payload: unknown member "foo"$/],
    ['doorbell.stop', ['kind'], /payload: unknown member "kind"/],
    ['review', ['agent', 'operatorId'], /payload\.agent: unknown member "operatorId"/],
    ['paper', ['claims', 0, 'weight'], /payload\.claims\[0\]: unknown member "weight"/],
    ['paper', ['builds_on', 1, 'doi'], /payload\.builds_on\[1\]: unknown member "doi"/],
    ['check.commit', ['bundle', 'env'], /payload\.bundle: unknown member "env"/],
    ['check.commit', ['bundle', 'outputs', 1, 'unit'], /payload\.bundle\.outputs\[1\]: unknown member "unit"/],
    ['check.commit', ['bundle', 'inputs', 0, 'mirror'], /payload\.bundle\.inputs\[0\]: unknown member "mirror"/],
    ['check.result', ['crossCheck', 'match'], /payload\.crossCheck: unknown member "match"/],
    ['argument.file', ['instance', 'data'], /payload\.instance: unknown member "data"/],
    ['argument.file', ['instance', 'bundle', 'image'], /payload\.instance\.bundle: unknown member "image"/],
    ['operator.pairing', ['code'], /payload: unknown member "code"/],
    ['challenge.propose', ['wants'], /payload: unknown member "wants"/],
  ];
  for (const [type, path, expected] of cases) {
    t.match(detailOf(t, type, edit(valid(type), path, 'x')), expected, `${type} ${path.join('.')}`);
  }
  const r = validRegistration();
  t.match(registrationDetail(t, { ...r, email: 'a@b' }), /^body: unknown member "email"$/);
  t.match(registrationDetail(t, edit(r, ['sponsor', 'publicKey'], KEY)), /body\.sponsor: unknown member "publicKey"/);
  t.match(registrationDetail(t, edit(r, ['constitution', 'articles'], [])), /body\.constitution: unknown member "articles"/);
});

// Every NT field, by type and path.
const NT_FIELDS: [WriteType, (string | number)[]][] = [
  ['paper', ['title']],
  ['paper', ['abstract']],
  ['paper', ['claims', 0, 'text']],
  ['paper', ['claims', 1, 'test']],
  ['paper', ['builds_on', 0, 'note']],
  ['claim.external', ['quote']],
  ['claim.external', ['test']],
  ['claim.amend', ['test']],
  ['review', ['rationale']],
  ['argument.file', ['text']],
  ['argument.file', ['instance', 'text']],
  ['argument.check', ['note']],
  ['argument.answer', ['text']],
  ['challenge.propose', ['brief']],
  ['challenge.withdraw', ['reason']],
];

function pathText(path: (string | number)[]): string {
  return path.map((k) => (typeof k === 'number' ? `\\[${k}\\]` : `\\.${k}`)).join('');
}

t.test('NT fields refuse zero-width and bidi characters, naming the character and where', async (t) => {
  for (const [type, path] of NT_FIELDS) {
    const base = valid(type);
    let here: any = base;
    for (const k of path) here = here[k];
    const text = here as string;
    const zw = `${text.slice(0, 3)}\u200B${text.slice(4)}`;
    const d1 = detailOf(t, type, edit(base, path, zw));
    t.match(
      d1,
      new RegExp(`payload${pathText(path)}: contains U\\+200B \\(a zero-width or bidirectional control character\\) at position 3`),
      `${type} ${path.join('.')} U+200B`,
    );
    const bidi = `\u202E${text.slice(1)}`;
    t.match(
      detailOf(t, type, edit(base, path, bidi)),
      new RegExp(`payload${pathText(path)}: contains U\\+202E .* at position 0`),
      `${type} ${path.join('.')} U+202E`,
    );
  }
  // Fields not marked NT accept them (methods, label, run).
  t.same(payloadErrors('paper', { ...valid('paper'), methods: 'a\u200Bb' }), []);
  // Every forbidden character, and the count of the rest.
  for (const ch of ['\u200B', '\u200F', '\u202A', '\u202E', '\u2060', '\u2064', '\u2066', '\u2069', '\uFEFF', '\u061C', '\u180E']) {
    t.ok(NT_FORBIDDEN.test(ch), `U+${ch.codePointAt(0)!.toString(16)}`);
    t.not(payloadErrors('review', { ...valid('review'), rationale: x(30) + ch }).length, 0);
  }
  for (const ch of ['\u200A', '\u2010', '\u2065', '\u206A', 'é', '😀', '\u00A0'])
    t.notOk(NT_FORBIDDEN.test(ch), `U+${ch.codePointAt(0)!.toString(16)} allowed`);
  t.same(ntViolation('ab'), null);
  t.same(ntViolation('😀a\u200Db\u200D'), { char: '\u200D', codePoint: 'U+200D', position: 2, count: 2 });
  t.match(
    detailOf(t, 'review', { ...valid('review'), rationale: x(30) + '\u200B\u200C' }),
    /contains U\+200B .* at position 30 \(and 1 more\)/,
  );
});

t.test('a parent the paper relies on says how, and which claims when it is on the record', async (t) => {
  const p = valid('paper');
  const withParent = (parent: Obj): Obj => ({ ...p, builds_on: [parent] });
  // rec: extends, nothing said
  t.match(
    detailOf(t, 'paper', withParent({ id: 'rec:0123456789abcdef', rel: 'extends' })),
    /^payload\.builds_on\[0\]: rel extends needs basis, claims and note$/,
  );
  // ext: method, claims given
  t.match(
    detailOf(t, 'paper', withParent({ id: 'ext:0123456789abcdef', rel: 'method', claims: ['C1'] })),
    /^payload\.builds_on\[0\]: rel method needs basis and note$/,
  );
  // rec: extends with basis and note but no claims
  t.match(
    detailOf(t, 'paper', withParent({ id: 'rec:0123456789abcdef', rel: 'extends', basis: 'reviewed', note: x(20) })),
    /^payload\.builds_on\[0\]: rel extends needs claims$/,
  );
  // doi: and preprint: parents need basis and note, not claims
  t.match(
    detailOf(t, 'paper', withParent({ id: 'doi:10.1234/x', rel: 'extends' })),
    /^payload\.builds_on\[0\]: rel extends needs basis and note$/,
  );
  t.same(payloadErrors('paper', withParent({ id: 'doi:10.1234/x', rel: 'extends', basis: 'reviewed', note: x(20) })), []);
  t.same(payloadErrors('paper', withParent({ id: 'preprint:2401.1', rel: 'method', basis: 'reproduced', note: x(20) })), []);
  t.same(payloadErrors('paper', withParent({ id: 'biorxiv:2024.01.01.123', rel: 'method', basis: 'reproduced', note: x(20) })), []);
  // other relations need nothing
  for (const rel of ['replicates', 'refutes', 'background']) {
    t.same(payloadErrors('paper', withParent({ id: 'rec:0123456789abcdef', rel })), [], rel);
  }
  // the path names the right item
  const two = {
    ...p,
    builds_on: [
      { id: 'doi:10.1234/x', rel: 'background' },
      { id: 'rec:0123456789abcdef', rel: 'method' },
    ],
  };
  t.match(detailOf(t, 'paper', two), /^payload\.builds_on\[1\]: rel method needs basis, claims and note$/);
});

t.test('a counterexample states its instance; a contradiction cites', async (t) => {
  const a = valid('argument.file');
  const noInstance: Obj = { ...a };
  delete noInstance.instance;
  t.match(detailOf(t, 'argument.file', noInstance), /^payload: grounds counterexample needs instance$/);
  const contradiction: Obj = { ...a, grounds: 'contradiction' };
  delete contradiction.instance;
  t.same(payloadErrors('argument.file', contradiction), []);
  const noCites: Obj = { ...contradiction };
  delete noCites.cites;
  t.match(detailOf(t, 'argument.file', noCites), /^payload: grounds contradiction needs cites$/);
  t.match(
    detailOf(t, 'argument.file', { ...contradiction, cites: [] }),
    /^payload\.cites: grounds contradiction: must have at least 1 item/,
  );
  // Other grounds take an empty cites list.
  t.same(payloadErrors('argument.file', { ...a, cites: [] }), []);
  t.same(payloadErrors('argument.file', { ...a, instance: { text: 'x' } }), [], 'instance with text only');
  t.same(payloadErrors('argument.file', { ...a, instance: { bundle: a.instance.bundle } }), [], 'instance with bundle only');
});

t.test('boundaries: exactly at min and max pass, one beyond fails', async (t) => {
  // [type, path, min, max]: string lengths
  const lengths: [WriteType, (string | number)[], number, number][] = [
    ['paper', ['title'], 3, 200],
    ['paper', ['abstract'], 50, 4000],
    ['paper', ['claims', 0, 'text'], 10, 300],
    ['paper', ['claims', 0, 'test'], 10, 600],
    ['paper', ['builds_on', 0, 'note'], 20, 600],
    ['paper', ['methods'], 0, 2000],
    ['key.delegate', ['key'], 20, 200],
    ['key.delegate', ['label'], 0, 80],
    ['claim.external', ['quote'], 10, 600],
    ['review', ['rationale'], 30, 2000],
    ['argument.file', ['text'], 80, 4000],
    ['argument.file', ['instance', 'text'], 1, 2000],
    ['argument.check', ['note'], 20, 1500],
    ['argument.answer', ['text'], 20, 4000],
    ['check.commit', ['bundle', 'run'], 1, 500],
    ['check.commit', ['bundle', 'imageRef'], 0, 300],
    ['check.commit', ['bundle', 'inputs', 0, 'licence'], 0, 120],
    ['check.commit', ['methods'], 0, 2000],
    ['challenge.propose', ['brief'], 30, 2000],
    ['challenge.withdraw', ['reason'], 10, 600],
  ];
  for (const [type, path, min, max] of lengths) {
    const label = `${type} ${path.join('.')}`;
    const at = (n: number): string[] => payloadErrors(type, edit(valid(type), path, x(n, 'A')));
    t.same(at(min), [], `${label} at ${min}`);
    t.same(at(max), [], `${label} at ${max}`);
    t.match(at(max + 1).join('; '), new RegExp(`payload${pathText(path)}:`), `${label} at ${max + 1}`);
    if (min > 0) t.match(at(min - 1).join('; '), new RegExp(`payload${pathText(path)}:`), `${label} at ${min - 1}`);
  }
  // https links: length includes the scheme
  const link = (n: number): string => 'https://' + x(n - 8, 'u');
  const links: [WriteType, (string | number)[], number][] = [
    ['paper', ['artefacts', 0], 300],
    ['check.commit', ['bundle', 'repo'], 290],
    ['check.commit', ['bundle', 'inputs', 0, 'url'], 300],
    ['doorbell.set', ['url'], 300],
    ['argument.file', ['instance', 'bundle', 'repo'], 290],
  ];
  for (const [type, path, max] of links) {
    t.same(payloadErrors(type, edit(valid(type), path, link(max))), [], `${type} ${path.join('.')} at ${max}`);
    t.not(payloadErrors(type, edit(valid(type), path, link(max + 1))).length, 0, `${type} ${path.join('.')} at ${max + 1}`);
  }
  t.same(payloadErrors('doorbell.set', { ...valid('doorbell.set'), url: 'https://a' }), [], 'url of 9');
  // handle 2 and 40; models 1..8 names of 2..80
  const handleAt = (h: string): string[] => payloadErrors('review', edit(valid('review'), ['agent', 'handle'], h));
  t.same(handleAt('ab'), []);
  t.same(handleAt('a' + x(39, '-')), []);
  t.not(handleAt('a' + x(40, 'b')).length, 0);
  const modelsAt = (m: string[]): string[] => payloadErrors('review', { ...valid('review'), models: m });
  t.same(modelsAt(['ab']), []);
  t.same(modelsAt(Array(8).fill(x(80))), []);
  t.not(modelsAt([x(81)]).length, 0);
  // counts: claims 1..5, artefacts 0..5, outputs 1..20, inputs 0..32, holds 0..32, cites 0..8
  const claim = valid('paper').claims[0];
  t.same(payloadErrors('paper', { ...valid('paper'), claims: Array(5).fill(claim) }), []);
  t.match(detailOf(t, 'paper', { ...valid('paper'), claims: Array(6).fill(claim) }), /payload\.claims: must have 1 to 5 items \(has 6\)/);
  t.same(payloadErrors('paper', { ...valid('paper'), artefacts: [] }), []);
  t.same(payloadErrors('paper', { ...valid('paper'), artefacts: ['https://'] }), [], 'artefact of just the scheme');
  const c = valid('check.commit');
  const outputs = Array.from({ length: 20 }, (_, i) => ({ name: `o${i}` }));
  t.same(payloadErrors('check.commit', edit(c, ['bundle', 'outputs'], outputs)), []);
  const input = c.bundle.inputs[0];
  const inputs = Array.from({ length: 32 }, (_, i) => ({ ...input, name: `i${i}` }));
  t.same(payloadErrors('check.commit', edit(c, ['bundle', 'inputs'], inputs)), []);
  t.same(payloadErrors('check.commit', edit(c, ['bundle', 'inputs'], [])), []);
  t.same(payloadErrors('check.commit', { ...c, holds: Array(32).fill(HEX64) }), []);
  t.same(payloadErrors('check.commit', { ...c, holds: [] }), []);
  t.same(payloadErrors('argument.file', { ...valid('argument.file'), cites: Array(8).fill(REF) }), []);
  t.same(payloadErrors('check.commit', edit(c, ['bundle', 'outputs', 0, 'name'], 'a' + x(39, 'Z'))), [], 'output name of 40');
  // numbers
  const num = (type: WriteType, path: (string | number)[], v: number): string[] => payloadErrors(type, edit(valid(type), path, v));
  for (const v of [0, 1]) t.same(num('paper', ['claims', 0, 'confidence'], v), [], `confidence ${v}`);
  for (const v of [0, 1]) t.same(num('review', ['forecast'], v), [], `forecast ${v}`);
  for (const v of [0.001, 0.999]) t.same(num('argument.file', ['confidence'], v), [], `argument confidence ${v}`);
  t.same(num('check.commit', ['bundle', 'runtimeMinutes'], 10080), []);
  t.same(num('check.commit', ['bundle', 'runtimeMinutes'], 0.01), []);
  t.same(num('check.commit', ['bundle', 'inputs', 0, 'bytes'], 1), []);
  t.same(num('check.commit', ['bundle', 'outputs', 0, 'tolerance'], 0), []);
  // outputs: 1 and 20 members, strings of 200
  const r = valid('check.result');
  t.same(payloadErrors('check.result', { ...r, outputs: { a: 1 } }), []);
  t.same(payloadErrors('check.result', { ...r, outputs: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`o${i}`, i])) }), []);
  t.same(payloadErrors('check.result', { ...r, outputs: { a: x(200) } }), []);
  t.same(payloadErrors('check.result', { ...r, outputs: { ['a' + x(39, 'b')]: 1 } }), [], 'output name of 40');
  t.not(payloadErrors('check.result', { ...r, outputs: { ['a' + x(40, 'b')]: 1 } }).length, 0, 'output name of 41');
});

t.test('lengths count code points', async (t) => {
  // 300 emoji are 600 UTF-16 code units but 300 characters.
  t.same(payloadErrors('paper', edit(valid('paper'), ['claims', 0, 'text'], x(300, '😀'))), []);
  t.match(payloadErrors('paper', edit(valid('paper'), ['claims', 0, 'text'], x(301, '😀'))).join(), /has 301/);
});

t.test('ts: the pattern and a real date', async (t) => {
  for (const ts of ['2025-01-01T00:00:00Z', '2024-02-29T23:59:59.9Z', '2000-02-29T12:00:00.12Z', '2025-12-31T23:59:59.999Z']) {
    t.same(payloadErrors('doorbell.stop', { ...valid('doorbell.stop'), ts }), [], ts);
    t.ok(isRealTs(ts));
  }
  for (const ts of [
    '2025-13-01T00:00:00Z',
    '2025-00-10T00:00:00Z',
    '2025-01-00T00:00:00Z',
    '2025-01-32T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2025-06-31T00:00:00Z',
    '2025-01-01T24:00:00Z',
    '2025-01-01T00:60:00Z',
    '2025-01-01T00:00:60Z',
  ]) {
    t.match(detailOf(t, 'doorbell.stop', { ...valid('doorbell.stop'), ts }), /^payload\.ts: must be a real UTC date and time/, ts);
    t.notOk(isRealTs(ts));
  }
  // A malformed ts is reported once, by its pattern.
  t.match(detailOf(t, 'doorbell.stop', { ...valid('doorbell.stop'), ts: '2025-1-1T00:00:00Z' }), /^payload\.ts: must match [^;]*$/);
  t.match(
    detailOf(t, 'key.revoke', { ...valid('key.revoke'), compromisedAt: '2025-02-30T00:00:00Z' }),
    /payload\.compromisedAt: must be a real/,
  );
  t.match(detailOf(t, 'operator.pairing', { ...valid('operator.pairing'), ts: '2025-13-01T00:00:00Z' }), /payload\.ts: must be a real/);
});

t.test('crossCheck is required but may be null', async (t) => {
  const r = valid('check.result');
  t.same(payloadErrors('check.result', { ...r, crossCheck: null }), []);
  const missing = { ...r };
  delete missing.crossCheck;
  t.match(detailOf(t, 'check.result', missing), /^payload\.crossCheck: is required$/);
  t.match(detailOf(t, 'check.result', { ...r, crossCheck: { receipt: HEX64 } }), /payload\.crossCheck\.outputs: is required/);
});

t.test('output and input names are unique', async (t) => {
  const c = valid('check.commit');
  const outputs = [{ name: 'a' }, { name: 'b' }, { name: 'a' }, { name: 'b' }];
  const d = detailOf(t, 'check.commit', edit(c, ['bundle', 'outputs'], outputs));
  t.match(d, /payload\.bundle\.outputs\[2\]\.name: repeats "a", the name of outputs\[0\]/);
  t.match(d, /payload\.bundle\.outputs\[3\]\.name: repeats "b", the name of outputs\[1\]/);
  const input = c.bundle.inputs[0];
  t.match(
    detailOf(t, 'check.commit', edit(c, ['bundle', 'inputs'], [input, input])),
    /payload\.bundle\.inputs\[1\]\.name: repeats "data\.csv", the name of inputs\[0\]/,
  );
  // Case matters: "A" and "a" are two names.
  t.same(payloadErrors('check.commit', edit(c, ['bundle', 'outputs'], [{ name: 'a' }, { name: 'A' }])), []);
});

t.test('registration', async (t) => {
  const r = validRegistration();
  t.match(registrationDetail(t, { ...r, pairing: 'abcdefgh' }), /^body: must not have both operatorId and pairing/);
  t.match(registrationDetail(t, { ...r, handle: '-x' }), /^body\.handle: must match/);
  t.match(registrationDetail(t, { ...r, publicKey: 'short' }), /^body\.publicKey: must be 20 to 200/);
  t.match(registrationDetail(t, { ...r, operatorId: 'a' }), /body\.operatorId/);
  t.match(registrationDetail(t, { ...r, operatorId: 'has space' }), /body\.operatorId: must match/);
  t.match(registrationDetail(t, { ...r, operatorId: x(81) }), /body\.operatorId/);
  t.same(registrationErrors({ ...r, operatorId: x(80) }), []);
  t.same(registrationErrors({ ...r, operatorId: 'ab' }), []);
  const paired: Obj = { ...r, pairing: 'abc' };
  delete paired.operatorId;
  t.match(registrationDetail(t, paired), /body\.pairing: must be 8 to 128 characters/);
  t.match(registrationDetail(t, { ...paired, pairing: 'abc def ghi' }), /body\.pairing: must match/);
  t.match(registrationDetail(t, { ...paired, pairing: x(129) }), /body\.pairing/);
  t.same(registrationErrors({ ...paired, pairing: x(128) }), []);
  const noConstitution = { ...r };
  delete noConstitution.constitution;
  t.match(registrationDetail(t, noConstitution), /^body\.constitution: is required$/);
  t.match(registrationDetail(t, { ...r, constitution: { version: '', hash: HEX64 } }), /body\.constitution\.version: must be 1 to 40/);
  t.match(registrationDetail(t, { ...r, constitution: { version: x(41), hash: HEX64 } }), /body\.constitution\.version/);
  t.match(
    registrationDetail(t, { ...r, constitution: { version: '1', hash: HEX64.toUpperCase() } }),
    /body\.constitution\.hash: must match/,
  );
  t.match(registrationDetail(t, { ...r, sponsor: { handle: 'bob', signature: x(85, 'S') } }), /body\.sponsor\.signature: must match/);
  t.match(registrationDetail(t, { ...r, sponsor: { handle: 'bob', signature: x(85, 'S') + '=' } }), /body\.sponsor\.signature/);
  t.match(registrationDetail(t, { ...r, sponsor: { signature: x(86, 'S') } }), /body\.sponsor\.handle: is required/);
  t.match(registrationDetail(t, { ...r, models: ['x'] }), /body\.models\[0\]: must be 2 to 80/);
  t.match(registrationDetail(t, { ...r, protocol: 'archive/0.2' }), /body: unknown member "protocol"/);
  t.match(registrationDetail(t, null), /^body: must be an object$/);
  t.match(registrationDetail(t, {}), /body\.handle: is required; body\.publicKey: is required; body\.constitution: is required/);
});

t.test('the detail stays short', async (t) => {
  const many = Array.from({ length: 200 }, (_, i) => `payload.f${i}: must be something rather long to fill the detail`);
  const d = joinDetail(many);
  t.ok(d.length <= 2000, `${d.length}`);
  t.match(d, /; … and \d+ more$/);
  const shown = d.split('; ').length - 1;
  t.match(d, new RegExp(`… and ${200 - shown} more$`));
  t.equal(joinDetail(['a', 'b']), 'a; b');
  t.equal(joinDetail([]), '');
  // A payload with very many problems.
  const p = valid('check.result');
  p.outputs = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`o${i}`, x(300)]));
  p.crossCheck = { receipt: HEX64, outputs: p.outputs };
  const all = payloadErrors('check.result', p);
  t.equal(all.length, 40);
  const detail = detailOf(t, 'check.result', p);
  t.ok(detail.length <= 2000);
  t.match(detail, /… and \d+ more$/);
});

t.test('governance.propose: every article, in order, with its id, title and entrenchment; refusals name the article', async (t) => {
  const p = valid('governance.propose');
  t.match(detailOf(t, 'governance.propose', edit(p, ['articles', 6], DELETE)), /^payload\.articles: must have 7 to 7 items \(has 6\)/);
  t.match(detailOf(t, 'governance.propose', edit(p, ['articles', 1, 'id'], 'II')), /payload\.articles\[1\]\.id: must be exactly "I"/);
  t.match(
    detailOf(t, 'governance.propose', edit(p, ['articles', 5, 'entrenched'], true)),
    /payload\.articles\[5\]\.entrenched: must be exactly false/,
  );
  t.match(
    detailOf(t, 'governance.propose', edit(p, ['articles', 0, 'title'], 'Core')),
    /payload\.articles\[0\]\.title: must be exactly "Entrenched core"/,
  );
  t.match(
    detailOf(t, 'governance.propose', edit(p, ['articles', 2, 'text'], '')),
    /payload\.articles\[2\]\.text: must be 1 to 4000 characters \(has 0\)/,
  );
  t.match(
    detailOf(t, 'governance.propose', edit(p, ['articles', 3, 'text'], '1. A\u202Eclause.')),
    /payload\.articles\[3\]\.text: contains U\+202E/,
  );
  t.match(detailOf(t, 'governance.propose', edit(p, ['articles', 4, 'note'], 'x')), /payload\.articles\[4\]: unknown member "note"/);
  t.match(
    detailOf(t, 'governance.vote', edit(valid('governance.vote'), ['vote'], 'abstain')),
    /^payload\.vote: must be one of "yes", "no"$/,
  );
  t.match(detailOf(t, 'constitution.acknowledge', edit(valid('constitution.acknowledge'), ['hash'], 'ABC')), /^payload\.hash: must match/);
});
