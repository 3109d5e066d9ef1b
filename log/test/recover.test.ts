// A failed commit that reached the store all the same, then recovery (docs/log-format.md, "A
// failed write"): the refused entries are rolled back, whatever tile and bundle boundaries they
// crossed, and the log goes on with other entries, audits intact and opens again.
import { bytes, str } from './helpers/text.js';
import t from 'tap';
import { auditLog } from '../src/audit.js';
import { LevelStore } from '../src/level-store.js';
import { MemoryStore } from '../src/memory-store.js';
import { PgStore } from '../src/pg-store.js';
import { Sequencer } from '../src/sequencer.js';
import type { CommitBatch, LogStore } from '../src/store.js';
import { startPostgres, testSigner } from '../src/testing.js';
import { tempDir } from './helpers/tmp.js';

const ORIGIN = 'test.example/recover';

/**
 * Wraps a store: `gate`, when set, holds the next commit until it resolves; after `landAndFail`
 * is set, the next commit after that one is written, then reported failed.
 */
function landing(inner: LogStore): LogStore & { landAndFail: boolean; gate: Promise<void> | null } {
  const s = {
    landAndFail: false,
    gate: null as Promise<void> | null,
    readHead: () => inner.readHead(),
    readEntries: (from: number, count: number) => inner.readEntries(from, count),
    getTiles: (ids: Parameters<LogStore['getTiles']>[0]) => inner.getTiles(ids),
    snapshot: () => inner.snapshot(),
    close: () => inner.close(),
    async commit(b: CommitBatch) {
      const gate = s.gate;
      s.gate = null;
      if (gate !== null) {
        await gate;
        return inner.commit(b);
      }
      await inner.commit(b);
      if (s.landAndFail) {
        s.landAndFail = false;
        throw Object.assign(new Error('ENOSPC: no space left on device (injected after the write)'), { code: 'ENOSPC' });
      }
    },
  };
  return s;
}

// One PostgreSQL server for this file, a new database for each test.
const server = await startPostgres(t);

for (const kind of ['memory', 'leveldb', 'postgres'] as const) {
  // Sizes before the failed batch and its length: within a tile, across a level-0 tile and
  // bundle boundary, and across the first level-1 tile (65,536 leaves) boundary.
  for (const [before, refused] of [
    [100, 10],
    [250, 20],
    [256 * 3 - 1, 300],
    [65_530, 20],
  ] as const) {
    t.test(`${kind}: a refused batch of ${refused} after ${before} entries that reached the store is rolled back`, async (t) => {
      const { signer, verify } = testSigner();
      const dir = tempDir(t);
      const url = kind === 'postgres' ? await server.createDatabase() : '';
      const open = async (): Promise<LogStore> =>
        kind === 'memory' ? memory : kind === 'postgres' ? PgStore.open(url) : LevelStore.open(dir);
      const memory = new MemoryStore();
      const store = landing(await open());
      const log = await Sequencer.open({ store, signer, origin: ORIGIN, maxBatch: 100_000 });
      const text = (i: number, tag: string) => `{"n":${i},"tag":"${tag}"}`;
      await Promise.all(Array.from({ length: before - 1 }, (_, i) => log.append(bytes(text(i, 'kept')))));
      // The last kept entry's commit is held while the refused ones queue, so they form one
      // batch, which reaches the store and is then reported failed.
      let release!: () => void;
      store.gate = new Promise((resolve) => (release = resolve));
      const last = log.append(bytes(text(before - 1, 'kept')));
      store.landAndFail = true;
      const refusedAppends = Array.from({ length: refused }, (_, i) => log.append(bytes(text(before + i, 'refused'))));
      release();
      await last;
      const head = log.sth();
      t.equal(head.treeSize, before);
      const outcomes = await Promise.allSettled(refusedAppends);
      t.ok(
        outcomes.every((o) => o.status === 'rejected'),
        'every append of the failed batch is refused',
      );
      t.ok((await store.readHead())!.treeSize > before, 'the refused batch reached the store');
      t.same(log.sth(), head, 'the served head is the last acknowledged one');
      await log.recover();
      t.equal(log.size, before);
      // Go on past the refused entries' extent, with other entries.
      const more = refused + 300;
      await Promise.all(Array.from({ length: more }, (_, i) => log.append(bytes(text(before + i, 'new')))));
      const entries = await log.entries(before, more);
      t.ok(
        entries.every((e, i) => str(e.bytes) === text(before + i, 'new')),
        'the entries after recovery are the new ones',
      );
      const audit = await auditLog({ store, verify, origin: ORIGIN, publicKey: signer.publicKey });
      t.ok(audit.intact, `the log audits intact: ${JSON.stringify(audit.problem)}`);
      t.equal(audit.treeSize, before + more);
      const root = log.sth().rootHash;
      await log.close();
      if (kind !== 'memory') {
        // Opens again (the tiles it loads match its head) with the same root and entries.
        const again = await Sequencer.open({ store: await open(), signer, origin: ORIGIN });
        t.equal(again.size, before + more);
        t.equal(again.sth().rootHash, root);
        const reread = await again.entries(before, more);
        t.ok(
          reread.every((e, i) => str(e.bytes) === text(before + i, 'new')),
          'the new entries after a reopen',
        );
        await again.close();
      }
    });
  }
}
