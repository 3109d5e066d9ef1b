// Monitors: two real services started from the same genesis (one data directory, copied) that
// then diverge, each followed by a monitor; the monitors gossip heads and find the split view.
// Also: a head that does not extend the saved one, and the command line's exit codes.
import t from 'tap';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startService } from '../helpers/service.js';
import { copiedLog, register } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { monitorRound, readState, serveGossip, writeState, type MonitorState } from '../../verify/monitor.js';

const run = promisify(execFile);
const ARCHIVE = join(process.cwd(), 'bin', 'archive');

t.test('two services from one genesis diverge; monitors that gossip find the split view', async (t) => {
  // One log, written a little, then copied: two services that share genesis, keys and prefix.
  const [dirA, dirB] = await copiedLog(t);
  const a = await startService(t, { dataDir: dirA });
  const b = await startService(t, { dataDir: dirB });
  t.equal(a.d.logKeyString, b.d.logKeyString, 'the same log key');

  // Before they diverge, monitors of each agree.
  let stateB = (await monitorRound({ url: b.url, peers: [] }, null)).state!;
  const gossip = await serveGossip(0, '127.0.0.1', () => stateB);
  t.teardown(() => new Promise((resolve) => gossip.server.close(resolve)));
  let round = await monitorRound({ url: a.url, peers: [gossip.url] }, null);
  t.same(
    round.findings.map((f) => f.kind),
    ['ok', 'ok'],
    'same heads: consistent',
  );
  let stateA = round.state!;

  // A grows: still consistent with what B's monitor saw (B's head is a prefix of A's).
  await register(a, 'bob', { operatorId: 'lab-b' });
  round = await monitorRound({ url: a.url, peers: [gossip.url] }, stateA);
  t.same(
    round.findings.map((f) => f.kind),
    ['ok', 'ok'],
    "a longer head extending the peer's",
  );
  stateA = round.state!;

  // B is shown another entry at the same place: the logs diverge.
  await register(b, 'mallory', { operatorId: 'lab-m' });
  await register(b, 'trent', { operatorId: 'lab-t' });
  stateB = (await monitorRound({ url: b.url, peers: [] }, stateB)).state!;
  round = await monitorRound({ url: a.url, peers: [gossip.url] }, stateA);
  const split = round.findings.find((f) => f.kind === 'split');
  t.ok(split, 'a split view is found');
  t.match(split, { detail: /SPLIT VIEW: the head of size \d+ shown to .* is not a prefix of the head of size \d+ shown to/ });
  t.same(
    (split as any).evidence.map((e: any) => e.sth),
    [stateA.sth, stateB.sth],
    'both signed heads as evidence',
  );

  // Equal sizes, different roots: a split too.
  await register(a, 'carol', { operatorId: 'lab-c' });
  round = await monitorRound({ url: a.url, peers: [gossip.url] }, round.state);
  t.equal(round.state!.sth.treeSize, stateB.sth.treeSize);
  t.ok(
    round.findings.some((f) => f.kind === 'split'),
    'same size, another root',
  );

  // The command line: --once exits 3 and prints the evidence; the state file pins the head.
  const dir = tempDir(t);
  const stateFile = join(dir, 'a.json');
  const bad = await run(ARCHIVE, ['monitor', '--url', a.url, '--state', stateFile, '--peer', gossip.url, '--once']).catch((e) => e);
  t.equal(bad.code, 3, 'exit 3 on a split view');
  t.match(bad.stderr, /\*\*\* SPLIT VIEW \*\*\*/);
  t.match(bad.stderr, /"rootHash": "[0-9a-f]{64}"/, 'with the signed heads');
  t.equal(readState(stateFile)!.sth.treeSize, a.d.log.size, "the service's own head was verified and saved");
  const alone = await run(ARCHIVE, ['monitor', '--url', a.url, '--state', stateFile, '--once', '--json']);
  t.match(JSON.parse(alone.stdout.trim().split('\n')[0]!), { kind: 'ok', detail: /extends/ });

  // A monitor that saw B's head, now shown A's: A's head does not extend it.
  const seenB = join(dir, 'b.json');
  writeState(seenB, { ...stateB, url: a.url } as MonitorState);
  const inconsistent = await run(ARCHIVE, ['monitor', '--url', a.url, '--state', seenB, '--once']).catch((e) => e);
  t.equal(inconsistent.code, 3);
  t.match(inconsistent.stderr, /INCONSISTENT HEAD[\s\S]*does not extend the head of size/);
  t.equal(readState(seenB)!.sth.rootHash, stateB.sth.rootHash, 'the saved head is kept, not replaced');
});
