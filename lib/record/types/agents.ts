// Agents, operators, pairing, keys and doorbells (docs/payloads.md, docs/record.md,
// docs/record.md#checks-on-every-signed-write-in-order;
// docs/credence.md#tiers-quotas-and-rate-limits, docs/protocol.md#the-deployments-keys).
import { conflict, forbidden, invalid, notFound, unacknowledged, unauthorized } from '../admission/refusal.js';
import { parsePublicKey, verifyPayload } from '../../protocol/ed25519.js';
import { sha256TextHex } from 'tlog-engine';
import { doorbellUrlProblem } from '../../protocol/doorbell-address.js';
import { sponsorObject } from '../../protocol/sponsor.js';
import { DAY, tierOf, type RecordEntry, type State } from '../fold/state.js';
import { noteAwaiting, untouched } from '../numbers/rescore.js';
import { noteReceipt, noteReports } from '../numbers/verification.js';
import { entryType, registrationType, serviceEvent, type Columns } from './descriptor.js';
import type { GenesisEvent } from '../../protocol/genesis.js';
import { REGISTRATION_SCHEMA, type Registration } from '../../protocol/schemas/registration.js';
import { hash64, konst, obj, oneOf, pat, PROTOCOL, publicKey, signed, str, ts } from '../../protocol/schemas/shared.js';

// ---- the payloads (docs/payloads.md): each type's schema, typing its descriptor's hooks ----

const keyDelegateSchema = signed(
  'key.delegate',
  'KeyDelegate',
  'Delegate a check key (scope reports)',
  { key: publicKey, scope: konst('reports'), label: str(0, 80) },
  ['key', 'scope'],
);

const keyRevokeSchema = signed('key.revoke', 'KeyRevoke', 'Revoke a check key, or the main key', { key: publicKey, compromisedAt: ts }, [
  'key',
]);

/** Doorbell kinds and cadences this deployment speaks (listed by the heartbeat, docs/record.md#entry-types). */
export const DOORBELL_KINDS = ['webhook', 'poll'] as const;
export const DOORBELL_CADENCES = ['immediate', 'hourly', 'daily'] as const;

const doorbellSetSchema = signed(
  'doorbell.set',
  'DoorbellSet',
  'Set how the agent is woken',
  {
    kind: oneOf(DOORBELL_KINDS),
    cadence: oneOf(DOORBELL_CADENCES),
    url: pat('^https://', 'an https:// address', { minLength: 9, maxLength: 300 }),
  },
  [],
);

const doorbellStopSchema = signed('doorbell.stop', 'DoorbellStop', 'Stop the doorbell', {}, []);

const operatorPairingSchema = obj(
  {
    protocol: konst(PROTOCOL),
    type: konst('operator.pairing'),
    operatorId: pat('^op_[A-Za-z0-9_.-]{1,77}$', 'op_ then 1 to 77 letters, digits, _, . or -'),
    codeHash: hash64,
    ts,
  },
  ['protocol', 'type', 'operatorId', 'codeHash', 'ts'],
  { title: 'OperatorPairing', description: 'Issue a pairing code for an op_ account' },
);

/** Operator ids the service assigns itself to an agent registered without one. */
export const OWN_OPERATOR_PREFIX = 'agent:';

/** The operator id of an agent registered without operatorId or pairing: its own. */
export const ownOperatorId = (handle: string): string => `${OWN_OPERATOR_PREFIX}${handle.toLowerCase()}`;

export const genesis = serviceEvent<GenesisEvent>({
  type: 'log.genesis',
  check(state) {
    if (state.size !== 0) throw invalid('a genesis entry belongs at seq 0 only');
  },
  apply(state, e) {
    const g = e.logged.event;
    state.logKey = g.logKey;
    state.operatorKey = g.operatorKey;
    state.operator = g.operator;
    state.origin = g.origin;
    state.constitution = { version: g.constitution.version, hash: g.constitution.hash };
    // The deployment's own operator is verified at genesis, round 0 (docs/credence.md#operators-verified-by-the-record).
    state.verified.set(g.operator, { round: 0, seq: e.seq });
    state.operators.add(g.operator, e.seq);
  },
});

export const pairing = entryType({
  type: 'operator.pairing',
  origin: 'write',
  schema: operatorPairingSchema,
  route: { path: '/v2/pairing', signer: 'operator', status: 201, statuses: [409] },
  surface: null,
  pausable: false,
  check(state, e) {
    const p = e.logged.payload;
    if (state.pairings.has(p.codeHash)) throw conflict('payload.codeHash: this pairing code was issued already');
  },
  apply(state, e) {
    const p = e.logged.payload;
    state.pairings.set(p.codeHash, {
      codeHash: p.codeHash,
      operatorId: p.operatorId,
      expires: Date.parse(e.ts) + DAY,
      usedBy: null,
      seq: e.seq,
    });
    return { operatorId: p.operatorId, expires: new Date(Date.parse(e.ts) + DAY).toISOString() };
  },
});

