// The layer rules of docs/engine.md, checked on the source: nothing outside log/ imports a file of
// log/ (the engine is imported by its package name, tlog-engine); the verifier (bin/verify.ts, verify/) imports no store and no
// deployment, and importing it reads no file.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { projectRoot } from '../helpers/fixtures.js';

/** Every .ts file under `dir` (relative to the project root). */
function sources(dir: string): string[] {
  const root = join(projectRoot, dir);
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(projectRoot, path)).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The modules a source file imports (static and dynamic): relative ones as project paths of their .ts source, bare ones as they are. */
function imports(file: string): { spec: string; path: string | null; dynamic: boolean }[] {
  const text = readFileSync(join(projectRoot, file), 'utf8');
  const found: { spec: string; path: string | null; dynamic: boolean }[] = [];
  for (const m of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'([^']+)'|(?:^|\n)import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g,
  )) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const path = spec.startsWith('.') ? relative(projectRoot, resolve(projectRoot, dirname(file), spec)).replace(/\.js$/, '.ts') : null;
    found.push({ spec, path, dynamic: m[3] !== undefined });
  }
  return found;
}

t.test('nothing outside log/ imports a file of log/: the engine is imported by its package name', async (t) => {
  const above = ['lib', 'api', 'verify', 'bin', 'bench', 'examples', 'test'].flatMap(sources);
  t.ok(above.length > 100, `${above.length} files checked`);
  const wrong = above.flatMap((f) =>
    imports(f)
      .filter((i) => i.path?.startsWith('log/'))
      .map((i) => `${f} imports ${i.spec}`),
  );
  t.same(wrong, [], 'no path into log/');
  const byName = above.filter((f) => imports(f).some((i) => i.spec === 'tlog-engine'));
  t.ok(byName.length > 30, `${byName.length} files import tlog-engine by its name`);
});

t.test('the verifier statically imports no store, no deployment, no LevelDB and no PostgreSQL client', async (t) => {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of imports(file)) {
      if (i.dynamic) continue;
      if (i.path === null) bare.add(i.spec);
      else walk(i.path);
    }
  };
  walk('bin/verify.ts');
  walk('verify/monitor.ts');
  t.ok(seen.has('verify/check-log.ts') && bare.has('tlog-engine'), 'the walk reaches the verifier and the engine');
  for (const f of ['lib/service/deployment.ts', 'lib/service/storage.ts', 'lib/service/keystore.ts'])
    t.notOk(seen.has(f), `${f} is not imported`);
  for (const m of ['level', 'classic-level', 'pg']) t.notOk(bare.has(m), `${m} is not imported`);
});

t.test('importing the verifier reads no file and loads no LevelDB, no PostgreSQL client and no ajv', async (t) => {
  // A fresh process: the file system calls are counted from before the first import, but for
  // those Node's own module loader makes (reading the modules' sources). Source maps are off (the test
  // runner turns them on, and Node reads them as files).
  const script = `
    process.setSourceMapsEnabled(false);
    import fs from 'node:fs';
    import { syncBuiltinESMExports, createRequire } from 'node:module';
    const calls = [];
    // The frame that called the file system function: the wrapper's caller.
    const note = (call) => { if (!/node:internal\\/modules\\//.test(new Error().stack.split('\\n')[3])) calls.push(call); };
    for (const name of ['readFileSync', 'readdirSync', 'existsSync', 'statSync', 'openSync', 'readFile', 'readdir', 'open']) {
      const real = fs[name];
      fs[name] = function (...args) { note(name + ' ' + String(args[0])); return real.apply(this, args); };
    }
    for (const name of ['readFile', 'readdir', 'open', 'stat']) {
      const real = fs.promises[name];
      fs.promises[name] = function (...args) { note('promises.' + name + ' ' + String(args[0])); return real.apply(this, args); };
    }
    syncBuiltinESMExports();
    await import(${JSON.stringify(join(projectRoot, 'dist/bin/verify.js'))});
    await import(${JSON.stringify(join(projectRoot, 'dist/verify/monitor.js'))});
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    const under = (re) => cjs.filter((p) => re.test(p));
    console.log(JSON.stringify({
      calls, leveldb: under(/classic-level|[\\\\/]level[\\\\/]/), pg: under(/[\\\\/]pg[\\\\/]/), ajv: under(/[\\\\/]ajv[\\\\/]/),
    }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  t.same(out.calls, [], 'no file read at import');
  t.same(out.leveldb, [], 'LevelDB not loaded');
  t.same(out.pg, [], 'the PostgreSQL client not loaded');
  // Payload validation is a room of its own (lib/record/validation/) so that the verifier, which reads the registry, does not load it.
  t.same(out.ajv, [], 'ajv not loaded');
});
