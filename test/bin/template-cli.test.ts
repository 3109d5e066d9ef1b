// `archive agent template <verb>`: every verb's template parses and, once its empty values are
// filled, is a payload its schema accepts; and a YAML number where text is wanted gets a hint to
// quote it. (Each verb's --help and the commands the docs show: docs-commands.test.ts.)
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { archive, archiveEach } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { PAYLOAD_SCHEMAS, type WriteType, CLIENT_VERBS } from '../../lib/record/types/index.js';
import { payloadErrors } from '../../lib/record/validation/index.js';
import { membersEpilog } from '../../bin/agent.js';

const HASH = 'ab'.repeat(32);
const CLAIM = 'rec:0123456789abcdef#C1';

/** What a user writes in place of each empty value of a verb's template: the required members. */
const FILLED: Record<string, Record<string, unknown>> = {
  delegate: { key: generateKeyPair().publicKey },
  revoke: { key: generateKeyPair().publicKey },
  doorbell: {},
  'doorbell-stop': {},
  publish: {
    title: 'Sparse probes find the feature',
    abstract: 'We train sparse linear probes on the residual stream and find a single direction for the feature.',
    field: 'ml',
    claims: [{ text: 'A single direction carries the feature', confidence: 0.7, test: 'Ablating it leaves accuracy above 90 percent' }],
  },
  external: { source: 'preprint:2401.01234', quote: 'The model generalises out of distribution.', test: 'Accuracy on the held-out split' },
  amend: { claim: CLAIM },
  commit: {
    target: CLAIM,
    kind: 'replication',
    bundle: {
      repo: 'https://example.org/repo.git',
      commit: 'a'.repeat(40),
      run: 'make run',
      outputs: [{ name: 'acc' }],
      runtimeMinutes: 30,
    },
  },
  result: { commit: HASH, outcome: 'confirmed', outputs: { acc: 0.91 }, crossCheck: { receipt: HASH, outputs: { acc: 0.9 } } },
  review: { claim: CLAIM, forecast: 0.6, rationale: 'The ablation is well controlled and the effect is large.' },
  argue: {
    claim: CLAIM,
    stance: 'refutes',
    grounds: 'logical-gap',
    text: 'The claim does not follow from its premises, because the step from the data to the conclusion skips a case.',
    confidence: 0.7,
  },
  'check-argument': { argument: HASH, holds: true, note: 'The skipped case is real and matters.' },
  answer: { argument: HASH, text: 'The skipped case is covered in the appendix.' },
  challenge: { claim: CLAIM, brief: 'Replicate the claim on a held-out set of probes.' },
  withdraw: { challenge: 'ch:0123456789abcdef', reason: 'Answered elsewhere.' },
};

/** Fills each empty value (YAML null) of a template with the user's value at the same place. */
function fill(template: unknown, user: unknown): unknown {
  if (template === null) return user;
  if (Array.isArray(template)) return template.map((v, i) => fill(v, (user as unknown[] | undefined)?.[i]));
  if (typeof template === 'object')
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fill(v, (user as Record<string, unknown> | undefined)?.[k])]));
  return template;
}