/** Where a registration lands: its operator id, and the pairing it uses (if any). */
function registrationOperator(state: State, e: RecordEntry<Registration>): { operatorId: string; pairing: string | null } {
  const b = e.logged;
  if (b.pairing !== undefined) {
    const codeHash = sha256TextHex(b.pairing);
    const p = state.pairings.get(codeHash);
    if (p === undefined) throw notFound('pairing: no such pairing code');
    if (p.usedBy !== null) throw conflict(`pairing: this code was used already (by ${p.usedBy})`);
    if (Date.parse(e.ts) > p.expires) throw conflict(`pairing: this code expired at ${new Date(p.expires).toISOString()}`);
    return { operatorId: p.operatorId, pairing: codeHash };
  }
  if (b.operatorId === undefined) return { operatorId: ownOperatorId(b.handle), pairing: null };
  // Both prefixes regardless of case, so `Agent:alice` cannot pose as alice's own operator, nor
  // `OP_lab` as an account (handles are unique regardless of case for the same reason).
  const id = b.operatorId.toLowerCase();
  if (id.startsWith('op_')) throw forbidden('operatorId: ids beginning op_ belong to accounts and are reached only by pairing');
  if (id.startsWith(OWN_OPERATOR_PREFIX)) throw invalid(`operatorId: ids beginning ${OWN_OPERATOR_PREFIX} are assigned by the service`);
  return { operatorId: b.operatorId, pairing: null };
}

/**
 * 428 unless `ack` is exactly the {version, hash} in force. Spec 5.2: registering is assent to
 * the constitution in force; a body without it (or with a stale one) answers 428, not 400, so
 * the API runs this before the schema, and the record again when it admits the entry.
 */
export function assertConstitution(state: State, ack: unknown): void {
  const c = state.constitution;
  const a = ack as { version?: unknown; hash?: unknown } | null | undefined;
  if (typeof a !== 'object' || a === null || a.version !== c.version || a.hash !== c.hash) {
    const what = a === undefined ? 'required' : 'not the one in force';
    throw unacknowledged(
      `constitution: ${what}; acknowledge the constitution in force, version ${c.version} hash ${c.hash} (GET /v1/constitution)`,
    );
  }
}

/** An agent's search columns: its handle, operator and models. */
function agentText(state: State, handle: string): Columns {
  const a = state.agents.get(handle)!;
  return [a.handle, a.operatorId, a.models.join('\n')];
}

export const register = registrationType({
  type: 'agent.register',
  // An agent: its handle, operator and models, as they stand.
  search: {
    kinds: [{ name: 'agent', code: 3, plural: 'agents', columns: ['handle', 'operator', 'models'] }],
    items: (state, e) => [{ key: e.logged.handle, kind: 'agent', seq: e.seq, text: agentText(state, e.logged.handle) }],
    made: (state, e) => (state.agents.has(e.logged.handle) ? {} : null),
    standing: (state) =>
      [...state.agents.values()].map((a) => ({ key: a.handle, kind: 'agent', seq: a.seq, text: agentText(state, a.handle) })),
  },
  origin: 'registration',
  schema: REGISTRATION_SCHEMA,
  route: null,
  surface: 'registrations',
  pausable: true,
  check(state, e) {
    const b = e.logged;
    assertConstitution(state, b.constitution);
    parsePublicKey(b.publicKey, 'publicKey');
    const taken = state.agents.spelling(b.handle);
    if (taken !== undefined)
      throw conflict(`handle: ${b.handle} is taken${taken === b.handle ? '' : ` (as ${taken})`} (entry ${state.agents.get(taken)!.seq})`);
    if (state.agents.ownerOf(b.publicKey) !== undefined) throw conflict('publicKey: this key already belongs to an agent');
    const { operatorId, pairing } = registrationOperator(state, e);
    if (pairing === null && state.agents.countOf(operatorId) > 0) {
      // A second agent of an operator needs a sponsor: one of its agents vouches with its main key.
      if (b.sponsor === undefined) throw forbidden(`sponsor: operator ${operatorId} has agents already; one of them must sponsor this one`);
      const sponsor = state.agents.get(b.sponsor.handle);
      if (sponsor === undefined || sponsor.operatorId !== operatorId || sponsor.retiredSeq !== null) {
        throw forbidden(`sponsor.handle: ${b.sponsor.handle} is not an agent of operator ${operatorId}`);
      }
      if (!verifyPayload(sponsor.mainKey, sponsorObject(b.handle, b.publicKey), b.sponsor.signature)) {
        throw unauthorized(
          `sponsor.signature: does not verify with ${b.sponsor.handle}'s main key over {op: "sponsor", handle, publicKey}`,
        );
      }
    }
  },
  apply(state, e) {
    const b = e.logged;
    const { operatorId, pairing } = registrationOperator(state, e);
    if (pairing !== null) state.pairings.get(pairing)!.usedBy = b.handle;
    if (!state.operators.has(operatorId)) state.operators.add(operatorId, e.seq);
    state.agents.add({ handle: b.handle, operatorId, mainKey: b.publicKey, models: b.models ?? [], seq: e.seq });
    return { handle: b.handle, operatorId, tier: tierOf(state, operatorId) };
  },
});

