// `archive verify --state FILE` keeps this verifier's replay beside the head it saves
// (verify/saved-state.ts): the next run checks and replays only the entries written since, and
// ends with the state a full run ends with; a replay that does not hold is set aside with a line
// and everything is checked; a log that was rewritten under a saved replay is a problem.
import t, { type Test } from 'tap';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { archive } from '../helpers/cli.js';
import { startService, type TestService } from '../helpers/service.js';
import { make, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { reviewedPaper } from '../helpers/verifier.js';
import { fetchLog } from '../../verify/source.js';
import { verifyLog } from '../../verify/verify.js';
import { loadReplay, replayFile } from '../../verify/saved-state.js';
import { stateDigest } from '../../lib/record/fold/index.js';
import { ArchiveClient } from '../../lib/client/http.js';

async function writes(t: Test, s: TestService, n: number): Promise<void> {
  const { claims, reviewer } = await reviewedPaper(t, s, n);
  t.equal((await send(s, reviewer, 'argument.file', make.argument(claims[0]!))).status, 201);
}

t.test('a second run checks only the new entries and ends where a full run ends', async (t) => {
  const s = await startService(t);
  await writes(t, s, 1);
  const state = join(tempDir(t), 'verified.json');
  const first = await archive(['verify', '--url', s.url, '--state', state]);
  t.equal(first.code, 0, first.stdout + first.stderr);
  t.notMatch(first.stdout, /resumed/, 'the first run checks everything');
  const saved = await loadReplay(replayFile(state));
  if (saved === null || 'problem' in saved) throw new Error(`no replay saved: ${JSON.stringify(saved)}`);
  const at = saved.state.size;
  t.equal(at, s.d.log.size, 'the replay is saved at the verified head');

  await writes(t, s, 2);
  const second = await archive(['verify', '--url', s.url, '--state', state]);
  t.equal(second.code, 0, second.stdout + second.stderr);
  t.match(
    second.stdout,
    new RegExp(`resumed from this verifier's replay saved at ${at} entries: the ${s.d.log.size - at} entries after it`),
  );
  t.match(second.stdout, /^OK: /m);

  // The state it saved is the state of a full verification of the same log.
  const again = await loadReplay(replayFile(state));
  if (again === null || 'problem' in again) throw new Error('no replay saved');
  const full = await verifyLog(await fetchLog(new ArchiveClient(s.url)));
  t.equal(full.report.ok, true);
  t.equal(stateDigest(again.state), stateDigest(full.state), 'the same state as a full run');
  t.equal(stateDigest(again.state), stateDigest(s.record.state), "and as the service's");
});

t.test('a replay that does not hold is set aside; a log rewritten under it is a problem', async (t) => {
  const s = await startService(t);
  await writes(t, s, 1);
  const state = join(tempDir(t), 'verified.json');
  t.equal((await archive(['verify', '--url', s.url, '--state', state])).code, 0);
  const bytes = readFileSync(replayFile(state));
  const changed = Buffer.from(bytes);
  changed[changed.length - 50] = changed[changed.length - 50]! ^ 0xff;
  writeFileSync(replayFile(state), changed);
  await writes(t, s, 2);
  const aside = await archive(['verify', '--url', s.url, '--state', state]);
  t.equal(aside.code, 0, aside.stdout + aside.stderr);
  t.match(aside.stderr, /the saved replay .* is set aside, its state does not hash to its digest; checking every entry/);
  t.notMatch(aside.stdout, /resumed/);
  // Cut short (a run that died while writing it, say): set aside the same way, and the run starts over.
  const whole = readFileSync(replayFile(state));
  writeFileSync(replayFile(state), whole.subarray(0, whole.length - 1000));
  await writes(t, s, 3);
  const cut = await archive(['verify', '--url', s.url, '--state', state]);
  t.equal(cut.code, 0, cut.stdout + cut.stderr);
  t.match(
    cut.stderr,
    /the saved replay .* is set aside, it holds \d+ bytes of state, its header says \d+ \(truncated\); checking every entry/,
  );
  t.notMatch(cut.stdout, /resumed/);

  // Another log under the same state file: its entry at the saved size is not the one verified.
  const other = await startService(t);
  await writes(t, other, 1);
  await writes(t, other, 2);
  await writes(t, other, 3);
  const rewritten = await archive(['verify', '--url', other.url, '--state', state]);
  t.equal(rewritten.code, 1, 'not OK');
  t.match(rewritten.stdout, /PROBLEM consistency/);
});

t.test('a run with no entry after the saved replay leaves it as it is; the next with new entries resumes from it', async (t) => {
  const s = await startService(t);
  await writes(t, s, 1);
  for (const cache of [false, true]) {
    const dir = tempDir(t);
    const state = join(dir, 'verified.json');
    const args = ['verify', '--url', s.url, '--state', state, ...(cache ? ['--cache', join(dir, 'log.jsonl')] : [])];
    t.equal((await archive(args)).code, 0);
    const saved = statSync(replayFile(state));
    const again = await archive(args);
    t.equal(again.code, 0, again.stdout + again.stderr);
    t.match(again.stdout, /resumed from this verifier's replay saved at \d+ entries: the 0 entries after it/);
    const now = statSync(replayFile(state));
    t.same([now.ino, now.mtimeMs, now.size], [saved.ino, saved.mtimeMs, saved.size], `not written again (cache: ${cache})`);
    await writes(t, s, cache ? 3 : 2);
    const next = await archive(args);
    t.equal(next.code, 0, next.stdout + next.stderr);
    t.match(next.stdout, /resumed from this verifier's replay saved at \d+ entries: the [1-9]\d* entries after it/);
    t.notSame(statSync(replayFile(state)).ino, saved.ino, 'written again after new entries');
  }
});
