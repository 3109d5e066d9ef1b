// Canonical JSON, RFC 8785 (JCS): the bytes that are hashed and signed (docs/protocol.md).
//
// fast-json-stable-stringify writes what RFC 8785 asks for once the value is plain JSON:
// keys sorted by UTF-16 code units (Array.prototype.sort's default order), no whitespace,
// numbers by ECMAScript Number::toString (so -0 is written 0), strings by JSON.stringify.
// It silently drops or rewrites what is not JSON (undefined, NaN, toJSON, lone surrogates
// escaped), so every value is checked first: anything it would "fix" is refused with 400.
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

/** RFC 8785 canonical JSON text of `value`; refuses (400) anything that is not plain JSON. */
export function canonicalize(value: unknown, what = ''): string {
  // A value parsed from canonical text (every logged payload) has its members in order already.
  return jsonInOrder(value, what) ? JSON.stringify(value) : stringify(value);
}

/** UTF-8 bytes of the canonical JSON of `value`: what is hashed and signed. */
export function canonicalBytes(value: unknown, what = ''): Uint8Array {
  return encoder.encode(canonicalize(value, what));
}
