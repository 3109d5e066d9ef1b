// `npx archive` inside a clone (README, "The command line"): npm runs the project's own `archive`
// command, as `node bin/archive` does, without asking the registry (npm is told to stay offline).
// Its cache is kept under node_modules/.cache, so that the user's own npm cache is left alone;
// scripts are off, so that npm does not build the clone (its `prepare`) under the running tests.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { archive } from '../helpers/cli.js';
import { projectRoot } from '../helpers/fixtures.js';

t.test('npx archive --help inside the clone runs its own archive command', async (t) => {
  const bin = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin;
  t.equal(bin.archive, 'bin/archive', 'the package names its command archive');
  t.match(readFileSync(join(projectRoot, 'README.md'), 'utf8'), /^npx archive --help\s+# the same, inside the clone$/m);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    npm_config_cache: join(projectRoot, 'node_modules', '.cache', 'npx-test'),
    npm_config_offline: 'true',
    npm_config_ignore_scripts: 'true',
    npm_config_update_notifier: 'false',
  };
  const expected = await archive(['--help']);
  t.equal(expected.code, 0);
  // From the clone's root and from a directory within it.
  for (const cwd of [projectRoot, join(projectRoot, 'docs')]) {
    const { stdout } = await promisify(execFile)('npx', ['archive', '--help'], { cwd, env, timeout: 100_000 });
    t.equal(stdout, expected.stdout, `npx archive --help in ${cwd}: the help of bin/archive`);
  }
});
