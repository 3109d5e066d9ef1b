// Refusals as a user sees them, for HTTP tests: the status, a body of exactly {error, detail}
// with the error code of that status, a detail naming the field, and nothing written (neither
// applied to the record nor logged).
import type { Test } from 'tap';
import type { TestService } from './service.js';

/** The error code of each status, as docs/api.md#statuses-and-error-codes and docs/record.md give them. */
const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable',
  428: 'precondition_required',
  429: 'rate_limited',
  451: 'unavailable_for_legal_reasons',
  503: 'paused',
};

export async function refused(
  t: Test,
  s: TestService,
  what: string,
  reply: Promise<{ status: number; body: any }>,
  status: number,
  detail: RegExp,
): Promise<void> {
  const size = s.record.state.size;
  const tree = (await s.get('/v1/log/sth')).body.treeSize;
  const r = await reply;
  t.equal(r.status, status, `${what}: ${status} (${JSON.stringify(r.body)?.slice(0, 300)})`);
  t.same(Object.keys(r.body ?? {}).sort(), ['detail', 'error'], `${what}: {error, detail}`);
  t.equal(r.body?.error, CODES[status], `${what}: error ${CODES[status]}`);
  t.match(r.body?.detail, detail, `${what}: detail names it`);
  t.equal(s.record.state.size, size, `${what}: nothing applied`);
  t.equal((await s.get('/v1/log/sth')).body.treeSize, tree, `${what}: nothing logged`);
}
