// lib/client: building and signing writes, key files, pairing codes and payload files, without
// a server (the end-to-end CLI test runs against a real one).
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  Agent,
  ArchiveClient,
  RESERVED_MEMBERS,
  buildPayload,
  formatOf,
  newPairingCode,
  pairingCodeHash,
  pairingEnvelope,
  parsePayloadText,
  readKeyFile,
  readPayloadFile,
  registrationBody,
  signEnvelope,
  signedText,
  sponsorObject,
  writeKeyFile,
} from '../../lib/client/index.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { generateKeyPair, publicKeyOf, verifyPayload } from '../../lib/protocol/ed25519.js';
import { WRITE_TYPES, AGENT_WRITE_TYPES, CHECK_KEY_TYPES, REGISTER_PATH, WRITE_ROUTES } from '../../lib/record/types/index.js';
import { payloadErrors } from '../../lib/record/validation/index.js';
import { registrationErrors } from '../../lib/protocol/schemas/index.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { tempDir } from '../helpers/tmp.js';

const TS = '2025-03-04T05:06:07.123Z';
const REVIEW = { claim: 'rec:0123456789abcdef#C1', forecast: 0.6, rationale: 'The method looks sound but the sample is small.' };
const client = new ArchiveClient('http://127.0.0.1:9');

t.test('write routes: the docs/api.md#writes table', async (t) => {
  t.same([...CHECK_KEY_TYPES].sort(), ['check.commit', 'check.result', 'review']);
  t.same(Object.keys(WRITE_ROUTES).sort(), [...WRITE_TYPES].sort(), 'every write type has a route');
  t.equal(WRITE_ROUTES.paper.path, '/v2/papers');
  t.equal(WRITE_ROUTES['doorbell.set'].path, WRITE_ROUTES['doorbell.stop'].path);
  t.equal(WRITE_ROUTES['operator.pairing'].signer, 'operator');
  for (const type of [
    'operator.pairing',
    'steward.appoint',
    'steward.remove',
    'governance.cosign',
    'hold.release',
    'hold.reject',
  ] as const) {
    t.equal(WRITE_ROUTES[type].signer, 'operator', `${type}: the operator key`);
    t.notOk(AGENT_WRITE_TYPES.includes(type));
  }
  t.equal(AGENT_WRITE_TYPES.length, WRITE_TYPES.length - 6);
  t.equal(REGISTER_PATH, '/v2/agents/register');
});

