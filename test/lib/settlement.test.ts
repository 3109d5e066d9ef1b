// The settlement rule of arguments (docs/credence.md) and the shut-out after three dismissed
// attacks (docs/record.md, docs/api.md#statuses-and-error-codes, docs/payloads.md), at the state
// level, with operators verified from the start.
import t from 'tap';
import { settlement, SHUT_OUT_FOR } from '../../lib/record/numbers/index.js';
import { dueEvents, DAY, emptyState, type Argument, type State, replayEntries, stateJson } from '../../lib/record/fold/index.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { Fold, seededState } from '../helpers/fold.js';

// ---- the rule, table-driven ------------------------------------------------------------------

type Vote = [operatorId: string, holds: boolean, models?: string[]];

function argumentWith(votes: Vote[]): Argument {
  const a: Argument = {
    id: 'a'.repeat(64),
    seq: 1,
    ts: '2030-01-01T00:00:00.000Z',
    claim: 'rec:0000000000000000#C1',
    agent: 'author',
    operatorId: 'lab-author',
    stance: 'refutes',
    grounds: 'logical-gap',
    confidence: 0.7,
    cites: [],
    models: [],
    checks: new Map(),
    answer: null,
    status: 'open',
    settledSeq: null,
  };
  votes.forEach(([operatorId, holds, models], i) =>
    a.checks.set(operatorId, { agent: `agent-${operatorId}`, operatorId, holds, models: models ?? [], seq: 10 + i }),
  );
  return a;
}

function stateVerifying(...operators: string[]): State {
  const state = emptyState();
  operators.forEach((op, i) => state.verified.set(op, { round: i === 0 ? 0 : 1, seq: i }));
  return state;
}

const V = ['v1', 'v2', 'v3', 'v4', 'v5'];

t.test('settlement: who counts, and how many it takes', async (t) => {
  const cases: [string, Vote[], string][] = [
    ['no checks', [], 'open'],
    ['one verified voice', [['v1', true, ['claude-3-opus']]], 'open'],
    [
      'two verified, distinct families, hold',
      [
        ['v1', true, ['claude-3-opus']],
        ['v2', true, ['gpt-4o']],
      ],
      'upheld',
    ],
    [
      'two verified, distinct families, fail',
      [
        ['v1', false, ['claude-3-opus']],
        ['v2', false, ['gpt-4o']],
      ],
      'dismissed',
    ],
    [
      'two verified, one family: one voice',
      [
        ['v1', true, ['claude-3-opus']],
        ['v2', true, ['claude-3.5-sonnet']],
      ],
      'open',
    ],
    [
      'two verified, the same family set in another order: one voice',
      [
        ['v1', true, ['claude-3', 'gpt-4']],
        ['v2', true, ['gpt-4o', 'claude-2']],
      ],
      'open',
    ],
    [
      'two verified, overlapping but different sets: two voices',
      [
        ['v1', true, ['claude-3']],
        ['v2', true, ['claude-3', 'gpt-4']],
      ],
      'upheld',
    ],
    [
      'two verified, undeclared: each its own voice',
      [
        ['v1', true],
        ['v2', true],
      ],
      'upheld',
    ],
    [
      'one undeclared, one declared',
      [
        ['v1', false],
        ['v2', false, ['llama-3-70b']],
      ],
      'dismissed',
    ],
    [
      'unverified checks are ignored',
      [
        ['v1', true, ['claude-3']],
        ['u1', true, ['gpt-4']],
        ['u2', true],
        ['u3', true, ['gemini-pro']],
      ],
      'open',
    ],
    [
      'unverified dissent is ignored',
      [
        ['v1', true, ['claude-3']],
        ['v2', true, ['gpt-4']],
        ['u1', false],
        ['u2', false],
        ['u3', false],
      ],
      'upheld',
    ],
    [
      '3:1 with a dissent settles',
      [
        ['v1', true, ['claude-3']],
        ['v2', true, ['gpt-4']],
        ['v3', true, ['gemini-pro']],
        ['v4', false, ['llama-3']],
      ],
      'upheld',
    ],
    [
      '1:3 with a dissent settles the other way',
      [
        ['v1', true],
        ['v2', false],
        ['v3', false],
        ['v4', false],
      ],
      'dismissed',
    ],
    [
      '2:1 does not settle',
      [
        ['v1', true, ['claude-3']],
        ['v2', true, ['gpt-4']],
        ['v3', false, ['gemini-pro']],
      ],
      'open',
    ],
    [
      '3:2 does not settle',
      [
        ['v1', true],
        ['v2', true],
        ['v3', true],
        ['v4', false],
        ['v5', false],
      ],
      'open',
    ],
    // Three holding operators on one family are one voice: 1:1.
    [
      '3 same-family against 1 is one voice against one',
      [
        ['v1', true, ['claude-3']],
        ['v2', true, ['claude-2']],
        ['v3', true, ['claude-3.5']],
        ['v4', false, ['gpt-4']],
      ],
      'open',
    ],
  ];
  for (const [name, votes, want] of cases) {
    const state = stateVerifying(...V);
    t.equal(settlement(state, argumentWith(votes)), want, name);
  }
  // The same votes, counted only once their operators are verified.
  const votes: Vote[] = [
    ['v1', true, ['claude-3']],
    ['x2', true, ['gpt-4']],
  ];
  t.equal(settlement(stateVerifying('v1'), argumentWith(votes)), 'open', 'x2 not verified yet');
  t.equal(settlement(stateVerifying('v1', 'x2'), argumentWith(votes)), 'upheld', 'x2 verified');
});

