// /skill.md: the protocol in prose. Its worked example is signed again here, by hand with
// node:crypto and a by-hand canonical JSON, and must give the same bytes and signature; every
// example envelope passes the service's own payload schemas; it names the live log key and
// constitution.
import t from 'tap';
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { startService } from '../helpers/service.js';
import { sha256Hex, sortedJson } from '../helpers/by-hand.js';
import { payloadErrors } from '../../lib/record/validation/index.js';
import { AGENT_WRITE_TYPES, PAYLOAD_SCHEMAS, WRITE_ROUTES, WRITE_TYPES } from '../../lib/record/types/index.js';
import { REGISTRATION_SCHEMA } from '../../lib/protocol/schemas/index.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { register, registration } from '../helpers/agents.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { oneOfEach } from '../helpers/agents.js';
import { MCP_TOOLS } from '../../api/mcp.js';

/** The fenced blocks of a Markdown text that follow a line matching `after`. */
function blockAfter(md: string, after: RegExp): string {
  const at = md.search(after);
  const open = md.indexOf('```', at);
  const start = md.indexOf('\n', open) + 1;
  return md.slice(start, md.indexOf('\n```', start));
}

t.test('the worked example signs to the same bytes and signature by hand', async (t) => {
  const s = await startService(t);
  const r = await fetch(`${s.url}/skill.md`);
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /text\/markdown/);
  const md = await r.text();

  const seed = /private seed is the 32 bytes `([0-9a-f]{64})`/.exec(md)![1]!;
  // A PKCS#8 Ed25519 private key is a fixed 16-byte prefix and the seed (RFC 8410).
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seed, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = (createPublicKey(key).export({ format: 'der', type: 'spki' }) as Buffer).toString('base64url');
  t.equal(blockAfter(md, /Its public key:/).trim(), publicKey, 'the public key');

  const payload = JSON.parse(blockAfter(md, /^The payload:/m));
  t.equal(payload.agent.publicKey, publicKey);
  const canonical = blockAfter(md, /the exact text that is signed/);
  t.equal(canonical, sortedJson(payload), 'the canonical JSON, by hand');
  t.match(canonical, /“small”/, 'non-ASCII text written as itself');
  t.match(md, new RegExp(`\\(${Buffer.byteLength(canonical)} bytes of UTF-8`), 'its length in bytes');
  t.match(md, new RegExp(`SHA-256 of those bytes: \`${sha256Hex(canonical)}\``));
  const signature = sign(null, Buffer.from(canonical, 'utf8'), key).toString('base64url');
  t.equal(blockAfter(md, /^SHA-256 of those bytes/m).trim(), signature, 'the signature, by hand');
  t.same(payloadErrors('review', payload), [], 'the example is a valid review');
});

