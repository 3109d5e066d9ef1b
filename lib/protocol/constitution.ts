// The constitution, shipped as constitution/constitution-<version>.json, one file per version, and its hash, which is public
// protocol (docs/constitution.md#the-hash-byte-exact); registration acknowledges it (docs/constitution.md#acknowledging-it).
import shipped1 from '../../constitution/constitution-1.json' with { type: 'json' };
import { canonicalize } from './canonical-json.js';
import { sha256TextHex } from 'tlog-engine';

export interface Article {
  id: string;
  title: string;
  entrenched: boolean;
  text: string;
}

export interface Constitution {
  version: string;
  hash: string;
  articles: Article[];
}

/** The articles every version has, in order (docs/api.md#the-records-reads); only Article 0 is entrenched. */
export const ARTICLES: readonly { id: string; title: string; entrenched: boolean }[] = Object.freeze([
  { id: '0', title: 'Entrenched core', entrenched: true },
  { id: 'I', title: 'Identity and assent', entrenched: false },
  { id: 'II', title: 'Claims and evidence', entrenched: false },
  { id: 'III', title: 'Review', entrenched: false },
  { id: 'IV', title: 'Standing', entrenched: false },
  { id: 'V', title: 'Amendment', entrenched: false },
  { id: 'VI', title: 'Safety', entrenched: false },
]);

/** A version is decimal digits with no leading zero: it also names the file, so nothing else. */
const VERSION = /^(?:0|[1-9][0-9]{0,8})$/;

/** SHA-256 hex of the canonical JSON of {version, articles} (full texts included). */
export function constitutionHash(c: { version: string; articles: Article[] }): string {
  return sha256TextHex(canonicalize({ version: c.version, articles: c.articles }, 'constitution'));
}

/**
 * The versions shipped with the code, by version: `constitution/constitution-<version>.json`,
 * compiled in (a test checks every file of the folder is here), so that neither the record's
 * fold nor the verifier reads a file to know them.
 */
const SHIPPED: Readonly<Record<string, unknown>> = Object.freeze({ '1': shipped1 });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyMembers(what: string, v: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) throw new Error(`${what}: unexpected member ${JSON.stringify(k)}`);
  }
}

/** Checks a parsed constitution file; throws an Error naming what is wrong. */
export function validateConstitution(value: unknown, what = 'constitution'): { version: string; articles: Article[] } {
  if (!isObject(value)) throw new Error(`${what}: expected an object {version, articles}`);
  onlyMembers(what, value, ['version', 'articles']);
  const { version, articles } = value;
  if (typeof version !== 'string' || !VERSION.test(version)) {
    throw new Error(`${what}: version must be a string of decimal digits, got ${JSON.stringify(version)}`);
  }
  if (!Array.isArray(articles)) throw new Error(`${what}: articles must be an array`);
  if (articles.length !== ARTICLES.length) {
    throw new Error(`${what}: expected ${ARTICLES.length} articles (${ARTICLES.map((a) => a.id).join(', ')}), got ${articles.length}`);
  }
  const out: Article[] = [];
  articles.forEach((a: unknown, i) => {
    const want = ARTICLES[i]!;
    const at = `${what}: articles[${i}]`;
    if (!isObject(a)) throw new Error(`${at}: expected an object {id, title, entrenched, text}`);
    onlyMembers(at, a, ['id', 'title', 'entrenched', 'text']);
    if (a.id !== want.id) throw new Error(`${at}: expected id ${JSON.stringify(want.id)}, got ${JSON.stringify(a.id)}`);
    const art = `${what}: Article ${want.id}`;
    if (a.title !== want.title) throw new Error(`${art}: expected title ${JSON.stringify(want.title)}, got ${JSON.stringify(a.title)}`);
    if (a.entrenched !== want.entrenched) {
      throw new Error(`${art}: entrenched must be ${want.entrenched} (only Article 0 is entrenched)`);
    }
    if (typeof a.text !== 'string' || a.text.trim() === '') throw new Error(`${art}: text must be a non-empty string`);
    out.push({ id: want.id, title: want.title, entrenched: want.entrenched, text: a.text });
  });
  return { version, articles: out };
}

const cache = new Map<string, Constitution>();

/** The versions shipped, oldest first. */
export function constitutionVersions(): string[] {
  return Object.keys(SHIPPED).sort((a, b) => Number(a) - Number(b));
}

/** Validates a shipped version (default: the latest shipped); cached per version. */
export function loadConstitution(version?: string): Constitution {
  if (version !== undefined && !VERSION.test(version)) {
    throw new Error(`constitution: no such version ${JSON.stringify(version)}`);
  }
  const v = version ?? constitutionVersions().at(-1)!;
  const hit = cache.get(v);
  if (hit) return hit;
  const file = `constitution/constitution-${v}.json`;
  if (!Object.hasOwn(SHIPPED, v)) throw new Error(`constitution: no such version ${JSON.stringify(v)} (${file} is not shipped)`);
  const body = validateConstitution(structuredClone(SHIPPED[v]), file);
  if (body.version !== v) throw new Error(`${file}: version ${JSON.stringify(body.version)} does not match its file name`);
  const c: Constitution = Object.freeze({
    version: body.version,
    hash: constitutionHash(body),
    articles: Object.freeze(body.articles.map((a) => Object.freeze(a))) as Article[],
  });
  cache.set(v, c);
  return c;
}

/** The constitution in force at genesis: the latest version shipped (read on the first call, not at import). */
export function currentConstitution(): Constitution {
  current ??= loadConstitution();
  return current;
}
let current: Constitution | undefined;

/** A Markdown rendering: title, version, hash, then each article as a section. */
export function constitutionMarkdown(c: Constitution): string {
  const lines = [
    '# Constitution',
    '',
    `Version ${c.version}. Hash \`${c.hash}\`: SHA-256 of the RFC 8785 canonical JSON of`,
    '`{version, articles}` as served at `/v1/constitution`. Registering acknowledges this version',
    'and hash (Article I.2).',
  ];
  for (const a of c.articles) {
    lines.push('', `## Article ${a.id}: ${a.title}${a.entrenched ? ' (entrenched)' : ''}`, '');
    // Clauses are numbered lines; a blank line between them keeps each one a paragraph.
    lines.push(a.text.split('\n').join('\n\n'));
  }
  return lines.join('\n') + '\n';
}
