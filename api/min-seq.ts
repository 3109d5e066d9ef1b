// Reading one's own writes on any node (docs/api.md, "Reading your writes"): a write's answer names
// the last entry it depends on (`Archive-Seq`, and `seq` in its body); a read that carries
// `Min-Seq: <seq>` is answered only once this node has that entry in its log and its state,
// waiting for it at most `waitMs` (a node that follows applies what the leader committed within
// milliseconds), and otherwise answers 503 `unavailable` naming how far it is.
import type Koa from 'koa';
import { ArchiveError, badRequest } from '../lib/protocol/errors.js';
import type { RecordLog } from '../lib/protocol/log-entry.js';

export const MIN_SEQ_HEADER = 'min-seq';
export const SEQ_HEADER = 'Archive-Seq';

/** Resolves whether `log` (and `applied()`) reach `size` entries within `ms`. */
export async function reaches(log: RecordLog, applied: () => number, size: number, ms: number): Promise<boolean> {
  const has = () => log.size >= size && applied() >= size;
  if (has()) return true;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    let timer: NodeJS.Timeout | undefined;
    const left = until - Date.now();
    // The log's own waiters; should the log be stopped (its waiters refused), look again shortly.
    await Promise.race([
      log.waitFor(size).catch(() => new Promise((r) => setTimeout(r, Math.min(left, 25)))),
      new Promise((r) => (timer = setTimeout(r, left))),
    ]);
    clearTimeout(timer);
    if (has()) return true;
  }
  return has();
}

export function minSeq(log: RecordLog, applied: () => number, waitMs: number): Koa.Middleware {
  return async (ctx, next) => {
    const raw = ctx.get(MIN_SEQ_HEADER);
    if (raw === '' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (!/^(0|[1-9][0-9]*)$/.test(raw) || !Number.isSafeInteger(Number(raw)))
      throw badRequest(`Min-Seq: expected an integer at least 0 (the seq a write answered), got ${JSON.stringify(raw.slice(0, 40))}`);
    const seq = Number(raw);
    if (!(await reaches(log, applied, seq + 1, waitMs))) {
      throw new ArchiveError(
        'unavailable',
        `Min-Seq: this node holds the log up to entry ${Math.min(log.size, applied()) - 1}, not yet entry ${seq}, after waiting ${waitMs / 1000} s; retry, or read from another node`,
        { retryAfter: 1 },
      );
    }
    await next();
  };
}
