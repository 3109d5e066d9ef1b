// A worker thread of the verifier: checks a batch of served entries (as JSON lines) for what
// needs no other entry: the entryHash from the leaf fields, and, unless fields are withheld, the
// payloadHash from the payload and the signature. Returns the leaf hashes for the root, the
// problems, how many were withheld, and the time spent hashing and verifying signatures.
import { parentPort } from 'node:worker_threads';
import { SERVICE_EVENTS } from '../lib/record/types/index.js';
import { parsePublicKey } from '../lib/protocol/ed25519.js';
import { signatureProblem, UNSIGNED_TYPES, type LogKeys, signedHash } from '../lib/record/admission/index.js';
import { entryHashes, lineHashes, type EntryHashes } from './entry-hashes.js';
import type { ServedEntry } from './source.js';
import type { RecordEntry } from '../lib/record/fold/index.js';

const isEvent = (type: string) => SERVICE_EVENTS.has(type);

export interface BatchResult {
  /** The run (entry-pool.ts) and its batch. */
  run: number;
  id: number;
  leaves: Uint8Array;
  /** Per entry, the SHA-256 of its signed bytes (a signed write's payload), or '' (docs/record.md, "Replays and last-writer-wins"). */
  signed: string[];
  /** Keys registered or delegated in the batch whose point parsePublicKey accepted here (the replay need not check them again). */
  sound: string[];
  problems: { kind: 'hash' | 'signature'; seq: number; detail: string }[];
  withheld: number;
  hashMs: number;
  signatureMs: number;
}

/** The key a registration or delegation names, when its point is sound (checked here, on this worker); else undefined. */
function keyNamed(type: string, text: string): string | undefined {
  try {
    const logged = JSON.parse(text);
    const key: unknown = type === 'agent.register' ? logged?.publicKey : logged?.payload?.key;
    return typeof key === 'string' ? parsePublicKey(key).spelling : undefined;
  } catch {
    return undefined; // the replay checks it again and names why
  }
}

parentPort!.on('message', (m: { run: number; id: number; from: number; lines: string[]; keys: LogKeys | null }) => {
  const { keys } = m;
  const leaves = new Uint8Array(32 * m.lines.length);
  const signed: string[] = new Array<string>(m.lines.length).fill('');
  const problems: BatchResult['problems'] = [];
  const sound: string[] = [];
  let withheld = 0;
  let hashMs = 0;
  let signatureMs = 0;
  m.lines.forEach((line, i) => {
    const seq = m.from + i;
    const t0 = performance.now();
    // A line of the served shape whose payload is known canonical is hashed as it is; any other is parsed.
    const fast = lineHashes(line, seq);
    const e: { type: string; ts: string; payload?: unknown } = fast ?? JSON.parse(line);
    const hashes: EntryHashes = fast ?? entryHashes(e as ServedEntry, seq);
    const { type, ts } = e;
    const { leaf, text, payloadOk, problems: wrong } = hashes;
    leaves.set(leaf, 32 * i);
    // What the replay's index of signed writes keys on (docs/record.md, "Replays and
    // last-writer-wins"), hashed here from the text just checked, so the main thread need not.
    if (payloadOk === true && !isEvent(type) && !UNSIGNED_TYPES.has(type))
      signed[i] = signedHash({
        seq,
        ts,
        type,
        // Read only for a text that is not of a signed write's shape.
        get logged() {
          return (fast === null ? e.payload : JSON.parse(text!)) as RecordEntry['logged'];
        },
        text: text!,
      });
    const t1 = performance.now();
    hashMs += t1 - t0;
    for (const detail of wrong) problems.push({ kind: 'hash', seq, detail });
    // Withheld fields: the payload hash commits to text the verifier does not see.
    if (payloadOk === null) {
      withheld++;
      return;
    }
    if (payloadOk === true && text !== null && (type === 'agent.register' || type === 'key.delegate')) {
      const key = keyNamed(type, text);
      if (key !== undefined) sound.push(key);
    }
    if (!payloadOk || text === null || keys === null) return;
    const why = signatureProblem(type, text, keys, isEvent);
    signatureMs += performance.now() - t1;
    if (why !== null) problems.push({ kind: 'signature', seq, detail: `${type}: ${why}` });
  });
  const result: BatchResult = { run: m.run, id: m.id, leaves, signed, sound, problems, withheld, hashMs, signatureMs };
  parentPort!.postMessage(result, [leaves.buffer]);
});
