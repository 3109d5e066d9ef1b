// The agents and operators held as columns (lib/record/stores/agent-store.ts, docs/record.md "How the state is kept") against
// the Maps they replace (agents by handle, handles by their lower case, keys to their agent, operators with their agents),
// on random registrations, retirements, check keys delegated and revoked and doorbells, restored from a snapshot on the way;
// and a snapshot taken before more of them land holds the agents and operators of its time alone.
import t from 'tap';
import fc from 'fast-check';
import { restore, same, throws } from '../helpers/stores.js';
import {
  emptyState,
  readState,
  stateBody,
  stateDigest,
  stateJson,
  type CheckKey,
  type Doorbell,
  type State,
} from '../../lib/record/fold/index.js';

interface ModelAgent {
  handle: string;
  operatorId: string;
  mainKey: string;
  models: string[];
  seq: number;
  retiredSeq: number | null;
  checkKeys: Map<string, CheckKey>;
  doorbell: Doorbell | null;
}

/** What the Maps the store replaces held. */
class Model {
  agents = new Map<string, ModelAgent>();
  handles = new Map<string, string>();
  keys = new Map<string, string>();
  operators = new Map<string, { id: string; seq: number; agents: string[] }>();
}

/** An agent as a plain object, its check keys a list: what is compared. */
const plain = (a: { checkKeys: ReadonlyMap<string, CheckKey> } & object) => ({
  ...a,
  checkKeys: [...a.checkKeys.values()].map((k) => ({ ...k })),
});

const MODELS = [[], ['model-a'], ['model-a', 'model-b'], ['model-b']];
const handleOf = (i: number, upper: boolean) => (upper ? `Agent-${i}` : `agent-${i}`);
const keyOf = (i: number) => `MCowBQYDK2VwAyEA-main-${i}`;
const checkOf = (i: number, k: number) => `MCowBQYDK2VwAyEA-check-${i}-${k}`;

const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('register' as const), i: fc.nat(60), upper: fc.boolean(), operator: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('retire' as const), i: fc.nat(60) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delegate' as const), i: fc.nat(60), k: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('revoke' as const), i: fc.nat(60), k: fc.nat(3), compromised: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('ring' as const), i: fc.nat(60), stop: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('operator' as const), operator: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'restore' as const }) },
);

/** Whether the store reads as the model: every agent and operator, by key, by row, in order, and every lookup it replaces. */
function agrees(state: State, m: Model): boolean {
  const { agents, operators } = state;
  if (agents.size !== m.agents.size || operators.size !== m.operators.size) return false;
  if (!same([...agents.values()].map(plain), [...m.agents.values()].map(plain))) return false;
  let row = 0;
  for (const [h, a] of m.agents) {
    if (agents.rowOf(h) !== row || !same(plain(agents.at(row)), plain(a)) || !same(plain(agents.get(h)!), plain(a))) return false;
    if (agents.spelling(h.toUpperCase()) !== h || agents.spelling(h.toLowerCase()) !== h) return false;
    row++;
  }
  for (const [k, h] of m.keys) if (agents.ownerOf(k) !== h) return false;
  if (
    agents.ownerOf('MCowBQYDK2VwAyEA-nobody') !== undefined ||
    agents.get('nobody') !== undefined ||
    agents.spelling('nobody') !== undefined
  )
    return false;
  if (
    !same(
      [...operators.values()],
      [...m.operators.values()].map(({ id, seq }) => ({ id, seq })),
    )
  )
    return false;
  for (const o of m.operators.values())
    if (!same(agents.ofOperator(o.id), o.agents) || agents.countOf(o.id) !== o.agents.length) return false;
  return agents.ofOperator('op_nobody').length === 0 && agents.countOf('op_nobody') === 0;
}

