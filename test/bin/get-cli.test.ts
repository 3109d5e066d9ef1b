// `archive get <id>` and `archive search <q>` against a real service, through the real `bin/archive`: the read is picked by
// the form of the id (paper, claim, external claim, receipt, argument, challenge, log seq), for
// people and with --json, and refusals exit 1 with the service's {error, detail}.
import t from 'tap';
import { archive } from '../helpers/cli.js';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';

t.test('archive get picks the read by the form of the id', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const paper = await send(s, alice, 'paper', make.paper(2, { title: 'Sparse probes find the feature' }));
  t.equal(paper.status, 201, paper.text);
  const id: string = paper.body.id;
  const claim = `${id}#C2`;
  const commit = await send(s, bob, 'check.commit', make.commit(claim));
  t.equal(commit.status, 201, commit.text);
  const argument = await send(s, bob, 'argument.file', make.argument(claim));
  t.equal(argument.status, 201, argument.text);
  const challenge = await send(s, bob, 'challenge.propose', { claim, brief: 'Replicate the second claim on a held-out set of probes.' });
  t.equal(challenge.status, 201, challenge.text);
  const external = await send(s, alice, 'claim.external', {
    source: 'preprint:2401.01234',
    quote: 'The model generalises out of distribution.',
    test: 'Accuracy on the held-out split stays above chance',
  });
  t.equal(external.status, 201, external.text);
  const url = ['--url', s.url];

  const p = await archive(['get', id, ...url]);
  t.equal(p.code, 0, p.stderr);
  t.match(p.stdout, new RegExp(`^paper ${id}\n`));
  t.match(p.stdout, /title: Sparse probes find the feature/);
  const pj = await archive(['get', id, ...url, '--json']);
  t.same(JSON.parse(pj.stdout), (await s.get(`/v2/papers/${id}`)).body, '--json prints the answer as served');

  const c = await archive(['get', claim, ...url, '--json']);
  t.equal(c.code, 0, c.stderr);
  t.match(JSON.parse(c.stdout), { ref: claim, text: 'Claim number 2 holds' });
  const missing = await archive(['get', `${id}#C9`, ...url]);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /HTTP 404/);
  t.match(missing.stderr, /no claim/);

  const ext = await archive(['get', external.body.id, ...url, '--json']);
  t.equal(ext.code, 0, ext.stderr);
  t.match(JSON.parse(ext.stdout), { ref: external.body.ref });

  const r = await archive(['get', commit.body.id, ...url]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, new RegExp(`^receipt ${commit.body.id}\n`));
  const a = await archive(['get', argument.body.id, ...url]);
  t.equal(a.code, 0, a.stderr);
  t.match(a.stdout, new RegExp(`^argument ${argument.body.id}\n`));
  const ch = await archive(['get', challenge.body.id, ...url, '--json']);
  t.equal(ch.code, 0, ch.stderr);
  t.match(JSON.parse(ch.stdout), { claim });
  const none = await archive(['get', 'f'.repeat(64), ...url]);
  t.equal(none.code, 1);
  t.match(none.stderr, /no receipt or argument/);

  const e = await archive(['get', '0', ...url, '--json']);
  t.equal(e.code, 0, e.stderr);
  t.match(JSON.parse(e.stdout), {
    seq: 0,
    entry: { seq: 0, type: 'log.genesis' },
    records: { type: 'log.genesis' },
    inclusion: { seq: 0 },
  });
  const pe = await archive(['get', String(paper.body.seq), ...url]);
  t.match(pe.stdout, new RegExp(`^log entry ${paper.body.seq} \\(paper\\)\n`));
  t.match(pe.stdout, new RegExp(`subject: ${id}`));
  const beyond = await archive(['get', '999', ...url]);
  t.equal(beyond.code, 1);
  t.match(beyond.stderr, /HTTP 404/);
  t.match(beyond.stderr, new RegExp(`no entry 999: the tree has ${s.d.log.size} entries`));

  const agent = await archive(['get', '@bob', ...url]);
  t.equal(agent.code, 0, agent.stderr);
  t.match(agent.stdout, /^agent bob\n/);
  t.match(agent.stdout, /operatorId: lab-b/);
  t.same(JSON.parse((await archive(['get', 'alice', ...url, '--json'])).stdout), (await s.get('/v2/agents/alice')).body);
  const operator = await archive(['get', 'operator:lab-b', ...url, '--json']);
  t.equal(operator.code, 0, operator.stderr);
  t.same(JSON.parse(operator.stdout), (await s.get('/v2/operators/lab-b')).body, 'an operator, named as such');
  const nobody = await archive(['get', 'nobody', ...url]);
  t.equal(nobody.code, 1);
  t.match(nobody.stderr, /HTTP 404/);

  const bad = await archive(['get', 'rec:xyz', ...url]);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /"rec:xyz" is no id the record knows; give a log seq/);
});

t.test('archive search prints ranked results with snippets, and the cursor of the next page', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const a = await send(s, alice, 'paper', make.paper(1, { title: 'Sparse probes find the feature' }));
  // Bob's paper has the word in its abstract, Alice's in its title: title first (ties would go by a key of the id).
  const b = await send(
    s,
    bob,
    'paper',
    make.paper(1, {
      title: 'Dense readouts miss the feature',
      abstract: 'Dense probes miss the feature that the sparse ones find, on every layer.',
      field: 'neuro',
    }),
  );
  const url = ['--url', s.url];

  const found = await archive(['search', 'probes', '--kind', 'paper', '--limit', '1', ...url]);
  t.equal(found.code, 0, found.stderr);
  const next = (await s.get('/v2/search?q=probes&kind=paper&limit=1')).body.next;
  t.match(found.stdout, new RegExp(`^paper ${a.body.id}\n    Sparse probes find the feature\n    An abstract long enough`));
  t.match(found.stdout, new RegExp(`more: the same command with --cursor ${next}\n$`));
  const second = await archive(['search', 'probes', '--kind', 'paper', '--limit', '1', '--cursor', next, ...url, '--json']);
  t.equal(second.code, 0, second.stderr);
  t.match(JSON.parse(second.stdout), { q: 'probes', results: [{ kind: 'paper', id: b.body.id }], next: null });
  // A cursor is base64url and may begin with "-": the word after --cursor is its value, not an option.
  const dashed = await archive(['search', 'probes', '--kind', 'paper', '--cursor', '-AAAAAAAAAAAAAAAA', ...url]);
  t.equal(dashed.code, 1);
  t.match(dashed.stderr, /HTTP 400/);
  t.match(dashed.stderr, /cursor: not a cursor of this list; pass the `next` of the previous page as it came, got \\"-AAAAAAAAAAAAAAAA\\"/);
  t.notMatch(dashed.stderr, /Unknown argument/);
  const filtered = await archive(['search', 'probes', '--field', 'neuro', '--json', ...url]);
  t.same(
    JSON.parse(filtered.stdout).results.map((r: any) => r.id),
    [b.body.id],
  );
  const none = await archive(['search', 'zeppelin', ...url]);
  t.equal(none.stdout, 'no results for "zeppelin"\n');
  const empty = await archive(['search', '', ...url]);
  t.equal(empty.code, 1);
  t.match(empty.stderr, /HTTP 400/);
  t.match(empty.stderr, /q: expected words to search for/);
  const help = await archive(['search', '--help']);
  for (const option of ['--kind', '--field', '--agent', '--operator', '--status', '--limit', '--cursor', '--json', '--url'])
    t.match(help.stdout, option, `--help names ${option}`);
});
