// Agents for HTTP tests: real keys, real signatures, real registrations against a TestService.
import { randomBytes, type KeyObject } from 'node:crypto';
import { generateKeyPair, signPayload } from '../../lib/protocol/ed25519.js';
import { sponsorObject } from '../../lib/client/agent.js';
import { type WriteType, WRITE_ROUTES } from '../../lib/record/types/index.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { startService, type Reply, type TestService } from './service.js';
import { tempDir } from './tmp.js';
import { cpSync } from 'node:fs';
import type { Test } from 'tap';
import { pairingCodeHash, pairingEnvelope, pairingPayload } from '../../lib/client/pairing.js';

export interface TestAgent {
  handle: string;
  publicKey: string;
  privateKey: KeyObject;
  operatorId: string;
  checkKey?: { publicKey: string; privateKey: KeyObject };
}

export interface RegisterOptions {
  operatorId?: string;
  pairing?: string;
  models?: string[];
  sponsor?: TestAgent;
}

/** Registers a new agent with a fresh key; fails the test helper loudly when refused. */
export async function register(s: TestService, handle: string, opts: RegisterOptions = {}): Promise<TestAgent> {
  const k = generateKeyPair();
  const r = await s.post('/v2/agents/register', registration(s, handle, k.publicKey, opts));
  if (r.status !== 201) throw new Error(`registering ${handle}: ${r.status} ${r.text}`);
  return { handle, publicKey: k.publicKey, privateKey: k.privateKey, operatorId: r.body.operatorId };
}

/** The body of a registration acknowledging the constitution in force. */
export function registration(s: TestService, handle: string, publicKey: string, opts: RegisterOptions = {}): Record<string, unknown> {
  const c = s.record.state.constitution;
  const body: Record<string, unknown> = { handle, publicKey, constitution: { version: c.version, hash: c.hash } };
  if (opts.operatorId !== undefined) body.operatorId = opts.operatorId;
  if (opts.pairing !== undefined) body.pairing = opts.pairing;
  if (opts.models !== undefined) body.models = opts.models;
  if (opts.sponsor !== undefined)
    body.sponsor = { handle: opts.sponsor.handle, signature: signPayload(opts.sponsor.privateKey, sponsorObject(handle, publicKey)) };
  return body;
}

export interface SendOptions {
  /** Sign with the agent's check key. */
  checkKey?: boolean;
  ts?: string;
  /** Change the payload after it is built, before it is signed. */
  edit?: (payload: Record<string, any>) => void;
}

/** The payload of a write by `a`, as the agent would build it. */
export function payloadOf(
  s: TestService,
  a: TestAgent,
  type: WriteType,
  members: Record<string, unknown>,
  opts: SendOptions = {},
): Record<string, any> {
  const publicKey = opts.checkKey === true ? a.checkKey!.publicKey : a.publicKey;
  const payload: Record<string, any> = {
    protocol: PROTOCOL,
    type,
    agent: { handle: a.handle, publicKey },
    ts: opts.ts ?? new Date(s.record.now()).toISOString(),
    ...members,
  };
  opts.edit?.(payload);
  return payload;
}

/** Signs and posts a write by `a` to its route. */
export async function send(
  s: TestService,
  a: TestAgent,
  type: WriteType,
  members: Record<string, unknown>,
  opts: SendOptions = {},
): Promise<Reply> {
  const payload = payloadOf(s, a, type, members, opts);
  const key = opts.checkKey === true ? a.checkKey!.privateKey : a.privateKey;
  return s.post(WRITE_ROUTES[type].path, { payload, signature: signPayload(key, payload) });
}

/** Builders of valid members for each kind of write. */
export const make = {
  paper(n = 1, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      title: `A paper of ${n} claims`,
      abstract: `An abstract long enough to pass the fifty character minimum of the spec, number ${Math.random()}.`,
      field: 'ml',
      claims: Array.from({ length: n }, (_, i) => ({
        text: `Claim number ${i + 1} holds`,
        confidence: 0.8,
        test: 'A result that would refute it',
      })),
      builds_on: [],
      ...extra,
    };
  },
  bundle(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      repo: 'https://example.org/repo.git',
      commit: 'a'.repeat(40),
      run: 'make run',
      outputs: [{ name: 'acc', tolerance: 0.01 }],
      runtimeMinutes: 30,
      ...extra,
    };
  },
  commit(target: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { target, kind: 'replication', bundle: make.bundle(), ...extra };
  },
  argument(claim: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      claim,
      stance: 'refutes',
      grounds: 'logical-gap',
      text: `The claim does not follow from its premises, because the step from the data to the conclusion skips a case. ${Math.random()}`,
      confidence: 0.7,
      ...extra,
    };
  },
};

