// lib/protocol/ids.ts: paperIdOfText, the paper id read off the payload's canonical text, is paperId's (docs/record.md#identifiers).
import t from 'tap';
import fc from 'fast-check';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { paperId, paperIdOfText } from '../../lib/protocol/ids.js';

const idOfText = (p: { ts: string } & Record<string, unknown>) => paperIdOfText(canonicalize(p), p.ts);

t.test('the id from the text is paperId, wherever ts stands among the members', async (t) => {
  const ts = '2026-11-27T16:00:00.000Z';
  for (const p of [
    { ts },
    { a: 1, ts },
    { ts, z: [1, 2] },
    { abstract: 'x', claims: [{ text: 'y' }], title: 't', ts, v: 2 },
    // A nested ts of another value is not the payload's.
    { agent: { handle: 'h', ts: '2020-01-01T00:00:00.000Z' }, ts },
  ]) {
    const id = idOfText(p);
    t.equal(id, paperId(p), JSON.stringify(p));
  }
});

t.test('a member named ts nested with the same value leaves the answer to paperId', async (t) => {
  const ts = '2026-11-27T16:00:00.000Z';
  t.equal(idOfText({ agent: { ts }, ts }), null);
  // A member name ending in "ts" written with an escaped quote reads the same in the text.
  t.equal(idOfText({ 'a"ts': ts, ts }), null);
});

t.test('for any payload, the id from the text is null or paperId', async () => {
  const member = fc.oneof(fc.constant('ts'), fc.string({ maxLength: 4 }));
  const value = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constant('T'),
      fc.string({ maxLength: 6 }),
      fc.integer(),
      fc.array(tie('v'), { maxLength: 3 }),
      fc.dictionary(member, tie('v'), { maxKeys: 3 }),
    ),
  })).v;
  fc.assert(
    fc.property(fc.dictionary(member, value, { maxKeys: 5 }), fc.oneof(fc.constant('T'), fc.string()), (rest, ts) => {
      const p = { ...rest, ts };
      const id = idOfText(p);
      return id === null || id === paperId(p);
    }),
    { numRuns: 2000 },
  );
});
