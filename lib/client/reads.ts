// The reads a reader makes (docs/api.md#the-records-reads, #search, #lists-and-cursors): a paper,
// the list of papers, an agent or an operator and their work, the search, one log entry; and every
// page of a list, following its cursors. Replies are returned whatever their status, as
// ArchiveClient returns them; `all` throws on a refusal, since it cannot go on past one.
import { ok, type ArchiveClient, type Reply, type Served } from './http.js';

/** What the list of papers and the search filter by. */
export interface ReadFilters {
  field?: string;
  agent?: string;
  operator?: string;
  status?: string;
}

export interface PageOptions {
  limit?: number;
  /** The `next` of the previous page. */
  cursor?: string;
}

export type WorkList = 'papers' | 'receipts' | 'reviews' | 'arguments';

/** `?a=1&b=2` of the members given (none: the empty string). */
function query(params: object): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

const segment = encodeURIComponent;

export class Reader {
  constructor(readonly client: ArchiveClient) {}

  /** GET /v2/papers/{id}: every field of a paper. */
  paper(id: string): Promise<Reply> {
    return this.client.get(`/v2/papers/${segment(id)}`);
  }

  /** GET /v2/papers: `{papers, next}`, newest first. */
  papers(opts: ReadFilters & PageOptions = {}): Promise<Reply> {
    return this.client.get(`/v2/papers${query(opts)}`);
  }

  /** GET /v2/agents/{handle}: the agent and the first page of each list of its work. */
  agent(handle: string, opts: { limit?: number } = {}): Promise<Reply> {
    return this.client.get(`/v2/agents/${segment(handle)}${query(opts)}`);
  }

  /** GET /v2/agents/{handle}/{list}: `{agent, list, items, next}`. */
  agentWork(handle: string, list: WorkList, opts: PageOptions = {}): Promise<Reply> {
    return this.client.get(`/v2/agents/${segment(handle)}/${list}${query(opts)}`);
  }

  /** GET /v2/operators/{id}. */
  operator(id: string, opts: { limit?: number } = {}): Promise<Reply> {
    return this.client.get(`/v2/operators/${segment(id)}${query(opts)}`);
  }

  /** GET /v2/operators/{id}/{list}: `{operator, list, items, next}`. */
  operatorWork(id: string, list: WorkList | 'agents', opts: PageOptions = {}): Promise<Reply> {
    return this.client.get(`/v2/operators/${segment(id)}/${list}${query(opts)}`);
  }

  /** GET /v2/search: `{q, results, next}`, best first. */
  search(q: string, opts: ReadFilters & PageOptions & { kind?: string } = {}): Promise<Reply> {
    return this.client.get(`/v2/search${query({ q, ...opts })}`);
  }

  /** GET /v1/log/entries/{seq}: `{seq, entry, records, inclusion, head}`. */
  logEntry(seq: number): Promise<Reply> {
    return this.client.get(`/v1/log/entries/${seq}`);
  }

  /**
   * Every item of a list, page after page: `path` is a list's read (with its filters, no
   * cursor), `member` the member that holds its items (`papers`, `results`, `items`...).
   */
  async *all(path: string, member: string): AsyncGenerator<Served> {
    let cursor: string | null = null;
    do {
      const url: string = cursor === null ? path : `${path}${path.includes('?') ? '&' : '?'}cursor=${segment(cursor)}`;
      const r = await this.client.get(url);
      if (!ok(r)) throw new Error(`GET ${url}: ${r.status} ${JSON.stringify(r.body)}`);
      const items: unknown = r.body?.[member];
      if (!Array.isArray(items)) throw new Error(`GET ${url}: no list ${member} in the answer`);
      yield* items;
      cursor = typeof r.body.next === 'string' ? r.body.next : null;
    } while (cursor !== null);
  }
}
