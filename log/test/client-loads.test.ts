// A client that only verifies loads no HTTP server code (docs/engine.md, "The client side"):
// the front door's static imports, walked through the compiled package, reach neither
// servers.js nor node:http; tlog-engine/servers is the only way to them. Nor do they reach the
// test server of tlog-engine/testing, child processes or pg (loaded only by openPgStore).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The static imports of a compiled module: relative ones as paths under dist/src, bare ones as they are. */
function imports(file: string): { local: string[]; bare: string[] } {
  const text = readFileSync(file, 'utf8');
  const local: string[] = [];
  const bare: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'([^']+)'|(?:^|\n)import\s+'([^']+)'/g)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith('.')) local.push(join(dirname(file), spec));
    else bare.push(spec);
  }
  return { local, bare };
}

function walk(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (f: string) => {
    if (files.has(f)) return;
    files.add(f);
    const i = imports(f);
    i.bare.forEach((b) => bare.add(b));
    i.local.forEach(visit);
  };
  visit(join(SRC, entry));
  return { files: new Set([...files].map((f) => relative(SRC, f))), bare };
}

t.test('the front door reaches the client side and the witnesses, and no server', async (t) => {
  const { files, bare } = walk('index.js');
  for (const f of ['client/tiles.js', 'client/monitor.js', 'client/mirror.js', 'witness/witnesses.js', 'witness/endpoint.js'])
    t.ok(files.has(f), `${f} is behind the front door`);
  t.notOk(files.has('servers.js'), 'servers.js is not');
  for (const m of ['node:http', 'http', 'node:net', 'koa', '@koa/router']) t.notOk(bare.has(m), `${m} is not imported`);
  const servers = walk('servers.js');
  t.ok(servers.bare.has('node:http'), 'tlog-engine/servers is where node:http is');
});

t.test('the front door reaches neither the test server of tlog-engine/testing nor pg', async (t) => {
  const { files, bare } = walk('index.js');
  t.notOk(files.has('testing.js'), 'testing.js is not behind the front door');
  for (const m of ['pg', 'node:child_process', 'child_process']) t.notOk(bare.has(m), `${m} is not imported`);
  const testing = walk('testing.js');
  t.ok(testing.bare.has('pg') && testing.bare.has('node:child_process'), 'tlog-engine/testing is where they are');
});
