// The read commands against a real service, through the real `bin/archive`: log info with the log
// key (right and wrong), heartbeat, --json, and an unreachable service. `archive get`: get-cli.test.ts.
import t from 'tap';
import Koa from 'koa';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { archive } from '../helpers/cli.js';
import { startService } from '../helpers/service.js';
import { register } from '../helpers/agents.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';
import { tempDir } from '../helpers/tmp.js';
import { join } from 'node:path';

t.test('archive log info shows the head and checks it with the log key', async (t) => {
  const s = await startService(t);
  await register(s, 'alice', { operatorId: 'lab-a' });
  const logKey = (await s.get('/v1/log/key')).body.key;
  const sth = (await s.get('/v1/log/sth')).body;
  const info = await archive(['log', 'info', '--url', s.url, '--key', logKey]);
  t.equal(info.code, 0, info.stderr);
  t.match(info.stdout, new RegExp(`tree size: +${sth.treeSize}\n`));
  t.match(info.stdout, new RegExp(`root hash: +${sth.rootHash}\n`));
  t.match(info.stdout, new RegExp(`head time: +${sth.timestamp}\n`));
  t.match(info.stdout, /signature: +verified with the key given/);
  t.match(info.stdout, new RegExp(`checkpoint:\n  archive.local\n  ${sth.treeSize}\n`));

  const served = await archive(['log', 'info', '--url', s.url, '--json']);
  t.equal(served.code, 0, served.stderr);
  t.match(JSON.parse(served.stdout), { sth, verified: true, against: 'served', problems: [] });

  const other = generateKeyPair().publicKey;
  const wrong = await archive(['log', 'info', '--url', s.url, '--key', other]);
  t.equal(wrong.code, 1, 'a head not signed by the key given fails');
  t.match(wrong.stdout, /NOT VERIFIED with the key given/);
  t.match(wrong.stdout, /PROBLEM: the signed tree head is not signed by this key/);
});

t.test('archive heartbeat reads an agent’s heartbeat', async (t) => {
  const s = await startService(t);
  await register(s, 'alice', { operatorId: 'lab-a' });
  const hb = await archive(['heartbeat', 'alice', '--url', s.url]);
  t.equal(hb.code, 0, hb.stderr);
  t.match(hb.stdout, /^heartbeat of alice\n/);
  t.match(hb.stdout, /standing:/);
  const fromEnv = await archive(['heartbeat', '--json'], { ARCHIVE_URL: s.url, ARCHIVE_HANDLE: 'alice' });
  t.equal(fromEnv.code, 0, fromEnv.stderr);
  t.same(JSON.parse(fromEnv.stdout), (await s.get('/v2/heartbeat?agent=alice')).body);
  const nobody = await archive(['heartbeat', 'nobody', '--url', s.url]);
  t.equal(nobody.code, 1);
  t.match(nobody.stderr, /HTTP 404/);
  const unnamed = await archive(['heartbeat', '--url', s.url]);
  t.equal(unnamed.code, 1);
  t.match(unnamed.stderr, /name the agent/);
});

t.test('a service that is not there: the message names --url and ARCHIVE_URL', async (t) => {
  // A port that was open a moment ago and is now closed: connecting to it is refused.
  const server = new Koa().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  server.close();
  await once(server, 'close');
  const key = join(tempDir(t), 'alice.key');
  t.equal((await archive(['agent', 'keygen', '--out', key])).code, 0);
  const url = `http://127.0.0.1:${port}`;
  for (const args of [
    ['get', 'rec:0123456789abcdef', '--url', url],
    ['log', 'info', '--url', url],
    ['agent', 'register', '--url', url, '--handle', 'alice', '--key', key, '--operator', 'lab-a'],
  ]) {
    const r = await archive(args);
    t.equal(r.code, 1, args.join(' '));
    t.match(r.stderr, /cannot reach the service \(ECONNREFUSED\)/);
    t.match(r.stderr, /--url or the ARCHIVE_URL environment variable/);
  }
  const fromEnv = await archive(['heartbeat', 'alice'], { ARCHIVE_URL: `http://127.0.0.1:${port}` });
  t.equal(fromEnv.code, 1);
  t.match(
    fromEnv.stderr,
    new RegExp(`GET http://127.0.0.1:${port}/v2/heartbeat\\?agent=alice: cannot reach the service \\(ECONNREFUSED\\)`),
  );
  t.match(fromEnv.stderr, /ARCHIVE_URL/);
});
