// A worker thread of the audit: checks pages of stored entries (audit-page.ts) sent by the
// auditor, with the codec it imports from the module the codec names (codec.ts, `module`).
import { parentPort, workerData } from 'node:worker_threads';
import { checkPage } from './audit-page.js';
import { fullCodec, type LeafCodec } from './codec.js';

const where = workerData as { url: string; name: string };
const codec = fullCodec(((await import(where.url)) as Record<string, LeafCodec>)[where.name]);

parentPort!.on('message', (m: { id: number; from: number; records: Uint8Array[]; prev: Uint8Array; before: Uint8Array | null }) => {
  const result = checkPage(codec, m.from, m.records, m.prev, m.before);
  parentPort!.postMessage({ id: m.id, ...result });
});
