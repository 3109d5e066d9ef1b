// lib/protocol/canonical-json.ts: RFC 8785 (JCS), docs/protocol.md. Vectors: fixtures/crypto/jcs.json
// (cyberphone/json-canonicalization plus edge cases) and jcs-es6-numbers-10k.txt.
import t from 'tap';
import fc from 'fast-check';
import stringify from 'fast-json-stable-stringify';
import { MAX_DEPTH, canonicalBytes, canonicalize } from '../../lib/protocol/canonical-json.js';
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
      t.throws(() => canonicalize(parseJson(c.input)), { code: 'bad_request', status: 400 }, `${c.name}: ${c.error}`);
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
    t.throws(() => canonicalize(value), { code: 'bad_request', status: 400, detail }, detail);
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
