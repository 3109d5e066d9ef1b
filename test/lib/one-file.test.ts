// Adding an entry type is one new file and one line in the registry (docs/entry-types.md,
// "Adding an entry type"). Proved on a copy of the project: fixtures/one-file/notes.ts and
// fixtures/one-file/comments.ts go in under lib/record/types/, the registry gets one line each,
// the copy compiles with the project's own tsconfig (so every table typed by WriteType takes the
// new types), and the route, the OpenAPI operation, the MCP tool, the client verb, /skill.md and
// validation all show them; the comment, which keeps state of its own, is screened and is searched
// as a kind of its own, is written to a service started from the copy: the search finds it (the
// explorer shows it escaped), screening refers one out of view, and its state survives a snapshot.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

// One copy for both types, compiled once (the whole project: minutes on a loaded machine).
t.setTimeout(600_000);
const copy = mkdtempSync(join(tmpdir(), 'archive-one-file-'));
t.teardown(() => rmSync(copy, { recursive: true, force: true }));
for (const dir of ['lib', 'log', 'api', 'constitution', 'test/helpers']) cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
writeFileSync(
  join(copy, 'tsconfig.json'),
  JSON.stringify({
    extends: join(ROOT, 'tsconfig.json'),
    compilerOptions: { outDir: 'dist', rootDir: '.' },
    include: ['lib/**/*.ts', 'log/**/*.ts', 'api/**/*.ts'],
    files: ['test/helpers/service.ts', 'test/helpers/agents.ts'],
  }),
);

// The new files, and the one line (with its import) each in the registry.
cpSync(join(ROOT, 'fixtures/one-file/notes.ts'), join(copy, 'lib/record/types/notes.ts'));
cpSync(join(ROOT, 'fixtures/one-file/comments.ts'), join(copy, 'lib/record/types/comments.ts'));
const registry = join(copy, 'lib/record/types/registry.ts');
const before = readFileSync(registry, 'utf8');
const after = before
  .replace(
    "import * as outOfView from './out-of-view.js';",
    "import * as outOfView from './out-of-view.js';\nimport * as notes from './notes.js';\nimport * as comments from './comments.js';",
  )
  .replace('  outOfView.holdPlace,\n', '  outOfView.holdPlace,\n  notes.note,\n  comments.comment,\n');
writeFileSync(registry, after);
execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', copy], { cwd: copy, stdio: 'pipe' });

/**
 * Runs `probe` (an ES module's text) in the copy, from a file (a worker the service starts takes the
 * process's flags); returns what it printed.
 */
function run(probe: string): Record<string, any> {
  writeFileSync(join(copy, 'probe.mjs'), probe);
  return JSON.parse(execFileSync(process.execPath, ['probe.mjs'], { cwd: copy }).toString());
}

t.not(after, before, 'the registry lines went in');

t.test('a new write type: one file and one registry line, and every table has it', async (t) => {
  const probe = `
    const { WRITE_ROUTES, WRITE_TYPES, CLIENT_VERBS, AGENT_WRITE_TYPES } = await import('./dist/lib/record/types/index.js');
    const { payloadErrors } = await import('./dist/lib/record/validation/index.js');
    const { openApiDocument } = await import('./dist/api/openapi.js');
    const { MCP_TOOLS, writeToolName } = await import('./dist/api/mcp.js');
    const { skillMarkdown } = await import('./dist/lib/service/skill/skill.js');
    const doc = openApiDocument();
    const md = skillMarkdown({ origin: 'x', logKey: 'k', operator: 'o', constitution: { version: '1', hash: '0'.repeat(64) } });
    const good = {
      protocol: 'archive/0.2', type: 'claim.note', agent: { handle: 'ab', publicKey: 'A'.repeat(43) }, ts: '2030-01-01T00:00:00Z',
      claim: 'rec:0123456789abcdef#C1', note: 'The second table reports medians.',
    };
    console.log(JSON.stringify({
      writeType: WRITE_TYPES.includes('claim.note'),
      agentWrite: AGENT_WRITE_TYPES.includes('claim.note'),
      route: WRITE_ROUTES['claim.note'],
      openapi: Object.keys(doc.paths['/v2/claims/notes'] ?? {}),
      mcp: MCP_TOOLS.includes(writeToolName('claim.note')),
      verb: CLIENT_VERBS.find(([, type]) => type === 'claim.note') ?? null,
      skill: md.includes('### \`claim.note\`: POST /v2/claims/notes (main key)'),
      valid: payloadErrors('claim.note', good),
      invalid: payloadErrors('claim.note', { ...good, note: 'short' }),
    }));
  `;
  const out = run(probe);
  t.equal(out.writeType, true, 'a write type');
  t.equal(out.agentWrite, true, 'an agent signs it');
  t.same(out.route, { path: '/v2/claims/notes', signer: 'main', status: 201, statuses: [404] }, 'its route');
  t.same(out.openapi, ['post'], 'its OpenAPI operation');
  t.equal(out.mcp, true, 'its MCP tool');
  t.same(out.verb, ['note', 'claim.note', 'leave a public note on a claim'], "the agent client's verb");
  t.equal(out.skill, true, 'its section of skill.md');
  t.same(out.valid, [], 'a payload its schema accepts');
  t.match(out.invalid, [/^payload\.note: /], 'and one it refuses, naming the field');
});

