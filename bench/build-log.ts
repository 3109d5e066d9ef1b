// A log built through the record itself (no HTTP), as bench:record's replay, bench:start and
// bench:readers use it: 1,000 registrations, 1,000 papers, then reviews spread over their claims.
import { openDeployment } from '../lib/service/deployment.js';
import { generateKeyPair, signPayload } from '../lib/protocol/ed25519.js';
import { LiveRecord } from '../lib/service/live-record.js';
import { PROTOCOL } from '../lib/protocol/service-event.js';

export type Key = ReturnType<typeof generateKeyPair>;
const agentOf = (handle: string, k: Key) => ({ handle, publicKey: k.publicKey });

export function registration(handle: string, k: Key, operatorId: string, constitution: { version: string; hash: string }) {
  return { handle, publicKey: k.publicKey, operatorId, constitution };
}

export function paper(handle: string, k: Key, n: number, ts = new Date().toISOString()) {
  const payload = {
    protocol: PROTOCOL,
    type: 'paper',
    agent: agentOf(handle, k),
    ts,
    title: `Benchmark paper ${n}`,
    abstract: `An abstract of fifty characters at least, for benchmark paper number ${n}.`,
    field: 'ml',
    claims: [{ text: `Claim of paper ${n} holds`, confidence: 0.7, test: 'A replication that fails refutes it' }],
    builds_on: [],
  };
  return { payload, signature: signPayload(k.privateKey, payload) };
}

export function review(handle: string, k: Key, claim: string, n: number, ts = new Date().toISOString()) {
  const payload = {
    protocol: PROTOCOL,
    type: 'review',
    agent: agentOf(handle, k),
    ts,
    claim,
    forecast: (n % 100) / 100,
    rationale: `Forecast number ${n}: the method section reads as sound and the data are public.`,
  };
  return { payload, signature: signPayload(k.privateKey, payload) };
}

/**
 * Builds a log of `entries` entries through the record itself (no HTTP): reviews mostly. Its
 * clock moves `stepMs` per entry: 1 ms (the default) puts a million entries within 17 minutes,
 * all of them inside the replay window (docs/record.md, "Replays and last-writer-wins"), so the
 * replay index holds every signed write; a larger step spreads them over time, ending now. With
 * `hotEvery`, every `hotEvery`-th review goes to the first paper's claim (a hot claim, its reviews
 * spread along the log), unless its author would review its own claim.
 */
export async function buildLog(dataDir: string, entries: number, opts: { stepMs?: number; hotEvery?: number } = {}): Promise<void> {
  const stepMs = opts.stepMs ?? 1;
  let t = stepMs === 1 ? Date.now() : Date.now() - entries * stepMs;
  const d = await openDeployment({ dataDir, clock: () => t });
  const record = await LiveRecord.open(d, () => t);
  const c = record.state.constitution;
  const keys = Array.from({ length: 1000 }, () => generateKeyPair());
  const wait: Promise<unknown>[] = [];
  const admit = (type: string, logged: object) => {
    t += stepMs;
    const a = record.admit(type, logged);
    if (!('already' in a)) wait.push(a.committed);
  };
  keys.forEach((k, i) => admit('agent.register', registration(`agent-${i}`, k, `lab-${i}`, c)));
  const claims: string[] = [];
  for (let i = 0; i < 1000; i++) {
    admit('paper', paper(`agent-${i}`, keys[i]!, i, new Date(t + stepMs).toISOString()));
    claims.push(`${[...record.state.papers.keys()].at(-1)}#C1`);
  }
  for (let n = 0; record.state.size < entries; n++) {
    const i = (n * 7919) % 1000;
    const hot = opts.hotEvery !== undefined && n % opts.hotEvery === 0 && i !== 0;
    const claim = claims[hot ? 0 : (i + 1 + (n % 997)) % 1000]!;
    admit('review', review(`agent-${i}`, keys[i]!, claim, n, new Date(t + stepMs).toISOString()));
    if (wait.length >= 5000) await Promise.all(wait.splice(0));
  }
  await Promise.all(wait);
  await d.close();
}
