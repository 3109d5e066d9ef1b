// Log reads: the engine's router of the log's reads configured with the record's entries, checkpoint and audit limit, and the
// record's payload bundles (docs/api.md#log-reads, docs/engine.md#the-logs-reads-over-http). Each path is a row of the read
// table (api/reads/log.ts).
import type Router from '@koa/router';
import { notFound } from '../../lib/protocol/errors.js';
import { logKeyString, parseLogKeyString, parseTilePath, tileIndexPath, verifierKey, type AuditReport, type LeafEntry } from 'tlog-engine';
import { ENTRIES_PAGE, TILE_CACHE, logRouter } from 'tlog-engine/http';
import { servedEntryOf, type Entry, type RecordLog } from '../../lib/protocol/log-entry.js';
import { params } from '../params.js';
import { rateLimit, type RateLimit } from '../rate-limit.js';

export { ENTRIES_PAGE, TILE_CACHE };

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
      : `${served.payload},"withheld":${JSON.stringify(served.withheld)}` +
        (served.subject === undefined ? '' : `,"subject":${JSON.stringify(served.subject)}`);
  return (
    `{"seq":${e.seq},"ts":"${e.ts}","type":"${e.type}","payloadHash":"${e.payloadHash}",` +
    `"prevHash":"${e.prevHash}","entryHash":"${e.entryHash}","payload":${payload}}`
  );
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
  return verifierKey(d.origin, parseLogKeyString(d.logKeyString));
}

/**
 * `checkpoint`: the checkpoint served, when witnesses cosign it (lib/service/witnesses.ts);
 * by default the log's own.
 */
export function logRoutes(
  d: ServedLog,
  auditLimit: RateLimit,
  redact: Redact = () => null,
  checkpoint?: () => string,
  describe: Describe = (e) => ({ type: e.type }),
): Router {
  const log = d.log;
  if (logKeyString(log.engine.publicKey) !== d.logKeyString) throw new Error('the log is not signed by the key it is served with');
  // Refusals are thrown to the record's error middleware, which answers a browser with a page.
  const router = logRouter(log.engine, {
    entryJson: (e: LeafEntry) => entryJson(servedEntryOf(e), redact),
    describe: (e: LeafEntry) => describe(servedEntryOf(e)),
    ...(checkpoint === undefined ? {} : { checkpoint }),
    audit: () => d.audit(),
    auditGuard: rateLimit(auditLimit, 'the audit'),
    errors: 'throw',
  });

  // Payload bundles: the entries of an entry bundle as /v1/log/entries serves them, one JSON
  // line each, so a tiles client can check payloadHash. Withholding may change as items go out
  // of view, so they are never cached as immutable.
  router.get('/payloads/*rest', async (ctx) => {
    params(ctx, []);
    const t = parseTilePath(ctx.path.slice('/v1/log/payloads/'.length), 'entries');
    if (t.index * 256 + t.width > log.size)
      throw notFound(`payloads/${tileIndexPath(t.index)}${t.width === 256 ? '' : `.p/${t.width}`}: beyond the tree of size ${log.size}`);
    const served = await log.entries(t.index * 256, t.width);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'application/x-ndjson';
    ctx.body = served.map((e) => `${entryJson(e, redact)}\n`).join('');
  });

  return router;
}