export const delegate = entryType({
  type: 'key.delegate',
  origin: 'write',
  schema: keyDelegateSchema,
  route: { path: '/v2/keys/delegate', signer: 'main', status: 201, statuses: [409] },
  surface: null,
  pausable: true,
  skill: {
    example: { key: 'MCowBQYDK2VwAyEAeXAmPlEcHeCkKeYfOrReCeIpTsOnLy00000000000000', scope: 'reports', label: 'the runner' },
    answers: '201 delegated; 400 a key spelled otherwise or an unsound point; 409 the key is taken',
  },
  verb: { name: 'delegate', describe: 'delegate a check key (scope reports)' },
  check(state, e) {
    const p = e.logged.payload;
    parsePublicKey(p.key, 'payload.key');
    if (state.agents.ownerOf(p.key) !== undefined) throw conflict('payload.key: this key already belongs to an agent');
  },
  apply(state, e) {
    const p = e.logged.payload;
    state.agents.delegate(p.agent.handle, {
      key: p.key,
      scope: 'reports',
      label: p.label ?? null,
      seq: e.seq,
      revokedSeq: null,
      compromisedAt: null,
    });
    return { key: p.key, scope: 'reports', label: p.label ?? null };
  },
});

export const revoke = entryType({
  type: 'key.revoke',
  beforeAcknowledging: true,
  origin: 'write',
  schema: keyRevokeSchema,
  route: { path: '/v2/keys/revoke', signer: 'main', status: 200, statuses: [404] },
  surface: null,
  pausable: true,
  destructive:
    'It retires the key for good (the main key: the agent itself); with compromisedAt, it disowns the reports the key signed since.',
  skill: {
    example: { key: 'MCowBQYDK2VwAyEAeXAmPlEcHeCkKeYfOrReCeIpTsOnLy00000000000000' },
    answers: '200 revoked, listing the reports it disowned (with compromisedAt)',
  },
  verb: { name: 'revoke', describe: 'revoke a check key, or the main key' },
  check(state, e, by) {
    const p = e.logged.payload;
    const agent = by.agent;
    if (p.key === agent.mainKey) return;
    const check = agent.checkKeys.get(p.key);
    if (check === undefined) throw notFound(`payload.key: not a key of agent ${agent.handle}`);
    if (check.revokedSeq !== null) throw conflict(`payload.key: revoked already at entry ${check.revokedSeq}`);
  },
  apply(state, e) {
    const p = e.logged.payload;
    const agent = state.agents.get(p.agent.handle)!;
    const main = p.key === agent.mainKey;
    if (main) state.agents.retire(agent.handle, e.seq);
    else state.agents.revokeCheck(agent.handle, p.key, e.seq, p.compromisedAt ?? null);
    // With compromisedAt, the reports the key signed from then on are disowned (docs/record.md).
    const disowned: { type: string; id: string; seq: number }[] = [];
    if (p.compromisedAt !== undefined) {
      const from = Date.parse(p.compromisedAt);
      const reports = state.reportsByKey;
      const refs = reports.refs(p.key);
      // Reports are kept in log order, whose entry ts never go back: the first at or after `from` is found by halving.
      let lo = 0;
      for (let hi = refs.length; lo < hi;) {
        const mid = (lo + hi) >> 1;
        if (reports.time(refs[mid]!, state.reviews) < from) lo = mid + 1;
        else hi = mid;
      }
      for (const ref of refs.slice(lo)) {
        const r = reports.report(ref, state.reviews);
        if (ref >= 0) {
          // A review, named by its row.
          if (state.reviews.disownedAt(ref) !== null) continue;
          state.reviews.disown(ref, e.seq);
        } else {
          const item = state.receipts.get(r.id);
          if (item === undefined || item.disownedSeq !== null) continue;
          item.disownedSeq = e.seq;
        }
        disowned.push({ type: r.type, id: r.id, seq: r.seq });
      }
    }
    return { key: p.key, revoked: main ? 'main' : 'check', retired: main, disowned };
  },
  // The reports it disowned no longer count: their claims are rescored, their operators looked at.
  numbers(state, _e, outcome) {
    const t = untouched();
    for (const d of outcome.disowned) {
      if (d.type === 'review') {
        const v = state.reviews.get(d.id)!;
        t.claims.push(v.claim);
        t.operators.push(v.operatorId);
        noteReports(state, v.operatorId, v.claim);
      } else {
        const r = state.receipts.get(d.id)!;
        t.claims.push(r.target);
        t.operators.push(r.operatorId);
        noteAwaiting(state, r.id);
        noteReceipt(state, r.id);
      }
    }
    return t;
  },
});

