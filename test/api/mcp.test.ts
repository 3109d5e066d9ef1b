// The MCP connector, tested with the official SDK's real client over Streamable HTTP: list the
// tools (each an operation of the OpenAPI document, titled, annotated, saying what it does and
// returns, the whole list small enough for a model's context), call every read and check its
// structured answer against the document's response schema, sign a payload from the
// canonical_json tool and post it, get the refusals of docs/api.md#statuses-and-error-codes and
// arguments that do not fit as tool errors, and read /skill.md and the constitution as resources.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, oneOfEach, payloadOf, register, send } from '../helpers/agents.js';
import { generateKeyPair, signPayload, sign } from '../../lib/protocol/ed25519.js';
import { AGENT_WRITE_TYPES, entryTypeOf, PAYLOAD_SCHEMAS } from '../../lib/record/types/index.js';
import { MCP_TOOLS, writeToolName } from '../../api/mcp.js';
import { argumentCheck } from '../../api/mcp-tools.js';
import { READS } from '../../api/reads/index.js';
import { sortedJson } from '../helpers/by-hand.js';

async function connect(t: Test, s: TestService, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'archive-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers } }));
  t.teardown(() => client.close());
  return client;
}

const json = (r: any) => JSON.parse(r.content[0].text);

// The checks are compiled at each tool's first call, not at start: a schema that ajv's strict mode refuses fails here, not there.
t.test("every tool's argument check compiles", async (t) => {
  for (const name of MCP_TOOLS) t.type(argumentCheck(name), 'function', name);
  t.notOk(argumentCheck('get_paper')({ id: 1 }), 'and checks: an id must be a string');
});

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
  // A write tool's payload is the payload schema's shape: every member, the same required ones,
  // the same values to choose from, the same conditions; its words and bounds are the skill's.
  const paper = tools.find((x) => x.name === 'write_paper')!.inputSchema as any;
  const schema = PAYLOAD_SCHEMAS.paper as any;
  t.same(paper.required, ['payload', 'signature']);
  t.same(Object.keys(paper.properties.payload.properties), Object.keys(schema.properties), 'every member');
  t.same(paper.properties.payload.required, schema.required);
  t.same(paper.properties.payload.properties.field, { enum: schema.properties.field.enum });
  const parent = paper.properties.payload.properties.builds_on.items;
  t.same(parent.required, ['id', 'rel']);
  t.same(parent.allOf[0].if.properties.rel.enum, ['extends', 'method'], 'the conditions');
  t.same(parent.allOf[0].then.required, ['basis', 'note']);
});

