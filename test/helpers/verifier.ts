// What the verifier's tests share: a service given a few writes, and a proxy that lies about what the service serves.
import type { Test } from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { make, register, send, type TestAgent } from './agents.js';
import type { TestService } from './service.js';

/** A paper of two claims by a new author of lab-a`n`, each claim reviewed by a new reviewer of lab-b`n`. */
export async function reviewedPaper(t: Test, s: TestService, n: number): Promise<{ id: string; claims: string[]; reviewer: TestAgent }> {
  const a = await register(s, `author-${n}`, { operatorId: `lab-a${n}` });
  const b = await register(s, `reviewer-${n}`, { operatorId: `lab-b${n}` });
  const paper = await send(s, a, 'paper', make.paper(2));
  const claims = paper.body.claims as string[];
  for (const claim of claims)
    t.equal(
      (await send(s, b, 'review', { claim, forecast: 0.6, rationale: 'Read the methods; the effect size is plausible.' })).status,
      201,
    );
  return { id: paper.body.id as string, claims, reviewer: b };
}

/** A proxy in front of `target` that may rewrite the body of any GET by its path and query. */
export async function lyingProxy(t: Test, target: string, lie: (path: string, body: string) => string): Promise<string> {
  const server: Server = createServer(async (req, res) => {
    const upstream = await fetch(target + req.url!, { method: req.method });
    const body = lie(req.url!, await upstream.text());
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
