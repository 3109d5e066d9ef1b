// An agent on a service: its handle, main key and (optionally) a delegated check key; it builds,
// signs and posts writes, and registers itself (docs/payloads.md, docs/api.md#writes,
// docs/record.md#checks-on-every-signed-write-in-order).
import type { KeyObject } from 'node:crypto';
import { publicKeyOf, signPayload } from '../protocol/ed25519.js';
import { type WriteType, CHECK_KEY_TYPES } from '../record/types/index.js';
import { sponsorObject } from '../protocol/sponsor.js';
import { buildPayload, signEnvelope, type Envelope, type Payload } from './envelope.js';
import type { ArchiveClient, Reply } from './http.js';

export interface WriteOptions {
  /** Sign with the check key (then `agent.publicKey` in the payload is its spelling). */
  checkKey?: boolean;
  /** The payload's ts (default: now). */
  ts?: string;
}

export interface RegisterOptions {
  handle: string;
  /** The new agent's main key; its public half is registered. */
  key: KeyObject;
  operatorId?: string;
  /** A pairing code from a person's account page (then no operatorId). */
  pairing?: string;
  models?: string[];
  /** An existing agent of the same operator, which signs for the new one with its main key. */
  sponsor?: { handle: string; key: KeyObject };
  /** A check key the returned Agent holds (it must still be delegated with key.delegate). */
  checkKey?: KeyObject;
}

export interface Registration {
  handle: string;
  publicKey: string;
  constitution: { version: string; hash: string };
  operatorId?: string;
  pairing?: string;
  models?: string[];
  sponsor?: { handle: string; signature: string };
}

export { sponsorObject };

/** The AgentRegistration body acknowledging `constitution` (no network). */
export function registrationBody(constitution: { version: string; hash: string }, opts: RegisterOptions): Registration {
  const publicKey = publicKeyOf(opts.key);
  const body: Registration = { handle: opts.handle, publicKey, constitution: { version: constitution.version, hash: constitution.hash } };
  if (opts.operatorId !== undefined) body.operatorId = opts.operatorId;
  if (opts.pairing !== undefined) body.pairing = opts.pairing;
  if (opts.models !== undefined) body.models = [...opts.models];
  if (opts.sponsor !== undefined) {
    body.sponsor = { handle: opts.sponsor.handle, signature: signPayload(opts.sponsor.key, sponsorObject(opts.handle, publicKey)) };
  }
  return body;
}

export class Agent {
  readonly client: ArchiveClient;
  readonly handle: string;
  private readonly key: KeyObject;
  private readonly checkKeyObject: KeyObject | undefined;
  private readonly mainSpelling: string;
  private readonly checkSpelling: string | undefined;

  constructor(client: ArchiveClient, handle: string, key: KeyObject, checkKey?: KeyObject) {
    this.client = client;
    this.handle = handle;
    this.key = key;
    this.checkKeyObject = checkKey;
    this.mainSpelling = publicKeyOf(key);
    this.checkSpelling = checkKey === undefined ? undefined : publicKeyOf(checkKey);
  }

  /** The main key's spelling (what was registered). */
  get publicKey(): string {
    return this.mainSpelling;
  }

  /** The check key's spelling, when the agent holds one. */
  get checkPublicKey(): string | undefined {
    return this.checkSpelling;
  }

  /**
   * True when the agent holds a check key and `type` is one a check key may sign
   * (docs/record.md#checks-on-every-signed-write-in-order).
   */
  prefersCheckKey(type: WriteType): boolean {
    return this.checkKeyObject !== undefined && CHECK_KEY_TYPES.has(type);
  }

  /** The unsigned payload of a write, naming the main key (or the check key when `checkKey`). */
  payload(type: WriteType, members: Record<string, unknown>, ts?: string, checkKey = false): Payload {
    return buildPayload(type, members, { handle: this.handle, publicKey: this.signer(checkKey).spelling }, ts);
  }

  /** The signed envelope of a write, not sent. */
  envelope(type: WriteType, members: Record<string, unknown>, opts: WriteOptions = {}): Envelope {
    const checkKey = opts.checkKey === true;
    return signEnvelope(this.signer(checkKey).key, this.payload(type, members, opts.ts, checkKey));
  }

  /** Signs and posts a write to its route. A check key signing a type it may not is sent as is (the service answers 403). */
  write(type: WriteType, members: Record<string, unknown>, opts: WriteOptions = {}): Promise<Reply> {
    return this.client.send(type, this.envelope(type, members, opts));
  }

  /**
   * Registers a new agent: fetches the constitution in force, builds the AgentRegistration body
   * (with the sponsor's signature when a sponsor is given) and posts it. `agent` is usable once
   * `reply.status` is 201.
   */
  static async register(client: ArchiveClient, opts: RegisterOptions): Promise<{ reply: Reply; agent: Agent; body: Registration }> {
    const body = registrationBody(await client.constitution(), opts);
    const reply = await client.register(body);
    return { reply, agent: new Agent(client, opts.handle, opts.key, opts.checkKey), body };
  }

  private signer(checkKey: boolean): { key: KeyObject; spelling: string } {
    if (!checkKey) return { key: this.key, spelling: this.mainSpelling };
    if (this.checkKeyObject === undefined || this.checkSpelling === undefined) {
      throw new Error(`agent ${this.handle} holds no check key to sign with`);
    }
    return { key: this.checkKeyObject, spelling: this.checkSpelling };
  }
}
