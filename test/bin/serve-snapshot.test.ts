// `archive serve` and its snapshots (docs/log-format.md, "Snapshots of the record's state"): with
// --snapshot-every it writes one as the log grows; killed with SIGKILL, it starts again from that
// snapshot, replays what was written since, and every write it answered 2xx is there. The search
// index, on disk, is brought up to date from its own head (docs/api.md#search).
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { tempDir } from '../helpers/tmp.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';

const archive = fileURLToPath(new URL('../../../bin/archive', import.meta.url));

/** Starts `archive serve` on `data`; resolves with its URL, the process, and every line it printed so far (kept growing). */
function serve(t: Test, data: string, extra: string[]): Promise<{ p: ChildProcess; url: string; lines: string[] }> {
  const p = spawn(process.execPath, [archive, 'serve', '--data', data, '--port', '0', '--reserve-mib', '1', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => void p.kill('SIGKILL'));
  const lines: string[] = [];
  return new Promise((resolve) =>
    createInterface({ input: p.stdout! }).on('line', (line) => {
      lines.push(line);
      const m = / at (http:\/\/\S+),/.exec(line);
      if (m) resolve({ p, url: m[1]!, lines });
    }),
  );
}

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function registerSome(url: string, from: number, n: number): Promise<void> {
  const { constitution } = (await (await fetch(`${url}/v2/record`)).json()) as { constitution: unknown };
  for (let i = from; i < from + n; i++) {
    const body = { handle: `agent-${i}`, publicKey: generateKeyPair().publicKey, operatorId: `lab-${i}`, constitution };
    const r = await fetch(`${url}/v2/agents/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status !== 201) throw new Error(`registration ${i}: ${r.status} ${await r.text()}`);
  }
}

t.test('serve --snapshot-every: a snapshot as the log grows, and a restart after SIGKILL from it', async (t) => {
  const data = tempDir(t);
  const first = await serve(t, data, ['--snapshot-every', '3']);
  await registerSome(first.url, 0, 4);
  await until('a snapshot', () => first.lines.some((l) => /snapshot at entry \d+ \(3 entries since the last\)/.test(l)));
  const at = Number(/snapshot at entry (\d+)/.exec(first.lines.find((l) => l.includes('snapshot at entry'))!)![1]);
  t.ok(at >= 4, `taken at entry ${at}`);
  await registerSome(first.url, 4, 3);
  const size = ((await (await fetch(`${first.url}/v1/log/sth`)).json()) as { treeSize: number }).treeSize;
  first.p.kill('SIGKILL');
  await new Promise((r) => first.p.once('exit', r));

  const second = await serve(t, data, []);
  t.match(second.lines.join('\n'), new RegExp(`starting from the snapshot at entry \\d+ of ${size}`), 'started from the snapshot');
  const record = (await (await fetch(`${second.url}/v2/record`)).json()) as { agents: number };
  t.equal(record.agents, 7, 'every registration answered 201 is there, those after the snapshot replayed');
  second.p.kill('SIGTERM');
  await new Promise((r) => second.p.once('exit', r));
  t.match(second.lines.join('\n'), new RegExp(`snapshot at entry ${size} \\(shutdown\\)`), 'and a snapshot at the clean shutdown');
});

t.test('serve: the search index on disk is brought up to date after SIGKILL, and one of another log is not used', async (t) => {
  const data = tempDir(t);
  const agents = async (url: string): Promise<string[]> => {
    const r = await fetch(`${url}/v2/search?q=agent&kind=agent&limit=50`);
    t.equal(r.status, 200);
    return ((await r.json()) as { results: { id: string }[] }).results.map((x) => x.id).sort();
  };
  const all = Array.from({ length: 7 }, (_, i) => `agent-${i}`);
  const first = await serve(t, data, []);
  await registerSome(first.url, 0, 4);
  t.same(await agents(first.url), all.slice(0, 4));
  first.p.kill('SIGKILL');
  await new Promise((r) => first.p.once('exit', r));

  const second = await serve(t, data, []);
  await until('the search index', () => second.lines.some((l) => l.includes('the search index is up to date')));
  t.match(second.lines.join('\n'), /the search index is up to date, from entry \d+ \(0 items since\)/, 'the index on disk, used');
  t.notMatch(second.lines.join('\n'), /search index .* is not used/);
  await until('the served credence text', () =>
    second.lines.some((l) => /the served credence text is made for every claim \(the operators' calibrations first\), in [\d.]+ s/.test(l)),
  );
  await registerSome(second.url, 4, 3);
  t.same(await agents(second.url), all, 'the agents registered after the restart are found too');
  second.p.kill('SIGTERM');
  await new Promise((r) => second.p.once('exit', r));

  // The index of another log in its place: not used, built anew from the state.
  const other = tempDir(t);
  const elsewhere = await serve(t, other, []);
  await registerSome(elsewhere.url, 100, 1);
  elsewhere.p.kill('SIGTERM');
  await new Promise((r) => elsewhere.p.once('exit', r));
  for (const end of ['', '-wal', '-shm']) rmSync(`${data}/search.sqlite${end}`, { force: true });
  for (const end of ['', '-wal'])
    if (existsSync(`${other}/search.sqlite${end}`)) copyFileSync(`${other}/search.sqlite${end}`, `${data}/search.sqlite${end}`);
  const third = await serve(t, data, []);
  await until('the search index', () => third.lines.some((l) => l.includes('the search index holds')));
  const text = third.lines.join('\n');
  t.match(
    text,
    new RegExp(
      String.raw`the search index .*search\.sqlite is not used, its head \(size \d+, root [0-9a-f]{64}\) is not a prefix of this ` +
        String.raw`log; indexing the state's items`,
    ),
  );
  t.match(text, /the search index holds \d+ items, built in/);
  t.same(await agents(third.url), all);
  third.p.kill('SIGTERM');
  await new Promise((r) => third.p.once('exit', r));
});