t.test('a write type that keeps state, is screened and is searched: one file and one registry line, on a running service', async (t) => {
  const probe = `
    const { startService } = await import('./dist/test/helpers/service.js');
    const { register, send, make } = await import('./dist/test/helpers/agents.js');
    const { MCP_TOOLS, writeToolName } = await import('./dist/api/mcp.js');
    const { encodeSnapshot, decodeSnapshot } = await import('./dist/lib/service/snapshot.js');
    const { stateDigest } = await import('./dist/lib/record/fold/index.js');
    const downs = [];
    const s = await startService({ teardown: (f) => downs.push(f) });
    const alice = await register(s, 'alice');
    const paper = await send(s, alice, 'paper', make.paper(1));
    const claim = paper.body.claims[0];
    const text = 'The second table reports medians where the text says means.';
    const first = await send(s, alice, 'claim.comment', { claim, text });
    const again = await send(s, alice, 'claim.comment', { claim, text });
    const second = await send(s, alice, 'claim.comment', { claim, text: text + ' So does the third.' });
    const size = s.record.state.size;
    const key = 'My key: -----BEGIN PRIVATE KEY----- MC4CAQAwBQYDK2VwBCIEIA== for you.';
    const secret = await send(s, alice, 'claim.comment', { claim, text: key });
    const keptNothing = s.record.state.size === size;
    const unknown = await send(s, alice, 'claim.comment', { claim: 'rec:0123456789abcdef#C1', text });
    const markup = 'The <b>quokka</b> & "wombat" rows of the second table are swapped.';
    const marked = await send(s, alice, 'claim.comment', { claim, text: markup });
    const email = 'Write to jane.doe@example.org for the quokka rows of the raw data.';
    const referred = await send(s, alice, 'claim.comment', { claim, text: email });
    const after = (await s.get('/v1/log/entries?from=' + (referred.body.seq + 1) + '&limit=1')).body.entries[0];
    const search = async (q) => (await s.get('/v2/search?q=' + q)).body.results.map((r) => [r.kind, r.id, r.title, r.seq]);
    const browse = (path) => fetch(s.url + path, { headers: { accept: 'text/html' } }).then(async (r) => [r.status, await r.text()]);
    const [pageStatus, page] = await browse('/explore/search?q=quokka');
    const [formStatus, form] = await browse('/explore/search');
    // The log page's row of the referred comment: what it is about.
    const [, logPage] = await browse('/explore/log?from=' + referred.body.seq + '&limit=1');
    const row = logPage.slice(logPage.indexOf('<td class="what rest">') + 22, logPage.indexOf('<td class="who">'));
    const bad = await s.get('/v2/search?q=quokka&kind=note');
    const doc = (await s.get('/openapi.json')).body;
    const skill = (await s.get('/skill.md')).text;
    const state = s.record.state;
    const restored = decodeSnapshot(encodeSnapshot(state, 'ab'.repeat(32))).state;
    console.log(JSON.stringify({
      first: [first.status, first.body], again: [again.status, again.body.error], second: [second.status, second.body.count],
      secret: [secret.status, secret.body.detail, keptNothing],
      unknown: [unknown.status, unknown.body.detail],
      marked: [marked.status, marked.body.id, marked.body.seq],
      referred: [referred.status, referred.body.status, referred.body.screening?.rule, referred.body.id],
      after: [after.type, after.payload.event?.subject],
      row,
      withheld: (await s.get('/v2/record')).body.withheld.map((w) => w.subject),
      quokka: await search('quokka'),
      comments: await search('medians%20table&kind=comment'),
      claims: await search('medians%20table&kind=claim'),
      bad: [bad.status, bad.body.detail],
      page: [pageStatus, page.match(/<ul class="items" id="results">.*?<\\/ul>/s)?.[0] ?? page],
      form: [formStatus, form.match(/<select name="kind">.*?<\\/select>/s)?.[0] ?? form, form.match(/<p id="search-help">.*?<\\/p>/s)?.[0]],
      operation: doc.paths['/v2/claims/comments']?.post?.operationId ?? null,
      responses: Object.keys(doc.paths['/v2/claims/comments']?.post?.responses ?? {}),
      mcp: MCP_TOOLS.includes(writeToolName('claim.comment')),
      skill: skill.includes('### \`claim.comment\`: POST /v2/claims/comments (main key)'),
      stored: state.comments.get(claim).map((c) => c.agent + ' ' + c.seq),
      restored: restored.comments.get(claim).map((c) => c.agent + ' ' + c.seq),
      digest: stateDigest(restored) === stateDigest(state),
    }));
    for (const f of downs.reverse()) await f();
  `;
  const out = run(probe);
  t.match(out.first, [201, { claim: /#C1$/, count: 1, seq: Number }], 'its route and status, its answer');
  t.same(out.again, [409, 'conflict'], 'its check reads what it stored');
  t.same(out.second, [201, 2], 'a second comment counts two');
  t.match(out.secret, [451, /^payload\.text: refused by screening rule private-key: /, true], 'screened: refused, nothing kept');
  t.match(out.unknown, [404, /^payload\.claim: no claim/], 'its refusal');
  t.match(out.referred, [202, 'review', 'personal-data', /^[0-9a-f]{64}$/], 'screened: referred, answered 202');
  t.same(out.after, ['screening.refer', out.referred[3]], 'with the service event that takes it out of view, right after it');
  t.match(
    out.row,
    /^<code>claim\.comment<\/code> <a class="claim" href="\/explore\/claims\/rec%3A[0-9a-f]{16}%23C1"/,
    'the log page says it is about its claim',
  );
  t.notMatch(out.row, /arguments/, 'not an argument');
  t.same(out.withheld, [out.referred[3]], 'out of view');
  const markup = 'The <b>quokka</b> & "wombat" rows of the second table are swapped.';
  t.same(
    out.quokka,
    [['comment', out.marked[1], markup, out.marked[2]]],
    'the search finds the comment by a word of it, not the one out of view',
  );
  t.equal(out.comments.length, 2, 'kind=comment: the two comments that say medians and table');
  t.ok(
    out.comments.every(([kind]: string[]) => kind === 'comment'),
    'and nothing else',
  );
  t.same(out.claims, [], 'kind=claim finds no comment');
  t.match(out.bad, [400, /^kind: .*\bcomment\b/], 'a kind it does not know: 400 naming the kinds, the new one with them');
  t.equal(out.page[0], 200, 'the explorer finds it');
  t.match(out.page[1], '<span class="kind">comment</span>', 'as a comment');
  t.match(out.page[1], 'The &lt;b&gt;<mark>quokka</mark>&lt;/b&gt; &amp; &quot;wombat&quot; rows', 'its text escaped, the word marked');
  t.notMatch(out.page[1], '<b>quokka', 'no markup of its own');
  t.match(out.page[1], '<a href="/explore/claims/' + encodeURIComponent(out.first[1].claim) + '">', 'linked to the claim it is about');
  t.notMatch(out.page[1], 'jane.doe', 'not the one out of view');
  t.match(out.form, [200, '<option value="comment">comments</option>', /comments \(text\)/], 'the form and its help name the new kind');
  t.equal(out.operation, 'write_claim_comment', 'its OpenAPI operation');
  t.same(
    out.responses,
    ['201', '202', '400', '401', '404', '409', '413', '428', '429', '451', '503', '507'],
    'with the statuses it declares',
  );
  t.equal(out.mcp, true, 'its MCP tool');
  t.equal(out.skill, true, 'its section of skill.md');
  t.equal(out.stored.length, 4, 'its state: two, the one with markup, and the one referred (on the record, out of view)');
  t.same(out.restored, out.stored, 'the same after a snapshot round trip');
  t.equal(out.digest, true, 'and the same state digest');
});
