// The registry of entry types (docs/entry-types.md): every table built from it says what the
// separate tables said before, and the record refuses with domain codes that only the API turns
// into statuses.
import t from 'tap';
import {
  AGENT_WRITE_TYPES,
  CHECK_KEY_TYPES,
  CLIENT_VERBS,
  ENTRY_TYPES,
  SERVICE_EVENTS,
  WRITE_ROUTES,
  entryTypeOf,
  PAYLOAD_SCHEMAS,
  WRITE_TYPES,
} from '../../lib/record/types/index.js';
import { REGISTRATION_SCHEMA } from '../../lib/protocol/schemas/index.js';
import { check } from '../../lib/record/fold/index.js';
import { ArchiveError } from '../../lib/protocol/errors.js';
import { STATUS, toArchiveError } from '../../api/error-middleware.js';
import { Fold } from '../helpers/fold.js';

t.test('one descriptor per type, and the tables built from them', async (t) => {
  const types = ENTRY_TYPES.map((d) => d.type);
  t.equal(new Set(types).size, types.length, 'no type twice');
  t.same(
    [...SERVICE_EVENTS].sort(),
    ['check.lapse', 'check.reveal', 'check.seal', 'governance.close', 'hold.place', 'log.genesis', 'screening.refer', 'shutout.end'],
    'the service events',
  );
  t.same(Object.keys(WRITE_ROUTES).sort(), [...WRITE_TYPES].sort(), 'a route for every write type');
  for (const type of WRITE_TYPES) t.equal(entryTypeOf(type)!.schema, PAYLOAD_SCHEMAS[type], `${type}: its payload schema`);
  t.equal(entryTypeOf('agent.register')!.schema, REGISTRATION_SCHEMA);
  t.same(
    Object.keys(WRITE_ROUTES)
      .filter((type) => WRITE_ROUTES[type as keyof typeof WRITE_ROUTES].status === 200)
      .sort(),
    ['challenge.withdraw', 'doorbell.set', 'doorbell.stop', 'key.revoke', 'steward.remove', 'switch.set'],
    'the writes answered 200 (done)',
  );
  t.same([...CHECK_KEY_TYPES].sort(), ['check.commit', 'check.result', 'review']);
  t.equal(AGENT_WRITE_TYPES.length, WRITE_TYPES.length - 6, "six writes are the operator key's");
  const surfaces = Object.fromEntries(ENTRY_TYPES.filter((d) => d.surface !== null).map((d) => [d.type, d.surface]));
  t.same(surfaces, {
    'agent.register': 'registrations',
    paper: 'papers',
    'claim.external': 'papers',
    'claim.amend': 'papers',
    'check.commit': 'checks',
    'check.result': 'checks',
    review: 'reviews',
    'argument.file': 'arguments',
    'argument.check': 'arguments',
    'argument.answer': 'arguments',
    'challenge.propose': 'challenges',
    'challenge.withdraw': 'challenges',
  });
  t.same(
    ENTRY_TYPES.filter((d) => !d.pausable)
      .map((d) => d.type)
      .sort(),
    [
      'check.lapse',
      'check.reveal',
      'check.seal',
      'constitution.acknowledge',
      'governance.close',
      'governance.cosign',
      'hold.escalate',
      'hold.place',
      'hold.reject',
      'hold.release',
      'item.flag',
      'item.restore',
      'item.withhold',
      'log.genesis',
      'operator.pairing',
      'screening.refer',
      'shutout.end',
      'steward.appoint',
      'steward.remove',
      'switch.set',
    ],
    "never paused: the service events, the operator key's writes, the stewards' own acts, acknowledging the constitution",
  );
  t.same(CLIENT_VERBS.map(([verb]) => verb).sort(), [
    'amend',
    'answer',
    'argue',
    'challenge',
    'check-argument',
    'commit',
    'delegate',
    'doorbell',
    'doorbell-stop',
    'external',
    'publish',
    'result',
    'review',
    'revoke',
    'withdraw',
  ]);
});

t.test('the record refuses with a code and no status; the API gives it its status', async (t) => {
  const f = new Fold();
  f.agent('alice', 'lab-a');
  const [claim] = f.paper('alice');
  f.admit('challenge.propose', f.signed('alice', 'challenge.propose', { claim, brief: 'Re-run the first claim with a fresh seed.' }));
  const again = {
    seq: f.state.size,
    ts: new Date(f.now).toISOString(),
    type: 'challenge.propose',
    logged: f.signed('alice', 'challenge.propose', { claim, brief: 'A second proposal within the same day.' }),
  };
  let err: unknown;
  try {
    check(f.state, again);
  } catch (e) {
    err = e;
  }
  t.ok(err instanceof ArchiveError, 'an ArchiveError, the one error type');
  t.match(err, { code: 'rate_limited', detail: /daily quota/ });
  t.ok((err as ArchiveError).retryAfter! > 0, 'with the seconds until the quota has room');
  t.notOk('status' in (err as object), 'and no HTTP status');
  t.equal(toArchiveError(err), err, 'the API answers it as it is');
  t.equal(STATUS[(err as ArchiveError).code], 429, 'with 429 and Retry-After');
});
