#!/usr/bin/env node
// `npm test`: runs tap with its plain TAP output, then repeats every failure at the end, with
// the names of the tests around it, so a log cut to its last lines (as CI shows it) still says
// what failed. The exit code is tap's own. Arguments are passed on to tap.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const tap = spawn('npx', ['tap', '--reporter=tap', ...process.argv.slice(2)], {
  stdio: ['inherit', 'pipe', 'inherit'],
});

const failures = [];
const path = []; // the "# Subtest:" names enclosing the current line, by indent
let open = null; // the failure whose YAML block is being read
createInterface({ input: tap.stdout }).on('line', (line) => {
  process.stdout.write(line + '\n');
  const indent = line.length - line.trimStart().length;
  const text = line.trim();
  if (open && (indent > open.indent || text === '')) {
    open.lines.push(line);
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
    if (last !== undefined && last.indent > indent && last.file === path[0]) {
      failures.push({ indent, file: path[0], lines: [line] });
      return;
    }
    open = { indent, file: path[0], lines: [...path.slice(0, indent / 4).map((n, i) => '    '.repeat(i) + n), line] };
    failures.push(open);
  }
});

tap.on('close', (code, signal) => {
  if (failures.length > 0) {
    process.stdout.write(`\n# ${failures.length} failing line(s), repeated here:\n`);
    // At most 40 lines of each failure's YAML: enough to say what and where.
    for (const f of failures) process.stdout.write(f.lines.slice(0, 42).join('\n') + '\n\n');
  }
  process.exit(code ?? (signal ? 1 : 0));
});
