// Payload files written from the payload schemas (lib/protocol/schemas): a commented YAML file of
// a write's members for `archive agent template`, the members' names for each verb's --help, and
// hints for YAML values that parsed as numbers where the schema wants text. Nothing here is a
// second copy of the rules: every word comes from the schema the service validates with.
import { PAYLOAD_SCHEMAS, type WriteType } from '../record/types/index.js';

/** A JSON Schema object as the payload schemas write them (plain JSON, no $ref). */
type Schema = Record<string, unknown>;

/** The members every signed payload carries, filled in by the client: never in a payload file. */
const ENVELOPE_MEMBERS = new Set(['protocol', 'type', 'agent', 'ts']);

const props = (s: Schema): Record<string, Schema> => (s.properties ?? {}) as Record<string, Schema>;
const requiredOf = (s: Schema): string[] => (s.required ?? []) as string[];
const typesOf = (s: Schema): string[] => (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type as string]);
const isObjectSchema = (s: Schema): boolean => typesOf(s).includes('object') && s.properties !== undefined;
const itemsOf = (s: Schema): Schema | undefined => s.items as Schema | undefined;

/** The members of a payload file for `type` (the schema's, less protocol, type, agent and ts), required first as the schema lists them. */
export function payloadMembers(type: WriteType): { name: string; required: boolean }[] {
  const schema = PAYLOAD_SCHEMAS[type] as Schema;
  const required = new Set(requiredOf(schema));
  return Object.keys(props(schema))
    .filter((name) => !ENVELOPE_MEMBERS.has(name))
    .map((name) => ({ name, required: required.has(name) }));
}

function range(min: unknown, max: unknown, unit: string): string {
  if (typeof min === 'number' && typeof max === 'number') return min === max ? `${min} ${unit}` : `${min} to ${max} ${unit}`;
  if (typeof min === 'number') return `at least ${min} ${unit}`;
  if (typeof max === 'number') return `at most ${max} ${unit}`;
  return '';
}

function numberRange(s: Schema): string {
  const lo = s.minimum !== undefined ? `>= ${s.minimum}` : s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : '';
  const hi = s.maximum !== undefined ? `<= ${s.maximum}` : s.exclusiveMaximum !== undefined ? `< ${s.exclusiveMaximum}` : '';
  return [lo, hi].filter((x) => x !== '').join(' and ');
}

/** One schema in words: its type, bounds, pattern (as its description says it) and allowed values. */
export function describeSchema(s: Schema): string {
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (s.const !== undefined) return `always ${JSON.stringify(s.const)}`;
  const types = typesOf(s);
  const words: string[] = [];
  if (types.includes('string') && types.length === 1) {
    if (typeof s.pattern === 'string') words.push(`text: ${typeof s.description === 'string' ? s.description : `matching ${s.pattern}`}`);
    else words.push('text');
    const length = range(s.minLength, s.maxLength, 'characters');
    if (length !== '') words.push(length);
    if (s['x-nt'] === true) words.push('no zero-width or bidirectional control characters');
    return words.join(', ');
  }
  if (typeof s.description === 'string') words.push(s.description);
  if (types.includes('array')) {
    const items = itemsOf(s) ?? {};
    const count = range(s.minItems, s.maxItems, 'items');
    words.push(`a list${count === '' ? '' : ` of ${count}`}${s.uniqueItems === true ? ', no two the same' : ''}`);
    if (typeof s['x-unique-by'] === 'string') words.push(`no two with the same ${s['x-unique-by']}`);
    if (isObjectSchema(items)) words.push('each an object with the members below');
    else if (s.items !== undefined) words.push(`each ${describeSchema(items)}`);
  } else if (isObjectSchema(s)) {
    words.push(`an object with the members below${types.includes('null') ? ', or null' : ''}`);
  } else if (types.includes('object')) {
    const values = (s.additionalProperties ?? {}) as Schema;
    const names = (s.propertyNames ?? {}) as Schema;
    const count = range(s.minProperties, s.maxProperties, 'names');
    words.push(
      `an object of ${count === '' ? 'named values' : `${count}`}` +
        (typeof names.pattern === 'string' ? ` (each name matching ${names.pattern})` : '') +
        `, each value ${describeSchema(values)}`,
    );
  } else if (types.includes('number') && types.includes('string')) {
    words.push(`a number, or text${typeof s.maxLength === 'number' ? ` of at most ${s.maxLength} characters` : ''}`);
  } else if (types.includes('integer') || types.includes('number')) {
    const bounds = numberRange(s);
    words.push(`${types.includes('integer') ? 'a whole number' : 'a number'}${bounds === '' ? '' : ` ${bounds}`}`);
  } else if (types.includes('boolean')) {
    words.push('true or false');
  } else if (types.length > 0) {
    words.push(types.join(' or '));
  }
  return words.join('; ');
}

