// The HTTP side of the write benchmarks (bench:record, bench:scale): a POST that must be taken,
// an author's claim and 100 reviewers of 100 operators registered through a service, their review
// envelopes signed before a run, and a load of POSTs of those bodies with autocannon.
import autocannon from 'autocannon';
import { generateKeyPair } from '../lib/protocol/ed25519.js';
import type { Served } from '../lib/client/http.js';
import { paper, registration, review, type Key } from './build-log.js';

/** Connections autocannon keeps open. */
export const CONNECTIONS = 64;

/** POSTs `body` as JSON to `url`; throws unless it is answered 2xx. */
export async function post(url: string, body: unknown): Promise<Served> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${url}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/** Reviewers and the claim they review. */
export interface Reviewers {
  keys: Key[];
  claim: string;
}

/** An author with a paper, and 100 reviewers of 100 operators, registered through the service at `url`. */
export async function reviewersOn(url: string): Promise<Reviewers> {
  const { version, hash } = (await (await fetch(`${url}/v1/constitution`)).json()) as { version: string; hash: string };
  const author = generateKeyPair();
  await post(`${url}/v2/agents/register`, registration('author', author, 'lab-author', { version, hash }));
  const claim = (await post(`${url}/v2/papers`, paper('author', author, 0))).claims[0];
  const keys = Array.from({ length: 100 }, () => generateKeyPair());
  for (const [i, k] of keys.entries())
    await post(`${url}/v2/agents/register`, registration(`reviewer-${i}`, k, `lab-${i}`, { version, hash }));
  return { keys, claim };
}

/** `n` review envelopes of `r.claim` by the reviewers in turn, numbered from `from`. */
export const signedReviews = (r: Reviewers, from: number, n: number): string[] =>
  Array.from({ length: n }, (_, j) =>
    JSON.stringify(review(`reviewer-${j % r.keys.length}`, r.keys[j % r.keys.length]!, r.claim, from + j)),
  );

/**
 * POSTs of `bodies` (in turn, from the first) to `url` for `seconds`: requests/s, latency, how many were not
 * 2xx, and how many bodies were sent.
 */
export async function loadPosts(url: string, bodies: string[], seconds: number) {
  let i = 0;
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req: autocannon.Request) => ({ ...req, body: bodies[i++ % bodies.length] }),
      },
    ],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failed: r.non2xx + r.errors, total: r.requests.total, sent: i };
}
