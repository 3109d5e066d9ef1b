// The log's reads over HTTP, a Koa router: the package's subpath `tlog-engine/http`, so that the main entry loads no Koa.
// Its routes, answers and refusals: docs/engine.md#the-logs-reads-over-http.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AuditReport } from './audit.js';
import type { Reader } from './index.js';
import { logErrors, notFound, badRequest } from './http-errors.js';
import { intParam, params } from './http-params.js';
import { logKeySpellings, logVerifier } from './keys.js';
import type { LeafEntry } from './sequencer.js';
import { TILE_HASHES, parseTilePath, tilePath, type TilePath } from './tlog-tiles.js';

/** The page size of `entries`: at most `max`, `default` when `limit` is not given. */
export const ENTRIES_PAGE = { max: 1000, default: 100 };

/** Cache-Control of tiles and bundles: full ones never change; partial ones are replaced as the tree grows. */
export const TILE_CACHE = { full: 'public, max-age=31536000, immutable', partial: 'public, max-age=5' };

export interface LogRouterOptions {
  /** Where the routes are: '' or a path starting with '/' and not ending with one (default '/v1/log'). */
  prefix?: string;
  /** The checkpoint `checkpoint` serves (default: the log's own); an application may serve it cosigned. */
  checkpoint?: () => string | Promise<string>;
  /** One entry as JSON text, for `entries` and `entries/<seq>` (default: defaultEntryJson). */
  entryJson?: (e: LeafEntry) => string;
  /** What `entries/<seq>` also says of its entry, as its member `records` (default: no such member). */
  describe?: (e: LeafEntry) => unknown;
  /** The audit `audit` runs (default: the log's, with its own key). */
  audit?: () => Promise<AuditReport>;
  /** Middleware run before the audit (a rate limit per client, say); its refusals answer as the router's. */
  auditGuard?: Middleware;
  /** The page size of `entries` (default ENTRIES_PAGE). */
  page?: { max: number; default: number };
  /**
   * 'answer' (default): the router answers its errors itself. 'throw': its refusals are thrown as
   * LogHttpError, and any other error as it came, for the application's error middleware.
   */
  errors?: 'answer' | 'throw';
  /** Where an error answered 500 is reported ('answer' only; default: console.error). */
  report?: (err: unknown) => void;
}

/** An entry served as `{seq, data, leafHash}`: its stored bytes in standard base64 and its leaf hash in hex. */
export function defaultEntryJson(e: LeafEntry): string {
  const data = Buffer.from(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength).toString('base64');
  return `{"seq":${e.seq},"data":"${data}","leafHash":"${Buffer.from(e.leafHash).toString('hex')}"}`;
}

/** A JSON array of hashes as hex strings, written in one pass (proofs are on the hot path). */
export function hexArray(hashes: Uint8Array[]): string {
  if (hashes.length === 0) return '[]';
  const hex = Buffer.concat(hashes).toString('hex');
  let out = `["${hex.slice(0, 64)}`;
  for (let i = 64; i < hex.length; i += 64) out += `","${hex.slice(i, i + 64)}`;
  return `${out}"]`;
}

const SEQ = /^(?:0|[1-9][0-9]{0,15})$/;

