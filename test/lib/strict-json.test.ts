// lib/protocol/strict-json.ts: duplicate member names, lone surrogates and non-finite numbers are
// refused with 400, never "fixed" (docs/protocol.md).
import t from 'tap';
import { parseJson } from '../../lib/protocol/strict-json.js';

t.test('parses ordinary JSON like JSON.parse', async (t) => {
  const texts = [
    '0',
    '"x"',
    'null',
    '[]',
    '{}',
    ' {"a" : [1, {"b": null}], "c": "}\\",{\\"c\\":"} ',
    '{"a":{"a":1},"b":{"a":2}}', // the same name in different objects
    '[{"a":1},{"a":2}]',
    '{"\\\\":1,"\\\\\\"":2}', // names ending in escaped backslashes and quotes
    '{"a":"\\ud83d\\ude00","\\ud83d\\ude00":true}', // a pair is not a lone surrogate
  ];
  for (const text of texts) t.same(parseJson(text), JSON.parse(text), text);
  const proto = parseJson('{"__proto__":{"x":1}}') as Record<string, unknown>;
  t.same(Object.keys(proto), ['__proto__'], '__proto__ stays an own member');
});

t.test('refuses duplicate member names, compared after decoding', async (t) => {
  const refused: [string, string][] = [
    ['{"a":1,"a":2}', 'body: duplicate member name "a"'],
    ['{"a":1,"\\u0061":2}', 'body: duplicate member name "a"'],
    ['{"é":1,"\\u00e9":2}', 'body: duplicate member name "é"'],
    ['{"😀":1,"\\ud83d\\ude00":2}', 'body: duplicate member name "😀"'],
    ['{"a\\"":1,"a\\u0022":2}', 'body: duplicate member name "a\\""'],
    ['{"a\\\\":1,"a\\\\":2}', 'body: duplicate member name "a\\\\"'],
    ['{"a":{"b":1},"a":2}', 'body: duplicate member name "a"'],
    ['{"x":[{"c":1},{"c":1,"d":"]},{","c":2}]}', 'body.x[1]: duplicate member name "c"'],
    ['[0,[1,{"k":{"q":1,"q":1}}]]', 'body[1][1].k: duplicate member name "q"'],
    ['{"__proto__":1,"__proto__":2}', 'body: duplicate member name "__proto__"'],
  ];
  for (const [text, detail] of refused) {
    t.throws(() => parseJson(text), { code: 'bad_request', detail }, text);
  }
});

t.test('refuses lone surrogates, escaped or raw, in values and names', async (t) => {
  const refused: [string, string][] = [
    ['"\\ud800"', 'body: lone surrogate'],
    ['"\ud800"', 'body: lone surrogate'], // a raw one in the text itself
    ['{"k":["ok","\\udc00"]}', 'body.k[1]: lone surrogate'],
    ['{"k":"\\ude00\\ud83d"}', 'body.k: lone surrogate'], // a pair in the wrong order
    ['{"\\udfff":1}', 'body["\\udfff"]: lone surrogate in member name'],
  ];
  for (const [text, detail] of refused) {
    t.throws(() => parseJson(text), { code: 'bad_request', detail }, JSON.stringify(text));
  }
});

t.test('refuses numbers that overflow to infinity', async (t) => {
  t.throws(() => parseJson('{"n":[1e400]}'), { code: 'bad_request', detail: 'body.n[0]: not a finite number (Infinity)' });
  t.throws(() => parseJson('-1e400'), { code: 'bad_request', detail: 'body: not a finite number (-Infinity)' });
  t.equal(parseJson('1e-400'), 0, 'underflow is a finite number');
});

t.test('refuses invalid JSON, naming what was parsed', async (t) => {
  for (const text of ['', '{', "{'a':1}", '[1,]', 'NaN', '01', '\ufeff{}', '{} x', '{"a" 1}', '"\t"']) {
    t.throws(() => parseJson(text, 'query'), { code: 'bad_request', detail: /^query: invalid JSON/ }, JSON.stringify(text));
  }
  t.throws(() => parseJson(undefined as unknown as string), { code: 'bad_request', detail: 'body: expected JSON text' });
});

t.test('deep nesting is refused, not a stack overflow', async (t) => {
  const text = '['.repeat(5000) + ']'.repeat(5000);
  t.throws(() => parseJson(text), { code: 'bad_request', detail: /nested deeper than 1000$/ });
});

t.test('fast enough to run on every write', async (t) => {
  const body = JSON.stringify({
    payload: { claims: Array.from({ length: 200 }, (_, i) => ({ id: i, text: `claim ${i} "quoted" \\ {}[],`, tags: ['a', 'b'] })) },
    signature: 'x'.repeat(86),
  });
  const start = process.hrtime.bigint();
  for (let i = 0; i < 100; i++) parseJson(body);
  const perParseMs = Number(process.hrtime.bigint() - start) / 1e6 / 100;
  t.ok(perParseMs < 5, `a ${body.length}-byte body in ${perParseMs.toFixed(3)} ms`);
});