// ---- through the state machine -----------------------------------------------------------------

const VERIFIED = ['op_archive', 'v1', 'v2', 'v3'];

/** Dismissed, or upheld, by two verified operators of distinct families. */
const dismiss = (f: Fold, argument: string): any => {
  f.checkArg('ver-one', argument, false, ['claude-3']);
  return f.checkArg('ver-two', argument, false, ['gpt-4']);
};
const uphold = (f: Fold, argument: string): any => {
  f.checkArg('ver-one', argument, true, ['claude-3']);
  return f.checkArg('ver-two', argument, true, ['gpt-4']);
};

function fold(): Fold {
  const f = new Fold(VERIFIED);
  f.agent('author', 'lab-a');
  f.agent('ver-one', 'v1');
  f.agent('ver-two', 'v2');
  f.agent('xavier', 'lab-x');
  f.agent('xena', 'lab-x');
  f.agent('other', 'lab-o');
  return f;
}

t.test('a check that settles the argument: status, its entry, and nothing after', async (t) => {
  const f = fold();
  const [c1] = f.paper('author', [{}, {}]);
  const a = f.argue('xavier', c1!);
  t.match(f.checkArg('ver-one', a, true, ['claude-3']), { argument: a, status: 'open', checks: 1 });
  t.match(f.checkArg('other', a, true), { status: 'open', checks: 2 }, 'unverified: no voice');
  const settledAt = f.state.size;
  t.same(f.checkArg('ver-two', a, true, ['gpt-4']), { argument: a, status: 'upheld', checks: 3, replaced: null });
  t.match(f.state.argumentsById.get(a), { status: 'upheld', settledSeq: settledAt });
  t.same(f.state.dismissedAttacks.get(`${c1} lab-x`), undefined, 'an upheld attack is not counted');
  const late = f.refusal(
    'argument.check',
    f.signed('other', 'argument.check', { argument: a, holds: false, note: 'A note of twenty characters.' }),
  );
  t.match(late, { error: 'conflict', detail: /settled already \(upheld, entry \d+\)/ });
});

t.test('three dismissed attacks shut the operator out of the claim for 30 days', async (t) => {
  const f = fold();
  const [c1, c2] = f.paper('author', [{}, {}]);
  // Dismissed supports and upheld attacks do not count; neither do dismissals on another claim.
  t.notOk('shutOut' in dismiss(f, f.argue('xavier', c1!, 'supports')), 'a dismissed support is no attack');
  uphold(f, f.argue('xavier', c1!));
  dismiss(f, f.argue('xavier', c2!));
  dismiss(f, f.argue('xavier', c2!));
  t.notOk('shutOut' in dismiss(f, f.argue('xavier', c1!)), 'first attack on c1');
  // Two agents of one operator count together; qualifies is an attack.
  t.notOk('shutOut' in dismiss(f, f.argue('xena', c1!, 'qualifies')), 'second attack on c1');
  t.equal(f.state.dismissedAttacks.get(`${c1} lab-x`), 2);
  const pending = f.argue('other', c1!);
  const third = f.argue('xavier', c1!);
  f.checkArg('ver-one', third, false, ['claude-3']);
  const shutAt = f.now;
  const out = f.checkArg('ver-two', third, false, ['gpt-4']);
  const until = shutAt + SHUT_OUT_FOR;
  t.equal(out.status, 'dismissed');
  t.equal(out.shutOut, new Date(until).toISOString(), 'the reply says until when');
  t.match(f.state.shutOuts.get(`${c1} lab-x`), { claim: c1, operatorId: 'lab-x', until, endedSeq: null });
  t.notOk(f.state.shutOuts.has(`${c2} lab-x`), 'two dismissals on c2: not shut out of it');

  // Shut out: no argument, argument check or commitment on c1 by any agent of lab-x.
  const refused = [
    f.refusal(
      'argument.file',
      f.signed('xena', 'argument.file', { claim: c1, stance: 'refutes', grounds: 'logical-gap', text: 'x'.repeat(90), confidence: 0.5 }),
    ),
    f.refusal(
      'argument.check',
      f.signed('xavier', 'argument.check', { argument: pending, holds: false, note: 'A note of twenty characters.' }),
    ),
    f.refusal(
      'check.commit',
      f.signed('xavier', 'check.commit', {
        target: c1,
        kind: 'replication',
        bundle: { repo: 'https://e.org/r', commit: 'a'.repeat(40), run: 'make', outputs: [{ name: 'acc' }], runtimeMinutes: 1 },
      }),
    ),
  ];
  for (const r of refused) t.match(r, { error: 'forbidden', detail: /operator lab-x is shut out of .* until .*three dismissed attacks/ });
  t.equal(
    f.refusal(
      'argument.file',
      f.signed('xavier', 'argument.file', { claim: c2, stance: 'refutes', grounds: 'logical-gap', text: 'x'.repeat(90), confidence: 0.5 }),
    ),
    null,
    'c2 stays open to it',
  );
  t.equal(
    f.refusal(
      'argument.file',
      f.signed('other', 'argument.file', { claim: c1, stance: 'refutes', grounds: 'logical-gap', text: 'x'.repeat(90), confidence: 0.5 }),
    ),
    null,
    'other operators are not shut out',
  );

  // The scheduler asks for shutout.end when it falls due, not before.
  t.same(dueEvents(f.state, until - 1), []);
  const end = { protocol: PROTOCOL, type: 'shutout.end', ts: new Date(f.now).toISOString(), claim: c1, operatorId: 'lab-x' };
  t.match(
    f.refusal('shutout.end', { event: end, signature: 'unchecked' }),
    { error: 'conflict', detail: /not due/ },
    'an early end is refused',
  );
  f.now = until + 5 * DAY;
  t.same(dueEvents(f.state, f.now), [{ type: 'shutout.end', claim: c1, operatorId: 'lab-x' }]);
  t.same(dueEvents(f.state, f.now), [], 'asked for once');
  f.admit('shutout.end', { event: { ...end, ts: new Date(f.now).toISOString() }, signature: 'unchecked' });
  t.not(f.state.shutOuts.get(`${c1} lab-x`)!.endedSeq, null);
  t.match(
    f.refusal('shutout.end', { event: end, signature: 'unchecked' }),
    { error: 'conflict', detail: /no shut-out in force/ },
    'ended once',
  );

  // Lifted: lab-x argues on c1 again, and its count started afresh.
  t.equal(f.state.dismissedAttacks.get(`${c1} lab-x`), 0);
  const again = f.argue('xavier', c1!);
  t.notOk('shutOut' in dismiss(f, again));
  dismiss(f, f.argue('xavier', c1!));
  t.match(
    dismiss(f, f.argue('xavier', c1!)),
    { status: 'dismissed', shutOut: new Date(f.now - 1000 + SHUT_OUT_FOR).toISOString() },
    'three more: shut out again',
  );
  t.equal(
    f.refusal(
      'argument.file',
      f.signed('xavier', 'argument.file', { claim: c1, stance: 'refutes', grounds: 'logical-gap', text: 'x'.repeat(90), confidence: 0.5 }),
    )?.error,
    'forbidden',
  );
});

