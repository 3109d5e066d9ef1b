// Validation against the write schemas (each write type's, from its descriptor) and the registration body's, compiled once
// (ajv, draft 2020-12, allErrors, strict). How a refusal names every problem:
// docs/record.md#how-the-schemas-read-a-payload-libprotocolschemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, FuncKeywordDefinition, ValidateFunction } from 'ajv/dist/2020.js';
import { badRequest } from '../errors.js';
import { REGISTRATION_SCHEMA } from './registration.js';
import { isRealTs, ntViolation, TS_PATTERN } from './shared.js';

/** Longest detail, in characters, before the rest is summarised as "… and N more". */
export const MAX_DETAIL = 2000;

// ---- custom keywords ----------------------------------------------------------------------------

const ntKeyword: FuncKeywordDefinition = {
  keyword: 'x-nt',
  type: 'string',
  schemaType: 'boolean',
  errors: true,
  validate: function nt(schema: boolean, data: string): boolean {
    if (!schema) return true;
    const v = ntViolation(data);
    if (v === null) return true;
    const more = v.count > 1 ? ` (and ${v.count - 1} more)` : '';
    (nt as { errors?: Partial<ErrorObject>[] }).errors = [
      {
        keyword: 'x-nt',
        message: `contains ${v.codePoint} (a zero-width or bidirectional control character) at position ${v.position}${more}`,
        params: { codePoint: v.codePoint, position: v.position, count: v.count },
      },
    ];
    return false;
  },
};

