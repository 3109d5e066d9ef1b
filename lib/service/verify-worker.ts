// A worker thread of the VerifyPool: verifies batches of [key, message, signature].
import { parentPort } from 'node:worker_threads';
import { verifySignature } from '../protocol/ed25519.js';

const encoder = new TextEncoder();

parentPort!.on('message', ({ batch, jobs }: { batch: number; jobs: [string, string, string][] }) => {
  const results = jobs.map(([key, message, signature]) => verifySignature(key, encoder.encode(message), signature));
  parentPort!.postMessage({ batch, results });
});
