// Out of view over HTTP: a steward withholds a paper (reads and writes on it answer 451, its log
// entry serves its text null and still verifies, /v2/credence and the lists leave it out, the
// summary lists it) and restores it; screening refuses (451, nothing kept), refers (202, out of
// view until a steward looks) and holds (202, R1) papers and challenges; the operator key
// releases or rejects a hold from the command line; replay from zero reproduces it all.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stateJson } from '../../lib/record/fold/index.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { verifyService } from '../../verify/verify.js';
import { compileScreening, DEFAULT_RULES, screen } from '../../lib/service/screening.js';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { refused } from '../helpers/refused.js';
import { restore, withhold, withSteward } from '../helpers/stewards.js';

const run = promisify(execFile);
const ARCHIVE = join(process.cwd(), 'bin', 'archive');

t.test('a withheld paper: 451 on reads and writes, text served null, still verifies; restored', async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const paper = await send(s, alice, 'paper', make.paper(2));
  const [c1, c2] = paper.body.claims as [string, string];
  const id = paper.body.id as string;
  const commit = await send(s, bob, 'check.commit', make.commit(c1));
  t.equal(commit.status, 201);
  const arg = await send(s, bob, 'argument.file', make.argument(c2));
  t.equal(arg.status, 201);
  const ch = await send(s, bob, 'challenge.propose', { claim: c2, brief: 'Re-run the second claim with a fresh seed and report it.' });
  t.equal(ch.status, 201);

  // A flag: a public note that leaves the item in view.
  await refused(
    t,
    s,
    'a flag by a non-steward',
    send(s, bob, 'item.flag', { subject: id, reason: 'Looks like a copy of an earlier paper.' }),
    403,
    /bob is not a steward; only stewards flag items/,
  );
  const flagged = await send(s, sam, 'item.flag', { subject: id, reason: 'Its second claim restates a claim of an earlier paper.' });
  t.equal(flagged.status, 201, flagged.text);
  t.match(flagged.body, { subject: id, flags: 1 });
  t.match(
    (await s.get(`/v2/papers/${id}`)).body.flags,
    [{ subject: id, by: 'sam', reason: 'Its second claim restates a claim of an earlier paper.' }],
    'shown on the paper',
  );
  t.match((await s.get('/v2/flags')).body.flags, [{ subject: id, by: 'sam', seq: flagged.body.seq }]);
  t.equal((await s.get('/v2/record')).body.flags, 1);

  await refused(t, s, 'not a steward', withhold(s, bob, id), 403, /bob is not a steward/);
  await refused(
    t,
    s,
    'no such item',
    withhold(s, sam, 'rec:0123456789abcdef'),
    404,
    /payload.subject: nothing on the record is rec:0123456789abcdef/,
  );
  const w = await withhold(s, sam, id);
  t.equal(w.status, 201, w.text);
  t.match(w.body, { subject: id, status: 'review', entry: paper.body.seq });
  await refused(t, s, 'withheld twice', withhold(s, sam, id), 409, /out of view \(review, withheld by steward sam/);

  // Reads of it and of what stands on its claims: 451, naming why.
  for (const path of [
    `/v2/papers/${id}`,
    `/v2/receipts/${commit.body.id}`,
    `/v2/arguments?claim=${encodeURIComponent(c1)}`,
    `/v2/arguments/${arg.body.id}`,
    `/v2/challenges/${ch.body.id}`,
    `/explore/claims/${encodeURIComponent(c1)}`,
    `/explore/receipts/${commit.body.id}`,
    `/explore/arguments/${arg.body.id}`,
  ]) {
    const r = await s.get(path);
    t.equal(r.status, 451, `${path}: 451`);
    t.match(
      r.body,
      { error: 'unavailable_for_legal_reasons', detail: new RegExp(`${id} is out of view \\(review, withheld by steward sam`) },
      path,
    );
  }
  // The explorer's log names its entries (the log serves their ids) but links none of its items.
  const log = (await s.get('/explore/log?from=0&limit=200')).text;
  t.match(log, new RegExp(`<code>paper</code> <code>${id}</code>`), "the paper's entry names it, unlinked");
  for (const href of [
    `/v2/papers/${id}`,
    `/explore/claims/${encodeURIComponent(c1)}`,
    `/explore/receipts/${commit.body.id}`,
    `/explore/arguments/${arg.body.id}`,
  ])
    t.notMatch(log, `href="${href}"`, `no link to ${href}`);
  // Writes on it: 451, nothing written.
  await refused(t, s, 'a check', send(s, bob, 'check.commit', make.commit(c2)), 451, /payload.target: .* is out of view/);
  await refused(
    t,
    s,
    'a review',
    send(s, bob, 'review', { claim: c1, forecast: 0.5, rationale: 'A forecast on a claim out of view, refused.' }),
    451,
    /payload.claim/,
  );
  await refused(t, s, 'an argument', send(s, bob, 'argument.file', make.argument(c1)), 451, /payload.claim/);
  await refused(
    t,
    s,
    'a check of an argument',
    send(s, alice, 'argument.check', { argument: arg.body.id, holds: false, note: 'The argument misreads the claim it attacks.' }),
    451,
    /payload.argument/,
  );
  await refused(
    t,
    s,
    'a challenge',
    send(s, bob, 'challenge.propose', { claim: c1, brief: 'Re-run the first claim with a fresh seed and report it.' }),
    451,
    /payload.claim/,
  );
  await refused(
    t,
    s,
    'a paper building on it',
    send(s, bob, 'paper', make.paper(1, { builds_on: [{ id, rel: 'background' }] })),
    451,
    /payload.builds_on\[0\].id/,
  );

  // Left out of the numbers served and the lists; listed as withheld.
  const credence = (await s.get('/v2/credence')).body;
  t.notOk(
    credence.claims.some((c: any) => c.paper === id),
    '/v2/credence leaves it out',
  );
  const frontier = (await s.get('/v2/frontier?limit=50')).body;
  t.notOk(JSON.stringify(frontier).includes(id), 'so does the frontier');
  t.same((await s.get('/v2/challenges')).body.challenges, [], 'and the challenges');
  const summary = (await s.get('/v2/record')).body;
  t.same(summary.withheld, [{ subject: id, status: 'review', since: s.record.state.outOfView.get(id)!.since, entry: paper.body.seq }]);

  // Its log entry: the hashes it had, the text null, named by its id.
  const entry = (await s.get(`/v1/log/entries?from=${paper.body.seq}&limit=1`)).body.entries[0];
  t.equal(entry.subject, id);
  t.equal(entry.payload.payload.title, null);
  t.equal(entry.payload.payload.abstract, null);
  t.same(
    entry.payload.payload.claims.map((c: any) => [c.text, c.test, c.confidence]),
    [
      [null, null, 0.8],
      [null, null, 0.8],
    ],
  );
  t.same(entry.withheld, [
    'payload.title',
    'payload.abstract',
    'payload.claims[0].text',
    'payload.claims[0].test',
    'payload.claims[1].text',
    'payload.claims[1].test',
  ]);
  const v = await verifyService(new ArchiveClient(s.url));
  t.same(v.report.problems, [], 'archive verify: the log and every number served hold');
  t.ok(v.report.withheld >= 1, 'with the entry counted as withheld');
  const cli = await run(ARCHIVE, ['verify', '--url', s.url, '--json']);
  t.match(JSON.parse(cli.stdout), { ok: true, problems: [] }, 'the command line too: exit 0');

  // Withdrawn, then restored: back in view, entry whole again.
  t.equal((await withhold(s, sam, id, 'withdrawn')).status, 201, 'review -> withdrawn');
  t.equal((await s.get('/v2/record')).body.withheld[0].status, 'withdrawn');
  const back = await restore(s, sam, id);
  t.equal(back.status, 201, back.text);
  await refused(t, s, 'restored twice', restore(s, sam, id), 409, /is in view/);
  t.equal((await s.get(`/v2/papers/${id}`)).status, 200);
  t.equal((await s.get(`/v2/receipts/${commit.body.id}`)).status, 200);
  t.ok(
    (await s.get('/v2/credence')).body.claims.some((c: any) => c.paper === id),
    'back in /v2/credence',
  );
  const whole = (await s.get(`/v1/log/entries?from=${paper.body.seq}&limit=1`)).body.entries[0];
  t.equal(whole.withheld, undefined);
  t.match(whole.payload.payload.title, /^A paper of 2 claims/);
  t.equal((await send(s, bob, 'review', { claim: c1, forecast: 0.5, rationale: 'A forecast on a claim back in view.' })).status, 201);

  // Replay from zero reproduces it.
  await withhold(s, sam, arg.body.id, 'withdrawn');
  t.equal((await s.get(`/v2/arguments/${arg.body.id}`)).status, 451, 'an argument withheld on its own');
  t.same((await s.get(`/v2/arguments?claim=${encodeURIComponent(c2)}`)).body.arguments, [], "left out of its claim's list");
  const before = stateJson(s.record.state);
  await s.stop();
  const s2 = await startService(t, { dataDir: s.dataDir });
  t.equal(stateJson(s2.record.state), before, 'the same state after replay from zero');
  t.equal((await s2.get(`/v2/arguments/${arg.body.id}`)).status, 451);
  t.same((await verifyService(new ArchiveClient(s2.url))).report.problems, [], 'verifies after the restart');
});

