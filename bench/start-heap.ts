// bench:start's child for the heap figure (issue 15, part 2): opens the record of a data dir as
// `archive serve` does (LiveRecord.open, from the snapshot or from zero, with the readers'
// indexes when the code has them, and the served credence text it then makes; the seconds are to
// the record and indexes), collects the garbage, and prints what the process then holds: V8's heap
// in use, the array buffers (where the columns of the state live), and the resident set. It imports
// the record's code from the dist directory it is given, so the same script measures the code of
// another commit built elsewhere.
//   node --expose-gc dist/bench/start-heap.js <dist root> <data dir> <zero|snapshot>
import { existsSync } from 'node:fs';

const [root, dataDir, mode] = process.argv.slice(2) as [string, string, 'zero' | 'snapshot'];

interface Deployment {
  close(): Promise<void>;
}
const { openDeployment } = (await import(`${root}/lib/service/deployment.js`)) as {
  openDeployment(o: { dataDir: string }): Promise<Deployment>;
};
const { LiveRecord } = (await import(`${root}/lib/service/live-record.js`)) as {
  LiveRecord: {
    open(d: Deployment, clock: () => number, off: unknown, o: { snapshot?: string; say?: (l: string) => void }): Promise<unknown>;
  };
};
const { snapshotFile } = (await import(`${root}/lib/service/snapshot.js`)) as { snapshotFile(dir: string): string };

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const d = await openDeployment({ dataDir });
const lines: string[] = [];
const t0 = performance.now();
const record = await LiveRecord.open(d, Date.now, undefined, {
  snapshot: mode === 'snapshot' ? snapshotFile(dataDir) : undefined,
  say: (l) => lines.push(l),
});
// The readers' indexes follow the record in `archive serve` (lib/service/readers.ts): they are part
// of what a service holds after start, counted here for the code that has them.
const readersJs = `${root}/lib/service/readers.js`;
if (existsSync(readersJs)) {
  const { Readers } = (await import(readersJs)) as {
    Readers: { follow(record: unknown, d: unknown): { search: { ready: Promise<void> } } };
  };
  // Code with the search on disk takes the deployment; code before it, the log.
  const onDisk = existsSync(`${root}/lib/service/search-sqlite.js`);
  await Readers.follow(record, onDisk ? d : (d as unknown as { log: unknown }).log).search.ready;
}
const seconds = (performance.now() - t0) / 1000;
// `archive serve` then makes the operators' calibrations and the served credence text of every claim (api/server.ts,
// `afterStart`; the served credence text alone in code before it): held too.
const numbers = (await import(`${root}/lib/record/numbers/index.js`)) as {
  afterStart?: (state: unknown) => Iterable<unknown>;
  credenceMade?: (state: unknown) => Iterable<unknown>;
};
const made = numbers.afterStart ?? numbers.credenceMade;
if (made !== undefined) for (const _ of made((record as { state: unknown }).state));
for (let i = 0; i < 4; i++) gc();
const m = process.memoryUsage();
const mib = (n: number) => n / 2 ** 20;
console.log(
  JSON.stringify({
    seconds,
    heapMiB: mib(m.heapUsed),
    arrayBuffersMiB: mib(m.arrayBuffers),
    rssMiB: mib(m.rss),
    lines,
    held: record !== null,
  }),
);
await d.close();
