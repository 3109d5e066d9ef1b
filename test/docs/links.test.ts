// The docs stand alone: every relative link in README.md and docs/*.md names a file of the
// repository and, when it has a #fragment, a heading of that file (anchors as GitHub makes
// them); and no doc sends the reader to a file outside the repository.
import t from 'tap';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { projectRoot } from '../helpers/fixtures.js';

/** The Markdown files checked, relative to the project root. */
const DOCS = [
  'README.md',
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The lines of `text` outside fenced code blocks, with inline code removed. */
function prose(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) out.push(line.replace(/`[^`]*`/g, (code) => (code.includes('](') ? '' : code)));
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (but - and _), spaces as -. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a Markdown file's headings, with GitHub's -1, -2 for repeats. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = slug(m[1]!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The anchors of a file of the repository. */
function headingAnchors(file: string): Set<string> {
  return anchors(readFileSync(join(projectRoot, file), 'utf8'));
}

t.test('slugs are GitHub anchors', async (t) => {
  t.equal(slug('Checks on every signed write, in order'), 'checks-on-every-signed-write-in-order');
  t.equal(slug('ClaimScore, as served by `GET /v2/credence`'), 'claimscore-as-served-by-get-v2credence');
  t.equal(slug('Arguments (arguments/0.1)'), 'arguments-arguments01');
  t.equal(slug('`archive serve`'), 'archive-serve');
  t.same([...anchors('# A\n## A\n```\n# not a heading\n```\n### B: c\n')], ['a', 'a-1', 'b-c']);
});

for (const file of DOCS) {
  t.test(`${file}: every relative link resolves`, async (t) => {
    const text = readFileSync(join(projectRoot, file), 'utf8');
    const problems: string[] = [];
    prose(text).forEach((line, i) => {
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, fragment] = target.split('#', 2) as [string, string | undefined];
        const resolved = path === '' ? join(projectRoot, file) : join(projectRoot, dirname(file), path);
        const inRepo = relative(projectRoot, resolved);
        if (inRepo.startsWith('..')) {
          problems.push(`line ${i + 1}: ${target} is outside the repository`);
          continue;
        }
        if (!existsSync(resolved)) {
          problems.push(`line ${i + 1}: ${target}: no file ${inRepo}`);
          continue;
        }
        if (fragment !== undefined) {
          if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
            problems.push(`line ${i + 1}: ${target}: a fragment on a file that is not Markdown`);
          } else if (!headingAnchors(inRepo).has(fragment)) {
            problems.push(`line ${i + 1}: ${target}: no heading #${fragment} in ${inRepo}`);
          }
        }
      }
    });
    t.same(problems, [], 'every link names a file and heading of the repository');
  });

  t.test(`${file}: cites nothing outside the repository`, async (t) => {
    const text = readFileSync(join(projectRoot, file), 'utf8');
    const problems: string[] = [];
    text.split('\n').forEach((line, i) => {
      if (/choices\.md|\.\.\/shared|archive-0\.2\.md|\bspec (Part|Parts )?[0-9]/.test(line)) problems.push(`line ${i + 1}: ${line.trim()}`);
    });
    t.same(problems, [], 'no citation of choices.md, ../shared or "spec Part N"');
  });
}

/** The TypeScript sources of the project (not dist/ or node_modules/). */
function sources(dir = projectRoot, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith('.ts')) out.push(relative(projectRoot, path));
  }
  return out;
}

t.test('code comments point into docs/, at files and headings that exist, and nowhere outside', async (t) => {
  const problems: string[] = [];
  for (const file of sources()) {
    if (file === 'test/docs/links.test.ts') continue;
    readFileSync(join(projectRoot, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/choices\.md|\.\.\/shared\/|archive-0\.2\.md|\bspec (Part|Parts )?[0-9]/.test(line))
          problems.push(`${file}:${i + 1}: cites a file outside the repository`);
        for (const m of line.matchAll(/\bdocs\/([a-z0-9-]+\.md)(?:#([a-z0-9_-]+))?/g)) {
          const doc = `docs/${m[1]}`;
          if (!existsSync(join(projectRoot, doc))) problems.push(`${file}:${i + 1}: ${m[0]}: no file ${doc}`);
          else if (m[2] !== undefined && !headingAnchors(doc).has(m[2])) problems.push(`${file}:${i + 1}: ${m[0]}: no heading #${m[2]}`);
        }
      });
  }
  t.same(problems, [], 'every docs/ citation in the code resolves');
});
