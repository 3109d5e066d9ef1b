// One conformance suite that every LogStore implementation runs.
import type { Test } from 'tap';
import type { CommitBatch, LogStore, StoredHead } from '../src/store.js';

export interface StoreFactory {
  /** A new, empty store. */
  create(t: Test): Promise<LogStore>;
  /** The entry stored at `seq` (default: `entry`, bytes of any kind); a store whose framing takes only some shapes gives its own. */
  entry?: (seq: number) => Uint8Array;
  /** The same store after closing it, as a later process would open it. */
  reopen(t: Test, store: LogStore): Promise<LogStore>;
}

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());
const hex = (entries: Uint8Array[]): string[] => entries.map((e) => Buffer.from(e).toString('hex'));

/** Entry `seq` as the suite stores it by default: bytes of any kind (a newline, a NUL, 0xff, nothing at all for some). */
export function entry(seq: number): Uint8Array {
  if (seq % 97 === 5) return new Uint8Array(0);
  return Buffer.concat([bytes(`entry ${seq}\n{"n":${seq}}`), Uint8Array.of(0, 0xff, seq % 256)]);
}

/** A head of `treeSize` whose root is `root` repeated (the stores keep it as given). */
export function head(treeSize: number, root = 'ab'): StoredHead {
  return {
    treeSize,
    rootHash: root.repeat(32),
    timestamp: '2026-01-01T00:00:00.000Z',
    signature: `sig${treeSize}`,
    checkpoint: `cp${treeSize}\n`,
  };
}

/** A commit of entries [first, first + n) with `tiles` ([level, index, text]), under a head whose root is `root` repeated. */
export function batch(
  first: number,
  n: number,
  tiles: [number, number, string][] = [],
  root = 'ab',
  make: (seq: number) => Uint8Array = entry,
): CommitBatch {
  return {
    first,
    entries: Array.from({ length: n }, (_, i) => make(first + i)),
    tiles: tiles.map(([level, index, v]) => ({ id: { level, index }, bytes: bytes(v) })),
    head: head(first + n, root),
  };
}