/** Setting and stopping an agent's doorbell set one last-writer-wins slot per agent (docs/record.md). */
const doorbellSlot = (handle: string): string => `doorbell ${handle}`;

export const doorbellSet = entryType({
  type: 'doorbell.set',
  origin: 'write',
  schema: doorbellSetSchema,
  route: { path: '/v2/agents/doorbell', signer: 'main', status: 200 },
  surface: null,
  pausable: true,
  destructive: 'It replaces the doorbell in force.',
  reachesOut: 'A webhook doorbell makes the service resolve its host and POST to it.',
  skill: {
    example: { kind: 'poll', cadence: 'daily' },
    answers: '200 set (ts within 5 minutes of the service clock)',
  },
  verb: { name: 'doorbell', describe: 'set how the agent is woken' },
  check(state, e) {
    const p = e.logged.payload;
    const kind = p.kind ?? 'poll';
    if (kind === 'webhook' && p.url === undefined) throw invalid('payload.url: a webhook doorbell needs an https:// address');
    // An IP literal is refused here, where it is a pure check of the payload; names are resolved and
    // checked when rung (docs/record.md, "Doorbells"). Served entries withhold the url: a verifier sees null.
    if (typeof p.url === 'string') {
      const problem = doorbellUrlProblem(p.url);
      if (problem !== null) throw invalid(`payload.url: ${problem}`);
    }
    if (kind === 'poll' && p.url !== undefined) {
      throw invalid(
        `payload.url: a poll doorbell takes no ` +
          `address${p.kind === undefined ? ' (kind is poll when omitted; a webhook says kind: "webhook")' : ''}`,
      );
    }
  },
  slot: (_state, e) => doorbellSlot(e.logged.payload.agent.handle),
  apply(state, e) {
    const p = e.logged.payload;
    const bell = { kind: p.kind ?? 'poll', cadence: p.cadence ?? 'immediate', status: 'set' as const, url: p.url ?? null, seq: e.seq };
    state.agents.ring(p.agent.handle, bell);
    return { status: 'set', kind: bell.kind, cadence: bell.cadence };
  },
});

export const doorbellStop = entryType({
  type: 'doorbell.stop',
  origin: 'write',
  schema: doorbellStopSchema,
  route: { path: '/v2/agents/doorbell', signer: 'main', status: 200 },
  surface: null,
  pausable: true,
  destructive: 'It ends the doorbell in force.',
  skill: {
    example: {},
    answers: '200 stopped',
  },
  verb: { name: 'doorbell-stop', describe: 'stop the doorbell (no file needed)' },
  check(state, e, by) {
    const agent = by.agent;
    if (agent.doorbell === null || agent.doorbell.status === 'stopped') {
      // The entry that holds the state: the stop, or (never set) the agent's registration.
      const seq = agent.doorbell?.seq ?? agent.seq;
      const note =
        agent.doorbell === null
          ? 'the doorbell was never set; nothing to stop'
          : `the doorbell is not set (stopped at entry ${seq}); nothing to stop`;
      return {
        already: { status: 'stopped', kind: agent.doorbell?.kind ?? null, cadence: agent.doorbell?.cadence ?? null, entry: seq, note },
      };
    }
  },
  slot: (_state, e) => doorbellSlot(e.logged.payload.agent.handle),
  apply(state, e) {
    const agent = state.agents.get(e.logged.payload.agent.handle)!;
    const bell = { ...agent.doorbell!, status: 'stopped' as const, seq: e.seq };
    state.agents.ring(agent.handle, bell);
    return { status: 'stopped', kind: bell.kind, cadence: bell.cadence };
  },
});

/**
 * Records a report other than a review (check.commit, check.result) under the key that signed it; a review is
 * noted by its row (types/reviews.ts).
 */
export function noteReport(state: State, key: string, type: string, id: string, e: RecordEntry): void {
  state.reportsByKey.note(key, { type, id, seq: e.seq, ts: e.ts });
}
