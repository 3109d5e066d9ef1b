// An auditor trusts only the key they pinned: `archive verify --key` (the key or the vkey, as
// GET /v1/log/key spells them) fails against a service, a tiles mirror, an export or a proof of
// another log with a line naming both keys, passes with the right one, and every report names
// the key it checked against and whether it was pinned. `archive monitor --key` likewise.
import t from 'tap';
import { join } from 'node:path';
import { archive, archiveEach, type CliRun } from '../helpers/cli.js';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';

t.test('verify --key pins the log key for every source', async (t) => {
  const s = await startService(t);
  const other = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  t.equal((await send(s, alice, 'paper', make.paper(1))).status, 201);
  const mine = (await s.get('/v1/log/key')).body as { key: string; vkey: string };
  const theirs = (await other.get('/v1/log/key')).body as { key: string; vkey: string };
  t.not(mine.key, theirs.key, 'two logs, two keys');

  const dir = tempDir(t);
  const file = join(dir, 'log.jsonl');
  t.equal((await archive(['export', '--url', s.url, '--out', file])).code, 0);
  const sources: [string, string[]][] = [
    ['--url', ['--url', s.url]],
    ['--tiles', ['--tiles', s.url]],
    ['--file', ['--file', file]],
  ];
  // Every run at once, four at a time (each is a process of its own): per source, the key taken
  // on first use, the right key as a vkey (text) and as a key (--json), another log's key (text)
  // and its vkey (--json).
  const runs = sources.flatMap(([, source]) => [
    ['verify', ...source],
    ['verify', ...source, '--key', mine.vkey],
    ['verify', ...source, '--key', mine.key, '--json'],
    ['verify', ...source, '--key', theirs.key],
    ['verify', ...source, '--key', theirs.vkey, '--json'],
  ]);
  const done = await archiveEach(runs, 4);
  for (const [i, [name]] of sources.entries()) {
    const [unpinned, rightText, rightJson, wrongText, wrongJson] = done.slice(5 * i, 5 * i + 5) as CliRun[];
    t.equal(unpinned!.code, 0, `${name} unpinned: ${unpinned!.stderr}`);
    t.match(unpinned!.stdout, `checked against log key ${mine.key} (vkey ${mine.vkey}), taken from the source on first use`);

    t.equal(rightText!.code, 0, `${name} with the right vkey: ${rightText!.stdout}${rightText!.stderr}`);
    t.match(rightText!.stdout, `checked against log key ${mine.key} (vkey ${mine.vkey}), pinned with --key`);
    t.match(rightText!.stdout, /^OK: /m);
    t.equal(rightJson!.code, 0, `${name} with the right key`);
    t.match(JSON.parse(rightJson!.stdout), { ok: true, logKey: { key: mine.key, vkey: mine.vkey, pinned: true } });

    t.equal(wrongText!.code, 1, `${name} with another log's key fails`);
    t.notMatch(wrongText!.stdout, /^OK: /m, `${name}: no OK line`);
    t.match(
      wrongText!.stdout,
      `PROBLEM key: the source publishes log key ${mine.key}; the pinned key (--key) is ${theirs.key}`,
      `${name}: the line names both keys`,
    );
    t.match(wrongText!.stdout, `checked against log key ${theirs.key}`, `${name}: the report names the key it trusted`);
    t.equal(wrongJson!.code, 1, `${name} with another log's vkey fails`);
    const json = JSON.parse(wrongJson!.stdout);
    t.match(json, { ok: false, logKey: { key: theirs.key, vkey: theirs.vkey, pinned: true } });
    t.ok(
      json.problems.some(
        (p: { kind: string; detail: string }) => p.kind === 'key' && p.detail.includes(mine.key) && p.detail.includes(theirs.key),
      ),
      `${name} --json: a key problem naming both keys`,
    );
  }

  // A proof bundle, and what `archive proof` says it wrote.
  const bundle = join(dir, 'proof.json');
  const wrote = await archive(['proof', '--url', s.url, '--seq', '1', '--out', bundle]);
  t.equal(wrote.code, 0, wrote.stderr);
  t.match(JSON.parse(wrote.stdout), { out: bundle, seq: 1, treeSize: s.d.log.size, origin: 'archive.local' });
  const [ok, bad, garbage] = await archiveEach([
    ['verify', '--proof', bundle, '--key', mine.vkey],
    ['verify', '--proof', bundle, '--key', theirs.key, '--json'],
    // A key that is neither spelling: a usage error naming --key.
    ['verify', '--url', s.url, '--key', 'not-a-key'],
  ]);
  t.equal(ok!.code, 0, ok!.stdout);
  t.match(ok!.stdout, `OK: entry 1 is in the log of size ${s.d.log.size} signed by log key ${mine.key} (vkey ${mine.vkey}), pinned`);
  t.equal(bad!.code, 1);
  t.match(JSON.parse(bad!.stdout), { ok: false, logKey: { key: theirs.key, pinned: true }, problem: /not signed by the pinned key/ });

  t.equal(garbage!.code, 1);
  t.match(garbage!.stderr, /--key/);
});

t.test('monitor --key pins the log key and every round names it', async (t) => {
  const s = await startService(t);
  const other = await startService(t);
  const mine = (await s.get('/v1/log/key')).body as { key: string; vkey: string };
  const theirs = (await other.get('/v1/log/key')).body as { key: string; vkey: string };
  const dir = tempDir(t);

  const state = join(dir, 'tofu.json');
  const [wrong, pinned, first] = await archiveEach([
    ['monitor', '--once', '--url', s.url, '--state', join(dir, 'wrong.json'), '--key', theirs.vkey],
    ['monitor', '--once', '--url', s.url, '--state', join(dir, 'pinned.json'), '--key', mine.key],
    ['monitor', '--once', '--url', s.url, '--state', state],
  ]);
  t.equal(wrong!.code, 3, 'another log key: an inconsistent head');
  t.match(wrong!.stderr, `the service publishes log key ${mine.key}; the pinned key (--key) is ${theirs.key}`);
  t.equal(pinned!.code, 0, pinned!.stderr);
  t.match(pinned!.stdout, `verified by log key ${mine.key} (vkey ${mine.vkey}), pinned with --key (first head)`);
  t.equal(first!.code, 0, first!.stderr);
  t.match(first!.stdout, `verified by log key ${mine.key} (vkey ${mine.vkey}), taken from the service on first use (first head)`);
  const again = await archive(['monitor', '--once', '--url', s.url, '--state', state]);
  t.match(again.stdout, `verified by log key ${mine.key} (vkey ${mine.vkey}), pinned on first use (extends`);
  // The same state file followed with another key pinned: refused before anything is read; and
  // another service behind it: the key it pinned on first use is named beside the new one.
  const [clash, moved] = await archiveEach([
    ['monitor', '--once', '--url', s.url, '--state', state, '--key', theirs.key],
    ['monitor', '--once', '--url', other.url, '--state', state],
  ]);
  t.equal(clash!.code, 1);
  t.match(clash!.stderr, `the state file pinned log key ${mine.key}; --key names ${theirs.key}`);
  t.equal(moved!.code, 3);
  t.match(moved!.stderr, `the service publishes log key ${theirs.key}; the pinned key is ${mine.key}`);
});
