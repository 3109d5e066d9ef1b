// Canonical JSON, RFC 8785 (JCS): the bytes that are hashed and signed (docs/protocol.md#canonical-json-rfc-8785).
import stringify from 'fast-json-stable-stringify';
import { ArchiveError } from './errors.js';

/** Deeper nesting is refused, so neither the check nor the writer can overflow the stack. */
export const MAX_DEPTH = 1000;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const encoder = new TextEncoder();

// String.prototype.isWellFormed (ES2024, Node 20) is not in the ES2023 lib typings.
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** The JSON path `what.a[0]["b c"]` of a value; built only when there is something to report. */
export function jsonPath(what: string, segments: (string | number)[]): string {
  let p = what;
  for (const s of segments) {
    if (typeof s === 'number') p += `[${s}]`;
    else if (IDENTIFIER.test(s)) p += p === '' ? s : `.${s}`;
    else p += `[${JSON.stringify(s)}]`;
  }
  return p === '' ? 'value' : p;
}

function describe(v: unknown): string {
  if (typeof v === 'object') return v === null ? 'null' : (v.constructor?.name ?? 'object');
  return typeof v;
}

/**
 * Throws ArchiveError bad_request unless `value` is plain JSON: null, boolean, finite number,
 * well-formed string (no lone surrogates), array, or plain object with well-formed keys.
 * The detail names the JSON path, e.g. `payload.claims[0].text: lone surrogate`.
 */
export function assertJson(value: unknown, what = ''): void {
  jsonInOrder(value, what);
}

/**
 * assertJson, and whether every object's members are already in canonical order (Object.keys
 * sorted by UTF-16 code units): then JSON.stringify writes the canonical text itself, since it
 * writes members in that order and numbers and strings as RFC 8785 does.
 */
function jsonInOrder(value: unknown, what: string): boolean {
  let inOrder = true;
  const segments: (string | number)[] = [];
  const fail = (reason: string): never => {
    throw new ArchiveError('bad_request', `${jsonPath(what, segments)}: ${reason}`);
  };
  const walk = (v: unknown, depth: number): void => {
    switch (typeof v) {
      case 'boolean':
        return;
      case 'string':
        if (!wellFormed(v)) fail('lone surrogate');
        return;
      case 'number':
        // Non-finite numbers have no JSON spelling (docs/protocol.md: refused, never fixed).
        if (!Number.isFinite(v)) fail(`not a finite number (${v})`);
        return;
      case 'object': {
        if (v === null) return;
        if (depth >= MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) {
            segments.push(i);
            walk(v[i], depth + 1); // a hole reads as undefined and is refused
            segments.pop();
          }
          return;
        }
        const proto = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) fail(`not a JSON value (${describe(v)})`);
        let last: string | null = null;
        for (const key of Object.keys(v)) {
          if (last !== null && !(last < key)) inOrder = false;
          last = key;
          segments.push(key);
          if (!wellFormed(key)) fail('lone surrogate in member name');
          walk((v as Record<string, unknown>)[key], depth + 1);
          segments.pop();
        }
        return;
      }
      default:
        fail(`not a JSON value (${describe(v)})`);
    }
  };
  walk(value, 0);
  return inOrder;
}

// fast-json-stable-stringify writes RFC 8785 once the value is plain JSON (keys by UTF-16 code units, numbers by
// Number::toString), but silently drops or rewrites what is not JSON (undefined, NaN, toJSON, lone surrogates): hence the check.
/** RFC 8785 canonical JSON text of `value`; refuses (400) anything that is not plain JSON. */
export function canonicalize(value: unknown, what = ''): string {
  // A value parsed from canonical text (every logged payload) has its members in order already.
  return jsonInOrder(value, what) ? JSON.stringify(value) : stringify(value);
}

/** UTF-8 bytes of the canonical JSON of `value`: what is hashed and signed. */
export function canonicalBytes(value: unknown, what = ''): Uint8Array {
  return encoder.encode(canonicalize(value, what));
}

/** Containers nested deeper than this are left to canonicalize (knownCanonical answers false). */
const KNOWN_DEPTH = 64;