t.test('buildPayload: the four common members, then the members; reserved ones refused', async (t) => {
  const agent = { handle: 'alice', publicKey: generateKeyPair().publicKey };
  const p = buildPayload('review', REVIEW, agent, TS);
  t.same(p, { protocol: PROTOCOL, type: 'review', agent, ts: TS, ...REVIEW });
  t.not(p.agent, agent, 'the agent object is copied');
  t.match(buildPayload('review', REVIEW, agent).ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ts defaults to now');
  for (const k of RESERVED_MEMBERS) {
    t.throws(() => buildPayload('review', { ...REVIEW, [k]: 'x' }, agent, TS), { message: new RegExp(`may not set ${k}`) }, k);
  }
  t.same(RESERVED_MEMBERS, ['protocol', 'type', 'agent', 'ts']);
  t.throws(() => buildPayload('review', [] as never, agent, TS), /must be an object/);
});

t.test('signEnvelope: verifies over the canonical JSON; a changed payload does not', async (t) => {
  const k = generateKeyPair();
  const payload = buildPayload('review', REVIEW, { handle: 'alice', publicKey: k.publicKey }, TS);
  const env = signEnvelope(k.privateKey, payload);
  t.same(Object.keys(env).sort(), ['payload', 'signature']);
  t.equal(env.payload, payload);
  t.ok(verifyPayload(k.publicKey, env.payload, env.signature));
  t.ok(verifyPayload(k.publicKey, JSON.parse(JSON.stringify(env.payload)), env.signature), 'key order does not matter');
  t.notOk(verifyPayload(k.publicKey, { ...payload, forecast: 0.7 }, env.signature));
  t.notOk(verifyPayload(generateKeyPair().publicKey, payload, env.signature));
  t.equal(signedText(payload), canonicalize(payload));
});

t.test('Agent: main key by default, the check key when asked, with its spelling', async (t) => {
  const main = generateKeyPair();
  const check = generateKeyPair();
  const a = new Agent(client, 'alice', main.privateKey, check.privateKey);
  t.equal(a.publicKey, main.publicKey);
  t.equal(a.checkPublicKey, check.publicKey);

  const byMain = a.envelope('review', REVIEW, { ts: TS });
  t.equal(byMain.payload.agent.publicKey, main.publicKey);
  t.ok(verifyPayload(main.publicKey, byMain.payload, byMain.signature));

  const byCheck = a.envelope('review', REVIEW, { ts: TS, checkKey: true });
  t.same(byCheck.payload.agent, { handle: 'alice', publicKey: check.publicKey }, "the payload names the check key's spelling");
  t.ok(verifyPayload(check.publicKey, byCheck.payload, byCheck.signature), 'signed by the check key');
  t.notOk(verifyPayload(main.publicKey, byCheck.payload, byCheck.signature));
  t.same(payloadErrors('review', byCheck.payload), [], 'a valid review as the schema sees it');

  t.same(a.payload('review', REVIEW, TS), byMain.payload);
  t.same(a.payload('review', REVIEW, TS, true), byCheck.payload);

  t.ok(a.prefersCheckKey('review'));
  t.ok(a.prefersCheckKey('check.commit'));
  t.ok(a.prefersCheckKey('check.result'));
  t.notOk(a.prefersCheckKey('paper'));
  t.notOk(a.prefersCheckKey('doorbell.stop'));

  const noCheck = new Agent(client, 'bob', main.privateKey);
  t.equal(noCheck.checkPublicKey, undefined);
  t.notOk(noCheck.prefersCheckKey('review'));
  t.throws(() => noCheck.envelope('review', REVIEW, { checkKey: true }), /holds no check key/);
});

t.test('registrationBody: the constitution acknowledged; a sponsor signs {op, handle, publicKey}', async (t) => {
  const constitution = { version: '1.0', hash: 'ab'.repeat(32) };
  const me = generateKeyPair();
  const plain = registrationBody(constitution, { handle: 'carol', key: me.privateKey });
  t.same(plain, { handle: 'carol', publicKey: me.publicKey, constitution });
  t.same(registrationErrors(plain), []);

  const sponsor = generateKeyPair();
  const body = registrationBody(constitution, {
    handle: 'carol',
    key: me.privateKey,
    operatorId: 'lab1',
    models: ['gpt-4o'],
    sponsor: { handle: 'dave', key: sponsor.privateKey },
  });
  t.equal(body.operatorId, 'lab1');
  t.same(body.models, ['gpt-4o']);
  t.equal(body.sponsor?.handle, 'dave');
  t.same(sponsorObject('carol', me.publicKey), { op: 'sponsor', handle: 'carol', publicKey: me.publicKey });
  t.ok(verifyPayload(sponsor.publicKey, { op: 'sponsor', handle: 'carol', publicKey: me.publicKey }, body.sponsor!.signature));
  t.notOk(verifyPayload(me.publicKey, sponsorObject('carol', me.publicKey), body.sponsor!.signature), "signed by the sponsor's key");
  t.same(registrationErrors(body), []);

  const paired = registrationBody(constitution, { handle: 'erin', key: me.privateKey, pairing: newPairingCode() });
  t.same(registrationErrors(paired), []);
});

t.test('pairing: a 22-character code, its SHA-256, an envelope signed by the operator key', async (t) => {
  const codes = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const c = newPairingCode();
    t.match(c, /^[A-Za-z0-9_-]{22}$/);
    t.equal(Buffer.from(c, 'base64url').length, 16);
    codes.add(c);
  }
  t.equal(codes.size, 50, 'codes are random');
  // One code in 64 would start with '-' and be read as a flag by `archive agent register --pairing`.
  let dashed = 0;
  for (let i = 0; i < 2000; i++) if (newPairingCode().startsWith('-')) dashed++;
  t.equal(dashed, 0, 'no code starts with -');

  const code = newPairingCode();
  const hash = pairingCodeHash(code);
  t.equal(hash, createHash('sha256').update(Buffer.from(code, 'utf8')).digest('hex'));
  t.equal(pairingCodeHash('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'FIPS 180-2 "abc"');

  const operator = generateKeyPair();
  const env = pairingEnvelope(operator.privateKey, 'op_archive', hash, TS);
  t.same(env.payload, { protocol: PROTOCOL, type: 'operator.pairing', operatorId: 'op_archive', codeHash: hash, ts: TS });
  t.ok(verifyPayload(operator.publicKey, env.payload, env.signature));
  t.same(payloadErrors('operator.pairing', env.payload), []);
});

t.test('key files: PKCS#8 PEM, mode 0600, never overwritten; readKeyFile round-trips', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'agent.key');
  const k = await writeKeyFile(file);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.match(readFileSync(file, 'utf8'), /^-----BEGIN PRIVATE KEY-----\n/);
  t.equal(k.publicKey, publicKeyOf(k.privateKey));
  const back = await readKeyFile(file);
  t.equal(publicKeyOf(back), k.publicKey);

  await t.rejects(writeKeyFile(file), { message: new RegExp(`${file} exists already`) });
  t.equal(publicKeyOf(await readKeyFile(file)), k.publicKey, 'the existing key is untouched');

  const missing = join(dir, 'missing.key');
  await t.rejects(readKeyFile(missing), { message: new RegExp(`cannot read key file ${missing}`) });
  const junk = join(dir, 'junk.key');
  writeFileSync(junk, 'not a key');
  await t.rejects(readKeyFile(junk), { message: new RegExp(`key file ${junk}: .*not a readable PEM`) });
  await t.rejects(writeKeyFile(join(dir, 'no', 'such', 'dir.key')), /cannot create key file/);
});