export function storeConformance(t: Test, name: string, factory: StoreFactory): void {
  const make = factory.entry ?? entry;
  const batchOf = (first: number, n: number, tiles: [number, number, string][] = [], root = 'ab') => batch(first, n, tiles, root, make);
  const entries = (seqs: number[]) => hex(seqs.map(make));
  t.test(`${name}: an empty store has no head and no data`, async (t) => {
    const store = await factory.create(t);
    t.equal(await store.readHead(), null);
    t.same(await store.readEntries(0, 10), []);
    t.same(await store.getTiles([{ level: 0, index: 0 }]), [undefined]);
    await store.close();
  });

  t.test(`${name}: commits are read back in order; a tile written again is replaced`, async (t) => {
    const store = await factory.create(t);
    await store.commit(batchOf(0, 3, [[0, 0, 'tile 0/0 v1']]));
    await store.commit(
      batchOf(3, 4, [
        [0, 0, 'tile 0/0 v2'],
        [0, 1, 'tile 0/1'],
        [1, 0, 'tile 1/0'],
      ]),
    );
    t.same(await store.readHead(), head(7));
    t.same(hex(await store.readEntries(0, 100)), entries([0, 1, 2, 3, 4, 5, 6]));
    t.same(hex(await store.readEntries(2, 3)), entries([2, 3, 4]));
    t.same(await store.readEntries(7, 1), []);
    const tiles = await store.getTiles([
      { level: 1, index: 0 },
      { level: 0, index: 0 },
      { level: 0, index: 2 },
      { level: 0, index: 1 },
    ]);
    t.same(tiles.map(text), ['tile 1/0', 'tile 0/0 v2', undefined, 'tile 0/1']);
    await store.close();
  });

  t.test(`${name}: seqs and tile indexes beyond 2^32 keep their order and place`, async (t) => {
    const store = await factory.create(t);
    // A store is written from a bundle boundary on (2^32 - 256 is one), here across 2^32.
    const first = 2 ** 32 - 256;
    await store.commit(batchOf(first, 260, [[0, 2 ** 33 + 1, 'far tile']]));
    const at = 2 ** 32 - 2;
    t.same(hex(await store.readEntries(at, 10)), entries([0, 1, 2, 3, 4, 5].map((i) => at + i)));
    t.same(
      (
        await store.getTiles([
          { level: 0, index: 2 ** 33 + 1 },
          { level: 0, index: 1 },
        ])
      ).map(text),
      ['far tile', undefined],
    );
    await store.close();
  });

  t.test(`${name}: what was committed survives a reopen`, async (t) => {
    let store = await factory.create(t);
    await store.commit(batchOf(0, 5, [[0, 0, 'tile']]));
    store = await factory.reopen(t, store);
    t.same(await store.readHead(), head(5));
    t.same(hex(await store.readEntries(4, 1)), entries([4]));
    t.same((await store.getTiles([{ level: 0, index: 0 }])).map(text), ['tile']);
    await store.close();
  });

  t.test(`${name}: a snapshot does not see later commits`, async (t) => {
    const store = await factory.create(t);
    await store.commit(batchOf(0, 3, [[0, 0, 'tile v1']]));
    const snap = await store.snapshot();
    await store.commit(batchOf(3, 2, [[0, 0, 'tile v2']]));
    t.same(await snap.readHead(), head(3));
    t.same(hex(await snap.readEntries(0, 10)), entries([0, 1, 2]));
    t.same((await snap.getTiles([{ level: 0, index: 0 }])).map(text), ['tile v1']);
    await snap.close();
    t.same(await store.readHead(), head(5), 'the store itself sees them');
    t.same((await store.getTiles([{ level: 0, index: 0 }])).map(text), ['tile v2']);
    await store.close();
  });

  t.test(`${name}: a commit with no entries rolls back to an earlier head, and the log grows again from it`, async (t) => {
    const store = await factory.create(t);
    await store.commit(
      batchOf(0, 300, [
        [0, 0, 'tile 0/0 full'],
        [0, 1, 'tile 0/1 of 44'],
        [1, 0, 'tile 1/0 of 1'],
      ]),
    );
    // A commit that landed although it was reported failed: 300 more entries, tiles 0/1 and 0/2.
    await store.commit(
      batchOf(300, 300, [
        [0, 1, 'tile 0/1 full'],
        [0, 2, 'tile 0/2 of 88'],
        [1, 0, 'tile 1/0 of 2'],
      ]),
    );
    // The roll-back to 300, with the head's growing tiles.
    await store.commit({
      first: 300,
      entries: [],
      tiles: batchOf(0, 0, [
        [0, 1, 'tile 0/1 of 44'],
        [1, 0, 'tile 1/0 of 1'],
      ]).tiles,
      head: head(300),
    });
    t.same(await store.readHead(), head(300));
    t.equal((await store.readEntries(0, 1000)).length, 300, 'no entry beyond the head is read');
    t.same(
      (
        await store.getTiles([
          { level: 0, index: 0 },
          { level: 0, index: 1 },
          { level: 0, index: 2 },
          { level: 1, index: 0 },
        ])
      ).map(text),
      ['tile 0/0 full', 'tile 0/1 of 44', undefined, 'tile 1/0 of 1'],
    );
    await store.commit(batchOf(300, 10, [[0, 1, 'tile 0/1 of 54']]));
    const again = await factory.reopen(t, store);
    t.same(await again.readHead(), head(310));
    t.same(hex(await again.readEntries(298, 100)), entries([298, 299, 300, 301, 302, 303, 304, 305, 306, 307, 308, 309]));
    t.same((await again.getTiles([{ level: 0, index: 1 }])).map(text), ['tile 0/1 of 54']);
    await again.close();
  });
}
