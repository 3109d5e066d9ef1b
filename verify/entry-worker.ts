// A worker thread of the verifier: checks a batch of served entries (as JSON lines) for what
// needs no other entry: the entryHash from the leaf fields, and, unless fields are withheld, the
// payloadHash from the payload and the signature. Returns the leaf hashes for the root, the
// problems, how many were withheld, and the time spent hashing and verifying signatures.
import { parentPort, workerData } from 'node:worker_threads';
import { SERVICE_EVENTS } from '../lib/record/registry.js';
import { signatureProblem, type LogKeys } from '../lib/record/entry-signature.js';
import { entryHashes } from './entry-hashes.js';

const keys = workerData as LogKeys | null;
const isEvent = (type: string) => SERVICE_EVENTS.has(type);

export interface BatchResult {
  id: number;
  leaves: Uint8Array;
  problems: { kind: 'hash' | 'signature'; seq: number; detail: string }[];
  withheld: number;
  hashMs: number;
  signatureMs: number;
}

parentPort!.on('message', (m: { id: number; from: number; lines: string[] }) => {
  const leaves = new Uint8Array(32 * m.lines.length);
  const problems: BatchResult['problems'] = [];
  let withheld = 0;
  let hashMs = 0;
  let signatureMs = 0;
  m.lines.forEach((line, i) => {
    const seq = m.from + i;
    const t0 = performance.now();
    const e = JSON.parse(line);
    const { leaf, text, payloadOk, problems: wrong } = entryHashes(e, seq);
    leaves.set(leaf, 32 * i);
    const t1 = performance.now();
    hashMs += t1 - t0;
    for (const detail of wrong) problems.push({ kind: 'hash', seq, detail });
    // Withheld fields: the payload hash commits to text the verifier does not see.
    if (text === null) {
      withheld++;
      return;
    }
    if (!payloadOk || keys === null) return;
    const why = signatureProblem(e.type, text, keys, isEvent);
    signatureMs += performance.now() - t1;
    if (why !== null) problems.push({ kind: 'signature', seq, detail: `${e.type}: ${why}` });
  });
  const result: BatchResult = { id: m.id, leaves, problems, withheld, hashMs, signatureMs };
  parentPort!.postMessage(result, [leaves.buffer]);
});
