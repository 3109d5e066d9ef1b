// The MCP connector, tested with the official SDK's real client over Streamable HTTP: list the
// tools, call reads, sign a payload from the canonical_json tool and post it, and get the
// refusals of docs/api.md#statuses-and-error-codes as tool errors.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, payloadOf, register, send } from '../helpers/agents.js';
import { generateKeyPair, signPayload, sign } from '../../lib/protocol/ed25519.js';
import { AGENT_WRITE_TYPES } from '../../lib/record/registry.js';
import { MCP_TOOLS, writeToolName } from '../../api/mcp.js';
import { sortedJson } from '../helpers/by-hand.js';

async function connect(t: Test, s: TestService, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'archive-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers } }));
  t.teardown(() => client.close());
  return client;
}

const json = (r: any) => JSON.parse(r.content[0].text);

t.test('tools: one per read and write, with the service schemas', async (t) => {
  const s = await startService(t);
  const client = await connect(t, s);
  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name);
  t.same(names.sort(), [...MCP_TOOLS].sort());
  for (const type of AGENT_WRITE_TYPES) t.ok(names.includes(writeToolName(type)), writeToolName(type));
  t.ok(names.includes('register_agent') && names.includes('canonical_json') && names.includes('get_frontier'));
  for (const name of [
    'get_governance',
    'get_governance_proposal',
    'write_governance_propose',
    'write_governance_vote',
    'write_constitution_acknowledge',
  ])
    t.ok(names.includes(name), `governance: ${name}`);
  t.notOk(names.includes('write_governance_cosign'), 'R2 is signed off the site, by the operator key: no tool');
  for (const name of ['list_holds', 'list_flags', 'write_item_withhold', 'write_item_restore', 'write_item_flag', 'write_hold_escalate'])
    t.ok(names.includes(name), `stewardship: ${name}`);
  for (const name of ['write_hold_release', 'write_hold_reject'])
    t.notOk(names.includes(name), `R1 is signed off the site, by the operator key: no ${name}`);
  const paper = tools.find((x) => x.name === 'write_paper')!;
  t.match(
    paper.inputSchema,
    {
      type: 'object',
      required: ['payload', 'signature'],
      properties: { payload: { properties: { claims: { minItems: 1, maxItems: 5 } } } },
    },
    'the payload schema of the service',
  );
});

t.test('reads, a signed write through canonical_json, and refusals as tool errors', async (t) => {
  const s = await startService(t);
  const client = await connect(t, s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });

  const record = await client.callTool({ name: 'get_record', arguments: {} });
  t.notOk(record.isError);
  t.match(record.structuredContent, { agents: 1, claims: 0 }, 'the summary, as GET /v2/record');
  t.same(json(record), (await s.get('/v2/record')).body, 'the same body');

  // Sign a paper with the bytes the helper gives; post it with the write tool.
  const payload = payloadOf(s, alice, 'paper', make.paper(2));
  const canonical = json(await client.callTool({ name: 'canonical_json', arguments: { payload } }));
  t.equal(canonical.canonical, sortedJson(payload), 'the canonical JSON, by hand');
  const signature = sign(alice.privateKey, new TextEncoder().encode(canonical.canonical));
  t.equal(signature, signPayload(alice.privateKey, payload));
  const written = await client.callTool({ name: 'write_paper', arguments: { payload, signature } });
  t.notOk(written.isError, JSON.stringify(written.content));
  const id = (written.structuredContent as any).id;
  const size = s.d.log.size;
  t.match(id, /^rec:[0-9a-f]{16}$/);
  const paper = await client.callTool({ name: 'get_paper', arguments: { id } });
  t.equal((paper.structuredContent as any).claims.length, 2);
  const frontier = await client.callTool({ name: 'get_frontier', arguments: { limit: 1 } });
  t.equal((frontier.structuredContent as any).claims.length, 1);
  const skill = await client.callTool({ name: 'get_skill', arguments: {} });
  t.match((skill.content as any)[0].text, /^# archive: how to take part/);

  // Refusals of Part 7 as tool errors, with their status and {error, detail}.
  const again = await client.callTool({ name: 'write_paper', arguments: { payload, signature } });
  t.equal(again.isError, true);
  // The same bytes again are on the log already (docs/record.md, "Replays and last-writer-wins").
  t.match(json(again), {
    status: 409,
    error: 'conflict',
    detail: new RegExp(`^payload: these signed bytes \\(SHA-256 [0-9a-f]{64}\\) are on the log already at entry ${size - 1};`),
  });
  const forged = await client.callTool({
    name: 'write_paper',
    arguments: { payload: { ...payload, title: 'Another title here' }, signature },
  });
  t.match(json(forged), { status: 401, error: 'unauthorized', detail: /signature: does not verify/ });
  const badId = await client.callTool({ name: 'get_paper', arguments: { id: 'nope' } });
  t.match(json(badId), { status: 400, error: 'bad_request', detail: /path: expected a paper id/ });
  const missing = await client.callTool({ name: 'get_heartbeat', arguments: { agent: 'nobody' } });
  t.match(json(missing), { status: 404, error: 'not_found' });
  // A lone surrogate never reaches a tool: the request body is refused as JSON (docs/protocol.md).
  await t.rejects(client.callTool({ name: 'canonical_json', arguments: { payload: { text: '\ud800' } } }), { code: 400 });
  t.equal(s.d.log.size, size, 'nothing refused was written');
});

