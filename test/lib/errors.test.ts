// lib/protocol/errors.ts: the application's one error type and its closed set of codes; the API's
// statuses for them (api/error-middleware.ts).
import t from 'tap';
import { ArchiveError, CODES, badRequest, internal, isArchiveError, notFound } from '../../lib/protocol/errors.js';
import { STATUS } from '../../api/error-middleware.js';

t.test('every code maps to its status; only internal is hidden', async (t) => {
  t.same(STATUS, {
    bad_request: 400,
    unauthorized: 401,
    forbidden: 403,
    not_found: 404,
    method_not_allowed: 405,
    conflict: 409,
    gone: 410,
    payload_too_large: 413,
    unprocessable: 422,
    precondition_required: 428,
    rate_limited: 429,
    unavailable_for_legal_reasons: 451,
    internal: 500,
    paused: 503,
    unavailable: 503,
    insufficient_storage: 507,
  });
  t.same(Object.keys(STATUS), CODES, 'a status for every code, and no other');
  for (const code of CODES) {
    const e = new ArchiveError(code, 'why');
    t.notOk('status' in e, `${code}: the error carries no status`);
    t.equal(e.expose, code !== 'internal', `${code} expose`);
  }
});

t.test('shape of an error', async (t) => {
  const e = badRequest('payload.ts: skew of 11 minutes');
  t.ok(e instanceof Error);
  t.ok(isArchiveError(e));
  t.ok(isArchiveError(e, 'bad_request'));
  t.notOk(isArchiveError(e, 'not_found'));
  t.notOk(isArchiveError(new Error('x')));
  t.equal(e.name, 'ArchiveError');
  t.equal(e.code, 'bad_request');
  t.equal(e.detail, 'payload.ts: skew of 11 minutes');
  t.equal(e.message, 'bad_request: payload.ts: skew of 11 minutes');
  t.equal(e.retryAfter, undefined);
  t.equal(notFound('no such paper').code, 'not_found');
});

t.test('rate_limited carries retryAfter; internal keeps its cause', async (t) => {
  const r = new ArchiveError('rate_limited', 'slow down', { retryAfter: 30 });
  t.equal(r.retryAfter, 30);
  const cause = new Error('disk full');
  const i = internal('commit failed', cause);
  t.equal(i.expose, false);
  t.equal(i.cause, cause);
});
