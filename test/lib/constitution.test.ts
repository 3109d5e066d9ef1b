// lib/protocol/constitution.ts: the shipped constitution, its validation, and a hash anyone can recompute.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  currentConstitution,
  constitutionHash,
  constitutionMarkdown,
  constitutionVersions,
  loadConstitution,
  validateConstitution,
} from '../../lib/protocol/constitution.js';
import { projectRoot } from '../helpers/fixtures.js';

/** Canonical JSON by hand: keys sorted (UTF-16 order), no whitespace, JSON.stringify leaves. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const fileText = (version: string) => readFileSync(join(projectRoot, 'constitution', `constitution-${version}.json`), 'utf8');

t.test('the hash recomputes from the file with bare node:crypto', async (t) => {
  const file = JSON.parse(fileText(currentConstitution().version));
  t.same(Object.keys(file).sort(), ['articles', 'version'], 'the file is exactly {version, articles}');
  const canonical = sortedJson({ version: file.version, articles: file.articles });
  const hash = createHash('sha256').update(canonical, 'utf8').digest('hex');
  t.match(currentConstitution().hash, /^[0-9a-f]{64}$/);
  t.equal(currentConstitution().hash, hash);
  t.equal(constitutionHash(file), hash);
  t.equal(currentConstitution().version, file.version);
  t.same(currentConstitution().articles, file.articles);
});

t.test('articles, titles and entrenchment are as the spec says; every article has text', async (t) => {
  t.same(
    currentConstitution().articles.map(({ id, title, entrenched }) => ({ id, title, entrenched })),
    [
      { id: '0', title: 'Entrenched core', entrenched: true },
      { id: 'I', title: 'Identity and assent', entrenched: false },
      { id: 'II', title: 'Claims and evidence', entrenched: false },
      { id: 'III', title: 'Review', entrenched: false },
      { id: 'IV', title: 'Standing', entrenched: false },
      { id: 'V', title: 'Amendment', entrenched: false },
      { id: 'VI', title: 'Safety', entrenched: false },
    ],
  );
  for (const a of currentConstitution().articles) {
    t.type(a.text, 'string', `Article ${a.id} text`);
    const words = a.text.split(/\s+/).filter(Boolean).length;
    t.ok(words >= 80 && words <= 250, `Article ${a.id}: ${words} words, 80 to 250`);
    const clauses = a.text.split('\n');
    clauses.forEach((c, i) => t.ok(c.startsWith(`${i + 1}. `), `Article ${a.id} clause ${i + 1} is numbered`));
  }
  // Article I.2: registering is assent to the constitution in force.
  t.match(currentConstitution().articles[1]!.text.split('\n')[1], /^2\. Registering is assent to the constitution in force/);
});

t.test('loading: the latest by default, cached, and a named version', async (t) => {
  const versions = constitutionVersions();
  t.ok(versions.includes('1'));
  t.equal(currentConstitution().version, versions.at(-1));
  t.equal(loadConstitution(), currentConstitution(), 'cached');
  t.equal(loadConstitution(currentConstitution().version), currentConstitution());
  t.throws(() => loadConstitution('999'), /no such version "999"/);
  t.throws(() => loadConstitution('../package'), /no such version/);
  t.ok(Object.isFrozen(currentConstitution()) && Object.isFrozen(currentConstitution().articles));
});

t.test('validation refuses a malformed constitution with a clear error', async (t) => {
  const good = () => JSON.parse(fileText('1'));
  t.doesNotThrow(() => validateConstitution(good()));
  const cases: [string, (c: any) => void, RegExp][] = [
    ['extra member', (c) => (c.preamble = 'x'), /unexpected member "preamble"/],
    ['numeric version', (c) => (c.version = 1), /version must be a string/],
    ['article missing', (c) => c.articles.pop(), /expected 7 articles/],
    [
      'ids out of order',
      (c) => ([c.articles[1], c.articles[2]] = [c.articles[2], c.articles[1]]),
      /articles\[1\]: expected id "I", got "II"/,
    ],
    ['wrong title', (c) => (c.articles[3].title = 'Reviews'), /Article III: expected title "Review"/],
    ['Article V entrenched', (c) => (c.articles[5].entrenched = true), /Article V: entrenched must be false/],
    ['Article 0 not entrenched', (c) => (c.articles[0].entrenched = false), /Article 0: entrenched must be true/],
    ['empty text', (c) => (c.articles[6].text = '  '), /Article VI: text must be a non-empty string/],
    ['extra article member', (c) => (c.articles[2].summary = 'x'), /articles\[2\]: unexpected member "summary"/],
  ];
  for (const [name, mutate, error] of cases) {
    const c = good();
    mutate(c);
    t.throws(() => validateConstitution(c), error, name);
  }
});

t.test('the hash commits to every text', async (t) => {
  const c = JSON.parse(fileText('1'));
  const before = constitutionHash(c);
  c.articles[4].text += ' ';
  t.not(constitutionHash(c), before);
});

t.test('markdown rendering names version, hash and every article', async (t) => {
  const md = constitutionMarkdown(currentConstitution());
  t.match(md, /^# Constitution\n/);
  t.match(md, `Version ${currentConstitution().version}.`);
  t.match(md, currentConstitution().hash);
  for (const a of currentConstitution().articles) t.match(md, `\n## Article ${a.id}: ${a.title}`);
  t.match(md, '## Article 0: Entrenched core (entrenched)');
});

t.test('every file of constitution/ is shipped in the code, as it is in the file', async (t) => {
  const files = readdirSync(join(projectRoot, 'constitution')).filter((f) => f.endsWith('.json'));
  const versions = files.map((f) => /^constitution-(\d+)\.json$/.exec(f)?.[1]).sort();
  t.same(constitutionVersions().slice().sort(), versions, "the shipped versions are the folder's files");
  for (const f of files) {
    const body = JSON.parse(readFileSync(join(projectRoot, 'constitution', f), 'utf8'));
    const c = loadConstitution(body.version);
    t.same({ version: c.version, articles: c.articles }, body, `${f} as compiled in`);
  }
});