t.test('a template for every verb: every member described; filled in, the schema accepts it', async (t) => {
  t.same(Object.keys(FILLED).sort(), CLIENT_VERBS.map(([verb]) => verb).sort(), 'every verb is tried');
  const runs = await archiveEach(CLIENT_VERBS.map(([verb]) => ['agent', 'template', verb]));
  for (const [i, [verb, type]] of CLIENT_VERBS.entries()) {
    const r = runs[i]!;
    t.equal(r.code, 0, `${verb}: ${r.stderr}`);
    const schema = PAYLOAD_SCHEMAS[type] as { properties: Record<string, unknown>; required: string[] };
    for (const name of Object.keys(schema.properties).filter((m) => !['protocol', 'type', 'agent', 'ts'].includes(m))) {
      const required = schema.required.includes(name);
      t.match(r.stdout, new RegExp(`^# ${name} \\(${required ? 'required' : 'optional'}\\): \\S`, 'm'), `${verb}: ${name} is described`);
    }
    const members = (parse(r.stdout) ?? {}) as Record<string, unknown>;
    const payload = {
      protocol: PROTOCOL,
      type,
      agent: { handle: 'alice', publicKey: generateKeyPair().publicKey },
      ts: '2026-01-02T03:04:05Z',
      ...(fill(members, FILLED[verb]) as object),
    };
    t.same(payloadErrors(type as WriteType, payload), [], `${verb}: the filled template is a valid ${type}`);
  }
  const publish = (await archive(['agent', 'template', 'publish'])).stdout;
  t.match(
    publish,
    /^# field \(required\): one of "mat", "pro", "math", "clim", "ml", "neuro", "astro", "econ", "other"$/m,
    'allowed values',
  );
  t.match(publish, /^# title \(required\): text, 3 to 200 characters/m, 'bounds');
  t.match(publish, /^# methods:$/m, 'optional members are commented out');
  t.match(publish, /when rel is "extends" or "method", then basis and note required/, 'conditional rules');
  const byType = await archive(['agent', 'template', 'switch.set']);
  t.equal(byType.code, 0, byType.stderr);
  t.match(byType.stdout, /^# archive agent send --type switch.set --file <this file>/);
  const unknown = await archive(['agent', 'template', 'nonsense']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no verb or write type "nonsense"; the verbs: delegate, revoke/);
});

t.test('a YAML number where the schema wants text: a hint to quote it', async (t) => {
  const dir = tempDir(t);
  const key = join(dir, 'alice.key');
  t.equal((await archive(['agent', 'keygen', '--out', key])).code, 0);
  const file = join(dir, 'review.yaml');
  writeFileSync(file, 'claim: 1e5\nforecast: 0.6\nrationale: 12345678901234567890123456789012345\n');
  const common = ['--url', 'http://127.0.0.1:9', '--handle', 'alice', '--key', key];
  const r = await archive(['agent', 'review', ...common, '--file', file]);
  t.equal(r.code, 2, 'refused locally');
  t.match(
    r.stderr,
    /hint: claim: YAML read this value as the number 100000, but it must be text: put the value in quotes \(claim: "\.\.\."\)/,
  );
  t.match(r.stderr, /hint: rationale: YAML read this value as the number /);
  const json = join(dir, 'review.json');
  writeFileSync(json, JSON.stringify({ claim: 100000, forecast: 0.6, rationale: 'x'.repeat(40) }));
  const j = await archive(['agent', 'review', ...common, '--file', json]);
  t.equal(j.code, 2);
  t.notMatch(j.stderr, /hint/, 'JSON says what it means: no hint');
});

t.test("every verb's --help names the members of its file, required or optional", async (t) => {
  for (const [verb, type] of CLIENT_VERBS) {
    const epilog = membersEpilog(verb, type);
    const schema = PAYLOAD_SCHEMAS[type] as { properties: Record<string, unknown>; required: string[] };
    const members = Object.keys(schema.properties).filter((m) => !['protocol', 'type', 'agent', 'ts'].includes(m));
    if (members.length === 0) {
      t.equal(epilog, `A ${type} has no members of its own: no file is needed.`, `${verb}: no file`);
      continue;
    }
    for (const name of members)
      t.match(epilog, `${name} (${schema.required.includes(name) ? 'required' : 'optional'})`, `${verb} --help: ${name}`);
    t.match(epilog, `\`archive agent template ${verb}\` prints a commented file`, `${verb} --help: the template`);
  }
  // As the command line prints it (yargs wraps the epilog: read it as one line).
  const help = (await archive(['agent', 'review', '--help'])).stdout.replace(/\s+/g, ' ');
  t.match(help, membersEpilog('review', 'review'), 'shown by --help');
});
