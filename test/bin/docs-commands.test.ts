// The words around the commands: each agent verb's --help names the members of its file, and every
// command the README and docs/cli.md show runs as written from a clone (its --help, through the
// real bin/archive).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { archiveEach } from '../helpers/cli.js';
import { projectRoot } from '../helpers/fixtures.js';
import { PAYLOAD_SCHEMAS, CLIENT_VERBS } from '../../lib/record/types/index.js';

t.test("each verb's --help names its members", async (t) => {
  const runs = await archiveEach(CLIENT_VERBS.map(([verb]) => ['agent', verb, '--help']));
  for (const [i, [verb, type]] of CLIENT_VERBS.entries()) {
    const r = runs[i]!;
    t.equal(r.code, 0, r.stderr);
    const help = r.stdout.replace(/\s+/g, ' ');
    const schema = PAYLOAD_SCHEMAS[type] as { properties: Record<string, unknown> };
    for (const name of Object.keys(schema.properties).filter((m) => !['protocol', 'type', 'agent', 'ts'].includes(m)))
      t.match(help, new RegExp(`\\b${name} \\((required|optional)\\)`), `${verb} --help names ${name}`);
    if (Object.keys(schema.properties).length > 4) t.match(help, new RegExp(`archive agent template ${verb}`));
  }
});

t.test('every command the README and docs/cli.md show runs as written from a clone', async (t) => {
  const docs = ['README.md', join('docs', 'cli.md')].map((f) => readFileSync(join(projectRoot, f), 'utf8'));
  t.match(docs[0], /npm link/, 'the README says how `archive` gets on the PATH');
  const commands = new Set<string>();
  for (const text of docs)
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g))
      for (const line of block[1]!.split('\n')) {
        const m = /^(?:node bin\/)?archive((?: [a-z][a-z-]*)*)/.exec(line.trim());
        if (m !== null) commands.add(m[1]!.trim());
      }
  for (const c of ['get', 'log info', 'heartbeat', 'agent template', 'verify', 'agent publish'])
    t.ok(commands.has(c) || [...commands].some((x) => x.startsWith(`${c} `)), `the docs show archive ${c}`);
  const list = [...commands];
  const runs = await archiveEach(list.map((c) => [...c.split(' ').filter((w) => w !== ''), '--help']));
  for (const [i, c] of list.entries()) {
    const r = runs[i]!;
    t.equal(r.code, 0, `archive ${c} --help: ${r.stderr}`);
    t.notMatch(r.stderr, /Unknown argument/, c);
  }
});

t.test("the help lists every command, and a command's help is the same whether it alone is loaded or all are", async (t) => {
  // `archive get` loads only get's module; with an option before the command, bin/cli.ts loads every command's.
  const [all, alone, among] = await archiveEach([['--help'], ['get', '--help'], ['--url', 'http://127.0.0.1:1', 'get', '--help']]);
  t.equal(all!.code, 0, all!.stderr);
  const commands = 'serve agent pair verify export proof tiles monitor steward operator get search log heartbeat'.split(' ');
  for (const c of commands) t.match(all!.stdout, new RegExp(`^  archive ${c}\\b`, 'm'), `archive --help lists ${c}`);
  t.equal(alone!.code, 0, alone!.stderr);
  t.match(alone!.stdout, /^archive get <id>\n/);
  t.equal(among!.stdout, alone!.stdout, 'the same help');
});
