// The reads of a log over HTTP, with the global fetch: the paths the engine serves below a log's
// prefix (docs/engine.md, "The client side"): `key`, `sth`, `checkpoint`,
// `consistency?first=&second=`, `inclusion?seq=&size=` and the tlog-tiles `tile/...`. Only an
// answer that is not what the protocol promises throws; proofs are checked by proofs.ts.
import { LogError } from '../errors.js';
import { fromHex } from '../hash.js';
import type { SignedTreeHead } from '../head.js';

/** What `<prefix>/key` answers: the log key (base64url DER SPKI), the origin and the checkpoints' vkey. */
export interface PublishedKey {
  key: string;
  origin: string;
  vkey?: string;
}

export interface LogClientOptions {
  /** Milliseconds before a request is given up (default 120000). */
  timeoutMs?: number;
}

/** Reads a log served at `url` (its prefix included: the URL under which `checkpoint` is served). */
export class LogClient {
  /** The log's URL without a trailing slash. */
  readonly url: string;
  private readonly timeoutMs: number;

  constructor(url: string, opts: LogClientOptions = {}) {
    this.url = checkedUrl(url);
    this.timeoutMs = opts.timeoutMs ?? 120_000;
  }

  /** The bytes at `path` (below the prefix); throws LogError('unavailable') unless the answer is 200. */
  async bytes(path: string): Promise<Uint8Array> {
    const r = await this.fetch(path);
    if (r.status !== 200) throw new LogError('unavailable', `GET ${this.url}/${path}: expected 200, got ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  }

  /** The answer at `path` as text and its status, whatever the status (a 404 beyond the tree is an answer). */
  async text(path: string): Promise<{ status: number; text: string }> {
    const r = await this.fetch(path);
    return { status: r.status, text: await r.text() };
  }

  /** `key`: the log key, its origin (and vkey); throws LogError('unavailable') when it is not that. */
  async key(): Promise<PublishedKey> {
    const k = await this.json('key');
    if (typeof k?.key !== 'string' || typeof k?.origin !== 'string') throw this.unexpected('key', 'no {key, origin}');
    return { key: k.key, origin: k.origin, ...(typeof k.vkey === 'string' ? { vkey: k.vkey } : {}) };
  }

  /** `sth`: the signed tree head as served (its signature is not checked here). */
  async sth(): Promise<SignedTreeHead> {
    const h = await this.json('sth');
    if (
      !Number.isSafeInteger(h?.treeSize) ||
      typeof h?.rootHash !== 'string' ||
      typeof h?.timestamp !== 'string' ||
      typeof h?.signature !== 'string'
    )
      throw this.unexpected('sth', 'not a signed tree head');
    return h as SignedTreeHead;
  }

  /** `checkpoint`: the signed note as served, cosignatures included. */
  async checkpoint(): Promise<string> {
    return Buffer.from(await this.bytes('checkpoint')).toString('utf8');
  }

  /**
   * The checkpoint and the signed tree head of one size: the log may sign a new head between the
   * two reads, so they are read again (up to five times) until their sizes agree. The last pair
   * read is given even when they never agreed; the caller checks them.
   */
  async head(): Promise<{ checkpoint: string; sth: SignedTreeHead }> {
    let checkpoint = '';
    let sth: SignedTreeHead | null = null;
    for (let attempt = 0; attempt < 5; attempt++) {
      checkpoint = await this.checkpoint();
      sth = await this.sth();
      if (checkpoint.split('\n')[1] === String(sth.treeSize)) break;
    }
    return { checkpoint, sth: sth! };
  }

  /** The consistency proof from `first` to `second`, or null when the log gives none. */
  async consistencyProof(first: number, second: number): Promise<Uint8Array[] | null> {
    return this.proof(`consistency?first=${first}&second=${second}`);
  }

  /** The inclusion proof of entry `seq` in the tree of `size`, or null when the log gives none. */
  async inclusionProof(seq: number, size: number): Promise<Uint8Array[] | null> {
    return this.proof(`inclusion?seq=${seq}&size=${size}`);
  }

  private async proof(path: string): Promise<Uint8Array[] | null> {
    const r = await this.fetch(path);
    if (r.status !== 200) return null;
    const body = (await r.json().catch(() => null)) as { proof?: unknown } | null;
    if (!Array.isArray(body?.proof)) return null;
    try {
      return body.proof.map((h: unknown) => fromHex(h as string, 32));
    } catch {
      return null;
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire, checked member by member by the callers
  private async json(path: string): Promise<any> {
    const bytes = await this.bytes(path);
    try {
      return JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      throw this.unexpected(path, 'not JSON');
    }
  }

  private unexpected(path: string, what: string): LogError {
    return new LogError('unavailable', `GET ${this.url}/${path}: ${what}`);
  }

  private async fetch(path: string): Promise<Response> {
    try {
      return await fetch(`${this.url}/${path}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new LogError('unavailable', `GET ${this.url}/${path}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** An http(s) URL without a query or fragment, its trailing slashes dropped; anything else throws LogError('bad_argument'). */
export function checkedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new LogError('bad_argument', `not a URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new LogError('bad_argument', `expected an http or https URL, got ${url}`);
  if (u.search !== '' || u.hash !== '') throw new LogError('bad_argument', `the URL may not carry a query or fragment: ${url}`);
  return u.href.replace(/\/+$/, '');
}