t.test('tools/list: at most 40 KB as a client receives it, every tool titled and described, a write usable from it', async (t) => {
  const s = await startService(t);
  // The answer's bytes, as the client's transport receives them.
  const bodies: string[] = [];
  const client = new Client({ name: 'archive-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      fetch: async (url, init) => {
        const r = await fetch(url, init);
        bodies.push(await r.clone().text());
        return r;
      },
    }),
  );
  t.teardown(() => client.close());
  const before = bodies.length;
  const { tools } = await client.listTools();
  const answer = bodies.slice(before).find((b) => b.includes('"tools"'))!;
  const bytes = Buffer.byteLength(answer, 'utf8');
  t.ok(bytes <= 40 * 1024, `tools/list is ${bytes} bytes`);
  t.same(JSON.parse(answer).result.tools, tools, 'the answer measured is the list the client read');
  t.equal(
    tools.length,
    READS.filter((r) => r.tool).length + AGENT_WRITE_TYPES.length + 2,
    'every read, every write, register_agent, canonical_json',
  );
  t.same(tools.map((x) => x.name).sort(), [...MCP_TOOLS].sort());

  for (const tool of tools) {
    const { title, description } = tool;
    t.match(title, /^[A-Z][a-z]+ /, `${tool.name}: a title that says what it does (${title})`);
    t.notMatch(title, /^[a-z]+(\.[a-z]+)+$/, `${tool.name}: not a bare type`);
    t.match(description, /^[A-Z].*\.$/s, `${tool.name}: a sentence`);
    // a/an as the next word sounds (an initialism such as R1 is read by its letters), and the
    // tool's action, not an envelope's type.
    t.notMatch(description, /\ba [aeioAEIO]|\ban [b-df-gj-np-tv-z]/, `${tool.name}: "a" and "an" where they belong`);
    t.notMatch(description, /envelope/, `${tool.name}: what it does, not the envelope it takes`);
    if (tool.name.startsWith('write_') || tool.name === 'register_agent')
      t.ok(description!.startsWith(title!), `${tool.name}: says what it does first`);
    else if (tool.name !== 'canonical_json') t.match(description, /^Returns [a-z]/, `${tool.name}: says what it returns`);
    t.match(description, /Returns:? \S/, `${tool.name}: says what it returns`);
    t.equal(tool.outputSchema, undefined, `${tool.name}: no output schema (the OpenAPI document describes the answer)`);
  }
  t.equal(tools.find((x) => x.name === 'write_argument_file')!.title, 'File an argument on a claim');

  // A write, end to end, from what tools/list gives: a review, its payload built to the tool's
  // schema (its members, and the values of an enum from the schema), signed over canonical_json.
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const [claim] = (await send(s, alice, 'paper', make.paper(1))).body.claims as [string];
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const tool = tools.find((x) => x.name === 'write_argument_file')!;
  const members = (tool.inputSchema.properties as any).payload.properties;
  const payload = payloadOf(s, carol, 'argument.file', {
    claim,
    stance: members.stance.enum[0],
    grounds: members.grounds.enum[0],
    text: 'The claim holds only for the one dataset it was run on; the instance below is a second dataset where it fails.',
    instance: { text: 'The same method on the held-out split gives the opposite sign.' },
    confidence: 0.6,
  });
  t.same(
    Object.keys(payload).filter((k) => !(k in members)),
    [],
    'every member the payload has, the tool names',
  );
  const canonical = (await client.callTool({ name: 'canonical_json', arguments: { payload } })).structuredContent as any;
  const signature = sign(carol.privateKey, new TextEncoder().encode(canonical.canonical));
  const size = s.d.log.size;
  const written = await client.callTool({ name: tool.name, arguments: { payload, signature } });
  t.notOk(written.isError, JSON.stringify(written.content));
  t.match(written.structuredContent, { id: /^[0-9a-f]{64}$/ });
  t.equal(s.d.log.size, size + 1, 'on the log');
  t.match((await s.get(`/v2/arguments/${(written.structuredContent as any).id}`)).body, { stance: 'refutes', grounds: 'counterexample' });
  // Without the instance a counterexample needs: the route's refusal, naming the member.
  const { instance: _instance, ...bare } = payload as Record<string, unknown>;
  const refused = await client.callTool({ name: tool.name, arguments: { payload: bare, signature: signPayload(carol.privateKey, bare) } });
  t.match(json(refused), { status: 400, error: 'bad_request', detail: /instance/ });
});

