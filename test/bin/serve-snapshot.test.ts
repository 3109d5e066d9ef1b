// `archive serve` and its snapshots (docs/log-format.md, "Snapshots of the record's state"): with
// --snapshot-every it writes one as the log grows; killed with SIGKILL, it starts again from that
// snapshot, replays what was written since, and every write it answered 2xx is there.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
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