t.test('the agents and operators as columns read as the Maps they replace, before and after a snapshot', async (t) => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 150 }), (steps) => {
      let state = emptyState();
      const m = new Model();
      let seq = 0;
      for (const s of steps) {
        seq++;
        if (s.op === 'restore') {
          state = restore(state);
          continue;
        }
        if (s.op === 'operator') {
          const id = `op_${s.operator}`;
          if (m.operators.has(id)) {
            if (!throws(() => state.operators.add(id, seq))) return false;
            continue;
          }
          state.operators.add(id, seq);
          m.operators.set(id, { id, seq, agents: [] });
          continue;
        }
        const handle = [handleOf(s.i, false), handleOf(s.i, true)].find((h) => m.agents.has(h));
        if (s.op === 'register') {
          const h = handleOf(s.i, s.upper);
          const operatorId = `op_${s.operator}`;
          const a = { handle: h, operatorId, mainKey: keyOf(s.i), models: MODELS[s.i % MODELS.length]!, seq };
          // A handle taken in any case, or its key, is refused, and the store left as it was.
          if (handle !== undefined) {
            if (!throws(() => state.agents.add(a))) return false;
            continue;
          }
          if (!m.operators.has(operatorId)) {
            state.operators.add(operatorId, seq);
            m.operators.set(operatorId, { id: operatorId, seq, agents: [] });
          }
          state.agents.add(a);
          m.agents.set(h, { ...a, models: [...a.models], retiredSeq: null, checkKeys: new Map(), doorbell: null });
          m.handles.set(h.toLowerCase(), h);
          m.keys.set(a.mainKey, h);
          m.operators.get(operatorId)!.agents.push(h);
          continue;
        }
        if (handle === undefined) continue;
        const agent = m.agents.get(handle)!;
        if (s.op === 'retire') {
          state.agents.retire(handle, seq);
          agent.retiredSeq = seq;
        } else if (s.op === 'delegate') {
          const key = checkOf(s.i, s.k);
          const k: CheckKey = {
            key,
            scope: 'reports',
            label: s.k === 0 ? null : `runner ${s.k}`,
            seq,
            revokedSeq: null,
            compromisedAt: null,
          };
          if (m.keys.has(key)) {
            if (!throws(() => state.agents.delegate(handle, k))) return false;
            continue;
          }
          state.agents.delegate(handle, k);
          agent.checkKeys.set(key, { ...k });
          m.keys.set(key, handle);
        } else if (s.op === 'revoke') {
          const key = checkOf(s.i, s.k);
          const compromisedAt = s.compromised ? '2026-11-28T10:00:00.000Z' : null;
          const k = agent.checkKeys.get(key);
          if (k === undefined) {
            if (!throws(() => state.agents.revokeCheck(handle, key, seq, compromisedAt))) return false;
            continue;
          }
          state.agents.revokeCheck(handle, key, seq, compromisedAt);
          k.revokedSeq = seq;
          k.compromisedAt = compromisedAt;
        } else {
          const bell: Doorbell = { kind: 'poll', cadence: 'daily', status: s.stop ? 'stopped' : 'set', url: null, seq };
          state.agents.ring(handle, bell);
          agent.doorbell = bell;
        }
      }
      return agrees(state, m);
    }),
    { numRuns: 300 },
  );
  t.pass('300 random runs of registrations, retirements, keys, doorbells and restores');
});

