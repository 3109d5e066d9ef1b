// Reading one's own writes on any node: a read carrying `Min-Seq` is answered once this node holds that entry, or 503 after
// `waitMs` (docs/api.md#reading-your-writes-many-nodes).
import type Koa from 'koa';
import { ArchiveError, badRequest } from '../lib/protocol/errors.js';
import type { RecordLog } from '../lib/protocol/log-entry.js';

export const MIN_SEQ_HEADER = 'min-seq';
export const SEQ_HEADER = 'Archive-Seq';

/** `replica`: what a read must find its entry in (the engine's Replica.reaches: the log and the state). */
export function minSeq(
  replica: { reaches(size: number, ms: number): Promise<boolean>; size: number },
  log: RecordLog,
  waitMs: number,
): Koa.Middleware {
  return async (ctx, next) => {
    const raw = ctx.get(MIN_SEQ_HEADER);
    if (raw === '' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (!/^(0|[1-9][0-9]*)$/.test(raw) || !Number.isSafeInteger(Number(raw)))
      throw badRequest(`Min-Seq: expected an integer at least 0 (the seq a write answered), got ${JSON.stringify(raw.slice(0, 40))}`);
    const seq = Number(raw);
    if (!(await replica.reaches(seq + 1, waitMs))) {
      throw new ArchiveError(
        'unavailable',
        `Min-Seq: this node holds the log up to entry ${Math.min(log.size, replica.size) - 1}, not yet entry ${seq}, after waiting ` +
          `${waitMs / 1000} s; retry, or read from another node`,
        { retryAfter: 1 },
      );
    }
    await next();
  };
}
