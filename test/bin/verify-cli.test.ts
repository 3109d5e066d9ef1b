// `archive verify` as a user runs it: progress of the fetch (of the log, or of a tiles mirror's
// bundles), of reading --file and of the replay on
// stderr only when asked (--progress; a child's stderr is no terminal), and a report that says
// sealed outputs are sealed until cross-checked, apart from what is withheld.
import t from 'tap';
import { join } from 'node:path';
import { archive } from '../helpers/cli.js';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';

t.test('verify shows progress when asked and names sealed outputs for what they are', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const paper = await send(s, alice, 'paper', make.paper(1));
  const commit = await send(s, bob, 'check.commit', make.commit(paper.body.claims[0]));
  t.equal(commit.status, 201, commit.text);
  const result = await send(s, bob, 'check.result', {
    commit: commit.body.id,
    outcome: 'confirmed',
    outputs: { acc: 0.9 },
    crossCheck: null,
  });
  t.equal(result.status, 201, result.text);
  t.equal((await send(s, bob, 'doorbell.set', { kind: 'webhook', cadence: 'daily', url: 'https://bob.example.org/wake' })).status, 200);
  const size = s.d.log.size;

  const quiet = await archive(['verify', '--url', s.url]);
  t.equal(quiet.code, 0, quiet.stderr);
  t.equal(quiet.stderr, '', 'no progress when stderr is not a terminal and --progress is not given');
  t.match(quiet.stdout, /^ {2}1 results' outputs sealed until cross-checked/m);
  t.match(quiet.stdout, /^ {2}1 entries with a private field withheld, such as a doorbell's address/m);
  t.notMatch(quiet.stdout, /outputs.*withheld|withheld.*outputs/, 'sealed outputs are not called withheld');

  const shown = await archive(['verify', '--url', s.url, '--progress']);
  t.equal(shown.code, 0, shown.stderr);
  t.match(shown.stderr, new RegExp(`^fetch: ${size} of ${size} entries$`, 'm'));
  t.match(shown.stderr, new RegExp(`^replay: 0 of ${size} entries$`, 'm'));
  t.match(shown.stderr, new RegExp(`^replay: ${size} of ${size} entries$`, 'm'));

  const file = join(tempDir(t), 'log.jsonl');
  t.equal((await archive(['export', '--url', s.url, '--out', file])).code, 0);
  const offline = await archive(['verify', '--file', file, '--progress']);
  t.equal(offline.code, 0, offline.stderr);
  t.match(offline.stderr, /^read: (\d+) of \1 bytes$/m, 'reading the file');
  t.match(offline.stderr, new RegExp(`^replay: ${size} of ${size} entries$`, 'm'));
  t.match(offline.stdout, /^ {2}1 results' outputs sealed until cross-checked/m);
  // The tiles the service serves: fetching the entry bundles, then the replay.
  const tiles = await archive(['verify', '--tiles', s.url, '--progress']);
  t.equal(tiles.code, 0, tiles.stderr);
  t.match(tiles.stderr, new RegExp(`^fetch: 0 of ${size} entries\nfetch: ${size} of ${size} entries$`, 'm'), 'fetching the bundles');
  t.match(tiles.stderr, new RegExp(`^replay: ${size} of ${size} entries$`, 'm'));
  t.equal((await archive(['verify', '--tiles', s.url])).stderr, '', 'none unless asked (no terminal)');
  const json = await archive(['verify', '--file', file, '--json']);
  t.match(JSON.parse(json.stdout), { ok: true, withheld: 2, sealed: 1, outOfView: 0 });
});
