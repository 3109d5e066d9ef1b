// lib/protocol/canonical-json.ts: RFC 8785 (JCS), docs/protocol.md. Vectors: fixtures/crypto/jcs.json
// (cyberphone/json-canonicalization plus edge cases) and jcs-es6-numbers-10k.txt.
import t from 'tap';
import fc from 'fast-check';
import stringify from 'fast-json-stable-stringify';
import { MAX_DEPTH, canonicalBytes, canonicalize, knownCanonical } from '../../lib/protocol/canonical-json.js';
import { parseJson } from '../../lib/protocol/strict-json.js';
import { fixtureJson, fixtureText } from '../helpers/fixtures.js';

interface JcsCase {
  name: string;
  input: string;
  expected: string | null;
  error?: string;
}

t.test('every jcs.json case: parse strictly, canonicalize, compare', async (t) => {
  const cases = fixtureJson<JcsCase[]>('crypto/jcs.json');
  t.equal(cases.length, 89);
  for (const c of cases) {
    if (c.expected === null) {
      // duplicates, lone surrogates, +-1e400: refused, never "fixed" (docs/protocol.md)
      t.throws(() => canonicalize(parseJson(c.input)), { code: 'bad_request' }, `${c.name}: ${c.error}`);
    } else {
      t.equal(canonicalize(parseJson(c.input)), c.expected, c.name);
    }
  }
});

t.test('10,000 ES6 number serialisations', async (t) => {
  const lines = fixtureText('crypto/jcs-es6-numbers-10k.txt')
    .split('\n')
    .filter((l) => l !== '');
  t.equal(lines.length, 10_000);
  const view = new DataView(new ArrayBuffer(8));
  const wrong: string[] = [];
  for (const line of lines) {
    const [hex, expected] = line.split(',') as [string, string];
    view.setBigUint64(0, BigInt(`0x${hex}`));
    const value = view.getFloat64(0);
    if (canonicalize(value) !== expected) wrong.push(line);
    if (canonicalize(parseJson(expected)) !== expected) wrong.push(`reparsed ${line}`);
  }
  t.same(wrong, [], 'every line serialises exactly, and its serialisation is a fixed point');
});

t.test('-0 is written 0', async (t) => {
  t.equal(canonicalize(-0), '0');
  t.equal(canonicalize({ a: [-0, 0] }), '{"a":[0,0]}');
});

t.test('UTF-8 bytes', async (t) => {
  const bytes = canonicalBytes({ '\u20ac': '\u{1f600}', a: 'é' });
  t.same(Buffer.from(bytes), Buffer.from('{"a":"é","€":"😀"}', 'utf8'));
});

t.test('plain objects only; null-prototype objects and a "toJSON" member are data', async (t) => {
  const bare = Object.create(null) as Record<string, unknown>;
  bare.b = 1;
  bare.a = 2;
  t.equal(canonicalize(bare), '{"a":2,"b":1}');
  t.equal(canonicalize({ toJSON: 'x' }), '{"toJSON":"x"}');
});

t.test('refuses what is not plain JSON, naming the path', async (t) => {
  const refused: [unknown, string][] = [
    [NaN, 'value: not a finite number (NaN)'],
    [Infinity, 'value: not a finite number (Infinity)'],
    [{ a: [1, -Infinity] }, 'a[1]: not a finite number (-Infinity)'],
    [undefined, 'value: not a JSON value (undefined)'],
    [{ a: undefined }, 'a: not a JSON value (undefined)'], // stringify would drop the member
    [[1, undefined], '[1]: not a JSON value (undefined)'], // stringify would write null
    // eslint-disable-next-line no-sparse-arrays -- the hole is what is tested
    [[1, , 2], '[1]: not a JSON value (undefined)'], // a hole
    [{ f: () => 1 }, 'f: not a JSON value (function)'],
    [{ s: Symbol('s') }, 's: not a JSON value (symbol)'],
    [{ n: 1n }, 'n: not a JSON value (bigint)'],
    [{ d: new Date(0) }, 'd: not a JSON value (Date)'], // stringify would call toJSON
    [{ m: new Map() }, 'm: not a JSON value (Map)'],
    [{ payload: { claims: [{ text: 'a\ud800' }] } }, 'payload.claims[0].text: lone surrogate'],
    [{ 'a b': { '\udfff': 1 } }, '["a b"]["\\udfff"]: lone surrogate in member name'],
  ];
  for (const [value, detail] of refused) {
    t.throws(() => canonicalize(value), { code: 'bad_request', detail }, detail);
  }
  t.throws(() => canonicalBytes({ x: NaN }, 'payload'), { code: 'bad_request', detail: 'payload.x: not a finite number (NaN)' });
});

