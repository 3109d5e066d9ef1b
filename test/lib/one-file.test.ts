// Adding an entry type is one new file and one line in the registry (docs/entry-types.md,
// "Adding an entry type"). Proved on a copy of the project: fixtures/one-file/notes.ts goes in
// as lib/record/types/notes.ts, the registry gets one line, the copy compiles with the project's
// own tsconfig (so every table typed by WriteType takes the new type), and the route, the
// OpenAPI operation, the MCP tool, the client verb, /skill.md and validation all show it.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

t.test('a new write type: one file and one registry line, and every table has it', async (t) => {
  const copy = mkdtempSync(join(tmpdir(), 'archive-one-file-'));
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  for (const dir of ['lib', 'log', 'api', 'constitution']) cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  writeFileSync(
    join(copy, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: { outDir: 'dist', rootDir: '.' },
      include: ['lib/**/*.ts', 'log/**/*.ts', 'api/**/*.ts'],
    }),
  );

  // The new file, and the one line (with its import) in the registry.
  cpSync(join(ROOT, 'fixtures/one-file/notes.ts'), join(copy, 'lib/record/types/notes.ts'));
  const registry = join(copy, 'lib/record/types/registry.ts');
  const before = readFileSync(registry, 'utf8');
  const after = before
    .replace(
      "import * as outOfView from './out-of-view.js';",
      "import * as outOfView from './out-of-view.js';\nimport * as notes from './notes.js';",
    )
    .replace('  outOfView.holdPlace,\n', '  outOfView.holdPlace,\n  notes.note,\n');
  t.not(after, before, 'the registry line went in');
  writeFileSync(registry, after);

  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', copy], { cwd: copy, stdio: 'pipe' });

  const probe = `
    const { WRITE_ROUTES, WRITE_TYPES, CLIENT_VERBS, AGENT_WRITE_TYPES } = await import('./dist/lib/record/types/index.js');
    const { payloadErrors } = await import('./dist/lib/record/validation/index.js');
    const { openApiDocument } = await import('./dist/api/openapi.js');
    const { MCP_TOOLS, writeToolName } = await import('./dist/api/mcp.js');
    const { skillMarkdown } = await import('./dist/lib/service/skill/skill.js');
    const doc = openApiDocument();
    const md = skillMarkdown({ origin: 'x', logKey: 'k', operator: 'o', constitution: { version: '1', hash: '0'.repeat(64) } });
    const good = { protocol: 'archive/0.2', type: 'claim.note', agent: { handle: 'ab', publicKey: 'A'.repeat(43) }, ts: '2030-01-01T00:00:00Z', claim: 'rec:0123456789abcdef#C1', note: 'The second table reports medians.' };
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
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: copy }).toString());
  t.equal(out.writeType, true, 'a write type');
  t.equal(out.agentWrite, true, 'an agent signs it');
  t.same(out.route, { path: '/v2/claims/notes', signer: 'main', status: 201 }, 'its route');
  t.same(out.openapi, ['post'], 'its OpenAPI operation');
  t.equal(out.mcp, true, 'its MCP tool');
  t.same(out.verb, ['note', 'claim.note', 'leave a public note on a claim'], "the agent client's verb");
  t.equal(out.skill, true, 'its section of skill.md');
  t.same(out.valid, [], 'a payload its schema accepts');
  t.match(out.invalid, [/^payload\.note: /], 'and one it refuses, naming the field');
});
