// The papers' ids and the claims' refs held as numbers (lib/record/stores/short-keys.ts, docs/record.md "How the state is
// kept") against the list and Map of strings they replace, on random keys of the record's forms and of others that must be
// held apart (an upper-case digit, a leading zero, `#C0`, a long prefix, another suffix), restored from their packed form
// half way: every key spelled back as it was pushed, found at its row, and a near miss found nowhere.
import t from 'tap';
import fc from 'fast-check';
import { ShortKeys } from '../../lib/record/stores/short-keys.js';

const hex16 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((n) => n.toString(16).padStart(16, '0'));

/** A key of the record's forms, or of one the store must hold apart. */
const key = fc.oneof(
  { arbitrary: hex16.map((h) => `rec:${h}`), weight: 4 },
  { arbitrary: fc.tuple(hex16, fc.integer({ min: 1, max: 40 })).map(([h, n]) => `rec:${h}#C${n}`), weight: 8 },
  { arbitrary: hex16.map((h) => `ext:${h}`), weight: 2 },
  {
    arbitrary: fc
      .tuple(hex16, fc.constantFrom('#C0', '#C01', '#X1', '#C', '#C2147483648', '#C99999999999', 'x', '#C1 '))
      .map(([h, s]) => `rec:${h}${s}`),
    weight: 1,
  },
  { arbitrary: hex16.map((h) => `rec:${h.toUpperCase().replace(/^[0-9]/, 'A')}`), weight: 1 },
  { arbitrary: fc.tuple(fc.constantFrom('toolongprefix', 'Rec', 'a1', ''), hex16).map(([p, h]) => `${p}:${h}`), weight: 1 },
  { arbitrary: fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), hex16).map(([p, h]) => `${p}:${h}#C7`), weight: 1 },
  { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
);

/** A key like `k` that is not it: its n, prefix or last digit changed. */
function nearMiss(k: string): string {
  if (/#C\d+$/.test(k)) return k.replace(/#C(\d+)$/, (_, n: string) => `#C${Number(n) + 1}`);
  if (k.startsWith('rec:')) return `ext:${k.slice(4)}`;
  const last = k.at(-1) === '0' ? '1' : '0';
  return k.slice(0, -1) + last;
}

t.test('each key spelled back and found at its row, as a list and a Map of the strings would, restored half way', async (t) => {
  fc.assert(
    fc.property(fc.uniqueArray(key, { maxLength: 300 }), fc.nat(), (keys, cut) => {
      let store = new ShortKeys();
      const rows = new Map<string, number>();
      const half = keys.length === 0 ? 0 : cut % (keys.length + 1);
      keys.forEach((k, i) => {
        if (i === half) store = ShortKeys.unpack(structuredClone(store.pack()));
        rows.set(k, i);
        if (store.push(k) !== i) throw new Error(`${k} pushed at another row`);
      });
      if (store.length !== keys.length) return false;
      if (![...store].every((k, row) => k === keys[row])) return false;
      for (const [k, row] of rows) {
        if (store.at(row) !== k || store.find(k) !== row) return false;
        const miss = nearMiss(k);
        if (store.find(miss) !== (rows.get(miss) ?? -1)) return false;
      }
      return true;
    }),
    { numRuns: 300 },
  );
  t.pass('300 random runs of keys of every form');
});

t.test("the record's keys held as numbers; others held apart and still found", async (t) => {
  const keys = new ShortKeys();
  const id = 'rec:00ff00ff00ff00ff';
  keys.push(id);
  keys.push(`${id}#C1`);
  keys.push(`${id}#C12`);
  keys.push('ext:0123456789abcdef');
  keys.push(`${id}#C01`);
  keys.push('REC:00ff00ff00ff00ff');
  const packed = keys.pack();
  t.same(packed.prefixes, ['rec', 'ext'], 'two prefixes, each held once');
  t.same(
    packed.apart,
    [
      [4, `${id}#C01`],
      [5, 'REC:00ff00ff00ff00ff'],
    ],
    'a leading zero and an upper-case prefix held as their strings',
  );
  t.same([packed.hi[0], packed.lo[0], packed.n[0], packed.n[2]], [0x00ff00ff, 0x00ff00ff, 0, 12], 'the hex as two halves, n apart');
  t.equal(keys.find(`${id}#C2`), -1, 'a claim number never pushed');
  t.equal(keys.find('rec:00ff00ff00ff00fe'), -1, 'another id');
  t.equal(keys.find(`${id}#C01`), 4, 'a key held apart is found');
  const back = ShortKeys.unpack(structuredClone(packed));
  t.same([...back], [...keys], 'read back from its packed form: the same keys in the same rows');
  t.equal(back.find(`${id}#C3`), -1, 'not held yet');
  t.equal(back.push(`${id}#C3`), 6, 'pushed after, at the next row');
  t.equal(back.find(`${id}#C3`), 6, 'found once pushed, though the lookup just before found nothing');
  t.equal(back.find(`${id}#C12`), 2);
});

t.test("a claim's n in a byte until one needs more: Uint8, Uint16, Int32, every key still found and spelled", async (t) => {
  let store = new ShortKeys();
  const keys: string[] = [];
  const kinds: string[] = [];
  for (let i = 0; i < 600; i++) {
    const n = i === 200 ? 300 : i === 400 ? 2 ** 31 - 1 : (i % 3) + 1;
    keys.push(`rec:${i.toString(16).padStart(16, '0')}#C${n}`);
    store.push(keys[i]!);
    if (i === 199 || i === 200 || i === 400) kinds.push(store.pack().n.constructor.name);
    if (i === 300) store = ShortKeys.unpack(store.pack());
  }
  t.same(kinds, ['Uint8Array', 'Uint16Array', 'Int32Array']);
  const back = ShortKeys.unpack(store.pack());
  t.ok(
    keys.every((k, row) => back.find(k) === row && back.at(row) === k),
    'each of 600 keys found at its row and spelled back',
  );
});
