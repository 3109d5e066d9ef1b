// Log reads (docs/api.md#log-reads, docs/log-format.md): the signed head, inclusion and consistency
// proofs, the audit, pages of entries, the log key and the C2SP checkpoint.
// These are the engine's routes: any application on the log mounts them (docs/engine.md).
import Router from '@koa/router';
import { badRequest, notFound } from '../../lib/protocol/errors.js';
import { TilePathError, parseTilePath, tileIndexPath, tilePath, verifierKey, type AuditReport, type TilePath } from 'tlog-engine';
import type { Entry, RecordLog } from '../../lib/protocol/log-entry.js';
import { intParam, params } from '../params.js';
import { rateLimit, type RateLimit } from '../rate-limit.js';

export const ENTRIES_PAGE = { max: 1000, default: 100 };

/** What an entry records, as GET /v1/log/entries/{seq} names it (its type, subject and agent: docs/api.md#log-reads). */
export type Describe = (e: Entry) => object;

/** Fields an entry is served without (docs/log-format.md), or null when it is served whole. */
export type Redact = (seq: number, type: string, payload: string) => { payload: string; withheld: string[]; subject?: string } | null;

/**
 * One entry as JSON text; the payload is already canonical JSON, so it is spliced in as is.
 * A redacted entry keeps its hashes, its withheld fields null, and names them in `withheld`.
 */
function entryJson(e: Entry, redact: Redact): string {
  const served = redact(e.seq, e.type, e.payload);
  const payload =
    served === null
      ? e.payload
      : `${served.payload},"withheld":${JSON.stringify(served.withheld)}${served.subject === undefined ? '' : `,"subject":${JSON.stringify(served.subject)}`}`;
  return `{"seq":${e.seq},"ts":"${e.ts}","type":"${e.type}","payloadHash":"${e.payloadHash}","prevHash":"${e.prevHash}","entryHash":"${e.entryHash}","payload":${payload}}`;
}

/** A JSON array of hashes as hex strings, written in one pass (proofs are on the hot path). */
function hexArray(hashes: Uint8Array[]): string {
  if (hashes.length === 0) return '[]';
  const hex = Buffer.concat(hashes).toString('hex');
  let out = `["${hex.slice(0, 64)}`;
  for (let i = 64; i < hex.length; i += 64) out += `","${hex.slice(i, i + 64)}`;
  return `${out}"]`;
}

/** What the log routes serve: a log's reads, its key and origin, and its audit. A Deployment is one. */
export interface ServedLog {
  log: RecordLog;
  /** The log key's public spelling (base64url DER SPKI). */
  logKeyString: string;
  origin: string;
  audit(): Promise<AuditReport>;
}

/** The log key as a C2SP signed-note verifier key (docs/log-format.md, "Checkpoints"): the name is the origin. */
export function noteVerifierKey(d: { logKeyString: string; origin: string }): string {
  // The log key is spelled as a 44-byte Ed25519 DER SPKI: the raw key is its last 32 bytes.
  return verifierKey(d.origin, Buffer.from(d.logKeyString, 'base64url').subarray(12));
}

/** Full tiles and bundles never change; partial ones are replaced as the tree grows (docs/log-format.md, "Tiles"). */
export const TILE_CACHE = { full: 'public, max-age=31536000, immutable', partial: 'public, max-age=5' };

/** A tile path after `prefix` (`entries/...`, `<L>/...` or, for payload bundles, `<N>...`), or a 400 naming the bad part. */
function tileOfPath(rest: string, kind: 'hashes' | 'entries'): TilePath {
  try {
    return parseTilePath(rest, kind);
  } catch (err) {
    if (err instanceof TilePathError) throw badRequest(err.message);
    throw err;
  }
}

/**
 * `checkpoint`: the checkpoint served, when witnesses cosign it (lib/service/witnesses.ts);
 * by default the log's own.
 */