const uniqueByKeyword: FuncKeywordDefinition = {
  keyword: 'x-unique-by',
  type: 'array',
  schemaType: 'string',
  errors: true,
  validate: function uniqueBy(member: string, data: unknown[], _parent, cxt): boolean {
    const seen = new Map<string, number>();
    const errors: Partial<ErrorObject>[] = [];
    const base = cxt?.instancePath ?? '';
    const list =
      base
        .slice(base.lastIndexOf('/') + 1)
        .replace(/~1/g, '/')
        .replace(/~0/g, '~') || 'item';
    data.forEach((item, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return;
      const value = (item as Record<string, unknown>)[member];
      if (typeof value !== 'string') return;
      const first = seen.get(value);
      if (first === undefined) {
        seen.set(value, i);
        return;
      }
      errors.push({
        keyword: 'x-unique-by',
        instancePath: `${base}/${i}/${member.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: `repeats ${JSON.stringify(value)}, the ${member} of ${list}[${first}]; each ${member} must be unique`,
        params: { member, value, first, duplicate: i },
      });
    });
    if (errors.length === 0) return true;
    (uniqueBy as { errors?: Partial<ErrorObject>[] }).errors = errors;
    return false;
  },
};

const TS_RE = new RegExp(TS_PATTERN);

// ---- compile once -------------------------------------------------------------------------------

// strict, except strictRequired: the `then` branches require members their parent declares,
// which ajv's strictRequired does not see. Union types (`["object", "null"]`) are allowed.
const ajv = new Ajv2020({
  allErrors: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
  verbose: true,
});
// A ts that fails the pattern is reported by `pattern`; the format adds only the calendar check.
ajv.addFormat('archive-ts', { type: 'string', validate: (s: string) => !TS_RE.test(s) || isRealTs(s) });
ajv.addKeyword(ntKeyword);
ajv.addKeyword(uniqueByKeyword);

// Compiled at the first registration, as each payload schema is at its type's first write (not at start).
let registrationValidator: ValidateFunction | undefined;

// ---- the API ------------------------------------------------------------------------------------

/** A payload schema compiled: every problem with a value, in words, paths from `payload`; empty when it is valid. */
export type PayloadCheck = (payload: unknown) => string[];

/** Compiles a write's payload schema (once per schema; the caller keeps the result). */
export function compilePayload(schema: object): PayloadCheck {
  const validate = ajv.compile(schema);
  return (payload) => run(validate, payload, 'payload');
}

/** Throws ArchiveError bad_request naming every problem, when there are any. */
export function refuseProblems(problems: readonly string[]): void {
  if (problems.length > 0) throw badRequest(joinDetail(problems));
}

/** Every problem with a registration body, in words (paths start at `body`). */
export function registrationErrors(body: unknown): string[] {
  return run((registrationValidator ??= ajv.compile(REGISTRATION_SCHEMA)), body, 'body');
}

/** Throws ArchiveError bad_request naming every problem when `body` is not a valid registration. */
export function validateRegistration(body: unknown): void {
  const problems = registrationErrors(body);
  if (problems.length > 0) throw badRequest(joinDetail(problems));
}

/** Joins messages with "; ", keeping the detail under MAX_DETAIL characters. */
export function joinDetail(messages: readonly string[], max = MAX_DETAIL): string {
  let out = '';
  for (let i = 0; i < messages.length; i += 1) {
    const next = (out === '' ? '' : '; ') + messages[i];
    const rest = messages.length - i - 1;
    const tail = rest > 0 ? `; … and ${rest} more` : '';
    // Keep room for the "… and N more" that would follow if the next ones do not fit.
    if (out.length + next.length + tail.length > max && out !== '') {
      return `${out}; … and ${messages.length - i} more`;
    }
    out += next;
  }
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

// ---- from ajv errors to words -------------------------------------------------------------------

function run(validate: ValidateFunction, data: unknown, root: string): string[] {
  if (validate(data)) return [];
  return explain(validate.errors ?? [], data, root, validate.schema);
}

type Err = ErrorObject & { propertyName?: string };

interface Condition {
  /** `#/allOf/0` for the error at `#/allOf/0/if`. */
  base: string;
  instancePath: string;
  text: string;
  /** The order of members in the object's schema, to list missing members in that order. */
  order: string[];
}

/** Turns ajv's errors into messages, one per problem, in schema order, without repeats. */
function explain(errors: readonly Err[], data: unknown, root: string, schema: unknown): string[] {
  const conditions: Condition[] = errors
    .filter((e) => e.keyword === 'if')
    .map((e) => {
      const parent = (e.parentSchema ?? {}) as { if?: { description?: string } };
      const base = e.schemaPath.slice(0, -'/if'.length);
      // The object schema that holds this allOf/if: its members' order lists missing ones.
      const holder = resolve(schema, base.replace(/^#/, '').replace(/\/allOf\/\d+$/, '')) as { properties?: object } | undefined;
      return {
        base,
        instancePath: e.instancePath,
        text: conditionText(parent.if?.description, resolve(data, e.instancePath)),
        order: Object.keys(holder?.properties ?? {}),
      };
    });

  // Messages keyed so repeats merge: missing members under one condition become one message.
  const out = new Map<string, { path: string; text: string; missing?: { cond: Condition; members: string[] } }>();
  for (const e of errors) {
    // ajv's own "must match then schema" and "property name must be valid" say nothing the
    // concrete errors beside them do not.
    if (e.keyword === 'if' || (e.keyword === 'propertyNames' && isGenericPropertyNames(e))) continue;
    const cond = conditions
      .filter(
        (c) =>
          e.schemaPath.startsWith(`${c.base}/then/`) &&
          (e.instancePath === c.instancePath || e.instancePath.startsWith(`${c.instancePath}/`)),
      )
      .sort((a, b) => b.base.length - a.base.length)[0];
    if (cond !== undefined && e.keyword === 'required' && e.instancePath === cond.instancePath) {
      const path = render(data, e.instancePath, root);
      const key = `${path}\u0000needs\u0000${cond.text}`;
      const member = String((e.params as { missingProperty?: unknown }).missingProperty);
      const members = out.get(key)?.missing?.members ?? [];
      if (!members.includes(member)) members.push(member);
      if (!out.has(key)) out.set(key, { path, text: '', missing: { cond, members } });
      continue;
    }
    const { path, text } = message(e, data, root);
    const full = cond === undefined ? text : `${cond.text}: ${text}`;
    const key = `${path}\u0000${full}`;
    if (!out.has(key)) out.set(key, { path, text: full });
  }

  return [...out.values()].map(({ path, text, missing }) => {
    if (missing === undefined) return `${path}: ${text}`;
    const { cond, members } = missing;
    const rank = (m: string): number => (cond.order.includes(m) ? cond.order.indexOf(m) : cond.order.length);
    const sorted = [...members].sort((a, b) => rank(a) - rank(b));
    return `${path}: ${cond.text} needs ${listWords(sorted)}`;
  });
}

function isGenericPropertyNames(e: Err): boolean {
  return e.message === 'property name must be valid';
}

/** "rel {rel}" with the object's rel → "rel extends". */
function conditionText(template: string | undefined, here: unknown): string {
  const t = template ?? 'this case';
  return t.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => {
    const v = here !== null && typeof here === 'object' ? (here as Record<string, unknown>)[name] : undefined;
    return typeof v === 'string' ? v : String(v);
  });
}

/** One ajv error → the path it is about and what is wrong, in plain words. */
function message(e: Err, data: unknown, root: string): { path: string; text: string } {
  const at = render(data, e.instancePath, root);
  const params = e.params as Record<string, unknown>;
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  const value = e.data;
  switch (e.keyword) {
    case 'required':
      return { path: render(data, `${e.instancePath}/${escapePointer(String(params.missingProperty))}`, root), text: 'is required' };
    case 'additionalProperties':
      return { path: at, text: `unknown member ${JSON.stringify(params.additionalProperty)}` };
    case 'type':
      return { path: at, text: `must be ${typeWords(params.type)}` };
    case 'const':
      return { path: at, text: `must be exactly ${JSON.stringify(params.allowedValue)}` };
    case 'enum':
      return { path: at, text: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'minLength':
    case 'maxLength':
      return { path: at, text: `${lengthWords(parent)}${typeof value === 'string' ? ` (has ${[...value].length})` : ''}` };
    case 'pattern': {
      const words = typeof parent.description === 'string' ? ` (${parent.description})` : '';
      if (e.propertyName !== undefined) {
        return { path: at, text: `member name ${JSON.stringify(e.propertyName)} must match ${String(params.pattern)}${words}` };
      }
      return { path: at, text: `must match ${String(params.pattern)}${words}` };
    }
    case 'format':
      return { path: at, text: 'must be a real UTC date and time (no month 13, no February 30, hours 00 to 23)' };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path: at, text: `${rangeWords(parent)}${typeof value === 'number' ? ` (is ${value})` : ''}` };
    case 'minItems':
    case 'maxItems':
      return {
        path: at,
        text: `${countWords(parent, 'minItems', 'maxItems', 'item')}${Array.isArray(value) ? ` (has ${value.length})` : ''}`,
      };
    case 'minProperties':
    case 'maxProperties': {
      const n = value !== null && typeof value === 'object' ? Object.keys(value).length : undefined;
      return { path: at, text: `${countWords(parent, 'minProperties', 'maxProperties', 'member')}${n === undefined ? '' : ` (has ${n})`}` };
    }
    case 'uniqueItems':
      return { path: at, text: `must not repeat an item (items [${String(params.j)}] and [${String(params.i)}] are the same)` };
    case 'not': {
      const req = (e.schema as { required?: unknown } | undefined)?.required;
      if (Array.isArray(req)) return { path: at, text: `must not have both ${listWords(req.map(String))}; give one or the other` };
      return { path: at, text: 'is not allowed in this form' };
    }
    case 'x-nt':
    case 'x-unique-by':
      return { path: at, text: e.message ?? 'is not valid' };
    default:
      return { path: at, text: e.message ?? 'is not valid' };
  }
}

function typeWords(t: unknown): string {
  const one = (x: string): string =>
    ({
      object: 'an object',
      array: 'an array',
      string: 'a string',
      number: 'a number',
      integer: 'an integer',
      boolean: 'true or false',
      null: 'null',
    })[x] ?? x;
  const list = Array.isArray(t) ? t.map(String) : String(t).split(',');
  return list.map(one).join(' or ');
}

function lengthWords(s: Record<string, unknown>): string {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : undefined;
  if (max === undefined) return `must be at least ${min} character${min === 1 ? '' : 's'}`;
  if (min === 0) return `must be at most ${max} characters`;
  return `must be ${min} to ${max} characters`;
}

function countWords(s: Record<string, unknown>, minKey: string, maxKey: string, noun: string): string {
  const min = typeof s[minKey] === 'number' ? (s[minKey] as number) : 0;
  const max = typeof s[maxKey] === 'number' ? (s[maxKey] as number) : undefined;
  const plural = (n: number): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
  if (max === undefined) return `must have at least ${plural(min)}`;
  if (min === 0) return `must have at most ${plural(max)}`;
  return `must have ${min} to ${plural(max)}`;
}

function rangeWords(s: Record<string, unknown>): string {
  const num = (k: string): number | undefined => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  const [min, max, xmin, xmax] = [num('minimum'), num('maximum'), num('exclusiveMinimum'), num('exclusiveMaximum')];
  if (xmin !== undefined && xmax !== undefined) return `must be strictly between ${xmin} and ${xmax}`;
  if (min !== undefined && max !== undefined) return `must be from ${min} to ${max}`;
  const low = xmin !== undefined ? `greater than ${xmin}` : min !== undefined ? `at least ${min}` : undefined;
  const high = xmax !== undefined ? `less than ${xmax}` : max !== undefined ? `at most ${max}` : undefined;
  return `must be ${[low, high].filter((x) => x !== undefined).join(' and ')}`;
}

function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

// ---- paths --------------------------------------------------------------------------------------

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolve(data: unknown, pointer: string): unknown {
  let here: unknown = data;
  for (const seg of pointerSegments(pointer)) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Record<string, unknown>)[seg];
  }
  return here;
}

/** `/claims/0/text` → `payload.claims[0].text` (indexes where the data is an array). */
function render(data: unknown, pointer: string, root: string): string {
  let out = root;
  let here: unknown = data;
  for (const seg of pointerSegments(pointer)) {
    if (Array.isArray(here) && /^(0|[1-9][0-9]*)$/.test(seg)) out += `[${seg}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
    here = here !== null && typeof here === 'object' ? (here as Record<string, unknown>)[seg] : undefined;
  }
  return out;
}
