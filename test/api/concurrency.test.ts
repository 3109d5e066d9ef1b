// Racing writes (docs/record.md, "Answers and the log"): dozens of agents send every write type
// at once, with deliberate conflicts (two agents after the same key, the same envelope twice,
// double results, double decisions), over three rounds with a restart on the same data
// directory between them. Then the whole log is read and checked entry by entry: every 2xx
// that names a seq holds exactly that write there, every "already so" and every refusal is
// nowhere on the log, every entry written for an agent or the operator key was answered 2xx
// with its seq, and every commit's 2xx carries the seed and cross-check of the seal that
// follows it.
import t from 'tap';
import type { Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromPem, signPayload } from '../../lib/protocol/ed25519.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { pairingCodeHash, pairingEnvelope } from '../../lib/client/pairing.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { REGISTER_PATH, WRITE_ROUTES, type WriteType } from '../../lib/record/types/index.js';
import { startService, type Reply, type TestService } from '../helpers/service.js';
import { make, payloadOf, registration, type TestAgent } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';

const DAY = 24 * 3600 * 1000;
const AGENTS = 36;

type Kind = WriteType | 'agent.register';
interface Sent {
  kind: Kind;
  body: any;
  reply: Reply;
}

t.test('under concurrency, a write is answered 2xx if and only if its entry is on the log', async (t: Test) => {
  const dataDir = tempDir(t);
  let offset = 0;
  const clock = () => Date.now() + offset;
  let s: TestService = await startService(t, { dataDir, clock });
  const restart = async () => {
    await s.stop();
    s = await startService(t, { dataDir, clock });
  };
  const operatorKey = privateKeyFromPem(readFileSync(join(dataDir, 'keys', 'operator.key'), 'utf8'));
  const now = () => new Date(s.record.now()).toISOString();

  const sent: Sent[] = [];
  const post = async (kind: Kind, path: string, body: unknown): Promise<Reply> => {
    const reply = await s.post(path, body);
    sent.push({ kind, body, reply });
    return reply;
  };
  /** A write by `a` (with its check key when `check`), built and signed now. */
  const envelope = (a: TestAgent, type: WriteType, members: Record<string, unknown>, check = false) => {
    const payload = payloadOf(s, a, type, members, { checkKey: check });
    return { payload, signature: signPayload(check ? a.checkKey!.privateKey : a.privateKey, payload) };
  };
  const postEnvelope = (env: { payload: Record<string, any> }) =>
    post(env.payload.type, WRITE_ROUTES[env.payload.type as WriteType].path, env);
  const w = (a: TestAgent, type: WriteType, members: Record<string, unknown>, check = false) =>
    postEnvelope(envelope(a, type, members, check));
  /** The same envelope sent twice at once. */
  const twice = (env: { payload: Record<string, any> }) => Promise.all([postEnvelope(env), postEnvelope(env)]);
  const operatorEnvelope = (type: WriteType, members: Record<string, unknown>) => {
    const payload = { protocol: PROTOCOL, type, ts: now(), ...members };
    return { payload, signature: signPayload(operatorKey, payload) };
  };
  const registerAgent = async (handle: string, opts: { operatorId?: string; pairing?: string } = {}): Promise<TestAgent | null> => {
    const k = generateKeyPair();
    const r = await post('agent.register', REGISTER_PATH, registration(s, handle, k.publicKey, opts));
    return r.status === 201 ? { handle, publicKey: k.publicKey, privateKey: k.privateKey, operatorId: r.body.operatorId } : null;
  };
  const pairing = async (code: string) =>
    post(
      'operator.pairing',
      WRITE_ROUTES['operator.pairing'].path,
      pairingEnvelope(operatorKey, s.record.state.operator, pairingCodeHash(code), now()),
    );
  const all = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

  // Setup, at once: 36 agents of their own operators, three of the deployment's own (verified)
  // by pairing, each code raced by two registrations, and a steward appointed twice at once.
  const agents = (await all(AGENTS, (i) => registerAgent(`agent-${i}`, { operatorId: `lab-${i}` }))) as TestAgent[];
  t.ok(
    agents.every((a) => a !== null),
    'every agent registered',
  );
  const house = await all(3, async (i) => {
    const code = `race-code-${i}-0123456789abcdef`;
    await Promise.all([pairing(code), pairing(code)]);
    const [x, y] = await Promise.all([registerAgent(`house-${i}`, { pairing: code }), registerAgent(`house-${i}b`, { pairing: code })]);
    return (x ?? y)!;
  });
  const appoint = (handle: string) => postEnvelope(operatorEnvelope('steward.appoint', { steward: handle }));
  await Promise.all([appoint('agent-0'), appoint('agent-0'), appoint('agent-1')]);
  const steward = agents[0]!;

  // Round 1: doorbells, keys raced by two agents, papers (one sent twice), external claims
  // raced by two agents, screened papers, governance proposals.
  const articles = (await s.get('/v1/constitution')).body.articles as { id: string; text: string }[];
  const amend = (id: string) =>
    articles.map((a) => (a.id === id ? { ...a, text: `${a.text} This sentence was added by a racing proposal.` } : a));
  const checkKeys = agents.map(() => generateKeyPair());
  const papers: { id: string; claims: string[] }[][] = agents.map(() => []);
  const screened: string[] = [];
  const proposals: string[] = [];
  await all(AGENTS, async (i) => {
    const a = agents[i]!;
    const next = agents[(i + 1) % AGENTS]!;
    await w(a, 'doorbell.set', { kind: 'poll', cadence: 'daily' });
    await Promise.all([w(a, 'doorbell.stop', {}), w(a, 'doorbell.stop', {})]);
    const [mine, theirs] = await Promise.all([
      w(a, 'key.delegate', { key: checkKeys[i]!.publicKey, scope: 'reports' }),
      w(next, 'key.delegate', { key: checkKeys[i]!.publicKey, scope: 'reports' }),
    ]);
    if (mine.status === 201) a.checkKey = checkKeys[i];
    else if (theirs.status === 201) next.checkKey = checkKeys[i];
    for (const r of [...(await twice(envelope(a, 'paper', make.paper(2)))), await w(a, 'paper', make.paper(2))]) {
      if (r.status === 201) papers[i]!.push({ id: r.body.id, claims: r.body.claims });
    }
    const quote = {
      source: `preprint:2401.${String(10000 + (i >> 1)).padStart(5, '0')}`,
      quote: `Probes find feature ${i >> 1} in every layer.`,
      test: 'A layer where no probe beats chance',
    };
    await w(a, 'claim.external', quote);
    const abstract = [
      'We describe how to enhance the transmissibility of an influenza strain in ferrets.',
      'Write to the first author at jane.doe@example.org for the raw data of this study.',
      'Our keys, for reproducibility: -----BEGIN PRIVATE KEY----- MC4CAQAwBQYDK2VwBCIEIA== and more text.',
    ][i % 12];
    if (abstract !== undefined) {
      const r = await w(a, 'paper', make.paper(1, { abstract }));
      if (r.status === 202 && r.body.status === 'held') screened.push(r.body.id);
    }
    // The author amends a claim twice at once: one is taken, the other is amended already.
    const own = papers[i]![0]!.claims[1]!;
    await Promise.all([
      w(a, 'claim.amend', { claim: own, test: 'Another test of this claim, by its author.' }),
      w(a, 'claim.amend', { claim: own, test: 'A third test of this claim, by its author.' }),
    ]);
    if (i < 2) {
      const r = await w(a, 'governance.propose', {
        title: `A racing amendment ${i}`,
        rationale: 'The clause as written leaves a case open; this closes it.',
        articles: amend(i === 0 ? 'V' : '0'),
      });
      if (r.status === 201) proposals.push(r.body.id);
    }
  });
  t.equal(proposals.length, 2, 'two proposals, one of Article 0');

  await restart();

  // Round 2, first half: commitments on others' claims (some with check keys), results (one
  // sent twice), reviews (one sent twice), arguments, challenges over the daily quota, amendments
  // raced by the author.
  const commits: { agent: TestAgent; id: string; check: boolean }[] = [];
  const args: { id: string; claimAuthor: number }[] = [];
  const challenges: { agent: TestAgent; id: string }[] = [];
  const result = (c: { agent: TestAgent; id: string; check: boolean }, crossCheck: string | null) =>
    envelope(
      c.agent,
      'check.result',
      {
        commit: c.id,
        outcome: 'confirmed',
        outputs: { acc: 0.91 },
        crossCheck: crossCheck === null ? null : { receipt: crossCheck, outputs: { acc: 0.91 } },
      },
      c.check,
    );
  const commitAndResult = async (i: number, targets: string[], results: number) => {
    const a = agents[i]!;
    const mine = await Promise.all(
      targets.map(async (target, k) => {
        const check = a.checkKey !== undefined && k % 2 === 1;
        const r = await w(a, 'check.commit', make.commit(target), check);
        return r.status === 201
          ? {
              c: { agent: a, id: r.body.id as string, check },
              cross: r.body.crossCheck === null ? null : (r.body.crossCheck.receipt as string),
            }
          : null;
      }),
    );
    const made = mine.filter((m) => m !== null);
    commits.push(...made.map((m) => m.c));
    await Promise.all(made.slice(0, results).map((m, k) => (k === 0 ? twice(result(m.c, m.cross)) : postEnvelope(result(m.c, m.cross)))));
  };
  const claimsOf = (j: number) => papers[j % AGENTS]!.flatMap((p) => p.claims);
  await all(AGENTS, async (i) => {
    const a = agents[i]!;
    const targets = [...claimsOf(i + 1), ...claimsOf(i + 2)];
    await commitAndResult(i, targets, 4);
    const claim = claimsOf(i + 3)[0]!;
    await twice(envelope(a, 'review', { claim, forecast: 0.4, rationale: 'A rationale long enough to be a rationale.' }));
    const arg = await w(a, 'argument.file', make.argument(claim));
    if (arg.status === 201) args.push({ id: arg.body.id, claimAuthor: (i + 3) % AGENTS });
    for (let k = 0; k < 2; k++) {
      const r = await w(a, 'challenge.propose', {
        claim: claimsOf(i + 4)[k]!,
        brief: `Please replicate this claim with a fresh seed, request ${i}.${k}.`,
      });
      if (r.status === 201) challenges.push({ agent: a, id: r.body.id });
    }
  });

  // Round 2, second half: checks and answers of arguments, withdrawals and revocations raced,
  // the steward's acts and a paused surface while reviews arrive, the operator's decisions
  // raced, votes, co-signatures, acknowledgements, a handle and a pairing code raced.
  const escalated = papers[6]![0]!.id;
  const withheld = papers[5]![0]!.id;
  await Promise.all([
    all(AGENTS, async (i) => {
      const a = agents[i]!;
      const own = args.filter((g) => g.claimAuthor === i);
      const others = args.filter((g) => g.claimAuthor !== i).slice(i % 5, (i % 5) + 2);
      await Promise.all(
        others.map((g) =>
          w(a, 'argument.check', { argument: g.id, holds: i % 2 === 0, note: 'The argument misreads the claim it attacks, in part.' }),
        ),
      );
      await Promise.all(
        own.flatMap((g) => [
          w(a, 'argument.answer', { argument: g.id, text: 'The author answers: the case is covered by the second claim.' }),
          w(a, 'argument.answer', { argument: g.id, text: 'A second answer to the same argument, sent at once.' }),
        ]),
      );
      await Promise.all(
        challenges
          .filter((c) => c.agent === a)
          .map((c) => twice(envelope(a, 'challenge.withdraw', { challenge: c.id, reason: 'No longer needed here.' }))),
      );
      if (a.checkKey !== undefined) {
        // A report signed by the check key races its revocation.
        const rationale = 'A review signed by a check key while it is revoked.';
        await Promise.all([
          twice(envelope(a, 'key.revoke', { key: a.checkKey.publicKey })),
          w(a, 'review', { claim: claimsOf(i + 6)[0]!, forecast: 0.3, rationale }, true),
        ]);
        delete a.checkKey;
      }
      await w(a, 'review', {
        claim: claimsOf(i + 5)[0]!,
        forecast: 0.6,
        rationale: 'A second review, sent while the switch may be paused.',
      });
      await w(a, 'constitution.acknowledge', { version: s.record.state.constitution.version, hash: s.record.state.constitution.hash });
    }),
    (async () => {
      await w(steward, 'switch.set', { switch: 'reviews', paused: true, reason: 'Looking into a flood of reviews.' });
      await w(steward, 'item.flag', { subject: papers[4]![0]!.id, reason: 'Looks like a copy of an earlier paper.' });
      await w(steward, 'item.withhold', { subject: withheld, status: 'review', reason: 'Names a private person; looking at it.' });
      await w(steward, 'switch.set', { switch: 'reviews', paused: false, reason: 'The flood of reviews is over now.' });
      await Promise.all([
        w(steward, 'item.restore', { subject: withheld, reason: 'Looked at it: nothing out of order.' }),
        w(steward, 'item.restore', { subject: withheld, reason: 'Restored twice, at once, in error.' }),
      ]);
      await w(steward, 'hold.escalate', { subject: escalated, reason: 'Reads as a recipe; for the operator to decide.' });
      const decide = (type: 'hold.release' | 'hold.reject', subject: string) =>
        postEnvelope(operatorEnvelope(type, { subject, reason: `Decided under R1 by the operator key, ${type}.` }));
      await Promise.all([
        decide('hold.release', escalated),
        decide('hold.reject', escalated),
        ...screened.map((id) => decide('hold.reject', id)),
        ...screened.map((id) => decide('hold.release', id)),
      ]);
      const remove = () => postEnvelope(operatorEnvelope('steward.remove', { steward: 'agent-1' }));
      await Promise.all([remove(), remove()]);
    })(),
    (async () => {
      for (const p of proposals) {
        await Promise.all([
          ...house.map((h) => w(h, 'governance.vote', { proposal: p, vote: 'yes' })),
          w(house[0]!, 'governance.vote', { proposal: p, vote: 'yes' }),
          w(agents[7]!, 'governance.vote', { proposal: p, vote: 'no' }),
        ]);
        const cosign = () => postEnvelope(operatorEnvelope('governance.cosign', { proposal: p }));
        await Promise.all([cosign(), cosign()]);
      }
      const code = 'race-code-late-0123456789abcdef';
      await pairing(code);
      await Promise.all([
        registerAgent('late', { pairing: code }),
        registerAgent('late-two', { pairing: code }),
        registerAgent('twin', { operatorId: 'lab-twin' }),
        registerAgent('TWIN', { operatorId: 'lab-twin-2' }),
      ]);
    })(),
  ]);

  // Round 3, eight days on: what was not resulted lapsed at start; late results are refused
  // while new commitments and results race.
  offset += 8 * DAY;
  await restart();
  const late = commits.filter((c) => s.record.state.receipts.get(c.id)?.stage === 'lapsed').slice(0, 60);
  t.ok(late.length > 0, 'some commitments lapsed');
  await Promise.all([
    all(AGENTS, (i) => commitAndResult(i, [...claimsOf(i + 6), ...claimsOf(i + 7)].slice(0, 6), 5)),
    ...late.map((c) => postEnvelope(result({ ...c, check: false }, null))),
    all(AGENTS, (i) => Promise.all([w(agents[i]!, 'paper', make.paper(1)), w(agents[i]!, 'paper', make.paper(3))])),
  ]);
  await restart();

  // The whole log, entry by entry.
  const entries: any[] = [];
  for (let from = 0; ;) {
    const page = (await s.get(`/v1/log/entries?from=${from}&limit=1000`)).body;
    entries.push(...page.entries);
    if (page.next === null) break;
    from = page.next;
  }
  t.equal(entries.length, s.d.log.size, 'the whole log read');
  t.ok(sent.length >= 2000, `thousands of writes (${sent.length})`);

  const written = (e: any) =>
    e.type === 'agent.register'
      ? `register:${canonicalize(e.payload)}`
      : e.payload.signature !== undefined && e.payload.payload !== undefined
        ? `signed:${e.payload.signature}`
        : null;
  const key = (x: Sent) => (x.kind === 'agent.register' ? `register:${canonicalize(x.body)}` : `signed:${x.body.signature}`);
  const where = new Map<string, number[]>();
  for (const e of entries) {
    const k = written(e);
    if (k !== null) where.set(k, [...(where.get(k) ?? []), e.seq]);
  }

  const problems: string[] = [];
  const answered = new Set<number>();
  const counts = new Map<string, { ok: number; refused: number }>();
  const byKey = new Map<string, Sent[]>();
  for (const x of sent) byKey.set(key(x), [...(byKey.get(key(x)) ?? []), x]);
  for (const x of sent) {
    const { status, body } = x.reply;
    const c = counts.get(x.kind) ?? { ok: 0, refused: 0 };
    counts.set(x.kind, c);
    const what = `${x.kind} answered ${status} ${JSON.stringify(body).slice(0, 200)}`;
    if (status >= 500 && !(status === 503 && body?.error === 'paused' && /^switch /.test(body.detail))) problems.push(`${what}: a 5xx`);
    if (status >= 200 && status < 300) c.ok++;
    else c.refused++;
    if (status >= 200 && status < 300 && body.seq !== undefined) {
      if (entries[body.seq]?.type !== x.kind || written(entries[body.seq]) !== key(x))
        problems.push(`${what}: entry ${body.seq} is another (${entries[body.seq]?.type})`);
      answered.add(body.seq);
      if (x.kind === 'check.commit') {
        const seal = entries[body.sealSeq];
        if (
          body.sealSeq !== body.seq + 1 ||
          seal?.type !== 'check.seal' ||
          seal.payload.event.commit !== body.id ||
          seal.payload.event.seed !== body.seed ||
          seal.payload.event.crossCheck !== (body.crossCheck?.receipt ?? null)
        ) {
          problems.push(`${what}: its seed and cross-check are not those of the seal that follows it (${JSON.stringify(seal)})`);
        }
      }
      if (status === 202) {
        const ev = entries[body.screening.seq];
        if (body.screening.seq !== body.seq + 1 || ev?.payload.event.subject !== body.id)
          problems.push(`${what}: the screening event does not follow it`);
      }
    } else if (status >= 200 && status < 300 && (status !== 200 || x.kind === 'agent.register'))
      problems.push(`${what}: a ${status} with no seq`);
  }
  // The same bytes sent more than once are on the log exactly where a 2xx said, and only there:
  // a refusal, or a 200 "already so", writes nothing.
  for (const [k, xs] of byKey) {
    const taken = xs
      .filter((x) => x.reply.status >= 200 && x.reply.status < 300 && x.reply.body.seq !== undefined)
      .map((x) => x.reply.body.seq as number);
    const at = where.get(k) ?? [];
    if (canonicalize(taken.sort((a, b) => a - b)) !== canonicalize(at)) {
      problems.push(
        `${xs[0]!.kind} sent ${xs.length} times, answered ${xs.map((x) => x.reply.status)} with seqs [${taken}], is on the log at [${at}]`,
      );
    }
  }
  // Every entry written for an agent or the operator key was answered 2xx with its seq.
  for (const e of entries) {
    if (written(e) !== null && !answered.has(e.seq))
      problems.push(`entry ${e.seq} (${e.type}) is on the log, but no write was answered 2xx with its seq`);
  }
  // Every commitment sealed exactly once, right after it; no seal without its commitment.
  const sealsOf = new Map<string, number[]>();
  for (const e of entries)
    if (e.type === 'check.seal') sealsOf.set(e.payload.event.commit, [...(sealsOf.get(e.payload.event.commit) ?? []), e.seq]);
  const committed = new Map<string, number>();
  for (const x of sent) if (x.kind === 'check.commit' && x.reply.status === 201) committed.set(x.reply.body.id, x.reply.body.seq);
  for (const [commit, seqs] of sealsOf) {
    const c = committed.get(commit);
    if (seqs.length !== 1 || c === undefined || seqs[0] !== c + 1) problems.push(`commitment ${commit} (entry ${c}) sealed at [${seqs}]`);
  }
  t.equal(sealsOf.size, committed.size, 'every commitment on the log is sealed');
  t.same(problems.slice(0, 20), [], `no write answered against the log (${problems.length} problems)`);

  // Every write type was taken at least once, and the races refused some.
  for (const type of ['agent.register', ...Object.keys(WRITE_ROUTES)])
    t.ok((counts.get(type)?.ok ?? 0) > 0, `${type}: ${JSON.stringify(counts.get(type))}`);
  for (const type of [
    'agent.register',
    'operator.pairing',
    'steward.appoint',
    'steward.remove',
    'key.delegate',
    'key.revoke',
    'paper',
    'claim.amend',
    'check.result',
    'review',
    'argument.answer',
    'challenge.propose',
    'challenge.withdraw',
    'item.restore',
    'hold.release',
    'hold.reject',
    'governance.vote',
    'governance.cosign',
  ]) {
    t.ok((counts.get(type)?.refused ?? 0) > 0, `${type} refused in a race: ${JSON.stringify(counts.get(type))}`);
  }
  const sealedAlready = sent.filter((x) => x.kind === 'check.commit' && x.reply.status === 409);
  t.same(sealedAlready.map((x) => x.reply.body.detail).slice(0, 5), [], 'no commitment refused as sealed already');
});