/**
 * Whether `text` is, for certain, the canonical JSON of the value it parses to, that is
 * `canonicalize(JSON.parse(text)) === text`: told by one pass over the text, without parsing or
 * writing it again (the verifier's workers check every logged payload so). False for any text
 * that is not, and also for some that is but that this pass does not follow (a `\u` escape of
 * anything but a control character, a member name with an escape, nesting deeper than
 * KNOWN_DEPTH): the caller then parses and canonicalizes as usual.
 */
export function knownCanonical(text: string): boolean {
  return valueEnd(text, 0, 0) === text.length;
}

/** Where the canonical value at `i` ends, or -1. */
function valueEnd(s: string, i: number, depth: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) return stringEnd(s, i, false);
  if (c === 0x7b) {
    // {: members in strictly increasing order of their names (UTF-16 code units), no whitespace.
    if (depth >= KNOWN_DEPTH) return -1;
    if (s.charCodeAt(i + 1) === 0x7d) return i + 2;
    let last: string | null = null;
    for (i++; ;) {
      if (s.charCodeAt(i) !== 0x22) return -1;
      const end = stringEnd(s, i, true);
      if (end < 0) return -1;
      const name = s.slice(i + 1, end - 1);
      if (last !== null && !(last < name)) return -1;
      last = name;
      if (s.charCodeAt(end) !== 0x3a) return -1;
      i = valueEnd(s, end + 1, depth + 1);
      if (i < 0) return -1;
      const next = s.charCodeAt(i);
      if (next === 0x7d) return i + 1;
      if (next !== 0x2c) return -1;
      i++;
    }
  }
  if (c === 0x5b) {
    if (depth >= KNOWN_DEPTH) return -1;
    if (s.charCodeAt(i + 1) === 0x5d) return i + 2;
    for (i++; ;) {
      i = valueEnd(s, i, depth + 1);
      if (i < 0) return -1;
      const next = s.charCodeAt(i);
      if (next === 0x5d) return i + 1;
      if (next !== 0x2c) return -1;
      i++;
    }
  }
  if (c === 0x74) return s.startsWith('true', i) ? i + 4 : -1;
  if (c === 0x66) return s.startsWith('false', i) ? i + 5 : -1;
  if (c === 0x6e) return s.startsWith('null', i) ? i + 4 : -1;
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return numberEnd(s, i);
  return -1;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** Where the number at `i` ends if it is written as ECMAScript writes its value (RFC 8785), or -1. */
function numberEnd(s: string, i: number): number {
  const start = i;
  if (s.charCodeAt(i) === 0x2d) i++;
  if (!isDigit(s.charCodeAt(i))) return -1;
  if (s.charCodeAt(i) === 0x30) i++;
  else while (isDigit(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) === 0x2e) {
    if (!isDigit(s.charCodeAt(++i))) return -1;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  const e = s.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    const sign = s.charCodeAt(++i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  // A JSON number is canonical when ECMAScript writes the value it reads as the same text
  // (so not -0, 1.0, 1E3 or 1e400).
  const t = s.slice(start, i);
  return String(Number(t)) === t ? i : -1;
}

/**
 * Where the string at `i` (its opening quote) ends, just after its closing quote, if it is written
 * as JSON.stringify writes a well-formed string; or -1. Escapes are `\"`, `\\`, `\b`, `\f`, `\n`,
 * `\r`, `\t`, and `\u00xx` (lowercase) for the other control characters; a member name (`name`)
 * with any escape is left to canonicalize.
 */
function stringEnd(s: string, i: number, name: boolean): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return -1;
    if (c === 0x5c) {
      if (name) return -1;
      const e = s.charCodeAt(++j);
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) continue;
      if (e !== 0x75 || !/^00[01][0-9a-f]$/.test(s.slice(j + 1, j + 5))) return -1;
      const code = parseInt(s.slice(j + 1, j + 5), 16);
      // These have their short forms.
      if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return -1;
      j += 4;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A surrogate stands only as the first half of a pair.
      if (c > 0xdbff) return -1;
      const low = s.charCodeAt(j + 1);
      if (!(low >= 0xdc00 && low <= 0xdfff)) return -1;
      j++;
    }
  }
  return -1;
}
