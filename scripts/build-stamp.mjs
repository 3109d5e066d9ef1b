#!/usr/bin/env node
// The build's stamp: a hash of everything `npm run build` compiles from (every .ts file, every
// tsconfig*.json and package.json, outside node_modules and the outputs), kept in dist/.built-from.
//   node scripts/build-stamp.mjs write   after a build (the last step of `npm run build`);
//   node scripts/build-stamp.mjs fresh   `npm test`'s first step: builds unless the stamp is this
//                                        tree's and every package's dist is there, so a test run
//                                        right after `npm install` (which built) does not build again.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', '.built-from');
const SKIP = new Set(['node_modules', 'dist', '.git', '.tap', 'data', 'tmp']);
const INPUT = /(\.ts|^tsconfig.*\.json|^package\.json)$/;

function inputs(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) inputs(join(dir, e.name), out);
    } else if (INPUT.test(e.name)) out.push(join(dir, e.name));
  }
  return out;
}

function treeHash() {
  const h = createHash('sha256');
  for (const f of inputs(root, []).sort()) {
    h.update(relative(root, f) + '\0');
    h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

/** Every package's output: the root's and each workspace's that builds. */
function outputsThere() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dirs = [root];
  for (const w of pkg.workspaces ?? []) {
    if (!w.endsWith('/*')) dirs.push(join(root, w));
    else
      for (const e of readdirSync(join(root, w.slice(0, -2)), { withFileTypes: true }))
        if (e.isDirectory()) dirs.push(join(root, w.slice(0, -2), e.name));
  }
  return dirs.every((d) => {
    const p = join(d, 'package.json');
    if (!existsSync(p)) return true;
    const builds = JSON.parse(readFileSync(p, 'utf8')).scripts?.build !== undefined;
    return !builds || existsSync(join(d, 'dist'));
  });
}

const what = process.argv[2];
if (what === 'write') {
  writeFileSync(STAMP, treeHash() + '\n');
} else if (what === 'fresh') {
  const stamp = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : '';
  if (stamp === treeHash() && outputsThere()) console.log('the build is of this tree: not built again');
  else execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
} else {
  console.error('usage: node scripts/build-stamp.mjs write|fresh');
  process.exit(2);
}
