import t from 'tap';
import { join } from 'node:path';
import { LevelStore } from '../../log/level-store.js';
import { MemoryStore } from '../../log/memory-store.js';
import type { LogStore } from '../../log/store.js';
import { tempDir } from '../helpers/tmp.js';
import { storeConformance } from './store-conformance.js';

const dirs = new WeakMap<LogStore, string>();

storeConformance(t, 'LevelStore', {
  async create(t) {
    const dir = join(tempDir(t), 'db');
    const store = await LevelStore.open(dir);
    dirs.set(store, dir);
    return store;
  },
  async reopen(_t, store) {
    const dir = dirs.get(store)!;
    await store.close();
    const again = await LevelStore.open(dir);
    dirs.set(again, dir);
    return again;
  },
});

storeConformance(t, 'MemoryStore', {
  async create() {
    return new MemoryStore();
  },
  async reopen(_t, store) {
    // The memory store outlives its "process": reopening is reading the same maps.
    return (store as MemoryStore).reopen();
  },
});

t.test('MemoryStore: injected faults fail the commit before or after the write', async (t) => {
  const store = new MemoryStore();
  const batch = { first: 0, entries: ['e'], tiles: [], head: { treeSize: 1, rootHash: '', timestamp: '', signature: '', checkpoint: '' } };
  store.injectFault('before-write');
  await t.rejects(store.commit(batch), /before write/);
  t.equal(await store.readHead(), null, 'nothing written');
  store.injectFault('after-write');
  await t.rejects(store.commit(batch), /after write/);
  t.equal((await store.readHead())?.treeSize, 1, 'written, acknowledgement lost');
});
