// `npm test`'s runner (scripts/test.mjs): each file runs with plain node, so the processes a test spawns start without tap's
// loader; a file that fails or ends early fails the run, and its failing lines are repeated at the end.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../helpers/fixtures.js';

const tap = pathToFileURL(join(projectRoot, 'node_modules/tap/dist/esm/index.js')).href;

function runner(files: Record<string, string>): { status: number | null; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), 'archive-runner-'));
  try {
    for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), `import t from ${JSON.stringify(tap)};\n${body}`);
    const r = spawnSync(process.execPath, [join(projectRoot, 'scripts/test.mjs'), dir], { encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('a run of passing files exits 0, and what a test spawns starts without a loader', async (t) => {
  // Under `npm test`, none: the NODE_OPTIONS of this test's own process (tap's loader under `npm run coverage`).
  const r = runner({
    'a.test.js': `
      import { execFileSync } from 'node:child_process';
      const seen = execFileSync(process.execPath, ['-e', 'console.log(process.env.NODE_OPTIONS ?? "none")'], { encoding: 'utf8' });
      t.equal(seen.trim(), ${JSON.stringify(process.env.NODE_OPTIONS ?? 'none')}, 'a spawned process has no NODE_OPTIONS but its own');
      t.ok(true);`,
    'b.test.js': `t.test('b', async (t) => t.pass('fine'));`,
  });
  t.equal(r.status, 0, 'exits 0', { stdout: r.stdout });
  t.match(r.stdout, /^ok 1 - .*a\.test\.js # time=/m);
  t.match(r.stdout, /^ok 2 - .*b\.test\.js # time=/m);
  t.match(r.stdout, /^# \{ total: 3, pass: 3 \}$/m);
  t.match(r.stdout, /^# 2 of 2 files passed/m);
});

t.test('a failing assertion or a file that ends early fails the run; each failure is repeated at the end', async (t) => {
  const r = runner({
    'a.test.js': `t.test('outer', async (t) => { t.equal(1, 2, 'one is two'); });`,
    'b.test.js': `t.pass('fine');`,
    'c.test.js': `throw new Error('no summary');`,
  });
  t.equal(r.status, 1);
  t.match(r.stdout, /^not ok 1 - .*a\.test\.js \(exit 1\)/m);
  t.match(r.stdout, /^ok 2 - .*b\.test\.js/m);
  t.match(r.stdout, /^not ok 3 - .*c\.test\.js \(no summary: it ended early\)/m);
  t.match(r.stdout, /^# 1 of 3 files passed/m);
  const repeated = r.stdout.slice(r.stdout.indexOf('failing line(s), repeated here'));
  t.match(repeated, /a\.test\.js\n {4}outer\n {8}not ok 1 - one is two/, 'the failure under the names around it');
  t.match(repeated, /not ok 3 - .*c\.test\.js/);
});