/** A pairing code for `operatorId` (`code`, or a new random one), issued with the deployment's operator key. */
export async function pairingCode(s: TestService, operatorId: string, code = randomBytes(18).toString('base64url')): Promise<string> {
  const ts = new Date(s.record.now()).toISOString();
  const p = await s.post('/v2/pairing', pairingEnvelope(s.d.operatorKey, operatorId, pairingCodeHash(code), ts));
  if (p.status !== 201) throw new Error(`pairing: ${p.status} ${p.text}`);
  return code;
}

/** An agent of the deployment's own operator (verified at genesis), reached by pairing. */
export async function houseAgent(s: TestService, handle: string): Promise<TestAgent> {
  return register(s, handle, { pairing: await pairingCode(s, s.record.state.operator, `house-code-${handle}-0123456789`) });
}

/**
 * Appends `n` entries the record knows, straight through the record (no HTTP): pairing requests
 * signed by the operator key, with the codes `code <from>` onwards.
 */
export async function appendPairings(s: TestService, n: number, from = 0): Promise<void> {
  const pending = Array.from({ length: n }, (_, i) => {
    const payload = pairingPayload('op_test', pairingCodeHash(`code ${from + i}`), new Date().toISOString());
    const a = s.record.admit('operator.pairing', { payload, signature: signPayload(s.d.operatorKey, payload) });
    return 'committed' in a ? a.committed : Promise.resolve();
  });
  await Promise.all(pending);
}

/** Commits a replication on `target` and files its result; reports the cross-check's outputs (altered when `disagree`). */
export async function replicate(t: Test, s: TestService, a: TestAgent, target: string, outcome: string, disagree = false): Promise<string> {
  const c = await send(s, a, 'check.commit', make.commit(target));
  t.equal(c.status, 201, c.text);
  let crossCheck = null;
  if (c.body.crossCheck !== null) {
    const other = s.record.state.receipts.get(c.body.crossCheck.receipt)!;
    const acc = other.result!.outputs.acc as number;
    crossCheck = { receipt: other.id, outputs: { acc: disagree ? acc + 0.5 : acc } };
  }
  const r = await send(s, a, 'check.result', { commit: c.body.id, outcome, outputs: { acc: 0.91 }, crossCheck });
  t.equal(r.status, 201, r.text);
  return c.body.id;
}

/**
 * One of each item a read shows, for tests that call every read: a paper of two claims, a
 * verified and a failed replication of the first, an argument and a challenge on the second, and
 * a proposal of amendment. Returns the ids.
 */
export async function oneOfEach(t: Test, s: TestService) {
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const paper = await send(s, alice, 'paper', make.paper(2));
  const [c1, c2] = paper.body.claims as [string, string];
  const receipt = await replicate(t, s, house, c1, 'confirmed');
  await replicate(t, s, bob, c1, 'failed');
  const argument = await send(s, bob, 'argument.file', make.argument(c2));
  const review = await send(s, bob, 'review', { claim: c2, forecast: 0.4, rationale: 'Few seeds; the effect may not hold.' });
  t.equal(review.status, 201, review.text);
  const challenge = await send(s, bob, 'challenge.propose', {
    claim: c2,
    brief: 'Re-run the main table with a fresh seed and report the spread.',
  });
  const articles = (await s.get('/v1/constitution')).body.articles.map((a: { id: string; text: string }) =>
    a.id === 'V' ? { ...a, text: `${a.text}\n8. A clause added.` } : a,
  );
  const proposal = await send(s, bob, 'governance.propose', {
    title: 'A clause added to Article V',
    rationale: 'A clause the amendment procedure was missing.',
    articles,
  });
  t.equal(proposal.status, 201, proposal.text);
  return {
    paper: paper.body.id as string,
    paperSeq: paper.body.seq as number,
    c1,
    c2,
    receipt,
    argument: argument.body.id as string,
    challenge: challenge.body.id as string,
    proposal: proposal.body.id as string,
  };
}

/**
 * Two data directories of one log (alice's paper on it), the second a copy of the first: services
 * started on them share genesis, keys and prefix, and diverge from there.
 */
export async function copiedLog(t: Test): Promise<[string, string]> {
  const dirA = tempDir(t);
  const first = await startService(t, { dataDir: dirA });
  const alice = await register(first, 'alice', { operatorId: 'lab-a' });
  await send(first, alice, 'paper', make.paper(1));
  await first.stop();
  const dirB = tempDir(t);
  cpSync(dirA, dirB, { recursive: true });
  return [dirA, dirB];
}
