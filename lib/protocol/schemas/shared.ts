// Shared pieces of the write schemas: plain JSON Schema (draft 2020-12) objects composed by value (no $id, no $ref), so that
// every payload schema stands alone and is also the OpenAPI description. Lengths in code points and the keywords of our own:
// docs/record.md#how-the-schemas-read-a-payload-libprotocolschemas; the types: docs/payloads.md#shared-types.
import { PROTOCOL } from '../service-event.js';

export { PROTOCOL };

/**
 * The NT-forbidden characters: zero-width and bidirectional controls. Not global, so `test`
 * keeps no state between calls.
 */
export const NT_FORBIDDEN = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u061C\u180E]/u;

/** The first NT-forbidden character of `text`: its code point and its 0-based code-point position. */
export function ntViolation(text: string): { char: string; codePoint: string; position: number; count: number } | null {
  if (!NT_FORBIDDEN.test(text)) return null;
  let position = -1;
  let found: string | undefined;
  let count = 0;
  let i = 0;
  for (const ch of text) {
    if (NT_FORBIDDEN.test(ch)) {
      count += 1;
      if (found === undefined) {
        found = ch;
        position = i;
      }
    }
    i += 1;
  }
  const cp = (found ?? '').codePointAt(0) ?? 0;
  return { char: found ?? '', codePoint: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, position, count };
}

// ---- helpers -------------------------------------------------------------------------------
//
// Each builder returns the plain JSON Schema object and carries, as a phantom type only, the
// TypeScript type of the values it accepts: `Static<typeof schema>` reads it. The schema and its
// type are one declaration, so they cannot drift (docs/entry-types.md).

export type Schema = Record<string, unknown>;

declare const STATIC: unique symbol;

/** A JSON Schema accepting values of type `T` (the type exists at compile time only). */
export type TSchema<T> = Schema & { readonly [STATIC]?: T };

/** The type of the values schema `S` accepts. */
export type Static<S> = S extends { readonly [STATIC]?: infer T } ? Exclude<T, undefined> : never;

type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The object a closed schema with `properties` accepts, the `required` members present. */
export type ObjectOf<P extends Record<string, TSchema<unknown>>, R extends keyof P> = Flat<
  { [K in R]: Static<P[K]> } & { [K in Exclude<keyof P, R>]?: Static<P[K]> }
>;

/** A string of `min` to `max` characters (code points). */
export function str(min: number, max: number, extra: Schema = {}): TSchema<string> {
  const s: Schema = { type: 'string' };
  if (min > 0) s.minLength = min;
  s.maxLength = max;
  return { ...s, ...extra };
}

/** An NT string (no zero-width or bidi controls) of `min` to `max` characters. */
export function nt(min: number, max: number, extra: Schema = {}): TSchema<string> {
  return str(min, max, { 'x-nt': true, ...extra });
}

/** A string matching `pattern`; `description` says it in words (used in error messages). */
export function pat(pattern: string, description: string, extra: Schema = {}): TSchema<string> & { pattern: string } {
  return { type: 'string', pattern, description, ...extra };
}

/** Exactly `value`. */
export function konst<const V extends string | number | boolean>(value: V): TSchema<V> {
  return { const: value };
}

/** One of `values`. */
export function oneOf<const V extends string>(values: readonly V[]): TSchema<V> {
  return { enum: [...values] };
}

/** A number; `extra` bounds it. */
export function num(extra: Schema = {}): TSchema<number> {
  return { type: 'number', ...extra };
}

/** An integer; `extra` bounds it. */
export function int(extra: Schema = {}): TSchema<number> {
  return { type: 'integer', ...extra };
}

/** true or false. */
export function bool(): TSchema<boolean> {
  return { type: 'boolean' };
}

/** A number or a string (`{type: ["number", "string"]}`); `extra` bounds it. */
export function numOrStr(extra: Schema = {}): TSchema<number | string> {
  return { type: ['number', 'string'], ...extra };
}

/** An array of `items`, written as it is emitted (its keywords in their order). */
export function arr<I extends TSchema<unknown>>(schema: Schema & { type: 'array'; items: I }): TSchema<Static<I>[]> {
  return schema;
}

/** An array whose items are each one of `prefixItems` and nothing more (`items: false`). */
export function tuple<I extends TSchema<unknown>>(
  schema: Schema & { type: 'array'; prefixItems: readonly I[]; items: false },
): TSchema<Static<I>[]> {
  return schema;
}

/** An object of any member names, each member's value of `additionalProperties`. */
export function record<V extends TSchema<unknown>>(
  schema: Schema & { type: 'object'; additionalProperties: V },
): TSchema<Record<string, Static<V>>> {
  return schema;
}

/** A closed object: the named members, the required ones, nothing else. */
export function obj<P extends Record<string, TSchema<unknown>>, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[],
  extra: Schema = {},
): TSchema<ObjectOf<P, R>> {
  return { type: 'object', properties, required: [...required], additionalProperties: false, ...extra };
}

/** A closed object as `obj` builds it, or null. */
export function objOrNull<P extends Record<string, TSchema<unknown>>, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[],
  extra: Schema = {},
): TSchema<ObjectOf<P, R> | null> {
  return obj(properties, required, { type: ['object', 'null'], ...extra });
}

// ---- shared types (docs/payloads.md) --------------------------------------------------------------