t.test('payload files: YAML and JSON give the same object; duplicates refused', async (t) => {
  const dir = tempDir(t);
  const members = {
    title: 'A paper of one claim',
    abstract: 'An abstract long enough to pass the fifty character minimum of the spec.',
    field: 'ml',
    claims: [{ text: 'Claim number one holds', confidence: 0.8, test: 'A result that would refute it' }],
    builds_on: [],
  };
  const yaml = [
    'title: A paper of one claim',
    'abstract: An abstract long enough to pass the fifty character minimum of the spec.',
    'field: ml',
    'claims:',
    '  - text: Claim number one holds',
    '    confidence: 0.8',
    '    test: A result that would refute it',
    'builds_on: []',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'p.yaml'), yaml);
  writeFileSync(join(dir, 'p.YML'), yaml);
  writeFileSync(join(dir, 'p.json'), JSON.stringify(members, null, 2));
  writeFileSync(join(dir, 'p.txt'), JSON.stringify(members));
  const fromYaml = await readPayloadFile(join(dir, 'p.yaml'));
  t.same(fromYaml, members);
  t.same(await readPayloadFile(join(dir, 'p.YML')), members);
  t.same(await readPayloadFile(join(dir, 'p.json')), members);
  t.same(await readPayloadFile(join(dir, 'p.txt')), members, 'anything but .yaml/.yml is JSON');
  t.equal(canonicalize(fromYaml), canonicalize(members), 'the same signed bytes');
  t.equal(formatOf('a/b.yml'), 'yaml');
  t.equal(formatOf('a.yaml.json'), 'json');

  const dup = join(dir, 'dup.json');
  writeFileSync(dup, '{"title": "a", "field": "ml", "title": "b"}');
  await t.rejects(readPayloadFile(dup), { message: `${dup}: duplicate member name "title"` });
  writeFileSync(join(dir, 'nested.json'), '{"claims": [{"text": "a", "text": "b"}]}');
  await t.rejects(readPayloadFile(join(dir, 'nested.json')), /claims\[0\]: duplicate member name "text"/);
  t.throws(() => parsePayloadText('{"a":1,"\\u0061":2}', 'json', 'f'), /duplicate member name "a"/, 'escaped duplicate');

  t.throws(() => parsePayloadText('a: 1\na: 2\n', 'yaml', 'f.yaml'), /f\.yaml: invalid YAML \(Map keys must be unique/);
  t.throws(() => parsePayloadText('a: 1\n---\nb: 2\n', 'yaml', 'f.yaml'), /2 YAML documents/);
  t.throws(() => parsePayloadText('a: !custom x\n', 'yaml', 'f.yaml'), /Unresolved tag/);
  t.throws(() => parsePayloadText('', 'yaml', 'f.yaml'), /empty YAML/);
  t.throws(() => parsePayloadText('a: .nan\n', 'yaml', 'f.yaml'), /not a finite number/);
  t.throws(() => parsePayloadText('a: "\\ud800"\n', 'yaml', 'f.yaml'), /lone surrogate/);
  t.throws(() => parsePayloadText('- 1\n', 'yaml', 'f.yaml'), /expected an object of the operation's members, got an array/);
  t.throws(() => parsePayloadText('{"a":1e400}', 'json', 'f'), /not a finite number/);
  t.throws(() => parsePayloadText('{"a":1,}', 'json', 'f'), /f: invalid JSON/);
  t.throws(() => parsePayloadText('"x"', 'json', 'f'), /expected an object/);
  t.same(parsePayloadText('\ufeff{"a":1}', 'json', 'f'), { a: 1 }, 'a byte-order mark is skipped');
  t.same(parsePayloadText('d: 2025-01-01\nn: 0x10\n', 'yaml', 'f.yaml'), { d: '2025-01-01', n: 16 }, 'YAML 1.2 core schema: no dates');
  await t.rejects(readPayloadFile(join(dir, 'none.json')), /cannot read payload file/);
});

t.test('ArchiveClient: base URLs', async (t) => {
  t.equal(new ArchiveClient('http://127.0.0.1:8080/').baseUrl, 'http://127.0.0.1:8080');
  t.equal(new ArchiveClient('https://example.org/archive/').baseUrl, 'https://example.org/archive');
  t.throws(() => new ArchiveClient('127.0.0.1:8080'), /expected an http or https URL|not a URL/);
  t.throws(() => new ArchiveClient('not a url'), /not a URL/);
  t.throws(() => new ArchiveClient('http://h/?x=1'), /query or fragment/);
  await t.rejects(client.get('v1/constitution'), /starts with \//);
});