t.test('a shut-out renewed while in force ends once, when the renewed one is due', async (t) => {
  const f = fold();
  const [c1] = f.paper('author', [{}, {}]);
  // Six attacks filed before any is dismissed: the last three are dismissed during the shut-out.
  const attacks = Array.from({ length: 6 }, () => f.argue('xavier', c1!));
  for (const a of attacks.slice(0, 3)) dismiss(f, a);
  const first = f.state.shutOuts.get(`${c1} lab-x`)!.until;
  f.now += 10 * DAY;
  for (const a of attacks.slice(3)) dismiss(f, a);
  const renewed = f.state.shutOuts.get(`${c1} lab-x`)!.until;
  t.ok(renewed > first, 'renewed until later');
  // When the first would have ended, nothing is due: an end then would be refused.
  t.same(dueEvents(f.state, first), []);
  f.now = first + 1000;
  t.match(
    f.refusal('shutout.end', {
      event: { protocol: PROTOCOL, type: 'shutout.end', ts: new Date(f.now).toISOString(), claim: c1, operatorId: 'lab-x' },
      signature: 'unchecked',
    }),
    { error: 'conflict' },
  );
  t.same(dueEvents(f.state, renewed), [{ type: 'shutout.end', claim: c1, operatorId: 'lab-x' }]);
});

t.test('replayed after a shut-out ended and a new one began, the scheduler asks only for the new end', async (t) => {
  const f = fold();
  const [c1] = f.paper('author', [{}, {}]);
  for (let i = 0; i < 3; i++) dismiss(f, f.argue('xavier', c1!));
  const first = f.state.shutOuts.get(`${c1} lab-x`)!.until;
  f.now = first;
  t.equal(dueEvents(f.state, f.now).length, 1);
  f.admit('shutout.end', {
    event: { protocol: PROTOCOL, type: 'shutout.end', ts: new Date(f.now).toISOString(), claim: c1, operatorId: 'lab-x' },
    signature: 'unchecked',
  });
  for (let i = 0; i < 3; i++) dismiss(f, f.argue('xavier', c1!));
  const second = f.state.shutOuts.get(`${c1} lab-x`)!.until;
  // A restart replays the log: its queue holds both due times again.
  const replayed = replayEntries(f.log, seededState(VERIFIED));
  t.equal(stateJson(replayed), stateJson(f.state), 'the same state');
  t.same(dueEvents(replayed, f.now), [], 'the first end is logged already; the second is not due');
  t.same(dueEvents(replayed, second), [{ type: 'shutout.end', claim: c1, operatorId: 'lab-x' }]);
});