t.test('screening: refuse (451, nothing kept), refer (202 until a steward looks), hold (202, R1)', async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  t.match(
    JSON.parse(readFileSync(join(s.dataDir, 'screening.json'), 'utf8')).rules,
    DEFAULT_RULES,
    'the defaults are written to the data directory',
  );

  const secret = make.paper(1, {
    abstract: 'Our keys, for reproducibility: -----BEGIN PRIVATE KEY----- MC4CAQAwBQYDK2VwBCIEIA== and more text.',
  });
  await refused(
    t,
    s,
    'a private key',
    send(s, alice, 'paper', secret),
    451,
    /^payload.abstract: refused by screening rule private-key: .*nothing was kept/,
  );

  // Refer: on the record, out of view, until a steward restores it.
  const referred = await send(
    s,
    alice,
    'paper',
    make.paper(1, { abstract: 'Write to the first author at jane.doe@example.org for the raw data of this study.' }),
  );
  t.equal(referred.status, 202, referred.text);
  t.match(referred.body, { id: /^rec:/, status: 'review', screening: { rule: 'personal-data' } });
  const id = referred.body.id as string;
  t.equal((await s.get(`/v2/papers/${id}`)).status, 451, 'invisible');
  t.match((await s.get('/v2/record')).body.withheld, [{ subject: id, status: 'review' }]);
  const ev = (await s.get(`/v1/log/entries?from=${referred.body.seq + 1}&limit=1`)).body.entries[0];
  t.match(
    ev,
    { type: 'screening.refer', payload: { event: { subject: id, rule: 'personal-data' } } },
    'the referral is on the log, right after the paper',
  );
  t.equal((await restore(s, sam, id)).status, 201, 'a steward looks');
  t.equal((await s.get(`/v2/papers/${id}`)).status, 200, 'visible after stewards look');

  // Hold (R1): only the operator key decides; a steward cannot restore it.
  const hazard = await send(
    s,
    alice,
    'paper',
    make.paper(1, { abstract: 'We describe how to enhance the transmissibility of an influenza strain in ferrets.' }),
  );
  t.equal(hazard.status, 202, hazard.text);
  t.match(hazard.body, { status: 'held', screening: { rule: 'pathogen-enhancement' } });
  const held = hazard.body.id as string;
  await refused(t, s, 'a steward restoring a hold', restore(s, sam, held), 409, /held under R1 .* only the operator key/);
  const holds = (await s.get('/v2/holds')).body;
  t.match(holds.holds, [{ subject: held, by: 'screening', rule: 'pathogen-enhancement', status: 'open', decision: null }]);

  // A challenge is screened like a paper.
  const visible = (await send(s, alice, 'paper', make.paper(1))).body.claims[0] as string;
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const ch = await send(s, bob, 'challenge.propose', {
    claim: visible,
    brief: 'Ask the author at someone@example.com to share the run logs.',
  });
  t.equal(ch.status, 202, ch.text);
  t.equal((await s.get(`/v2/challenges/${ch.body.id}`)).status, 451);

  // The operator key releases one hold and rejects another, from the command line.
  const key = join(s.dataDir, 'keys', 'operator.key');
  const released = await run(ARCHIVE, [
    'operator',
    'hold',
    'release',
    held,
    '--reason',
    'Read in full: a review of published work only.',
    '--url',
    s.url,
    '--key',
    key,
  ]);
  t.match(JSON.parse(released.stdout), { subject: held, decision: 'released' });
  t.equal((await s.get(`/v2/papers/${held}`)).status, 200, 'released: in view');
  const again = await run(ARCHIVE, [
    'operator',
    'hold',
    'release',
    held,
    '--reason',
    'Released a second time, in error.',
    '--url',
    s.url,
    '--key',
    key,
  ]).catch((e) => e);
  t.match(again.stderr, /HTTP 409[\s\S]*released already/);
  const second = (
    await send(
      s,
      alice,
      'paper',
      make.paper(1, { abstract: 'A synthesis route for sarin from commercially available precursors, step by step.' }),
    )
  ).body.id as string;
  await run(ARCHIVE, ['operator', 'hold', 'reject', second, '--url', s.url, '--key', key]);
  t.match((await s.get(`/v2/papers/${second}`)).body, { error: 'unavailable_for_legal_reasons', detail: /withdrawn, held under R1/ });
  await refused(t, s, 'a steward restoring a rejected item', restore(s, sam, second), 409, /rejected .* under R1/);
  const wrong = await run(ARCHIVE, [
    'operator',
    'hold',
    'release',
    second,
    '--reason',
    'Signed with another key than the operator key.',
    '--url',
    s.url,
    '--key',
    join(s.dataDir, 'keys', 'log.key'),
  ]).catch((e) => e);
  t.match(wrong.stderr, /HTTP 401/);
  t.match(
    (await s.get('/v2/holds?limit=2')).body.holds,
    [
      { subject: second, status: 'rejected', decision: { decision: 'rejected', reason: 'Rejected by the operator key under R1.' } },
      { subject: held, status: 'released', decision: { reason: 'Read in full: a review of published work only.' } },
    ],
    'newest first, with decisions',
  );
  t.equal((await s.get('/v2/holds?limit=0')).status, 400);

  // A steward escalates an item to the operator: an R1 hold.
  const esc = await send(s, sam, 'hold.escalate', {
    subject: visible.split('#')[0],
    reason: 'Reads as a recipe; for the operator to decide.',
  });
  t.equal(esc.status, 201, esc.text);
  t.equal((await s.get(`/v2/papers/${visible.split('#')[0]}`)).status, 451);

  const v = await verifyService(new ArchiveClient(s.url));
  t.same(v.report.problems, [], 'archive verify holds with items out of view');
  const before = stateJson(s.record.state);
  await s.stop();
  const s2 = await startService(t, { dataDir: s.dataDir });
  t.equal(stateJson(s2.record.state), before, 'replay from zero reproduces every steward effect');
});

