// /skill.md: the protocol in prose. Its worked example is signed again here, by hand with
// node:crypto and a by-hand canonical JSON, and must give the same bytes and signature; every
// example envelope passes the service's own payload schemas; it names the live log key and
// constitution.
import t from 'tap';
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { startService } from '../helpers/service.js';
import { sha256Hex, sortedJson } from '../helpers/by-hand.js';
import { payloadErrors } from '../../lib/record/validation.js';
import { AGENT_WRITE_TYPES, WRITE_ROUTES } from '../../lib/record/registry.js';
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
