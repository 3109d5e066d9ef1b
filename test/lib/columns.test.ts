// The compact stores of the state (lib/record/stores/columns.ts, docs/record.md "How the state is kept")
// against the plain structures they replace, on random operations: the replay index against a
// Map of hash to {seq, ts} pruned as replay-window.ts once pruned it (rows noted again, odd ts
// spellings, restores from the packed form half way), the row index against a Set under
// inserts and removals, a copy of its slots read later as they stood at the copy, 64-hex ids found only by
// their canonical spelling, entry times read without Date.parse exactly when the ts spells back, and numbers from 0 to 1
// held in ten-thousandths until one is not.
import t from 'tap';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import {
  Ascending,
  ChangingColumn,
  type Floats,
  HexIds,
  isoMs,
  isoTs,
  RowIndex,
  columnCopy,
  decimalAt,
  decimalFitting,
  setDecimal,
  tsMs,
  type Decimals,
  SeenIndex,
  type ColumnCopy,
  type Shorts,
  WholeOrDoubles,
} from '../../lib/record/stores/index.js';

const hash = (n: number) => createHash('sha256').update(String(n)).digest('hex');

t.test('entry times: the log spelling is read without Date.parse and spelled back; any other is NaN', async (t) => {
  fc.assert(
    fc.property(fc.integer({ min: Date.parse('1000-01-01T00:00:00.000Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }), (ms) => {
      const ts = new Date(ms).toISOString();
      return isoMs(ts) === ms && tsMs(ts) === ms && isoTs(ms) === ts && Date.parse(ts) === ms;
    }),
    { numRuns: 5000 },
  );
  t.pass('5,000 random times from year 1000 to 9999 read and spelled back');
  for (const odd of [
    '2030-01-01T00:00:00Z',
    '2030-01-01T00:00:00.0000Z',
    '2030-02-30T00:00:00.000Z',
    '2031-02-29T00:00:00.000Z',
    '2030-13-01T00:00:00.000Z',
    '2030-01-01T24:00:00.000Z',
    '2030-01-01 00:00:00.000Z',
    '0999-01-01T00:00:00.000Z',
    '+02030-01-01T00:00:00.000Z',
    '2030-01-01T00:00:00.000z',
    'not a time at all, 24 ch',
  ]) {
    t.ok(Number.isNaN(isoMs(odd)), `${odd}: not the log's spelling`);
    t.ok(Object.is(tsMs(odd), Date.parse(odd)), `${odd}: read as Date.parse reads it`);
  }
  t.equal(isoMs('2032-02-29T12:00:00.000Z'), Date.parse('2032-02-29T12:00:00.000Z'), 'a leap day');
});

t.test('64-hex ids: found by their canonical spelling only', async (t) => {
  const ids = new HexIds();
  const all = Array.from({ length: 3000 }, (_, i) => hash(i));
  t.ok(
    all.every((h, i) => ids.push(h) === i),
    'each pushed at the next row',
  );
  t.ok(
    all.every((h, i) => ids.find(h) === i && ids.hex(i) === h),
    'every id at its row, spelled back',
  );
  t.equal(ids.find(all[7]!.toUpperCase()), -1, 'upper case is another string');
  t.equal(ids.find(all[7]!.slice(1)), -1);
  t.equal(ids.find(`${all[7]!.slice(0, 63)}g`), -1);
  t.equal(ids.find(hash(-1)), -1, 'an id never pushed');
  t.throws(() => ids.push('xyz'), /expected 64 lowercase hex digits/);
  const back = HexIds.unpack(ids.pack(), (row) => row % 2 === 0);
  t.equal(back.find(all[10]!), 10);
  t.equal(back.find(all[11]!), -1, 'a row not kept live is not indexed');
});

/** Inserts (true) or removes (false) each row in `index` and in `model`, a Set of the rows it must hold (no-ops skipped). */
function applyOps(index: RowIndex, model: Set<number>, ops: readonly [boolean, number][]): void {
  for (const [add, row] of ops)
    if (add && !model.has(row)) {
      index.insert(row);
      model.add(row);
    } else if (!add && model.has(row)) {
      index.remove(row);
      model.delete(row);
    }
}

t.test('the row index: the rows a Set holds, under random inserts and removals', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat({ max: 300 })), { maxLength: 2000 }), (ops) => {
      const keys = Array.from({ length: 301 }, (_, i) => (i * 2654435761) % 97); // many collisions
      const index = new RowIndex((row) => keys[row]!);
      const model = new Set<number>();
      applyOps(index, model, ops);
      for (let row = 0; row <= 300; row++) if (index.find(keys[row]!, (r) => r === row) >= 0 !== model.has(row)) return false;
      return index.size === model.size;
    }),
    { numRuns: 300 },
  );
  t.pass('held for every random sequence');
});

