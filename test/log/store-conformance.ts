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
  return { treeSize, rootHash: 'ab'.repeat(32), timestamp: '2026-01-01T00:00:00.000Z', signature: `sig${treeSize}`, checkpoint: `cp${treeSize}\n` };
}

function batch(first: number, n: number): CommitBatch {
  const seqs = Array.from({ length: n }, (_, i) => first + i);
  return {
    first,
    entries: seqs.map((s) => bytes(`entry ${s}`)),
    groups: seqs.map((s) => bytes(`group ${s}`)),
    head: head(first + n),
  };
}

export function storeConformance(t: Test, name: string, factory: StoreFactory): void {
  t.test(`${name}: an empty store has no head and no data`, async (t) => {
    const store = await factory.create(t);
    t.equal(await store.readHead(), null);
    t.same(await store.readEntries(0, 10), []);
    t.same(await store.readGroups(0, 10), []);
    t.same(await store.getGroups([0, 5]), [undefined, undefined]);
    await store.close();
  });

  t.test(`${name}: commits are read back in order, by range and by seq`, async (t) => {
    const store = await factory.create(t);
    await store.commit(batch(0, 3));
    await store.commit(batch(3, 4));
    t.same(await store.readHead(), head(7));
    t.same((await store.readEntries(0, 100)).map(text), [0, 1, 2, 3, 4, 5, 6].map((s) => `entry ${s}`));
    t.same((await store.readEntries(2, 3)).map(text), ['entry 2', 'entry 3', 'entry 4']);
    t.same((await store.readGroups(5, 10)).map(text), ['group 5', 'group 6']);
    t.same((await store.readEntries(7, 1)).map(text), []);
    t.same((await store.getGroups([6, 0, 9, 3])).map(text), ['group 6', 'group 0', undefined, 'group 3']);
    await store.close();
  });

  t.test(`${name}: seqs beyond 2^32 keep their order`, async (t) => {
    const store = await factory.create(t);
    const first = 2 ** 32 - 2;
    await store.commit(batch(first, 4));
    t.same((await store.readEntries(first, 4)).map(text), [0, 1, 2, 3].map((i) => `entry ${first + i}`));
    t.same((await store.getGroups([2 ** 32 + 1])).map(text), [`group ${2 ** 32 + 1}`]);
    await store.close();
  });

  t.test(`${name}: what was committed survives a reopen`, async (t) => {
    let store = await factory.create(t);
    await store.commit(batch(0, 5));
    store = await factory.reopen(t, store);
    t.same(await store.readHead(), head(5));
    t.same((await store.readEntries(0, 5)).map(text), [0, 1, 2, 3, 4].map((s) => `entry ${s}`));
    t.same((await store.readGroups(4, 1)).map(text), ['group 4']);
    await store.close();
  });
}
