#!/usr/bin/env node
// `npm test`: runs every test file (the `include` patterns of package.json's "tap" section), one
// at a time, each as `node --enable-source-maps <file>`, and prints tap's own TAP for each as a
// subtest. The files are written with tap (`import t from 'tap'`); only tap's runner is left out.
// It starts each file with a loader (@tapjs/processinfo) that it puts in NODE_OPTIONS for every
// process the test spawns, and that made each spawned `bin/archive` or service about 0.8 s slower
// to start (`archive --help` 1.63 s against 0.73 s): the suite's files took 1,457 s under it and
// 650 s this way, in fresh clones on this machine (2026-11-28).
//
// A file passes when it exits 0 and prints tap's summary. tap's time limit is the library's
// (TAP_TIMEOUT, the "timeout" of package.json); a file still running 30 s past that limit is
// killed with its process group. Every failure is repeated at the end of the output, with the names of the
// tests around it, so a log cut to its last lines (as CI shows it) still says what failed.
// `npm test -- <file or folder>...` runs only those.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..');
const config = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).tap;
const limit = Number(config.timeout);

/** The files under a folder whose path ends in `.test.js`, outside node_modules, sorted. */
function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

function listed(args) {
  if (args.length === 0) {
    // "dist/test/**/*.test.js" → the folder before the first "**".
    return config.include.flatMap((pattern) => testFiles(join(root, pattern.slice(0, pattern.indexOf('/**')))));
  }
  return args.flatMap((arg) => {
    if (arg.startsWith('-')) throw new Error(`${arg}: npm test takes only test files and folders`);
    const path = resolve(arg);
    return statSync(path).isDirectory() ? testFiles(path) : [path];
  });
}

const failures = [];
const counts = {};
const out = (line) => process.stdout.write(line + '\n');
let running = null;

/** Runs one file, its TAP indented under `# Subtest: <file>`; resolves to whether it passed. */
function run(file, n) {
  const name = relative(root, file);
  out(`# Subtest: ${name}`);
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--enable-source-maps', file], {
    cwd: root,
    env: { ...process.env, TAP_TIMEOUT: String(limit) },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true, // its own process group, so that a file killed takes what it spawned with it
  });
  running = child;
  const killer = setTimeout(
    () => {
      out(`    # ${name}: still running ${limit + 30} s after it started: killed`);
      process.kill(-child.pid, 'SIGKILL');
    },
    (limit + 30) * 1000,
  );
  let summary = null;
  const path = [name]; // the "# Subtest:" names enclosing the current line, by indent
  let open = null; // the failure whose YAML block is being read
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'TAP version 14') return;
    out('    ' + line);
    const found = /^# (\{ total: \d+.*\})$/.exec(line);
    if (found) summary = Object.fromEntries([...found[1].matchAll(/(\w+): (\d+)/g)].map((m) => [m[1], Number(m[2])]));
    const indent = line.length - line.trimStart().length + 4;
    const text = line.trim();
    if (open && (indent > open.indent || text === '')) {
      open.lines.push('    ' + line);
      return;
    }
    open = null;
    const subtest = /^# Subtest: (.*)$/.exec(text);
    if (subtest) {
      path.length = indent / 4;
      path.push(subtest[1]);
      return;
    }
    if (/^not ok \d+/.test(text)) {
      // A failing test around a failure already repeated: its line alone, without its YAML.
      const last = failures[failures.length - 1];
      if (last !== undefined && last.indent > indent && last.file === name) {
        failures.push({ indent, file: name, lines: ['    ' + line] });
        return;
      }
      open = { indent, file: name, lines: [...path.slice(0, indent / 4).map((p, i) => '    '.repeat(i) + p), '    ' + line] };
      failures.push(open);
    }
  });
  return new Promise((done) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      running = null;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      for (const [k, v] of Object.entries(summary ?? {})) counts[k] = (counts[k] ?? 0) + v;
      const passed = code === 0 && summary !== null;
      const why = passed ? '' : summary === null ? ' (no summary: it ended early)' : ` (exit ${code ?? signal})`;
      const line = `${passed ? 'ok' : 'not ok'} ${n} - ${name}${why} # time=${ms.toFixed(3)}ms`;
      out(line);
      if (!passed) failures.push({ indent: 0, file: name, lines: [line] });
      done(passed);
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (running) process.kill(-running.pid, 'SIGKILL');
    process.exit(1);
  });
}

const files = listed(process.argv.slice(2));
const started = Date.now();
out('TAP version 14');
let failed = 0;
for (const [i, file] of files.entries()) if (!(await run(file, i + 1))) failed++;
out(`1..${files.length}`);
out(`# ${JSON.stringify(counts).replace(/"/g, '').replace(/[{,:]/g, '$& ').replace(/}/, ' }')}`);
out(`# ${files.length - failed} of ${files.length} files passed, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (failures.length > 0) {
  out(`\n# ${failures.length} failing line(s), repeated here:`);
  // At most 40 lines of each failure's YAML: enough to say what and where.
  for (const f of failures) out(f.lines.slice(0, 42).join('\n') + '\n');
}
process.exit(failed === 0 ? 0 : 1);