t.test(
  'a copy of the row index: its slots as they stood at the copy, whatever inserts, removals and resizes land before it is read',
  async (t) => {
    // Keys spread over every page of the slots, each shared by two rows (probes run on, and across pages).
    const keys = Array.from({ length: 6000 }, (_, i) => Math.imul(i % 3000, 0x9e3779b1));
    const op = fc.tuple(fc.boolean(), fc.nat({ max: 5999 }));
    const step = fc.oneof(
      {
        arbitrary: fc.record({ k: fc.constant('ops' as const), ops: fc.array(op, { minLength: 1, maxLength: 400, size: 'max' }) }),
        weight: 6,
      },
      { arbitrary: fc.constant({ k: 'copy' as const }), weight: 1 },
      {
        arbitrary: fc.record({ k: fc.constant('read' as const), which: fc.nat(), from: fc.nat({ max: 9000 }), n: fc.nat({ max: 3000 }) }),
        weight: 2,
      },
      { arbitrary: fc.record({ k: fc.constant('release' as const), which: fc.nat() }), weight: 1 },
    );
    let copies = 0;
    let pages = 0;
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 100, maxLength: 5000, size: 'max' }),
        fc.array(step, { maxLength: 30, size: 'max' }),
        (before, steps) => {
          const index = new RowIndex((row) => keys[row]!);
          const model = new Set<number>();
          const apply = (ops: [boolean, number][]) => applyOps(index, model, ops);
          apply(before);
          // Each copy beside the slots it must give: a copy of them made at once.
          const taken: { copy: ColumnCopy; was: Int32Array; released: boolean }[] = [];
          const take = () => {
            const slots = index.slotsNow();
            taken.push({ copy: columnCopy(slots)!, was: slots.slice(), released: false });
            copies++;
          };
          const same = (c: (typeof taken)[number], from: number, to: number) => {
            const out = new Int32Array(c.was.length).fill(-1);
            c.copy.read(out, from, to);
            for (let i = 0; i < out.length; i++) if (out[i] !== (i >= from && i < to ? c.was[i] : -1)) return false;
            return true;
          };
          take();
          for (const s of steps) {
            if (s.k === 'ops') apply(s.ops);
            else if (s.k === 'copy') take();
            else {
              // A copy is read until it is released, not after.
              const open = taken.filter((c) => !c.released);
              const c = open[s.which % Math.max(1, open.length)];
              if (c === undefined) continue;
              if (s.k === 'read') {
                const from = s.from % c.was.length;
                if (!same(c, from, Math.min(c.was.length, from + s.n))) return false;
              } else {
                if (!same(c, 0, c.was.length)) return false;
                c.copy.release();
                c.released = true;
              }
            }
          }
          for (const c of taken) if (!c.released && !same(c, 0, c.was.length)) return false;
          pages += Math.ceil(index.slotsNow().length / 1024);
          for (let row = 0; row < 6000; row++) if (index.find(keys[row]!, (r) => r === row) >= 0 !== model.has(row)) return false;
          return index.size === model.size;
        },
      ),
      { numRuns: 200 },
    );
    t.ok(pages > 400, `held for every random sequence (${copies} copies, slots of ${pages} pages in all)`);
    t.equal(columnCopy(new Int32Array(16)), undefined, "a column that is no index's slots has no such copy");
  },
);

/** Whether, on random steps, `make()`'s column holds the rows an array holds, and each copy its rows as they stood then. */
function changingHolds(make: () => ChangingColumn<Floats | Shorts>, value: fc.Arbitrary<number>): number {
  const set = fc.tuple(fc.nat({ max: 5000 }), value);
  const step = fc.oneof(
    { arbitrary: fc.array(set, { minLength: 1, maxLength: 300 }), weight: 6 },
    { arbitrary: fc.constant('copy' as const), weight: 1 },
    { arbitrary: fc.constant('release' as const), weight: 1 },
  );
  let copies = 0;
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const column = make();
      const model: number[] = [];
      const taken: { copy: ColumnCopy; was: number[] }[] = [];
      const holds = (c: (typeof taken)[number]) => {
        const out = c.copy.empty();
        c.copy.read(out, 0, out.length);
        return out.length === c.was.length && c.was.every((x, i) => Object.is(out[i], x));
      };
      for (const s of steps) {
        if (s === 'copy') {
          taken.push({ copy: columnCopy(column.pack())!, was: Array.from(model, (x) => x ?? 0) });
          copies++;
        } else if (s === 'release') {
          const c = taken.shift();
          if (c !== undefined && !holds(c)) return false;
          c?.copy.release();
        } else
          for (const [i, x] of s) {
            column.set(i, x);
            model[i] = x;
          }
      }
      for (const c of taken) if (!holds(c)) return false;
      // Rows never set read 0, as a new column's do.
      return column.length === model.length && Array.from(model, (x, i) => Object.is(column.at(i), x ?? 0)).every(Boolean);
    }),
    { numRuns: 300 },
  );
  return copies;
}