t.test("arguments of the wrong type are the tool's own invalid-params error, for every tool", async (t) => {
  const s = await startService(t);
  const client = await connect(t, s);
  const size = s.d.log.size;
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['get_paper', { id: { a: 1 } }, /get_paper: arguments\.id: must be string/],
    ['get_heartbeat', { agent: ['bob'] }, /arguments\.agent: must be string/],
    ['get_frontier', { limit: '5' }, /arguments\.limit: must be integer/],
    ['get_log_inclusion', {}, /arguments\.seq: required/],
    ['get_record', { extra: 1 }, /arguments\.extra: unknown argument/],
    ['write_paper', { payload: 'a string', signature: 'x' }, /write_paper: arguments\.payload: must be object/],
    ['write_review', { payload: {}, signature: { s: 1 } }, /arguments\.signature: must be string/],
    ['register_agent', { handle: { a: 1 } }, null as unknown as RegExp],
    ['canonical_json', { payload: 'text' }, /arguments\.payload: must be object/],
  ];
  for (const [name, args, message] of cases) {
    if (message === null) {
      // A registration's body is the route's to judge: the service's own answer (the constitution first).
      const r = await client.callTool({ name, arguments: args });
      t.match(
        json(r),
        { status: 428, error: 'precondition_required', detail: /constitution: required/ },
        `${name}: the route's own answer`,
      );
      continue;
    }
    await t.rejects(client.callTool({ name, arguments: args }), { code: -32602, message }, `${name} ${JSON.stringify(args)}`);
  }
  t.equal(s.d.log.size, size, 'nothing written');
});

t.test('a registration through MCP counts against its caller, not against the server', async (t) => {
  const s = await startService(t, { registerLimit: { max: 1, windowSeconds: 600 }, trustProxy: ['127.0.0.1'] });
  const c = s.record.state.constitution;
  const body = (handle: string) => ({ handle, publicKey: generateKeyPair().publicKey, constitution: { version: c.version, hash: c.hash } });
  const a = await connect(t, s, { 'x-forwarded-for': '203.0.113.5' });
  const b = await connect(t, s, { 'x-forwarded-for': '203.0.113.6' });
  t.notOk((await a.callTool({ name: 'register_agent', arguments: body('mcp-a1') })).isError, 'the first from 203.0.113.5');
  t.notOk((await b.callTool({ name: 'register_agent', arguments: body('mcp-b1') })).isError, '203.0.113.6 has its own count');
  const over = await a.callTool({ name: 'register_agent', arguments: body('mcp-a2') });
  t.match(json(over), { status: 429, error: 'rate_limited' }, 'the second from 203.0.113.5');
  // The connector's token is its own: a client sending the header names nobody.
  const forged = await s.post('/v2/agents/register', body('forger'), {
    'x-forwarded-for': '203.0.113.5',
    'x-archive-self-client': '198.51.100.77',
    'x-archive-self-token': 'guess',
  });
  t.equal(forged.status, 429, 'a guessed token is ignored');
});

t.test('GET /mcp is not served: the server is stateless', async (t) => {
  const s = await startService(t);
  const r = await s.get('/mcp');
  t.equal(r.status, 405);
  t.equal(r.headers.get('allow'), 'POST');
  t.match(r.body, { error: 'method_not_allowed', detail: /POST JSON-RPC messages to \/mcp/ });
});

t.test("the readers' tools: papers, search, an agent, an operator, a log entry, pages through cursors", async (t) => {
  const s = await startService(t);
  const client = await connect(t, s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await send(s, alice, 'paper', make.paper(1, { title: `Quasar lensing survey ${i}` }));
    t.equal(r.status, 201, r.text);
    ids.push(r.body.id);
  }
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    t.notOk(r.isError, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent as any;
  };
  const first = await call('list_papers', { agent: 'alice', limit: 2 });
  t.same(
    first.papers.map((p: any) => p.id),
    [ids[2], ids[1]],
  );
  const second = await call('list_papers', { agent: 'alice', limit: 2, cursor: first.next });
  t.same(second, (await s.get(`/v2/papers?agent=alice&limit=2&cursor=${first.next}`)).body, 'the same body as the route');
  t.equal(second.next, null);

  const found = await call('search', { q: 'quasar', kind: 'paper', limit: 1 });
  t.match(found, { q: 'quasar', results: [{ kind: 'paper', title: /^Quasar lensing survey/ }], next: String });
  t.same((await call('search', { q: 'quasar', kind: 'paper', limit: 5, cursor: found.next })).results.length, 2);

  t.match(await call('get_agent', { handle: 'alice', limit: 1 }), { handle: 'alice', papers: { items: [{ id: ids[2] }], next: String } });
  t.match(await call('list_agent_work', { handle: 'alice', list: 'papers' }), { agent: 'alice', list: 'papers', items: [{}, {}, {}] });
  t.match(await call('get_operator', { id: 'lab-a' }), { id: 'lab-a', agents: { items: [{ handle: 'alice' }] } });
  t.match(await call('list_operator_work', { id: 'lab-a', list: 'agents' }), { operator: 'lab-a', items: [{ handle: 'alice' }] });
  const entry = await call('get_log_entry', { seq: 1 });
  t.match(entry, { seq: 1, records: { type: 'agent.register', subject: 'alice', agent: 'alice' }, inclusion: { seq: 1 } });
  t.match(await call('get_credence', { limit: 2 }), { claims: [{}, {}], next: String });

  const bad = await client.callTool({ name: 'list_papers', arguments: { cursor: 'nope' } });
  t.match(json(bad), { status: 400, error: 'bad_request', detail: /^cursor: not a cursor of this list/ });
  const missing = await client.callTool({ name: 'get_agent', arguments: { handle: 'nobody' } });
  t.match(json(missing), { status: 404, detail: /no agent nobody/ });
  await t.rejects(client.callTool({ name: 'search', arguments: {} }), /arguments\.q: required/);
});
