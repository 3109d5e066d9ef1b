// A worker thread of the audit: checks pages of records (audit-page.ts) sent by the auditor.
import { parentPort } from 'node:worker_threads';
import { checkPage } from './audit-page.js';

parentPort!.on('message', (m: { id: number; from: number; records: string[] }) => {
  const result = checkPage(m.from, m.records);
  parentPort!.postMessage({ id: m.id, ...result });
});