t.test('a changing column: the rows an array holds, and each copy its rows as they stood, whatever is set and grown after', async (t) => {
  const copies = changingHolds(() => new ChangingColumn(new Float64Array(0)), fc.double({ noNaN: true }));
  t.ok(copies > 100, `held for every random sequence (${copies} copies)`);
  const back = new ChangingColumn(new Float64Array([1, 2, 3]));
  back.set(4, 5);
  t.same(
    Array.from({ length: back.length }, (_, i) => back.at(i)),
    [1, 2, 3, 0, 5],
    'read back from its rows, then grown',
  );
});

t.test('the row index read back: the same rows found, and more indexed after; slots that cannot be an index refused', async (t) => {
  const ids = new HexIds();
  const all = Array.from({ length: 5000 }, (_, i) => hash(i));
  all.slice(0, 1000).forEach((h) => ids.push(h));
  const back = HexIds.unpack(ids.pack().slice(), undefined, ids.packIndex().slice());
  t.ok(
    all.slice(0, 1000).every((h, i) => back.find(h) === i),
    'every id at its row',
  );
  t.equal(back.find(all[1000]!), -1, 'an id not pushed');
  t.ok(
    all.slice(1000).every((h, i) => back.push(h) === 1000 + i),
    'the next ids pushed at the next rows',
  );
  t.ok(
    all.every((h, i) => back.find(h) === i && back.hex(i) === h),
    '4,000 more pushed (the index resized twice): every id at its row',
  );
  const index = new RowIndex(() => 0);
  t.throws(() => index.adopt(new Int32Array(24), 3), /an index of 3 rows cannot have 24 slots/, 'not a power of two');
  t.throws(() => index.adopt(new Int32Array(16), 9), /an index of 9 rows cannot have 16 slots/, 'more than half full');
});

t.test('the replay index: what the Map of the plain state held, in log order, pruned the same', async (t) => {
  const step = fc.oneof(
    {
      arbitrary: fc.record({ k: fc.constant('note' as const), h: fc.nat({ max: 60 }), dt: fc.nat({ max: 90_000 }), odd: fc.boolean() }),
      weight: 8,
    },
    { arbitrary: fc.record({ k: fc.constant('prune' as const), back: fc.nat({ max: 600_000 }), at: fc.option(fc.nat()) }), weight: 3 },
    { arbitrary: fc.constant({ k: 'restore' as const }), weight: 1 },
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 400 }), (steps) => {
      let seen = new SeenIndex();
      // The plain state's index and its queue, as replay-window.ts kept them before the columns.
      const map = new Map<string, { seq: number; ts: string }>();
      let queue: { key: string; time: number; seq: number }[] = [];
      let now = Date.parse('2030-01-01T00:00:00.000Z');
      let seq = 0;
      for (const s of steps) {
        if (s.k === 'note') {
          now += s.dt;
          // An odd spelling: Date.parse reads it, the string is kept as it was.
          const ts = s.odd
            ? new Date(now)
                .toISOString()
                .replace('.000Z', 'Z')
                .replace(/\.(\d\d\d)Z$/, '.$1000Z')
            : new Date(now).toISOString();
          const key = hash(s.h);
          seen.note(key, seq, ts);
          map.delete(key);
          map.set(key, { seq, ts });
          queue.push({ key, time: Date.parse(ts), seq });
          seq++;
        } else if (s.k === 'prune') {
          // A cutoff at exactly a noted write's time, or anywhere.
          const cutoff = s.at !== null && queue.length > 0 ? queue[s.at % queue.length]!.time : now - s.back;
          seen.prune(cutoff);
          let h = 0;
          for (; h < queue.length && queue[h]!.time < cutoff; h++)
            if (map.get(queue[h]!.key)?.seq === queue[h]!.seq) map.delete(queue[h]!.key);
          queue = queue.slice(h);
        } else {
          seen = SeenIndex.unpack(seen.pack());
          queue = [...map].map(([key, v]) => ({ key, time: Date.parse(v.ts), seq: v.seq }));
        }
        if (seen.size !== map.size) return false;
      }
      const got = seen.asMap();
      return JSON.stringify([...got]) === JSON.stringify([...map]) && [...map.keys()].every((k) => seen.get(k)?.seq === map.get(k)!.seq);
    }),
    { numRuns: 300 },
  );
  t.pass('held for every random sequence');
});