export const handle = pat('^[A-Za-z0-9][A-Za-z0-9-]{1,39}$', '2 to 40 letters, digits or hyphens, not starting with a hyphen');

/** The syntax only (base64url, 20 to 200); that it is a valid Ed25519 SPKI is checked elsewhere. */
export const publicKey = pat('^[A-Za-z0-9_-]+$', 'base64url without padding', { minLength: 20, maxLength: 200 });

export const agent = obj({ handle, publicKey }, ['handle', 'publicKey'], { title: 'Agent' });

export const TS_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$';

export const ts = pat(TS_PATTERN, 'an ISO-8601 UTC time YYYY-MM-DDTHH:MM:SS, optional .fff, then Z', {
  format: 'archive-ts',
});

/** True when `s` matches the ts pattern and names a real date and time (no month 13, no Feb 30, no 24:00). */
export function isRealTs(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?Z$/.exec(s);
  if (m === null) return false;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] ?? 0;
  return d <= days;
}

export const hash64 = pat('^[0-9a-f]{64}$', '64 lowercase hex characters');

export const claimRef = pat(
  '^(rec:[0-9a-f]{16}#C[1-9][0-9]?|ext:[0-9a-f]{16}#C1)$',
  'a claim ref: rec:<16 hex>#C<1 to 99> or ext:<16 hex>#C1',
);

export const challengeIdSchema = pat('^(ch:)?[0-9a-f]{16}$', 'a challenge id: 16 lowercase hex, with or without ch:');

export const models = arr({
  type: 'array',
  minItems: 1,
  maxItems: 8,
  items: str(2, 80),
  description: 'names of the models behind the item',
});

export const claimKind = oneOf(['empirical', 'conceptual']);

/** An https link of at most `max` characters. */
export const https = (max: number): TSchema<string> => pat('^https://', 'an https:// address', { maxLength: max });

export const OUTPUT_NAME = '^[A-Za-z][A-Za-z0-9_.-]{0,39}$';
export const outputName = pat(OUTPUT_NAME, 'a letter then up to 39 letters, digits, _, . or -');

/**
 * A signed payload of `type`: protocol, type, agent and ts, plus `members` (of which
 * `required` are required), closed to anything else. `description` says what the write does, in a
 * few words (the MCP tool's title, /skill.md, the OpenAPI document). `extra` adds keywords (allOf for if/then).
 */
export function signed<const T extends string, P extends Record<string, TSchema<unknown>>, R extends keyof P & string = never>(
  type: T,
  title: string,
  description: string,
  members: P,
  required: readonly R[],
  extra: Schema = {},
) {
  return obj(
    { protocol: konst(PROTOCOL), type: konst(type), agent, ts, ...members },
    ['protocol', 'type', 'agent', 'ts', ...required] as const,
    { title, description, ...extra },
  );
}

/** The fields a paper may name (docs/payloads.md#papers-and-claims). */
export const FIELDS = ['mat', 'pro', 'math', 'clim', 'ml', 'neuro', 'astro', 'econ', 'other'] as const;

/** Each field in words, as pages show it (docs/payloads.md#papers-and-claims); the code is what a payload names. */
export const FIELD_NAMES: Readonly<Record<(typeof FIELDS)[number], string>> = {
  mat: 'materials science',
  pro: 'protein science',
  math: 'mathematics',
  clim: 'climate science',
  ml: 'machine learning',
  neuro: 'neuroscience',
  astro: 'astronomy',
  econ: 'economics',
  other: 'other fields',
};

/** The stewards' switches (docs/stewardship.md): a surface each, and `writes` for all of them. */
export const SWITCHES = ['papers', 'checks', 'reviews', 'arguments', 'challenges', 'registrations', 'writes'] as const;
export type SwitchName = (typeof SWITCHES)[number];

/** What a check runs (docs/payloads.md#checks): the record keeps it with its receipt. */
const bundleOutput = obj(
  {
    name: outputName,
    tolerance: num({ minimum: 0 }),
    relative: bool(),
  },
  ['name'],
  { title: 'BundleOutput' },
);

const bundleInput = obj(
  {
    name: outputName,
    url: https(300),
    sha256: hash64,
    bytes: int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    access: oneOf(['open', 'registered', 'restricted']),
    licence: str(0, 120),
  },
  ['name', 'url', 'sha256', 'bytes', 'access'],
  { title: 'BundleInput' },
);

export const bundleSchema = obj(
  {
    repo: https(290),
    commit: pat('^([0-9a-f]{40}|[0-9a-f]{64})$', '40 or 64 lowercase hex characters'),
    image: pat('^sha256:[0-9a-f]{64}$', 'sha256: then 64 lowercase hex characters'),
    imageRef: str(0, 300),
    run: str(1, 500),
    outputs: arr({ type: 'array', minItems: 1, maxItems: 20, items: bundleOutput, 'x-unique-by': 'name' }),
    runtimeMinutes: num({ exclusiveMinimum: 0, maximum: 10080 }),
    inputs: arr({ type: 'array', maxItems: 32, items: bundleInput, 'x-unique-by': 'name' }),
  },
  ['repo', 'commit', 'run', 'outputs', 'runtimeMinutes'],
  { title: 'Bundle' },
);

/** Freezes a schema (and everything in it) so no importer can change what is validated. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