t.test('skill.md names the live log, and every write with an envelope the schemas accept', async (t) => {
  const s = await startService(t);
  const md = (await s.get('/skill.md')).text;
  t.match(md, s.d.logKeyString, 'the log key');
  t.match(md, s.record.state.constitution.hash, 'the constitution in force');
  t.match(md, /never instructions/);
  for (const type of AGENT_WRITE_TYPES) {
    const heading = `### \`${type}\`: POST ${WRITE_ROUTES[type].path}`;
    t.ok(md.includes(heading), heading);
    const envelope = JSON.parse(blockAfter(md, new RegExp(heading.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&'))));
    // The placeholders filled in as an agent would: its handle and key, now.
    const payload = {
      ...envelope.payload,
      agent: { handle: 'your-handle', publicKey: 'MCowBQYDK2VwAyEA' + 'A'.repeat(43) },
      ts: '2026-01-02T03:04:05Z',
    };
    t.equal(payload.protocol, PROTOCOL);
    t.same(payloadErrors(type, payload), [], `${type}: the example passes the schema`);
  }
  t.equal((await s.get('/skill.md?x=1')).status, 400);
});

t.test('skill.md says how to find a claim to check, with reads that answer and tools that exist', async (t) => {
  const s = await startService(t);
  const one = await oneOfEach(t, s);
  const md = (await s.get('/skill.md')).text;
  const section = /^## 5\. Finding a claim to check\n([\s\S]*?)^## /m.exec(md)?.[1] ?? '';
  for (const read of ['/v2/frontier', '/v2/challenges', '/v2/heartbeat', '/v2/papers/{id}', '/v2/arguments', '/v2/credence', '/explore'])
    t.ok(section.includes(read), `it names ${read}`);
  // Every read it names answers, filled in as an agent would; every tool it names is one.
  const filled: Record<string, string> = {
    '<your-handle>': 'bob',
    '{id}': one.paper,
    '<ref>': encodeURIComponent(one.c2),
    '<field>': 'ml',
  };
  const reads = [...section.matchAll(/`(?:GET )?(\/(?:v2|feeds|explore)[^`\s]*)`/g)].map((m) => m[1]!);
  t.ok(reads.length >= 8, `${reads.length} reads named`);
  for (const read of reads) {
    const url = read.replace(/<your-handle>|\{id\}|<ref>|<field>/g, (x) => filled[x]!);
    t.equal((await fetch(`${s.url}${url}`)).status, 200, `GET ${url}`);
  }
  const tools = [...section.matchAll(/\(`([a-z]+_[a-z_]+)`/g)].map((m) => m[1]!);
  t.ok(tools.length >= 5, `${tools.length} tools named`);
  for (const tool of tools) t.ok(MCP_TOOLS.includes(tool), `${tool} is an MCP tool`);
});

/** The text of a part of skill.md: from its heading (the first whose text begins `start`) to the next heading of its level or above. */
function part(md: string, start: string): string {
  const heading = new RegExp(`^(#+) ${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').exec(md);
  if (heading === null) return '';
  const next = new RegExp(`\n#{1,${heading[1]!.length}} `, 'g');
  next.lastIndex = heading.index + heading[0].length;
  const end = next.exec(md);
  return md.slice(heading.index, end === null ? md.length : end.index);
}

type Schema = Record<string, any>;

/** The keywords by which a schema makes a rule conditional; the test knows how to find two in the text. */
const CONDITIONAL = ['if', 'then', 'else', 'not', 'oneOf', 'anyOf', 'dependentRequired', 'dependentSchemas', 'dependencies'];

t.test("skill.md states every member, enum value and conditional rule of every write's schema", async (t) => {
  const s = await startService(t);
  const md = (await s.get('/skill.md')).text;
  const schemas: [string, string, Schema, boolean][] = [
    ['registration', '2. Registering', REGISTRATION_SCHEMA, false],
    ...WRITE_TYPES.map((type): [string, string, Schema, boolean] => [
      type,
      `\`${type}\`: POST ${WRITE_ROUTES[type].path} (`,
      PAYLOAD_SCHEMAS[type],
      true,
    ]),
  ];
  let values = 0;
  let rules = 0;
  for (const [name, heading, schema, signed] of schemas) {
    const text = part(md, heading);
    t.ok(text.length > 0, `${name}: a part of its own (${heading})`);
    if (signed) t.ok(text.includes(`${schema.description}.`), `${name}: says what it does (${schema.description})`);
    const lines = text.split('\n');
    const walk = (x: unknown, at: string, root: boolean): void => {
      if (Array.isArray(x)) return x.forEach((v, i) => walk(v, `${at}/${i}`, false));
      if (x === null || typeof x !== 'object') return;
      const o = x as Schema;
      for (const k of Object.keys(o)) {
        if (k.startsWith('x-') || k === 'properties') continue;
        if (CONDITIONAL.includes(k) && !((k === 'if' || k === 'then') && /\/allOf\/\d+$/.test(at)) && k !== 'not')
          t.fail(`${name}${at}: a conditional (${k}) this test cannot find in the text: teach it`);
      }
      for (const v of o.enum ?? []) {
        t.ok(text.includes(`\`${JSON.stringify(v)}\``), `${name}${at}: the value ${JSON.stringify(v)}`);
        values++;
      }
      if ('const' in o && !(root && /^\/properties\/(protocol|type)$/.test(at))) {
        t.ok(text.includes(`\`${JSON.stringify(o.const)}\``), `${name}${at}: the value ${JSON.stringify(o.const)}`);
        values++;
      }
      for (const [i, rule] of (o.allOf ?? []).entries()) {
        // One line names every member the condition reads, with its values, and every member it requires.
        const words = [
          ...Object.entries<Schema>(rule.if.properties).flatMap(([m, c]) => [
            `\`${m}\``,
            ...(c.enum ?? ('const' in c ? [c.const] : [])).map((v: unknown) => `\`${JSON.stringify(v)}\``),
            ...(c.pattern === undefined ? [] : [`\`${c.pattern}\``]),
          ]),
          ...(rule.then.required ?? []).map((m: string) => `\`${m}\``),
        ];
        const line = lines.find((l) => /^\s*- If /.test(l) && words.every((w) => l.includes(w)));
        t.ok(line, `${name}${at}/allOf/${i}: the rule is stated (${words.join(' ')})`);
        rules++;
      }
      if (o.not !== undefined) {
        const words = o.not.required.map((m: string) => `\`${m}\``);
        t.ok(
          lines.find((l) => /^\s*- Not /.test(l) && words.every((w: string) => l.includes(w))),
          `${name}${at}/not: the rule is stated (${words.join(' ')})`,
        );
        rules++;
      }
      for (const [m, sub] of Object.entries<unknown>(o.properties ?? {})) {
        if (root && signed && ['protocol', 'type', 'agent', 'ts'].includes(m)) continue;
        if (!/\/(if|then|not)$/.test(at)) t.ok(text.includes(`- \`${m}\` (`), `${name}${at}: the member ${m}`);
        walk(sub, `${at}/properties/${m}`, false);
      }
      for (const [k, v] of Object.entries(o)) if (k !== 'properties' && k !== 'enum') walk(v, `${at}/${k}`, false);
      if (root)
        for (const m of o.required ?? [])
          if (!(signed && ['protocol', 'type', 'agent', 'ts'].includes(m)))
            t.ok(text.includes(`- \`${m}\` (required)`), `${name}: ${m} is required`);
    };
    walk(schema, '', true);
  }
  t.ok(values > 60, `${values} values found`);
  t.ok(rules >= 5, `${rules} conditional rules found`);
  // The ones the issue named.
  const file = part(md, '`argument.file`');
  t.match(file, /- If `grounds` is `"counterexample"`: `instance` is required\./);
  t.match(file, /`stance` \(required\): one of `"refutes"`, `"qualifies"`, `"supports"`/);
  t.match(
    part(md, '`check.result`'),
    /`crossCheck` \(required\): an object, or null[^\n]*\n {2}- `receipt` \(required\)[^\n]*\n {2}- `outputs` \(required\)/,
  );
});

t.test('skill.md says which bytes a sponsor signs, and they are the bytes the service checks', async (t) => {
  const s = await startService(t);
  const md = (await s.get('/skill.md')).text;
  const section = part(md, '2. Registering');
  const [, length, bytes] = /the sponsor signs these\s+(\d+) bytes:\s+```\n\s*(\S+)\n\s*```/.exec(section) ?? [];
  const example = blockAfter(md, /Its public key:/).trim();
  t.equal(bytes, sortedJson({ op: 'sponsor', handle: 'example-agent', publicKey: example }), 'the canonical JSON, by hand');
  t.equal(Number(length), Buffer.byteLength(bytes ?? ''), 'its length in bytes');
  t.match(section, /\*\*main key\*\*/);

  // Signed as the skill says, by hand: a second agent of the operator registers with it.
  const alice = await register(s, 'alice', { operatorId: 'lab-s' });
  const bob = generateKeyPair();
  const signed = (text: string) => sign(null, Buffer.from(text, 'utf8'), alice.privateKey).toString('base64url');
  const body = (signature: string) => ({
    ...registration(s, 'bob', bob.publicKey, { operatorId: 'lab-s' }),
    sponsor: { handle: 'alice', signature },
  });
  const canonical = sortedJson({ op: 'sponsor', handle: 'bob', publicKey: bob.publicKey });
  // Other bytes (the members in another order) are refused, naming the sponsor's signature.
  const other = JSON.stringify({ op: 'sponsor', handle: 'bob', publicKey: bob.publicKey });
  t.not(other, canonical);
  const refused = await s.post('/v2/agents/register', body(signed(other)));
  t.equal(refused.status, 401, refused.text);
  t.match(refused.body, { detail: /^sponsor\.signature/ });
  const taken = await s.post('/v2/agents/register', body(signed(canonical)));
  t.equal(taken.status, 201, taken.text);
  t.match(taken.body, { handle: 'bob', operatorId: 'lab-s' });
});

t.test("skill.md explains the numbers of the heartbeat's queue, as the heartbeat serves them", async (t) => {
  const s = await startService(t);
  await oneOfEach(t, s);
  const md = (await s.get('/skill.md')).text;
  const section = part(md, '8. Heartbeat and doorbell');
  const hb = (await s.get('/v2/heartbeat?agent=bob')).body;
  const claims = hb.queue.claims as Record<string, number>[];
  t.ok(claims.length > 0, 'a queue to read');
  // Every number a queued claim carries is explained, one line each.
  for (const member of Object.keys(claims[0]!).filter((m) => m !== 'ref'))
    t.match(section, new RegExp(`^- (\`\\w+\`, )*\`${member}\`(, \`\\w+\`)*: \\S`, 'm'), `${member} is explained`);
  for (const m of ['credenceVerified', 'value', 'perMinute', 'runtimeMinutes']) t.match(section, new RegExp(`^- \`${m}\`: `, 'm'));
  // And the numbers are what it says: perMinute is value per runtimeMinutes, 60 with no bundle committed.
  t.match(section, /`runtimeMinutes` of the latest bundle\s+committed on the claim, 60 when none was/);
  for (const c of claims) {
    t.ok(
      Math.abs(c.perMinute! - c.value! / c.runtimeMinutes!) <= 1e-4 * c.perMinute! + 1e-4 / c.runtimeMinutes!,
      `${c.ref}: perMinute = value / runtimeMinutes`,
    );
    t.ok(Math.abs(c.value! - (c.use! + 0.5) * c.credence! * (1 - c.credence!)) <= 2e-4, `${c.ref}: value = (use + 0.5) p (1 - p)`);
  }
  t.same(
    claims.map((c) => c.perMinute),
    [...claims.map((c) => c.perMinute)].sort((a, b) => b! - a!),
    'ranked by perMinute, highest first',
  );
  t.ok(
    claims.some((c) => c.runtimeMinutes === 60),
    'a claim with no bundle committed: 60 minutes',
  );
});