/** A router of the log's reads (the routes above) over `log`, each answering only what the committed tree holds. */
export function logRouter(log: Reader, opts: LogRouterOptions = {}): Router {
  const prefix = opts.prefix ?? '/v1/log';
  if (!/^(?:\/[^/]+)*$/.test(prefix)) throw new TypeError(`prefix ${JSON.stringify(prefix)}: '' or /a/b, not ending with '/'`);
  const entryJson = opts.entryJson ?? defaultEntryJson;
  const page = opts.page ?? ENTRIES_PAGE;
  const checkpoint = opts.checkpoint ?? (() => log.checkpoint());
  const audit = opts.audit ?? (() => log.audit(logVerifier(log.publicKey)));
  const spellings = logKeySpellings(log.publicKey, log.keyName);
  const router = new Router(prefix === '' ? {} : { prefix });
  router.use(logErrors(opts.errors ?? 'answer', opts.report ?? ((err) => console.error(err))));

  router.get('/sth', (ctx) => {
    params(ctx, []);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = log.sth();
  });

  router.get('/key', (ctx) => {
    params(ctx, []);
    ctx.body = { key: spellings.key, origin: log.origin, vkey: spellings.vkey };
  });

  router.get('/checkpoint', async (ctx) => {
    params(ctx, []);
    const note = await checkpoint();
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = note;
  });

  // C2SP tlog-tiles under the prefix (docs/log-format.md, "Tiles").
  router.get('/tile/*rest', async (ctx) => {
    params(ctx, []);
    const rest = ctx.path.slice(`${prefix}/tile/`.length);
    const entries = rest.startsWith('entries/');
    const t: TilePath = entries ? parseTilePath(rest.slice('entries/'.length), 'entries') : parseTilePath(rest, 'hashes');
    const bytes = entries ? await log.entryBundle(t) : await log.hashTile(t);
    if (bytes === null) throw notFound(`${tilePath(t)}: beyond the tree of size ${log.size}`);
    ctx.set('Cache-Control', t.width === TILE_HASHES ? TILE_CACHE.full : TILE_CACHE.partial);
    ctx.type = 'application/octet-stream';
    ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  });

  router.get('/inclusion', async (ctx) => {
    const query = params(ctx, ['seq', 'size']);
    const treeSize = log.size;
    const seq = intParam(query, 'seq', { min: 0 });
    const size = intParam(query, 'size', { min: 1, default: treeSize });
    if (size <= treeSize && seq >= size) throw badRequest(`seq: ${seq} is not in a tree of size ${size}`);
    // Most proofs come from tiles in memory: answer those without a wait. A size beyond the
    // tree is the log's out_of_range, a 404.
    const proof = log.inclusionProofNow(seq, size) ?? (await log.inclusionProof(seq, size));
    ctx.type = 'application/json';
    ctx.body = `{"seq":${seq},"treeSize":${size},"proof":${hexArray(proof)}}`;
  });

  router.get('/consistency', async (ctx) => {
    const query = params(ctx, ['first', 'second']);
    const first = intParam(query, 'first', { min: 0 });
    const second = intParam(query, 'second', { min: 1 });
    if (first > second) throw badRequest(`first: ${first} is larger than second (${second})`);
    const proof = log.consistencyProofNow(first, second) ?? (await log.consistencyProof(first, second));
    ctx.type = 'application/json';
    ctx.body = `{"first":${first},"second":${second},"proof":${hexArray(proof)}}`;
  });

  // One audit at a time: concurrent callers share the run in progress.
  let running: Promise<AuditReport> | null = null;
  const guard: Middleware = opts.auditGuard ?? ((_ctx, next) => next());
  router.get('/audit', guard, async (ctx) => {
    params(ctx, []);
    running ??= audit().finally(() => (running = null));
    const { intact, problem, treeSize } = await running;
    ctx.body = { intact, problem, treeSize };
  });

  router.get('/entries', async (ctx) => {
    const query = params(ctx, ['from', 'limit']);
    const treeSize = log.size;
    const from = intParam(query, 'from', { min: 0, default: 0 });
    const limit = intParam(query, 'limit', { min: 1, max: page.max, default: page.default });
    if (from > treeSize) throw badRequest(`from: ${from} is beyond the tree size ${treeSize}`);
    const entries = await log.entries(from, Math.min(limit, treeSize - from));
    const next = from + entries.length < treeSize ? from + entries.length : null;
    ctx.type = 'application/json';
    ctx.body =
      `{"treeSize":${treeSize},"from":${from},"count":${entries.length},"next":${next},` +
      `"entries":[${entries.map(entryJson).join(',')}]}`;
  });

  // One entry with its inclusion proof against the current signed head, which comes with it.
  router.get('/entries/:seq', async (ctx) => {
    params(ctx, []);
    const raw = ctx.params.seq!;
    if (!SEQ.test(raw) || !Number.isSafeInteger(Number(raw)))
      throw badRequest(`path: expected a seq (an integer at least 0), got ${JSON.stringify(raw)}`);
    const seq = Number(raw);
    const head = log.sth();
    if (seq >= head.treeSize) throw notFound(`no entry ${seq}: the tree has ${head.treeSize} entries`);
    const [e] = await log.entries(seq, 1);
    const proof = log.inclusionProofNow(seq, head.treeSize) ?? (await log.inclusionProof(seq, head.treeSize));
    const records = opts.describe === undefined ? '' : `,"records":${JSON.stringify(opts.describe(e!) ?? null)}`;
    ctx.type = 'application/json';
    ctx.body =
      `{"seq":${seq},"entry":${entryJson(e!)}${records},` +
      `"inclusion":{"seq":${seq},"treeSize":${head.treeSize},"proof":${hexArray(proof)}},"head":${JSON.stringify(head)}}`;
  });

  return router;
}

export { LogHttpError, refusalOf } from './http-errors.js';
export { intParam, onlyParams, params, parseQuery, type IntOptions, type Query } from './http-params.js';
