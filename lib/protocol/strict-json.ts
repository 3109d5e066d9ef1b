// Strict JSON parsing at the edge: duplicate member names, lone surrogates and numbers that are not finite are refused (400),
// never "fixed" (docs/protocol.md#canonical-json-rfc-8785).
import { assertJson, jsonPath } from './canonical-json.js';
import { ArchiveError } from './errors.js';

interface Frame {
  /** Member names seen so far; null for an array. */
  names: Set<string> | null;
  /** Current member name or array index: which child the scanner is inside. */
  key: string | number;
  /** Object only: the next string token is a member name. */
  expectName: boolean;
}

/** True when the character at `i` is preceded by an odd number of backslashes. */
function escaped(text: string, i: number): boolean {
  let n = 0;
  while (text.charCodeAt(i - 1 - n) === 0x5c) n++;
  return n % 2 === 1;
}

// JSON.parse keeps the last of duplicate members, so the text it accepted is scanned again and each object's decoded member
// names compared: `{"a":1,"\u0061":2}` is a duplicate.
/** Throws bad_request on the first object with a repeated member name. `text` is valid JSON. */
function refuseDuplicates(text: string, what: string): void {
  if (!text.includes('{')) return;
  const tokens = /["{}[\],]/g; // strings are skipped whole, so these are structural
  const stack: Frame[] = [];
  for (let m = tokens.exec(text); m !== null; m = tokens.exec(text)) {
    const top = stack[stack.length - 1];
    switch (text.charCodeAt(m.index)) {
      case 0x7b: // {
        stack.push({ names: new Set(), key: '', expectName: true });
        break;
      case 0x5b: // [
        stack.push({ names: null, key: 0, expectName: false });
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        break;
      case 0x2c: // ,
        if (top!.names) top!.expectName = true;
        else (top!.key as number)++;
        break;
      default: {
        // a string: find its closing quote, then resume scanning after it
        let end = m.index;
        do end = text.indexOf('"', end + 1);
        while (escaped(text, end));
        tokens.lastIndex = end + 1;
        if (!top?.names || !top.expectName) break;
        const raw = text.slice(m.index + 1, end);
        const name: string = raw.includes('\\') ? JSON.parse(text.slice(m.index, end + 1)) : raw;
        if (top.names.has(name)) {
          const path = jsonPath(
            what,
            stack.slice(0, -1).map((f) => f.key),
          );
          throw new ArchiveError('bad_request', `${path}: duplicate member name ${JSON.stringify(name)}`);
        }
        top.names.add(name);
        top.key = name;
        top.expectName = false;
      }
    }
  }
}

/**
 * Parses `text` as JSON, refusing (ArchiveError bad_request, detail naming the path under
 * `what`) invalid JSON, duplicate member names, lone surrogates and non-finite numbers.
 */
export function parseJson(text: string, what = 'body'): unknown {
  if (typeof text !== 'string') throw new ArchiveError('bad_request', `${what}: expected JSON text`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ArchiveError('bad_request', `${what}: invalid JSON (${(e as Error).message})`);
  }
  refuseDuplicates(text, what);
  assertJson(value, what);
  return value;
}
