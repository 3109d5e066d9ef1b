// A read is one row: its path, its parameters, what it answers and who serves it. The router, the
// OpenAPI document (api/openapi.ts), the MCP tools (api/mcp-tools.ts) and /llms.txt are all made from
// the rows (api/reads/index.ts), as the writes are from their registry (docs/api.md).
import Router, { type RouterContext } from '@koa/router';
import type { Constitution } from '../../lib/protocol/constitution.js';
import { FIELDS } from '../../lib/protocol/schemas/index.js';
import type { Deployment } from '../../lib/service/deployment.js';
import type { DoorbellRinger } from '../../lib/service/doorbell/ringer.js';
import type { LiveRecord } from '../../lib/service/live-record.js';
import type { Readers } from '../../lib/service/readers.js';
import type { Witnesses } from '../../lib/service/witnesses.js';
import { STATUSES } from '../../lib/record/views/index.js';
import type { NodeRole } from '../forward.js';
import type { Cursors } from '../paging.js';
import { params, type Query } from '../params.js';
import { str, type Schema } from '../../lib/protocol/schemas/json.js';

/** A parameter of a read: `description` is also the MCP tool's argument's. */
export interface Param {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  description: string;
  schema: Schema;
}

/** What the handlers of the reads are made with: the service's parts. */
export interface ReadEnv {
  d: Deployment;
  record: LiveRecord;
  readers: Readers;
  cursors: Cursors;
  /** The constitution in force now (it changes when an amendment is enacted). */
  constitution: () => Constitution;
  /** How far this node has applied the log. */
  applied: () => number;
  /** Every endpoint, as the index lists them. */
  endpoints: readonly string[];
  /** The rows this service serves, and the OpenAPI document made from them (for /llms.txt and /openapi.json). */
  reads: readonly Read[];
  openApi: () => { text: string; etag: string };
  ringer?: DoorbellRinger;
  witnesses?: Witnesses;
  role?: NodeRole;
}

/** A read's handler: the query is the row's query parameters, parsed and refused as the row declares them. */
export type Handler = (ctx: RouterContext, query: Query) => unknown;

/** Makes a read's handler once, for a service. */
export type Serve = (env: ReadEnv) => Handler;

/** One read. Every row is an operation of the document unless `unlisted`; those with `tool` are also MCP tools (api/mcp-tools.ts). */
export interface Read {
  path: string;
  /** snake_case; for a read that is an MCP tool, the tool's name. */
  operationId: string;
  summary: string;
  /** What it answers, for the operation's description and the MCP tool's. */
  returns: string;
  /** Served as an MCP tool too, named by `operationId`, its arguments the parameters; `title` says what it does, in a few words. */
  tool?: { title: string };
  params?: Param[];
  /** A JSON schema, or a media type for text. */
  body: Schema | string;
  statuses?: number[];
  /** Its handler; `log`: the log's router serves it (tlog-engine/http, api/routes/log.ts), the row only describes it. */
  serve: Serve | 'log';
  /** The router's spelling of the path, where it is not the path's own with `{name}` as `:name`. */
  route?: string;
  /** Why the row is no operation of the document (nor a tool, nor in /llms.txt): it is served all the same. */
  unlisted?: string;
}

/** The router's spelling of a row's path. */
export const routeOf = (r: Read): string => r.route ?? r.path.replace(/\{([a-z]+)\}/gi, ':$1');

/** The names of a row's query parameters, in the order it declares them. */
const queryNames = (r: Read): string[] => (r.params ?? []).filter((p) => p.in === 'query').map((p) => p.name);

/** A query that answers only for the names its row declares: reading another is a bug (a 500), found by the row's tests. */
class DeclaredQuery extends Map<string, string | string[]> {
  constructor(
    query: Query,
    private readonly names: readonly string[],
    private readonly path: string,
  ) {
    super(query);
  }
  private check(name: string): void {
    if (!this.names.includes(name)) throw new Error(`${this.path} reads the query parameter ${name}, which its row does not declare`);
  }
  override get(name: string) {
    this.check(name);
    return super.get(name);
  }
  override has(name: string) {
    this.check(name);
    return super.has(name);
  }
}

/** The router of `reads`: each row's handler at its path, its query parsed strictly by its declared parameters (api/params.ts). */
export function readRouter(reads: readonly Read[], env: ReadEnv): Router {
  const router = new Router();
  for (const r of reads) {
    if (r.serve === 'log') continue;
    const handler = r.serve(env);
    const names = queryNames(r);
    router.get(routeOf(r), async (ctx) => {
      await handler(ctx, new DeclaredQuery(params(ctx, names), names, r.path));
    });
  }
  return router;
}

/**
 * The handlers of one route file, as rows name them: `group(make)('name')` serves `make(env).name`,
 * `make` called once for each service.
 */
export function group<G extends Record<string, Handler>>(make: (env: ReadEnv) => G): (name: keyof G & string) => Serve {
  const made = new WeakMap<ReadEnv, G>();
  return (name) => (env) => {
    let g = made.get(env);
    if (g === undefined) made.set(env, (g = make(env)));
    return g[name]!;
  };
}

export const limit = (max: number, dflt: number): Param => ({
  name: 'limit',
  in: 'query',
  description: `how many items at most (1 to ${max}, default ${dflt})`,
  schema: { type: 'integer', minimum: 1, maximum: max, default: dflt },
});
export const id = (description: string, schema: Schema, name = 'id'): Param => ({ name, in: 'path', required: true, description, schema });
export const cursorParam = {
  name: 'cursor',
  in: 'query' as const,
  description: 'the `next` of the previous page, as it came; absent for the first page',
  schema: str,
};
/** What every page of the explorer answers. */
export const PAGE_RETURNS = 'An HTML page (a client that prefers JSON is sent to the JSON read with a 303).';

/** The cursor of one list of an explorer page that pages several lists, in the parameter of the list's name. */
export const workCursor = (list: string): Param => ({
  name: list,
  in: 'query',
  description: `where the ${list} list goes on: the \`next\` of that list as the page's link gives it`,
  schema: { type: 'string' },
});

/** The filters of the list of papers and of the search. */
export const filters = [
  { name: 'field', in: 'query' as const, description: 'a field', schema: { enum: [...FIELDS] } },
  { name: 'agent', in: 'query' as const, description: 'the author agent', schema: str },
  { name: 'operator', in: 'query' as const, description: "the author's operator", schema: str },
  { name: 'status', in: 'query' as const, description: 'a paper: one of its claims has this status', schema: { enum: [...STATUSES] } },
];