t.test(
  'numbers from 0 to 1 in ten-thousandths (2 bytes) while each is one, doubles from the first that is not: each read back as written',
  async (t) => {
    const fourDecimals = fc.integer({ min: 0, max: 10000 }).map((k) => Number((k / 10000).toFixed(4)));
    const any = fc.oneof(
      { weight: 8, arbitrary: fourDecimals },
      { weight: 1, arbitrary: fc.constant(Number.NaN) },
      { weight: 1, arbitrary: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(-0), fc.constant(0.00005)) },
    );
    fc.assert(
      fc.property(fc.array(any, { maxLength: 60 }), (xs) => {
        let a: Decimals = new Uint16Array(4);
        for (const [row, x] of xs.entries()) {
          if (row >= a.length) {
            const b: Decimals = a instanceof Float64Array ? new Float64Array(a.length * 2) : new Uint16Array(a.length * 2);
            b.set(a);
            a = b;
          }
          setDecimal((a = decimalFitting(a, x)), row, x);
        }
        const narrow = xs.every((x) => Number.isNaN(x) || (Math.round(x * 10000) / 10000 === x && !Object.is(x, -0)));
        return a instanceof Uint16Array === narrow && xs.every((x, row) => Object.is(decimalAt(a, row), x));
      }),
      { numRuns: 3000 },
    );
    let a: Decimals = new Uint16Array(3);
    for (const [row, x] of [0.65, Number.NaN, 1].entries()) setDecimal((a = decimalFitting(a, x)), row, x);
    t.same([a.constructor.name, ...a], ['Uint16Array', 6500, 0xffff, 10000], 'written as ten-thousandths, NaN as 0xFFFF');
    const wide = decimalFitting(a, 0.123456);
    t.same([wide.constructor.name, ...wide], ['Float64Array', 0.65, Number.NaN, 1], 'a number of five decimals makes the column doubles');
  },
);

t.test(
  'whole minutes in two bytes, doubles from the first that is not: each copy its rows as they stood, across the widening',
  async (t) => {
    const minutes = fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: 2 ** 16 - 1 }), weight: 30 },
      { arbitrary: fc.oneof(fc.double({ noNaN: true }), fc.constant(2 ** 16), fc.constant(-0)), weight: 1 },
    );
    const copies = changingHolds(() => new WholeOrDoubles(new Uint16Array(0)), minutes);
    t.ok(copies > 100, `held for every random sequence (${copies} copies)`);
    const column = new WholeOrDoubles(new Uint16Array(0));
    column.set(3, 60);
    column.set(1, 10_080);
    const before = columnCopy(column.pack())!;
    t.equal(column.rows.constructor.name, 'Uint16Array', 'whole minutes: two bytes a row');
    column.set(2, 12.5);
    t.equal(column.rows.constructor.name, 'Float64Array', '12.5 minutes: doubles');
    t.same(
      [0, 1, 2, 3].map((i) => column.at(i)),
      [0, 10_080, 12.5, 60],
      'every row as set',
    );
    const out = before.empty();
    before.read(out, 0, out.length);
    t.same([...out], [0, 10_080, 0, 60], 'the copy before: its rows as they stood');
  },
);

t.test('seqs in log order in two bytes a row: each read back as pushed, near, far or lower, across restores', async (t) => {
  const step = fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 40 },
    { arbitrary: fc.integer({ min: 60_000, max: 200_000 }), weight: 1 },
    { arbitrary: fc.integer({ min: -5000, max: -1 }), weight: 1 },
  );
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 30 }), fc.array(step, { maxLength: 1500 }), fc.nat(), (start, steps, cut) => {
      let column = new Ascending();
      const model: number[] = [];
      let x = start;
      for (const [i, d] of steps.entries()) {
        x = Math.max(0, Math.min(2 ** 31 - 1, x + d));
        column.push(x);
        model.push(x);
        if (i === cut % (steps.length || 1)) column = Ascending.unpack(column.pack());
      }
      const back = Ascending.unpack(column.pack());
      return back.length === model.length && model.every((v, row) => column.at(row) === v && back.at(row) === v);
    }),
    { numRuns: 300 },
  );
  const column = new Ascending();
  for (let seq = 1000; seq < 1600; seq++) column.push(seq);
  column.push(100_000);
  const d = column.pack();
  t.same(
    [d.first.constructor.name, [...d.first], d.offset.constructor.name, d.offset[300], d.offset[600], d.far],
    ['Int32Array', [1000, 1256, 1512], 'Uint16Array', 44, 0xffff, [[600, 100_000]]],
    "a block of 256 rows holds its first seq whole and each row its distance; one 98,400 above its block's first is apart",
  );
  column.push(100_001);
  t.equal(Ascending.unpack(d).length, 601, 'the pack taken before a push holds the rows it had');
});
