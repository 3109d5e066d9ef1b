// The members of a write in words, for /skill.md, generated from the schema the service validates the write with, so that no
// member, bound or conditional rule can drift from what is checked (docs/api.md#the-site-and-the-agents-connectors).
type Schema = Record<string, unknown>;

/** The keywords said here; `title` is a schema's name, said nowhere (the heading names the write). */
const SAID = new Set([
  ...['type', 'properties', 'required', 'additionalProperties', 'title', 'description', 'const', 'enum'],
  ...['pattern', 'minLength', 'maxLength', 'x-nt', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  ...['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'x-unique-by', 'minProperties', 'maxProperties', 'propertyNames'],
  ...['allOf', 'not'],
]);

const code = (s: string): string => `\`${s}\``;
const json = (v: unknown): string => code(JSON.stringify(v));
const names = (xs: readonly string[]): string => words(xs.map(code), 'and');

/** `a`, `a or b`, `a, b or c`. */
function words(xs: readonly string[], last: 'and' | 'or'): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} ${last} ${xs[xs.length - 1]}`;
}

function known(s: Schema, at: string): void {
  // A keyword this does not know how to say throws: a new rule cannot be left out of the skill unnoticed.
  for (const k of Object.keys(s)) if (!SAID.has(k)) throw new Error(`skill: ${at} has the keyword ${k}, which members.ts does not say`);
}

const typesOf = (s: Schema): string[] => (s.type === undefined ? [] : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string]);
const props = (s: Schema): Record<string, Schema | true> => (s.properties ?? {}) as Record<string, Schema | true>;
const isObject = (s: Schema): boolean => s.properties !== undefined;

/** `n to m <unit>`, `at least n <unit>`, `at most m <unit>`, with the unit singular for 1. */
function count(min: unknown, max: unknown, unit: string): string {
  const u = (n: unknown) => (n === 1 ? unit : `${unit}s`);
  if (typeof min === 'number' && typeof max === 'number') return min === max ? `exactly ${min} ${u(min)}` : `${min} to ${max} ${u(max)}`;
  if (typeof min === 'number' && min > 0) return `at least ${min} ${u(min)}`;
  if (typeof max === 'number') return `at most ${max} ${u(max)}`;
  return '';
}

function bounds(s: Schema): string {
  if (typeof s.minimum === 'number' && typeof s.maximum === 'number') return `from ${s.minimum} to ${s.maximum}`;
  const lo =
    s.minimum !== undefined ? `at least ${s.minimum}` : s.exclusiveMinimum !== undefined ? `greater than ${s.exclusiveMinimum}` : '';
  const hi = s.maximum !== undefined ? `at most ${s.maximum}` : s.exclusiveMaximum !== undefined ? `less than ${s.exclusiveMaximum}` : '';
  return words(
    [lo, hi].filter((x) => x !== ''),
    'and',
  );
}

/** What one value must be, in words (its members, if it has any, are listed apart). */
function valueWords(s: Schema, at: string): string {
  known(s, at);
  if ('const' in s) return `exactly ${json(s.const)}`;
  if (Array.isArray(s.enum)) return `one of ${s.enum.map(json).join(', ')}`;
  const types = typesOf(s);
  const out: string[] = [];
  if (types.length === 1 && types[0] === 'string') {
    out.push(typeof s.pattern === 'string' ? `text matching ${code(s.pattern)}` : 'text');
    const length = count(s.minLength, s.maxLength, 'character');
    if (length !== '') out.push(length);
    if (s['x-nt'] === true) out.push('no zero-width or bidirectional-control characters');
    if (s.format === 'archive-ts') out.push('a real UTC date and time');
    else if (s.format !== undefined) throw new Error(`skill: ${at} has the format ${String(s.format)}, which members.ts does not say`);
  } else if (types.includes('number') && types.includes('string')) {
    out.push(`a number, or text${typeof s.maxLength === 'number' ? ` of at most ${s.maxLength} characters` : ''}`);
  } else if (types.length === 1 && (types[0] === 'number' || types[0] === 'integer')) {
    const b = bounds(s);
    out.push(`${types[0] === 'integer' ? 'a whole number' : 'a number'}${b === '' ? '' : ` ${b}`}`);
  } else if (types.length === 1 && types[0] === 'boolean') out.push('true or false');
  else if (types.length === 1 && types[0] === 'array') {
    const items = count(s.minItems, s.maxItems, 'item');
    if (Array.isArray(s.prefixItems)) {
      if (s.items !== false) throw new Error(`skill: ${at}: prefixItems with more items after them`);
      out.push(`a list of exactly these ${s.prefixItems.length} items, in order`);
    } else out.push(`a list${items === '' ? '' : ` of ${items}`}`);
    if (s.uniqueItems === true) out.push('no two the same');
    if (typeof s['x-unique-by'] === 'string') out.push(`no two with the same ${code(s['x-unique-by'])}`);
    const each = s.items as Schema | false | undefined;
    if (each !== undefined && each !== false) out.push(isObject(each) ? 'each an object' : `each ${valueWords(each, `${at}[]`)}`);
  } else if (types.includes('object')) {
    const nullable = types.includes('null') ? ', or null' : '';
    const n = count(s.minProperties, s.maxProperties, 'member');
    if (isObject(s)) out.push(`an object${nullable}${n === '' ? '' : ` with ${n.replace(/members?$/, 'of the members below')}`}`);
    else {
      const key = (s.propertyNames as Schema | undefined)?.pattern;
      const values = s.additionalProperties as Schema | undefined;
      out.push(`an object${nullable}${n === '' ? '' : ` of ${n}`}`);
      if (typeof key === 'string') out.push(`each name matching ${code(key)}`);
      if (values !== undefined && typeof values === 'object') out.push(`each value ${valueWords(values, `${at}{}`)}`);
    }
  } else throw new Error(`skill: ${at} has a type members.ts does not say: ${JSON.stringify(s.type)}`);
  return `${out.join(', ')}${typeof s.description === 'string' ? ` (${s.description})` : ''}`;
}

/** What an `if` asks of an object: `rel` is `"extends"` or `"method"` and `id` matches `^(rec|ext):`. */
function condition(ifs: Schema, at: string): string {
  for (const k of Object.keys(ifs)) if (!['properties', 'required', 'description'].includes(k)) throw new Error(`skill: ${at}/if: ${k}`);
  return words(
    Object.entries(props(ifs)).map(([name, s]) => {
      const c = s as Schema;
      if ('const' in c) return `${code(name)} is ${json(c.const)}`;
      if (Array.isArray(c.enum)) return `${code(name)} is ${words(c.enum.map(json), 'or')}`;
      if (typeof c.pattern === 'string') return `${code(name)} matches ${code(c.pattern)}`;
      throw new Error(`skill: ${at}/if/${name}: a condition members.ts does not say`);
    }),
    'and',
  );
}

/** The object's conditional rules: each `allOf` if/then, and `not` (members that may not all be given). */
function rules(s: Schema, at: string): string[] {
  const out: string[] = [];
  for (const [i, rule] of ((s.allOf ?? []) as Schema[]).entries()) {
    for (const k of Object.keys(rule)) if (k !== 'if' && k !== 'then') throw new Error(`skill: ${at}/allOf/${i}: ${k}`);
    const then = rule.then as Schema;
    for (const k of Object.keys(then)) if (k !== 'required' && k !== 'properties') throw new Error(`skill: ${at}/allOf/${i}/then: ${k}`);
    const needs = (then.required ?? []) as string[];
    const more = Object.entries(props(then))
      .filter((e): e is [string, Schema] => e[1] !== true)
      .map(([name, p]) => `${code(name)} is ${valueWords(p, `${at}/allOf/${i}/then/${name}`)}`);
    const said = [...(needs.length === 0 ? [] : [`${names(needs)} ${needs.length === 1 ? 'is' : 'are'} required`]), ...more];
    out.push(`If ${condition(rule.if as Schema, `${at}/allOf/${i}`)}: ${said.join(', and ')}.`);
  }
  if (s.not !== undefined) {
    const not = s.not as Schema;
    for (const k of Object.keys(not)) if (!['type', 'properties', 'required'].includes(k)) throw new Error(`skill: ${at}/not: ${k}`);
    if (Object.values(props(not)).some((p) => p !== true)) throw new Error(`skill: ${at}/not: a member with a schema`);
    const all = not.required as string[];
    out.push(`Not ${all.length === 2 ? 'both' : 'all of'} ${names(all)}: give one at most.`);
  }
  return out;
}

/** The bullets of an object's members (and their members, indented), then its rules. */
function memberLines(s: Schema, indent: string, at: string, skip: ReadonlySet<string> = new Set()): string[] {
  known(s, at);
  const required = new Set((s.required ?? []) as string[]);
  const lines: string[] = [];
  for (const [name, member] of Object.entries(props(s))) {
    if (skip.has(name)) continue;
    if (member === true) throw new Error(`skill: ${at}/${name}: declared without a schema`);
    const path = `${at}.${name}`;
    lines.push(`${indent}- ${code(name)} (${required.has(name) ? 'required' : 'optional'}): ${valueWords(member, path)}`);
    lines.push(...nested(member, `${indent}  `, path));
  }
  for (const rule of rules(s, at)) lines.push(`${indent}- ${rule}`);
  return lines;
}

/** The members inside a value: an object's, each item's of a list, each of a fixed list's items. */
function nested(s: Schema, indent: string, at: string): string[] {
  if (isObject(s)) return memberLines(s, indent, at);
  if (Array.isArray(s.prefixItems))
    return (s.prefixItems as Schema[]).flatMap((item, i) => [
      `${indent}- item ${i + 1}: ${valueWords(item, `${at}[${i}]`)}`,
      ...nested(item, `${indent}  `, `${at}[${i}]`),
    ]);
  const items = s.items as Schema | false | undefined;
  if (items !== undefined && items !== false) return nested(items, indent, `${at}[]`);
  return [];
}

/** The members every signed payload carries, said once in /skill.md (section 3). */
const ENVELOPE = new Set(['protocol', 'type', 'agent', 'ts']);

/**
 * The members of a write's payload (or of the registration body, `envelope` false) as Markdown
 * bullets: each member, required or optional, what it must be, its members, and the rules.
 */
export function membersMarkdown(schema: object, at: string, envelope = true): string {
  return memberLines(schema as Schema, '', at, envelope ? ENVELOPE : new Set()).join('\n');
}
