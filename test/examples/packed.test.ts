// The engine stands alone: `npm pack` of log/ makes a tarball of the engine's built code, its
// README and package.json (no tests; tlog-engine/testing, a PostgreSQL server for tests, and
// its script), and each example (a folder of examples/ with a
// package.json) passes its own `npm test` from a copy in a temporary directory outside the
// repository, with that tarball installed beside its declared dependencies, importing nothing
// outside its folder.
import t from 'tap';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);
const ROOT = process.cwd();

/**
 * The environment for npm in a copy: this process's, without the npm_* variables a parent
 * `npm test` sets (its package, its workspace, its prefix), which would make npm act on the
 * repository rather than on the copy.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(cache|registry|userconfig)$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.test(k)));
}

/** Every file under `dir` but node_modules/ and dist/. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourceFiles(p);
    return [p];
  });
}

const SPECIFIERS = [
  // import … from, export … from: a statement that starts a line, so that "from '…'" in a string is not taken for one
  /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
  /\bimport\s*['"]([^'"]+)['"]/g, // import 'x'
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // import('x')
  /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // require('x')
];

/** What in the folder `dir` reaches outside it: imports by path or of undeclared packages, and links in its configuration. */
function reachesOutside(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const declared = { ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(declared)) {
    if (/^(file:|link:|workspace:|\.|\/)/.test(spec)) problems.push(`package.json: ${name} is "${spec}", a path rather than a version`);
  }
  const inside = (from: string, target: string) => !relative(dir, resolve(dirname(from), target)).startsWith('..');
  for (const file of sourceFiles(dir)) {
    const rel = relative(dir, file);
    const text = readFileSync(file, 'utf8');
    if (/^tsconfig.*\.json$/.test(basename(file))) {
      const ext = /"extends"\s*:\s*"([^"]+)"/.exec(text)?.[1];
      if (ext !== undefined && ext.startsWith('.') && !inside(file, ext)) problems.push(`${rel}: extends ${ext}`);
      for (const m of text.matchAll(/"path"\s*:\s*"([^"]+)"/g)) if (!inside(file, m[1]!)) problems.push(`${rel}: references ${m[1]}`);
    }
    if (!/\.(ts|mts|cts|js|mjs|cjs)$/.test(file)) continue;
    for (const re of SPECIFIERS) {
      for (const m of text.matchAll(re)) {
        const spec = m[1]!;
        if (spec.startsWith('.') || spec.startsWith('/')) {
          if (!inside(file, spec)) problems.push(`${rel}: imports ${spec}, outside the folder`);
          continue;
        }
        if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!(name in declared)) problems.push(`${rel}: imports ${spec}, not a declared dependency`);
      }
    }
  }
  return problems;
}

t.test('the engine packs alone, and each example passes its own tests from a copy outside the repository', async (t) => {
  t.setTimeout(900_000); // an npm install and a TypeScript build for each example

  // One pack for all the examples, of the engine as built (the build ran before the tests).
  const packDir = tempDir(t, 'tlog-engine-pack-');
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir], {
    cwd: join(ROOT, 'log'),
    env: npmEnv(),
  });
  const tarball = join(packDir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  t.ok(statSync(tarball).size > 0, 'npm pack made a tarball');
  const files = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter((f) => f !== '');
  const holds = ['package/package.json', 'package/README.md', 'package/dist/src/index.js', 'package/dist/src/index.d.ts'];
  // tlog-engine/testing (a PostgreSQL server for tests) and the script that finds its binaries.
  holds.push('package/dist/src/testing.js', 'package/scripts/postgres.sh');
  for (const f of holds) t.ok(files.includes(f), `the tarball holds ${f}`);
  t.same(
    files.filter((f) => !/^package\/(package\.json|README\.md|scripts\/postgres\.sh|dist\/src\/.+)$/.test(f)),
    [],
    'and nothing but dist/src, scripts/postgres.sh, README.md and package.json',
  );
  t.same(
    files.filter((f) => /(^|\/)tests?\/|\.test\.[cm]?[jt]s$/.test(f)),
    [],
    'no tests',
  );

  // The README's quick start, exactly as written, in a new package with only the tarball installed.
  await t.test("log/README.md's quick start runs as written against the packed engine", async (t) => {
    const readme = readFileSync(join(ROOT, 'log', 'README.md'), 'utf8');
    const block = /## Quick start[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    t.ok(block !== undefined, 'the README has a js block under "Quick start"');
    t.ok(block!.trimEnd().split('\n').length <= 40, 'of at most 40 lines');
    const dir = tempDir(t, 'tlog-quickstart-');
    writeFileSync(join(dir, 'package.json'), '{"name":"quickstart","private":true,"type":"module"}\n');
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, env: npmEnv(), timeout: 600_000 });
    writeFileSync(join(dir, 'quickstart.mjs'), block!);
    const out = await run(process.execPath, ['quickstart.mjs'], { cwd: dir, timeout: 60_000 });
    t.match(
      out.stdout,
      /^entry 1 of 3: included \(checkpoint signed by example\.com\/log\+[0-9a-f]{8}\+\S+\)$/m,
      'it prints what the README says',
    );

    // tlog-engine/testing from the same install: its script is in the package, and its server answers.
    const pgCheck = [
      "import { startPostgres } from 'tlog-engine/testing';",
      "import pg from 'pg';",
      'const server = await startPostgres();',
      'const c = new pg.Client({ connectionString: await server.createDatabase() });',
      'await c.connect();',
      "console.log('answer', (await c.query('SELECT 6 * 7 AS n')).rows[0].n);",
      'await c.end();',
      'await server.remove();',
    ].join('\n');
    writeFileSync(join(dir, 'pg-check.mjs'), pgCheck);
    const pgOut = await run(process.execPath, ['pg-check.mjs'], { cwd: dir, timeout: 120_000 });
    t.equal(pgOut.stdout, 'answer 42\n', 'tlog-engine/testing starts a PostgreSQL server from the packed engine');
  });

  const examples = readdirSync(join(ROOT, 'examples')).filter((d) => existsSync(join(ROOT, 'examples', d, 'package.json')));
  t.same(
    ['keydir', 'statements', 'sumdb'].filter((e) => !examples.includes(e)),
    [],
    'the examples include keydir, statements and sumdb, each a package',
  );
  for (const name of examples) {
    await t.test(`examples/${name}`, async (t) => {
      const copy = join(tempDir(t, `tlog-example-${name}-`), name);
      t.ok(relative(ROOT, copy).startsWith('..'), 'the copy is outside the repository');
      cpSync(join(ROOT, 'examples', name), copy, {
        recursive: true,
        filter: (src) => !['node_modules', 'dist'].includes(basename(src)),
      });
      t.same(reachesOutside(copy), [], 'no file imports a path outside the folder, or a package it does not declare');
      await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: copy, env: npmEnv(), timeout: 600_000 });
      const installed = JSON.parse(readFileSync(join(copy, 'node_modules/tlog-engine/package.json'), 'utf8')) as { version: string };
      t.equal(installed.version, '0.1.0', 'the engine installed from the tarball');
      const test = await run('npm', ['test'], { cwd: copy, env: npmEnv(), timeout: 600_000, maxBuffer: 64 << 20 }).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
      );
      t.equal(test.code, 0, `npm test passes in the copy${test.code === 0 ? '' : `:\n${test.out.slice(-4000)}`}`);
      t.match(test.out, /^# pass [1-9][0-9]*$/m, 'and its tests ran (node --test)');
      t.match(test.out, /^# fail 0$/m);
    });
  }
});
