// Strings by row held as UTF-8 bytes (lib/record/stores/texts.ts, docs/record.md "How the state is kept"), the papers' titles,
// against the list of strings they replace: random strings of every kind (ASCII, accents, CJK, emoji as surrogate pairs, lone
// surrogates that UTF-8 cannot hold, empty, and null: a text withheld from a verifier), restored half way from their packed
// form as a snapshot reads a column back (in a buffer of its own with room to grow): every string spelled back exactly, and a
// packed copy unchanged by later pushes.
import t from 'tap';
import fc from 'fast-check';
import { Texts, type TextsData } from '../../lib/record/stores/texts.js';
import { restored, withRoom } from '../../lib/record/stores/columns.js';
import { Papers } from '../../lib/record/stores/paper-store.js';

const text = fc.oneof(
  { arbitrary: fc.string({ maxLength: 80 }), weight: 4 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.constantFrom('', '\ud800', 'a\udc00b', '\udbff\udfff', 'é', '数据', '🧪 probes'), weight: 1 },
);

/** `column` as a snapshot reads it back: in a buffer of its own, with room to grow, the view its length (fold/state-copy.ts). */
function readBack<T extends Uint8Array | Float64Array>(column: T): T {
  const make = column.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => T;
  const own = new make(new ArrayBuffer(withRoom(column.length) * column.BYTES_PER_ELEMENT), 0, column.length);
  own.set(column as never);
  return restored(own);
}

const restore = (d: TextsData): Texts =>
  Texts.unpack({ bytes: readBack(d.bytes), ends: readBack(d.ends), apart: structuredClone(d.apart) });

t.test('each string spelled back exactly, as a list of strings would, restored half way', async (t) => {
  fc.assert(
    fc.property(fc.array(text, { maxLength: 300 }), fc.nat(), (texts, cut) => {
      let store = new Texts();
      const half = texts.length === 0 ? 0 : cut % (texts.length + 1);
      let packed: { data: TextsData; bytes: number[]; upTo: number } | undefined;
      for (let i = 0; i < texts.length; i++) {
        if (i === half) {
          const data = store.pack();
          packed = { data, bytes: [...data.bytes], upTo: i };
          store = restore(data);
        }
        if (store.push(texts[i]!) !== i) throw new Error(`text ${i} pushed at another row`);
      }
      if (store.length !== texts.length) return false;
      for (let row = 0; row < texts.length; row++) if (store.at(row) !== texts[row]) return false;
      // What was packed is what it was: the pushes after it wrote past its end, or into a column grown anew.
      if (packed !== undefined) {
        if (packed.data.ends.length !== packed.upTo || [...packed.data.bytes].join() !== packed.bytes.join()) return false;
        const before = restore(packed.data);
        for (let row = 0; row < packed.upTo; row++) if (before.at(row) !== texts[row]) return false;
      }
      return true;
    }),
    { numRuns: 300 },
  );
  t.pass('300 random runs');
});

t.test('a string UTF-8 cannot hold, and a withheld text (null), are held apart; the others are bytes', async (t) => {
  const store = new Texts();
  for (const s of ['Sparse probes', '\ud800 alone', null, 'Übung 数据 🧪']) store.push(s);
  const d = store.pack();
  t.same(d.apart, [
    [1, '\ud800 alone'],
    [2, null],
  ]);
  t.equal(Buffer.from(d.bytes).toString('utf8'), 'Sparse probesÜbung 数据 🧪');
  t.same([...d.ends], [13, 13, 13, 13 + Buffer.byteLength('Übung 数据 🧪')]);
  t.equal(restore(d).at(1), '\ud800 alone');
  t.equal(restore(d).at(2), null);
  t.equal(store.at(3), 'Übung 数据 🧪');
  t.throws(() => store.at(4), /row 4 is not of 4 texts/);
});

t.test('packed texts that do not hold together are refused', async (t) => {
  const store = new Texts();
  store.push('ab');
  store.push('cd');
  const d = store.pack();
  t.throws(() => Texts.unpack({ ...d, ends: new Float64Array([3, 2]) }), /text 1 ends at 2, before 3/);
  t.throws(() => Texts.unpack({ ...d, bytes: d.bytes.subarray(0, 3) }), /2 texts end at 4, in 3 bytes/);
  t.throws(() => Texts.unpack({ ...d, apart: [[2, 'x']] }), /a text held apart at row 2/);
});

t.test("a paper's title read back from the papers' store, restored", async (t) => {
  const papers = Papers.empty();
  const titles = ['Sparse probes find the feature', 'Dense readouts 🧪 miss it', 'a lone \udfff'];
  titles.forEach((title, i) =>
    papers.add({
      id: `rec:${String(i).padStart(16, '0')}`,
      seq: i + 1,
      ts: '2026-11-28T17:00:00.000Z',
      agent: 'alice',
      operatorId: 'lab-a',
      title,
      field: 'ml',
      claims: [],
      buildsOn: [],
      models: [],
    }),
  );
  const back = Papers.unpack(structuredClone(papers.pack()));
  t.same(
    [0, 1, 2].map((row) => back.at(row).title),
    titles,
  );
});