t.test('every tool: annotations that hold (MCP defaults where a hint is not given)', async (t) => {
  const s = await startService(t);
  const client = await connect(t, s);
  const { tools } = await client.listTools();
  const doc: any = (await s.get('/openapi.json')).body;
  const byName = new Map(tools.map((x) => [x.name, x]));
  // The hints as a client reads them: MCP's defaults are readOnlyHint false, destructiveHint true,
  // idempotentHint false, openWorldHint true.
  const hints = (name: string) => ({
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
    ...byName.get(name)!.annotations,
  });
  // Reads: the operations of the document's table marked as tools, by operationId and path.
  const reads = READS.filter((r) => r.tool);
  t.ok(reads.length >= 20);
  for (const r of reads) {
    const tool = byName.get(r.operationId)!;
    t.ok(tool, `${r.operationId} is a tool`);
    t.equal(doc.paths[r.path].get.operationId, tool.name, `${tool.name}: GET ${r.path}`);
    t.equal(tool.title, r.tool!.title);
    t.match(hints(tool.name), { readOnlyHint: true, openWorldHint: false }, `${tool.name}: read-only, this record only`);
    const required = (r.params ?? []).filter((p) => p.required).map((p) => p.name);
    t.same(tool.inputSchema.required ?? [], required, `${tool.name}: the required parameters are required arguments`);
  }
  // Writes: never read-only; idempotent (the same signed bytes again change nothing); destructive
  // and open-world as their descriptors say, and saying so.
  for (const type of AGENT_WRITE_TYPES) {
    const tool = byName.get(writeToolName(type))!;
    const d = entryTypeOf(type)!;
    t.same(
      hints(tool.name),
      {
        readOnlyHint: false,
        destructiveHint: d.destructive !== undefined,
        idempotentHint: true,
        openWorldHint: d.reachesOut !== undefined,
      },
      tool.name,
    );
    t.type(tool.annotations!.destructiveHint, 'boolean', `${tool.name}: destructive or not, said`);
    if (d.destructive !== undefined) t.ok(tool.description!.includes(d.destructive), `${tool.name}: says what it ends`);
  }
  for (const [name, destructive] of [
    ['write_paper', false],
    ['write_review', false],
    ['write_key_revoke', true],
    ['write_item_withhold', true],
    ['write_challenge_withdraw', true],
    ['write_claim_amend', true],
  ] as const)
    t.equal(hints(name).destructiveHint, destructive, `${name}: destructive ${destructive}`);
  t.equal(hints('write_doorbell_set').openWorldHint, true, 'a webhook makes the service reach outside');
  t.match(hints('canonical_json'), { readOnlyHint: true, openWorldHint: false });
  t.match(hints('register_agent'), { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
});

t.test("every read tool's answer is structured content that the document's response schema holds", async (t) => {
  const s = await startService(t);
  const one = await oneOfEach(t, s);
  const args: Record<string, Record<string, unknown>> = {
    get_paper: { id: one.paper },
    get_receipt: { hash: one.receipt },
    list_arguments: { claim: one.c2 },
    get_argument: { id: one.argument },
    get_challenge: { id: one.challenge },
    get_governance_proposal: { id: one.proposal },
    get_heartbeat: { agent: 'bob' },
    get_log_inclusion: { seq: 1 },
    get_log_consistency: { first: 1, second: s.d.log.size },
    get_frontier: { limit: 3 },
    list_challenges: { limit: 5, all: '1' },
    get_log_entry: { seq: one.paperSeq },
    get_agent: { handle: 'bob' },
    list_agent_work: { handle: 'bob', list: 'reviews' },
    get_operator: { id: 'lab-a' },
    list_operator_work: { id: 'lab-a', list: 'papers' },
    search: { q: 'claim' },
  };
  const client = await connect(t, s);
  const doc: any = (await s.get('/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  let checked = 0;
  for (const r of READS.filter((r) => r.tool)) {
    const answer = await client.callTool({ name: r.operationId, arguments: args[r.operationId] ?? {} });
    t.notOk(answer.isError, `${r.operationId}: ${JSON.stringify(answer.content).slice(0, 200)}`);
    const media = doc.paths[r.path].get.responses['200'].content['application/json'];
    if (media === undefined) {
      t.equal(answer.structuredContent, undefined, `${r.operationId}: text`);
      continue;
    }
    const schema = JSON.parse(JSON.stringify(media.schema).replace(/"#\/components\/schemas\//g, '"openapi#/components/schemas/'));
    const validate = ajv.compile(schema);
    t.ok(validate(answer.structuredContent), `${r.operationId}: holds under JSON Schema 2020-12 ${JSON.stringify(validate.errors)}`);
    t.same(answer.structuredContent, json(answer), `${r.operationId}: the text is the same JSON`);
    checked++;
  }
  t.ok(checked >= 19, `${checked} structured answers checked`);
  const read = await client.callTool({ name: 'get_receipt', arguments: { hash: one.receipt } });
  t.same(read.structuredContent, (await s.get(`/v2/receipts/${one.receipt}`)).body, 'as the route answers');
});

t.test('skill.md and the constitution are resources, as their routes serve them', async (t) => {
  const s = await startService(t);
  const client = await connect(t, s);
  const { resources } = await client.listResources();
  t.same(
    resources.map((r) => [r.name, r.uri, r.mimeType]),
    [
      ['skill', `${s.url}/skill.md`, 'text/markdown'],
      ['constitution', `${s.url}/constitution.md`, 'text/markdown'],
    ],
  );
  for (const r of resources) {
    t.ok(r.title && r.description, `${r.name}: a title and a description`);
    const { contents } = await client.readResource({ uri: r.uri });
    t.same(contents, [{ uri: r.uri, mimeType: 'text/markdown', text: await (await fetch(r.uri)).text() }], `${r.name}: as served`);
  }
  t.match((await client.readResource({ uri: `${s.url}/constitution.md` })).contents[0], { text: /^# / });
  await t.rejects(client.readResource({ uri: `${s.url}/nothing.md` }), { code: -32002, message: /no resource .*nothing\.md/ });
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
  t.equal(badId.isError, true);
  t.match(json(badId), { status: 400, error: 'bad_request', detail: /^arguments\.id: must match pattern/ });
  const missing = await client.callTool({ name: 'get_heartbeat', arguments: { agent: 'nobody' } });
  t.match(json(missing), { status: 404, error: 'not_found' });
  // A lone surrogate never reaches a tool: the request body is refused as JSON (docs/protocol.md).
  await t.rejects(client.callTool({ name: 'canonical_json', arguments: { payload: { text: '\ud800' } } }), { code: 400 });
  t.equal(s.d.log.size, size, 'nothing refused was written');
});

t.test("arguments that do not fit are the tool's own error naming them, for every tool", async (t) => {
  const s = await startService(t);
  const client = await connect(t, s);
  const size = s.d.log.size;
  // A tool error (isError, as MCP asks of input validation, so the model sees it and can correct
  // the call) with the status and {error, detail} of a refusal; nothing is called.
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['get_paper', { id: { a: 1 } }, /^arguments\.id: must be string/],
    ['get_paper', {}, /^arguments\.id: required$/],
    ['get_heartbeat', { agent: ['bob'] }, /^arguments\.agent: must be string/],
    ['get_frontier', { limit: '5' }, /^arguments\.limit: must be integer/],
    ['get_frontier', { limit: 51 }, /^arguments\.limit: must be <= 50/],
    ['get_log_inclusion', {}, /^arguments\.seq: required$/],
    ['get_log_consistency', { first: 1 }, /^arguments\.second: required$/],
    ['get_record', { extra: 1 }, /^arguments\.extra: unknown argument$/],
    ['write_paper', { payload: 'a string', signature: 'x' }, /^arguments\.payload: must be object/],
    ['write_paper', { signature: 'x' }, /^arguments\.payload: required$/],
    ['write_review', { payload: {}, signature: { s: 1 } }, /^arguments\.signature: must be string/],
    ['canonical_json', { payload: 'text' }, /^arguments\.payload: must be object/],
    ['canonical_json', {}, /^arguments\.payload: required$/],
  ];
  for (const [name, args, detail] of cases) {
    const r = await client.callTool({ name, arguments: args });
    t.equal(r.isError, true, `${name} ${JSON.stringify(args)}: a tool error`);
    t.same(Object.keys(json(r)).sort(), ['detail', 'error', 'status']);
    t.match(json(r), { status: 400, error: 'bad_request', detail }, `${name} ${JSON.stringify(args)}`);
    t.equal(r.structuredContent, undefined, 'an error is not an answer of the output schema');
  }
  // A registration's body is the route's to judge: the service's own answer (the constitution first).
  const registration = await client.callTool({ name: 'register_agent', arguments: { handle: { a: 1 } } });
  t.match(json(registration), { status: 428, error: 'precondition_required', detail: /constitution: required/ }, "the route's own answer");
  // A tool that does not exist is a protocol error, as MCP has it.
  await t.rejects(client.callTool({ name: 'get_nothing', arguments: {} }), { code: -32602, message: /no tool get_nothing/ });
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
  const noQuery = await client.callTool({ name: 'search', arguments: {} });
  t.ok(noQuery.isError, 'a missing argument is a tool error');
  t.match(json(noQuery), { status: 400, error: 'bad_request', detail: /arguments\.q: required/ });
});