t.test('the rules file: read from the data directory, checked at start', async (t) => {
  const s = compileScreening({
    rules: [{ id: 'no-foo', action: 'refer', pattern: '\\bfoo\\b', reason: 'foo is looked at by the stewards' }],
  });
  t.match(screen(s, 'paper', make.paper(1, { title: 'All about foo' })), { action: 'refer', rule: 'no-foo', field: 'payload.title' });
  t.same(screen(s, 'paper', make.paper(1)), { action: 'pass' });
  t.throws(
    () => compileScreening({ rules: [{ id: 'x', action: 'ban', pattern: 'a', reason: 'ten chars long' }] }),
    /rules\[0\].action: one of refer, hold, refuse/,
  );
  t.throws(() => compileScreening({ rules: [{ id: 'x', action: 'refer', pattern: '(', reason: 'ten chars long' }] }), /rules\[0\].pattern/);

  const svc = await startService(t);
  await svc.stop();
  writeFileSync(
    join(svc.dataDir, 'screening.json'),
    JSON.stringify({
      rules: [{ id: 'quiet', action: 'refuse', pattern: 'forbidden word', reason: 'this deployment takes no forbidden word' }],
    }),
  );
  const s2 = await startService(t, { dataDir: svc.dataDir });
  const alice = await register(s2, 'alice', { operatorId: 'lab-a' });
  await refused(
    t,
    s2,
    "the deployment's own rule",
    send(s2, alice, 'paper', make.paper(1, { title: 'On the forbidden word' })),
    451,
    /rule quiet/,
  );
  t.equal(
    (
      await send(
        s2,
        alice,
        'paper',
        make.paper(1, { abstract: 'An e-mail like a@b.org is fine on this deployment, whose rules say nothing of it.' }),
      )
    ).status,
    201,
  );
});
