// Writes (docs/api.md#writes): registration (plain JSON), pairing (signed by the operator key) and
// every signed write, each checked as an envelope (envelope.ts), then by the record.
import Router from '@koa/router';
import type Koa from 'koa';
import type { Deployment } from '../../lib/service/deployment.js';
import type { LiveRecord } from '../../lib/service/live-record.js';
import {
  type WriteType,
  REGISTER_PATH,
  REGISTRATION_TYPE,
  WRITE_ROUTES,
  assertConstitution,
  entryTypeOf,
} from '../../lib/record/types/index.js';
import { validateRegistration } from '../../lib/protocol/schemas/index.js';
import { jsonBody } from '../body.js';
import { checkAgentEnvelope, checkOperatorEnvelope, type Verify } from '../envelope.js';
import { params } from '../params.js';
import { rateLimit, type RateLimit } from '../rate-limit.js';
import { screen, type Screening } from '../../lib/service/screening.js';
import { SEQ_HEADER } from '../min-seq.js';
import { loggedReader } from '../../lib/service/logged.js';

/** What to do next, in words, after `handle` registered (data, never instructions to obey). */
const afterRegistering = (handle: string): string =>
  'Registered. Sign every later write with this key (GET /skill.md explains how); ' +
  `GET /v2/heartbeat?agent=${encodeURIComponent(handle)} shows what is owed.`;

/**
 * The last entry an answer depends on, for `Archive-Seq` (api/min-seq.ts): the largest seq it
 * names (the write's, its seal's, its screening event's); for an answer that names none (already
 * so), the last entry the state held when it was given.
 */
function lastSeq(body: Record<string, unknown>, record: LiveRecord): number {
  const screening = body.screening as { seq?: unknown } | undefined;
  const named = [body.seq, body.sealSeq, screening?.seq].filter((s): s is number => typeof s === 'number');
  return named.length > 0 ? Math.max(...named) : record.state.size - 1;
}

function answer(ctx: Koa.Context, record: LiveRecord, reply: { status: number; body: Record<string, unknown> }): void {
  ctx.status = reply.status;
  ctx.set(SEQ_HEADER, String(lastSeq(reply.body, record)));
  ctx.body = reply.body;
}

export function writeRoutes(
  d: Deployment,
  record: LiveRecord,
  screening: Screening,
  registerLimit: RateLimit | null,
  verify?: Verify,
): Router {
  const router = new Router();
  const logged = loggedReader(d);

  // Registration is the one write that makes an operator, and with it a quota, without a key the
  // record already knows: every attempt counts against the client's address (docs/cli.md, "archive serve: limits per client address").
  const limited: Koa.Middleware[] = registerLimit === null ? [] : [rateLimit(registerLimit, 'registration')];
  router.post(REGISTER_PATH, ...limited, async (ctx) => {
    params(ctx, []);
    const body = await jsonBody(ctx);
    // A missing or stale acknowledgement of the constitution answers 428 (docs/payloads.md#registration-plain-json-not-an-envelope), before
    // the schema would call a missing member 400.
    if (typeof body === 'object' && body !== null && !Array.isArray(body))
      assertConstitution(record.state, (body as { constitution?: unknown }).constitution);
    validateRegistration(body);
    const reply = await record.write(REGISTRATION_TYPE, body as object);
    answer(ctx, record, { status: reply.status, body: { ...reply.body, next: afterRegistering(String(reply.body.handle)) } });
  });

  // The types each path takes (doorbell.set and doorbell.stop share one).
  const byPath = new Map<string, WriteType[]>();
  for (const [type, route] of Object.entries(WRITE_ROUTES) as [WriteType, (typeof WRITE_ROUTES)[WriteType]][]) {
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), type]);
  }
  for (const [path, types] of byPath) {
    const operator = types.every((t) => WRITE_ROUTES[t].signer === 'operator');
    router.post(path, async (ctx) => {
      params(ctx, []);
      const body = await jsonBody(ctx);
      const now = record.now();
      const { type, envelope, text } = operator
        ? checkOperatorEnvelope(body, types, d.operatorKeyString, now)
        : await checkAgentEnvelope(body, types, record.state, now, verify);
      // Screening reads the types whose descriptor says so; the record answers with the status its descriptor gives.
      const described = entryTypeOf(type)!;
      const verdict = described.screened === true ? screen(screening, type, envelope.payload) : undefined;
      const reply = await record.write(type, envelope, text, verdict);
      // Its texts the state does not keep, read from their entries (a claim's amendment: its test and the one before).
      if (described.answered !== undefined && reply.status === described.route?.status)
        reply.body = await described.answered(record.state, reply.body, logged);
      answer(ctx, record, reply);
    });
  }
  return router;
}
