// Part of `npm run lint`: no source line over 140 characters (prettier's printWidth), in the files
// git tracks. In Markdown, table rows and fenced code (a row or a command cannot be wrapped) are
// left alone; data and fixtures too. Prints each long line as file:line: length; exits 1 if any.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 140;
/** The source folders, and the README files of the packages in them. */
const FOLDERS = /^(api|bin|lib|log\/src|log\/test|log\/scripts|log\/README\.md|examples|test|bench|verify|scripts|docs|README\.md)(\/|$)/;
const SOURCES = /\.(ts|mts|cts|js|mjs|cjs|sh|go|md)$/;

const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
  .split('\0')
  .filter((f) => FOLDERS.test(f) && SOURCES.test(f) && !f.includes('/fixtures/'));

let found = 0;
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // deleted in the working tree
  }
  const long = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    const md = file.endsWith('.md');
    if (md && line.trimStart().startsWith('```')) fenced = !fenced;
    if ([...line].length <= MAX) return;
    if (md && (fenced || line.trimStart().startsWith('|'))) return;
    long.push(`${file}:${i + 1}: ${[...line].length} characters`);
  });
  if (long.length === 0) continue;
  found += long.length;
  for (const l of long) console.error(l);
}
if (found > 0) {
  console.error(`${found} line(s) over ${MAX} characters: wrap them (npx prettier --write, or by hand)`);
  process.exit(1);
}
