// HTTP to a running service, with the global fetch. A reply of any status is returned, never
// thrown: refusals (4xx, 5xx) carry the service's {error, detail}. Only a service that cannot be
// reached, or an answer that is not what the protocol promises, throws.
import { type WriteType, REGISTER_PATH, WRITE_ROUTES } from '../record/types/index.js';

/**
 * JSON as a service served it, read member by member by callers that check what they read (the
 * verifier compares it with its own replay). The one `any` of the tree outside tests.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire, checked by whoever reads it
export type Served = any;

export interface Reply {
  status: number;
  /** The parsed JSON body; the text when the body is not JSON; null when empty. */
  body: Served;
  headers: Headers;
}

export interface ClientOptions {
  /** Milliseconds before a request is given up (default 120000). */
  timeoutMs?: number;
}

/** True for 2xx. */
export const ok = (r: Reply): boolean => r.status >= 200 && r.status < 300;

export class ArchiveClient {
  /** The base URL without a trailing slash; paths are appended, so a path prefix is kept. */
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  /**
   * The last entry a write of this client depends on (its answer's Archive-Seq): every later
   * read asks for it (Min-Seq), so a node that follows answers only once it has it
   * (docs/api.md, "Reading your writes").
   */
  lastSeq: number | null = null;

  constructor(baseUrl: string, opts: ClientOptions = {}) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new Error(`not a URL: ${JSON.stringify(baseUrl)}`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`expected an http or https URL, got ${baseUrl}`);
    if (u.search !== '' || u.hash !== '') throw new Error(`the base URL may not carry a query or fragment: ${baseUrl}`);
    this.baseUrl = u.href.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 120_000;
  }

  /** GET `path` (which starts with `/` and may carry a query). */
  get(path: string): Promise<Reply> {
    return this.request('GET', path);
  }

  /** POST `body` as JSON to `path`. */
  post(path: string, body: unknown): Promise<Reply> {
    return this.request('POST', path, body);
  }

  /** POST an AgentRegistration (plain JSON, not an envelope). */
  register(body: unknown): Promise<Reply> {
    return this.post(REGISTER_PATH, body);
  }

  /** POST a signed envelope to the route of its type (docs/api.md#writes). */
  send(type: WriteType, envelope: { payload: object; signature: string }): Promise<Reply> {
    const route = WRITE_ROUTES[type];
    if (route === undefined) throw new Error(`unknown write type ${JSON.stringify(type)}`);
    return this.post(route.path, envelope);
  }

  /** The constitution in force (`GET /v1/constitution`): what a registration acknowledges. */
  async constitution(): Promise<{ version: string; hash: string }> {
    const r = await this.get('/v1/constitution');
    const b = r.body;
    if (r.status !== 200 || typeof b?.version !== 'string' || typeof b?.hash !== 'string') {
      throw new Error(`GET /v1/constitution: expected 200 {version, hash}, got ${describe(r)}`);
    }
    return { version: b.version, hash: b.hash };
  }

  /** The deployment's own operator id (`GET /` names it `operator`). */
  async operatorId(): Promise<string> {
    const r = await this.get('/');
    if (r.status !== 200 || typeof r.body?.operator !== 'string') {
      throw new Error(`GET /: expected 200 naming the deployment's operator, got ${describe(r)}`);
    }
    return r.body.operator;
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply> {
    if (!path.startsWith('/')) throw new Error(`a path starts with /: ${JSON.stringify(path)}`);
    const url = this.baseUrl + path;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (method === 'GET' && this.lastSeq !== null) headers['min-seq'] = String(this.lastSeq);
    const init: RequestInit = { method, headers, signal: AbortSignal.timeout(this.timeoutMs) };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, init);
      text = await res.text();
    } catch (err) {
      const e = err as Error & { cause?: { message?: string; code?: string } };
      const why = e.cause?.code ?? e.cause?.message ?? e.message;
      throw new Error(`${method} ${url}: cannot reach the service (${why})`);
    }
    const seq = Number(res.headers.get('archive-seq') ?? NaN);
    if (method === 'POST' && res.status < 300 && Number.isSafeInteger(seq)) this.lastSeq = Math.max(this.lastSeq ?? 0, seq);
    return { status: res.status, body: parseBody(text, res.headers.get('content-type')), headers: res.headers };
  }
}

function parseBody(text: string, contentType: string | null): unknown {
  if (text === '') return null;
  if (contentType !== null && /\bjson\b/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function describe(r: Reply): string {
  const body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  return `${r.status} ${body?.slice(0, 300) ?? ''}`;
}
