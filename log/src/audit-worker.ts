// A worker thread of the audit: checks pages of records (audit-page.ts) sent by the auditor.
import { parentPort } from 'node:worker_threads';
import { checkPage } from './audit-page.js';

parentPort!.on('message', (m: { id: number; from: number; records: string[]; prevHash: string; prevTs: string | null }) => {
  const result = checkPage(m.from, m.records, m.prevHash, m.prevTs);
  parentPort!.postMessage({ id: m.id, ...result });
});