t.test("a snapshot's copy holds the agents and operators of its time, not what changed after it", async (t) => {
  const state = emptyState();
  // More operators and agents than a page of a column copied on write (1,024 rows), so that writes after the copy save pages.
  for (let i = 0; i < 3000; i++) {
    const operatorId = `op_${i % 1500}`;
    if (!state.operators.has(operatorId)) state.operators.add(operatorId, i);
    state.agents.add({ handle: handleOf(i, i % 7 === 0), operatorId, mainKey: keyOf(i), models: MODELS[i % 4]!, seq: i });
  }
  state.agents.delegate(handleOf(5, false), {
    key: checkOf(5, 0),
    scope: 'reports',
    label: null,
    seq: 3000,
    revokedSeq: null,
    compromisedAt: null,
  });
  state.size = 3001;
  const body = stateBody(state, () => Promise.resolve());
  const agentsThen = [...state.agents.values()].map(plain);
  const operatorsThen = [...state.operators.values()];
  const listsThen = operatorsThen.map((o) => state.agents.ofOperator(o.id));
  // After the copy: new agents of old operators (their newest and count change), new operators, and each kind of change.
  for (let i = 3000; i < 4000; i++) {
    const operatorId = `op_${i % 2000}`;
    if (!state.operators.has(operatorId)) state.operators.add(operatorId, i);
    state.agents.add({ handle: handleOf(i, false), operatorId, mainKey: keyOf(i), models: ['model-new'], seq: i });
  }
  state.agents.retire(handleOf(1, false), 4001);
  state.agents.revokeCheck(handleOf(5, false), checkOf(5, 0), 4002, '2026-11-28T10:00:00.000Z');
  state.agents.delegate(handleOf(6, false), {
    key: checkOf(6, 0),
    scope: 'reports',
    label: 'x',
    seq: 4003,
    revokedSeq: null,
    compromisedAt: null,
  });
  state.agents.ring(handleOf(8, false), { kind: 'poll', cadence: 'daily', status: 'set', url: null, seq: 4004 });

  const back = readState(Buffer.concat(await body), 3001);
  if ('problem' in back) throw new Error(back.problem);
  t.equal(back.agents.size, 3000, 'the agents of the copy alone');
  t.same([...back.agents.values()].map(plain), agentsThen, 'each as it was: not retired, its check key not revoked, no doorbell');
  t.same([...back.operators.values()], operatorsThen, 'the operators of the copy alone');
  t.same(
    operatorsThen.map((o) => back.agents.ofOperator(o.id)),
    listsThen,
    "each operator's agents as they were",
  );
  t.equal(back.agents.countOf('op_1'), 2);
  t.equal(back.agents.ownerOf(checkOf(6, 0)), undefined, 'a key delegated after the copy is nobody’s in it');
  t.equal(back.agents.ownerOf(keyOf(2999)), handleOf(2999, false), 'a main key found by the index read back');
  t.equal(back.agents.spelling('AGENT-2995'), 'agent-2995', 'a handle in another case found by the index read back');
  t.equal(back.agents.spelling('agent-2995'), 'agent-2995');
  t.equal(back.agents.spelling('agent-7'), 'Agent-7', 'spelled as it was registered');

  // Added to after it is read back, as the state it was.
  back.agents.add({ handle: 'agent-new', operatorId: 'op_1', mainKey: keyOf(9999), models: [], seq: 3001 });
  t.same(back.agents.ofOperator('op_1'), [handleOf(1, false), handleOf(1501, false), 'agent-new']);
  t.ok(throws(() => back.agents.add({ handle: 'AGENT-NEW', operatorId: 'op_1', mainKey: keyOf(10000), models: [], seq: 3002 })));
  t.ok(throws(() => back.agents.add({ handle: 'agent-other', operatorId: 'op_1', mainKey: checkOf(5, 0), models: [], seq: 3002 })));
  t.ok(throws(() => back.agents.add({ handle: 'agent-other', operatorId: 'op_none', mainKey: keyOf(10001), models: [], seq: 3002 })));
});

t.test('the digest reads the agents and operators as the Maps they replace', async (t) => {
  const make = (label: string | null) => {
    const s = emptyState();
    s.operators.add('op_1', 0);
    s.operators.add('op_2', 1);
    s.agents.add({ handle: 'Alice', operatorId: 'op_1', mainKey: keyOf(1), models: ['model-a'], seq: 2 });
    s.agents.add({ handle: 'bob', operatorId: 'op_1', mainKey: keyOf(2), models: [], seq: 3 });
    s.agents.delegate('bob', { key: checkOf(2, 0), scope: 'reports', label, seq: 4, revokedSeq: null, compromisedAt: null });
    return s;
  };
  const json = JSON.parse(stateJson(make('runner'))) as Record<string, unknown>;
  t.same(json.handles, [
    ['alice', 'Alice'],
    ['bob', 'bob'],
  ]);
  t.same(json.keys, [
    [checkOf(2, 0), 'bob'],
    [keyOf(1), 'Alice'],
    [keyOf(2), 'bob'],
  ]);
  t.same(json.operators, [
    ['op_1', { agents: ['Alice', 'bob'], id: 'op_1', seq: 0 }],
    ['op_2', { agents: [], id: 'op_2', seq: 1 }],
  ]);
  t.same((json.agents as [string, { checkKeys: unknown }][])[1]![1].checkKeys, [
    [checkOf(2, 0), { compromisedAt: null, key: checkOf(2, 0), label: 'runner', revokedSeq: null, scope: 'reports', seq: 4 }],
  ]);
  t.equal(stateDigest(make('runner')), stateDigest(restore(make('runner'))), 'the same after a restore');
  t.not(stateDigest(make('runner')), stateDigest(make('another')), 'a check key that differs changes it');
});