t.test('nesting is bounded, so a cycle or a deep value cannot overflow the stack', async (t) => {
  let deep: unknown = 0;
  for (let i = 0; i < MAX_DEPTH; i++) deep = [deep];
  t.equal(canonicalize(deep).length, 2 * MAX_DEPTH + 1);
  t.throws(() => canonicalize([deep]), { code: 'bad_request', detail: /nested deeper than 1000$/ });
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  t.throws(() => canonicalize(cycle), { code: 'bad_request', detail: /nested deeper/ });
});

t.test('members already in order are written by JSON.stringify: the same text as sorting them, for any JSON', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const canonical = stringify(v);
      // As drawn (members in any order), and as parsed back from canonical text (in order).
      return canonicalize(v) === canonical && canonicalize(JSON.parse(canonical)) === canonical;
    }),
    { numRuns: 3000 },
  );
  t.pass('held for 3,000 random values');
  // Array-index member names come first in a JavaScript object, whatever their canonical place.
  t.equal(canonicalize(JSON.parse('{"10":1,"9":2,"a":3}')), '{"10":1,"9":2,"a":3}');
  t.equal(canonicalize({ b: 1, a: { d: [1, { f: 0, e: -0 }], c: 'x' } }), '{"a":{"c":"x","d":[1,{"e":0,"f":0}]},"b":1}');
});

/** What knownCanonical must never do: call a text canonical that canonicalize would write otherwise, or refuse. */
function wronglyKnown(text: string): string | null {
  if (!knownCanonical(text)) return null;
  try {
    const again = canonicalize(JSON.parse(text));
    return again === text ? null : `${text} is written ${again}`;
  } catch (err) {
    return `${text}: ${(err as Error).message}`;
  }
}

t.test('knownCanonical: true only for the canonical text of a value, as canonicalize writes it', async (t) => {
  // The canonical text of any JSON value is known canonical, unless a member name needs an escape
  // (then canonicalize decides).
  const plain = (k: string): boolean => [...k].every((c) => c !== '"' && c !== '\\' && c >= ' ');
  const plainNames = (v: unknown): boolean =>
    typeof v !== 'object' || v === null ? true : Object.entries(v).every(([k, x]) => plain(k) && plainNames(x));
  let known = 0;
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = canonicalize(v);
      if (plainNames(v)) {
        if (!knownCanonical(text)) return false;
        known++;
      }
      // The same value written otherwise (members as drawn, spaces): known only when that is the canonical text.
      return [JSON.stringify(v), JSON.stringify(v, null, 1)].every((other) => wronglyKnown(other) === null);
    }),
    { numRuns: 3000 },
  );
  t.ok(known > 2000, `${known} canonical texts of 3,000 random values known canonical`);

  // Texts drawn from JSON's tokens, most of them not JSON at all: none is wrongly known canonical.
  const token = fc.constantFrom(
    ...['{', '}', '[', ']', ',', ':', ' ', '"a"', '"b"', '"a"', '"\\u0001"', '"\\u001F"', '"\\n"', '"\\u000a"', '"\\/"', '"\\ud800"'],
    ...['"\ud83d\ude00"', '"\ud83d"', '"\u007f"', '"\\"', '"', '0', '-0', '1', '01', '1.0', '1.5', '1e3', '1E3', '1e+21', '1e21'],
    ...['1e400', '-1', '-', '.5', '9007199254740993', 'true', 'false', 'null', 'nul', '\u0001', '"x\ny"'],
  );
  let valid = 0;
  fc.assert(
    fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
      const text = tokens.join('');
      if (knownCanonical(text)) valid++;
      return wronglyKnown(text) === null;
    }),
    { numRuns: 20000 },
  );
  t.ok(valid > 100, `${valid} of 20,000 texts drawn from tokens known canonical, and each rightly`);

  const yes = ['{}', '[]', '0', '-1.5', '1e+21', '"\\u001f\\n"', '{"10":1,"9":2,"a":[true,false,null]}', '"\ud83d\ude00"', '"\u007f"'];
  for (const text of yes) t.equal(knownCanonical(text), true, text);
  const no: [string, string][] = [
    ['', 'no value'],
    ['{"b":1,"a":2}', 'members out of order'],
    ['{"a":1,"a":1}', 'a member twice'],
    ['{"a": 1}', 'a space'],
    ['1.0', 'a number not as ECMAScript writes it'],
    ['-0', '-0, written 0'],
    ['1e400', 'beyond a double'],
    ['9007199254740993', 'an integer a double does not hold'],
    ['"\\u000a"', 'an escape with a short form'],
    ['"\\u001F"', 'an uppercase escape'],
    ['"\\/"', 'an escaped solidus'],
    ['"\ud800"', 'a lone surrogate'],
    ['"\\ud800"', 'a lone surrogate escaped'],
    ['{"a\\"":1}', 'a member name with an escape (left to canonicalize)'],
    ['[1]]', 'something after the value'],
    [`${'['.repeat(65)}${']'.repeat(65)}`, 'nested deeper than it follows (left to canonicalize)'],
  ];
  for (const [text, why] of no) t.equal(knownCanonical(text), false, why);
});
