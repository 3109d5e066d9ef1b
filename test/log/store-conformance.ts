// One conformance suite that every LogStore implementation runs (STYLE.md practice 2).
import type { Test } from 'tap';
import type { CommitBatch, LogStore, StoredHead } from '../../log/store.js';

export interface StoreFactory {
  /** A new, empty store. */
  create(t: Test): Promise<LogStore>;
  /** The same store after closing it, as a later process would open it. */
  reopen(t: Test, store: LogStore): Promise<LogStore>;
}

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());

function head(treeSize: number): StoredHead {
  return {
    treeSize,
    rootHash: 'ab'.repeat(32),
    timestamp: '2026-01-01T00:00:00.000Z',
    signature: `sig${treeSize}`,
    checkpoint: `cp${treeSize}\n`,
  };
}

function batch(first: number, n: number, tiles: [number, number, string][] = []): CommitBatch {
  return {
    first,
    entries: Array.from({ length: n }, (_, i) => `entry ${first + i}\n{"n":${first + i}}`),
    tiles: tiles.map(([level, index, v]) => ({ id: { level, index }, bytes: bytes(v) })),
    head: head(first + n),
  };
}

export function storeConformance(t: Test, name: string, factory: StoreFactory): void {
  t.test(`${name}: an empty store has no head and no data`, async (t) => {
    const store = await factory.create(t);
    t.equal(await store.readHead(), null);
    t.same(await store.readEntries(0, 10), []);
    t.same(await store.getTiles([{ level: 0, index: 0 }]), [undefined]);
    await store.close();
  });

  t.test(`${name}: commits are read back in order; a tile written again is replaced`, async (t) => {
    const store = await factory.create(t);
    await store.commit(batch(0, 3, [[0, 0, 'tile 0/0 v1']]));
    await store.commit(
      batch(3, 4, [
        [0, 0, 'tile 0/0 v2'],
        [0, 1, 'tile 0/1'],
        [1, 0, 'tile 1/0'],
      ]),
    );
    t.same(await store.readHead(), head(7));
    t.same(
      await store.readEntries(0, 100),
      [0, 1, 2, 3, 4, 5, 6].map((s) => `entry ${s}\n{"n":${s}}`),
    );
    t.same(
      await store.readEntries(2, 3),
      [2, 3, 4].map((s) => `entry ${s}\n{"n":${s}}`),
    );
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
    await store.commit(batch(first, 260, [[0, 2 ** 33 + 1, 'far tile']]));
    const at = 2 ** 32 - 2;
    t.same(
      await store.readEntries(at, 10),
      [0, 1, 2, 3, 4, 5].map((i) => `entry ${at + i}\n{"n":${at + i}}`),
    );
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
    await store.commit(batch(0, 5, [[0, 0, 'tile']]));
    store = await factory.reopen(t, store);
    t.same(await store.readHead(), head(5));
    t.same(await store.readEntries(4, 1), ['entry 4\n{"n":4}']);
    t.same((await store.getTiles([{ level: 0, index: 0 }])).map(text), ['tile']);
    await store.close();
  });
}