export function logRoutes(
  d: ServedLog,
  auditLimit: RateLimit,
  redact: Redact = () => null,
  checkpoint: () => string = () => d.log.checkpoint(),
  describe: Describe = (e) => ({ type: e.type }),
): Router {
  const router = new Router();
  const log = d.log;
  const vkey = noteVerifierKey(d);

  router.get('/v1/log/sth', (ctx) => {
    params(ctx, []);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = log.sth();
  });

  router.get('/v1/log/key', (ctx) => {
    params(ctx, []);
    ctx.body = { key: d.logKeyString, origin: d.origin, vkey };
  });

  // C2SP tlog-tiles under the log's prefix /v1/log (docs/log-format.md, "Tiles").
  router.get('/v1/log/tile/*rest', async (ctx) => {
    params(ctx, []);
    const rest = ctx.path.slice('/v1/log/tile/'.length);
    const entries = rest.startsWith('entries/');
    const t = entries ? tileOfPath(rest.slice('entries/'.length), 'entries') : tileOfPath(rest, 'hashes');
    const bytes = entries ? await log.entryBundle(t) : await log.hashTile(t);
    if (bytes === null) throw notFound(`${tilePath(t)}: beyond the tree of size ${log.size}`);
    ctx.set('Cache-Control', t.width === 256 ? TILE_CACHE.full : TILE_CACHE.partial);
    ctx.type = 'application/octet-stream';
    ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  });

  // Payload bundles: the entries of an entry bundle as /v1/log/entries serves them, one JSON
  // line each, so a tiles client can check payloadHash. Withholding may change as items go out
  // of view, so they are never cached as immutable.
  router.get('/v1/log/payloads/*rest', async (ctx) => {
    params(ctx, []);
    const t = tileOfPath(ctx.path.slice('/v1/log/payloads/'.length), 'entries');
    if (t.index * 256 + t.width > log.size)
      throw notFound(`payloads/${tileIndexPath(t.index)}${t.width === 256 ? '' : `.p/${t.width}`}: beyond the tree of size ${log.size}`);
    const served = await log.entries(t.index * 256, t.width);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'application/x-ndjson';
    ctx.body = served.map((e) => `${entryJson(e, redact)}\n`).join('');
  });

  router.get('/v1/log/checkpoint', (ctx) => {
    params(ctx, []);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = checkpoint();
  });

  router.get('/v1/log/inclusion', async (ctx) => {
    const query = params(ctx, ['seq', 'size']);
    const treeSize = log.size;
    const seq = intParam(query, 'seq', { min: 0 });
    const size = intParam(query, 'size', { min: 1, default: treeSize });
    if (size <= treeSize && seq >= size) throw badRequest(`seq: ${seq} is not in a tree of size ${size}`);
    // Most proofs come from tiles in memory: answer those without a wait.
    const proof = log.inclusionProofNow(seq, size) ?? (await log.inclusionProof(seq, size));
    ctx.type = 'application/json';
    ctx.body = `{"seq":${seq},"treeSize":${size},"proof":${hexArray(proof)}}`;
  });

  router.get('/v1/log/consistency', async (ctx) => {
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
  router.get('/v1/log/audit', rateLimit(auditLimit, 'the audit'), async (ctx) => {
    params(ctx, []);
    running ??= d.audit().finally(() => (running = null));
    const { intact, problem, treeSize } = await running;
    ctx.body = { intact, problem, treeSize };
  });

  router.get('/v1/log/entries', async (ctx) => {
    const query = params(ctx, ['from', 'limit']);
    const treeSize = log.size;
    const from = intParam(query, 'from', { min: 0, default: 0 });
    const limit = intParam(query, 'limit', { min: 1, max: ENTRIES_PAGE.max, default: ENTRIES_PAGE.default });
    if (from > treeSize) throw badRequest(`from: ${from} is beyond the tree size ${treeSize}`);
    const entries = await log.entries(from, Math.min(limit, treeSize - from));
    const next = from + entries.length < treeSize ? from + entries.length : null;
    ctx.type = 'application/json';
    ctx.body = `{"treeSize":${treeSize},"from":${from},"count":${entries.length},"next":${next},"entries":[${entries.map((e) => entryJson(e, redact)).join(',')}]}`;
  });

  // One entry with its inclusion proof against the current signed head, which comes with it, and
  // what the entry records.
  router.get('/v1/log/entries/:seq', async (ctx) => {
    params(ctx, []);
    const raw = ctx.params.seq!;
    if (!/^(?:0|[1-9][0-9]{0,15})$/.test(raw) || !Number.isSafeInteger(Number(raw)))
      throw badRequest(`path: expected a seq (an integer at least 0), got ${JSON.stringify(raw)}`);
    const seq = Number(raw);
    const head = log.sth();
    if (seq >= head.treeSize) throw notFound(`no entry ${seq}: the tree has ${head.treeSize} entries`);
    const [e] = await log.entries(seq, 1);
    const proof = log.inclusionProofNow(seq, head.treeSize) ?? (await log.inclusionProof(seq, head.treeSize));
    ctx.type = 'application/json';
    ctx.body = `{"seq":${seq},"entry":${entryJson(e!, redact)},"records":${JSON.stringify(describe(e!))},"inclusion":{"seq":${seq},"treeSize":${head.treeSize},"proof":${hexArray(proof)}},"head":${JSON.stringify(head)}}`;
  });

  return router;
}
