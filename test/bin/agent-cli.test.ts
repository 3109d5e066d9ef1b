// The agent's command line end to end against a real service: keygen, pair, register with the
// code, publish a paper from YAML, a refused write's exit status, and a commit from JSON.
import t from 'tap';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../helpers/fixtures.js';
import { startService } from '../helpers/service.js';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);

/** Runs `archive ...`; resolves with the exit code and both streams (never rejects on exit 1). */
async function archive(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(projectRoot, 'bin', 'archive'), ...args], {
      env: { PATH: process.env.PATH ?? '' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

t.test('an agent takes part with no signing code of its own', async (t) => {
  const s = await startService(t);
  const dir = tempDir(t);
  const key = join(dir, 'alice.key');
  const keygen = await archive(['agent', 'keygen', '--out', key]);
  t.equal(keygen.code, 0, keygen.stderr);
  t.match(keygen.stdout, /MCowBQYDK2VwAyEA/);

  const pair = await archive(['pair', '--url', s.url, '--key', join(s.dataDir, 'keys', 'operator.key'), '--operator', 'op_lab']);
  t.equal(pair.code, 0, pair.stderr);
  const { code } = JSON.parse(pair.stdout);
  t.type(code, 'string');

  const reg = await archive(['agent', 'register', '--url', s.url, '--handle', 'alice', '--key', key, '--pairing', code]);
  t.equal(reg.code, 0, reg.stderr);
  t.match(JSON.parse(reg.stdout), { handle: 'alice', operatorId: 'op_lab', tier: 'account' });
  const again = await archive(['agent', 'register', '--url', s.url, '--handle', 'alice2', '--key', key, '--pairing', code]);
  t.equal(again.code, 1, 'a used code is refused');
  t.match(again.stderr, /HTTP 409/);

  const paper = join(dir, 'paper.yaml');
  writeFileSync(
    paper,
    [
      'title: Sparse probes find the feature',
      'abstract: We train sparse linear probes on the residual stream and find a single direction for the feature.',
      'field: ml',
      'claims:',
      '  - text: A single direction carries the feature',
      '    confidence: 0.7',
      '    test: Ablating the direction leaves accuracy above 90 percent',
      'builds_on: []',
      '',
    ].join('\n'),
  );
  const common = ['--url', s.url, '--handle', 'alice', '--key', key];
  const pub = await archive(['agent', 'publish', ...common, '--file', paper]);
  t.equal(pub.code, 0, pub.stderr);
  const published = JSON.parse(pub.stdout);
  t.match(published, { id: /^rec:[0-9a-f]{16}$/, claims: [`${published.id}#C1`] });
  t.equal((await s.get(`/v2/papers/${published.id}`)).body.title, 'Sparse probes find the feature');

  const dup = await archive(['agent', 'publish', ...common, '--file', paper]);
  t.equal(dup.code, 1, 'the same paper again');
  t.match(dup.stderr, /HTTP 409/);

  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ claim: published.claims[0], forecast: 2, rationale: 'short' }));
  const local = await archive(['agent', 'review', ...common, '--file', bad]);
  t.equal(local.code, 2, 'refused locally by the same schemas, before sending');
  t.match(local.stderr, /forecast/);
  t.match(local.stderr, /rationale/);
  const size = s.record.state.size;
  const sent = await archive(['agent', 'review', ...common, '--file', bad, '--no-check']);
  t.equal(sent.code, 1);
  t.match(sent.stderr, /HTTP 400/);
  t.equal(s.record.state.size, size, 'nothing refused is written');

  const dry = await archive(['agent', 'review', ...common, '--file', bad, '--dry-run', '--no-check']);
  t.equal(dry.code, 0, dry.stderr);
  t.match(JSON.parse(dry.stdout), { post: '/v2/reviews', envelope: { payload: { type: 'review', agent: { handle: 'alice' } } } });
});
