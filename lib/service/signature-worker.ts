// A worker thread of the verified replay: checks the signatures of pages of entries.
import { parentPort, workerData } from 'node:worker_threads';
import type { LoggedEntry } from '../protocol/log-entry.js';
import { SERVICE_EVENTS } from '../record/types/index.js';
import { signatureProblem, type LogKeys } from '../record/admission/index.js';

const keys = workerData as LogKeys;
const isEvent = (type: string) => SERVICE_EVENTS.has(type);

parentPort!.on('message', (m: { id: number; from: number; records: LoggedEntry[] }) => {
  let problem: { seq: number; detail: string } | null = null;
  for (let i = 0; i < m.records.length && problem === null; i++) {
    const r = m.records[i]!;
    const detail = signatureProblem(r.type, r.payload, keys, isEvent);
    if (detail !== null) problem = { seq: r.seq, detail };
  }
  parentPort!.postMessage({ id: m.id, problem });
});