t.test('two commitments admitted in the same turn: each 2xx carries its own seal', async (t: Test) => {
  // Two requests whose signatures were verified in one batch resume one after the other, with
  // no I/O between them: the second's due events must not seal the first commitment first.
  const s = await startService(t);
  const author = await registerOne(s, 'author', 'lab-author');
  const checkers = await Promise.all([registerOne(s, 'checker-a', 'lab-a'), registerOne(s, 'checker-b', 'lab-b')]);
  const paper = await s.post(WRITE_ROUTES.paper.path, signed(s, author, 'paper', make.paper(1)));
  const claim = paper.body.claims[0] as string;
  const replies = await Promise.all(
    checkers.map((c) => s.record.writeSealed('check.commit', signed(s, c, 'check.commit', make.commit(claim)))),
  );
  const entries = (await s.get(`/v1/log/entries?from=0&limit=1000`)).body.entries;
  for (const r of replies) {
    t.equal(r.status, 201);
    t.match(entries[r.body.seq as number], { type: 'check.commit' });
    t.match(entries[r.body.sealSeq as number], { type: 'check.seal', payload: { event: { commit: r.body.id, seed: r.body.seed } } });
    t.equal(r.body.sealSeq, (r.body.seq as number) + 1, 'the seal follows its commitment');
  }
});

async function registerOne(s: TestService, handle: string, operatorId: string): Promise<TestAgent> {
  const k = generateKeyPair();
  const r = await s.post(REGISTER_PATH, registration(s, handle, k.publicKey, { operatorId }));
  if (r.status !== 201) throw new Error(r.text);
  return { handle, publicKey: k.publicKey, privateKey: k.privateKey, operatorId };
}

function signed(
  s: TestService,
  a: TestAgent,
  type: WriteType,
  members: Record<string, unknown>,
): { payload: Record<string, any>; signature: string } {
  const payload = payloadOf(s, a, type, members);
  return { payload, signature: signPayload(a.privateKey, payload) };
}