/** What an `if` asks, in words: `rel is "extends" or "method"`, `grounds is "counterexample"`. */
function condition(ifSchema: Schema): string {
  const parts = Object.entries(props(ifSchema)).map(([name, s]) => {
    if (Array.isArray(s.enum)) return `${name} is ${s.enum.map((v) => JSON.stringify(v)).join(' or ')}`;
    if (s.const !== undefined) return `${name} is ${JSON.stringify(s.const)}`;
    if (typeof s.pattern === 'string') return `${name} matches ${s.pattern}`;
    return `${name} is given`;
  });
  return parts.join(' and ');
}

/** The schema's conditional rules (allOf if/then) in words. */
function conditions(s: Schema): string[] {
  const all = (s.allOf ?? []) as { if: Schema; then: Schema }[];
  return all.map((rule) => {
    const needs = requiredOf(rule.then);
    // A member the rule only names (`true`: its schema is the object's) says nothing more.
    const more = Object.entries(props(rule.then))
      .filter(([, p]) => typeof p === 'object')
      .map(([name, p]) => `${name} ${describeSchema(p)}`);
    return `when ${condition(rule.if)}, then ${[...(needs.length > 0 ? [`${needs.join(' and ')} required`] : []), ...more].join('; ')}`;
  });
}

/** Lines for the members of an object schema at `indent`; optional members are commented out. */
function memberLines(s: Schema, indent: string, skip: Set<string> = new Set()): string[] {
  const required = new Set(requiredOf(s));
  const lines: string[] = [];
  for (const rule of conditions(s)) lines.push(`${indent}# ${rule}`);
  for (const [name, member] of Object.entries(props(s))) {
    if (skip.has(name)) continue;
    const isRequired = required.has(name);
    lines.push(`${indent}# ${name} (${isRequired ? 'required' : 'optional'}): ${describeSchema(member)}`);
    const value = valueLines(name, member, indent, isRequired);
    // An optional member is commented out, all of it (remove the "# " to use it).
    lines.push(...(isRequired ? value : value.map(commentOut)));
  }
  return lines;
}

/** A value line commented out where it stands (removing the "# " restores it); comment lines stay as they are. */
const commentOut = (line: string): string => (/^\s*#/.test(line) ? line : line.replace(/^(\s*)/, '$1# '));

/** The member `name: ...` with an empty value to fill in (YAML null), or its nested members. */
function valueLines(name: string, s: Schema, indent: string, required: boolean): string[] {
  const inner = `${indent}  `;
  if (s.const !== undefined) return [`${indent}${name}: ${JSON.stringify(s.const)}`];
  const types = typesOf(s);
  if (types.includes('array')) {
    const items = itemsOf(s) ?? {};
    const first = isObjectSchema(items)
      ? memberLines(items, `${inner}  `).map((l, i) => (i === 0 ? `${inner}- ${l.trimStart()}` : l))
      : [`${inner}-`];
    // A list that may be empty starts empty; the shape of an item follows, commented out.
    if (required && (s.minItems === undefined || s.minItems === 0))
      return [
        `${indent}${name}: []`,
        `${inner}# an item:`,
        ...first.map((l, i) => (i === 0 ? l.replace(/^(\s*)/, '$1# ') : commentOut(l))),
      ];
    return [`${indent}${name}:`, ...first];
  }
  if (isObjectSchema(s)) return [`${indent}${name}:`, ...memberLines(s, inner)];
  if (types.includes('object')) return [`${indent}${name}:`, `${inner}# <name>: <value>, one line each`];
  return [`${indent}${name}:`];
}

/**
 * A commented YAML payload file for `type`: every member with what it must be; required members to fill in,
 * optional ones commented out.
 */
export function payloadTemplate(type: WriteType, heading: readonly string[] = []): string {
  const schema = PAYLOAD_SCHEMAS[type] as Schema;
  const lines = [
    ...heading.map((h) => `# ${h}`),
    `# A payload file for ${type} writes. Fill in every empty value; optional members are`,
    '# commented out (remove the "# " to use one). protocol, type, agent and ts are added when signing.',
    '# Quote text that YAML would read as a number, true, false or null: claim: "1e5".',
    '',
    ...memberLines(schema, '', ENVELOPE_MEMBERS),
  ];
  return `${lines.join('\n')}\n`;
}

const leaf = (path: string): string =>
  path
    .replace(/\[\d+\]$/, '')
    .split('.')
    .pop()!;

/**
 * Members whose schema wants text but whose value is a number: in YAML, an unquoted `1e5`,
 * `0x10` or `12` is read as a number. One line for each, naming the member's path and the fix.
 */
export function quoteHints(type: WriteType, members: Record<string, unknown>): string[] {
  const hints: string[] = [];
  const walk = (s: Schema | undefined, value: unknown, path: string): void => {
    if (s === undefined) return;
    const types = typesOf(s);
    if (typeof value === 'number' && types.length === 1 && types[0] === 'string') {
      hints.push(
        `${path}: YAML read this value as the number ${value}, but it must be text: put the value in quotes (${leaf(path)}: "...")`,
      );
      return;
    }
    if (Array.isArray(value)) value.forEach((v, i) => walk(itemsOf(s), v, `${path}[${i}]`));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) walk(props(s)[k], v, path === '' ? k : `${path}.${k}`);
  };
  walk(PAYLOAD_SCHEMAS[type] as Schema, members, '');
  return hints;
}
