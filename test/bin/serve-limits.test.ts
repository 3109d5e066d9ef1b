// `archive serve --ipv6-prefix` (and ARCHIVE_IPV6_PREFIX): the IPv6 prefix the limits per client
// address count a client by (docs/cli.md, "archive serve: limits per client address"); a bad value stops the start.
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { archive } from '../helpers/cli.js';
import { startNodeProcess } from '../helpers/node-process.js';
import { tempDir } from '../helpers/tmp.js';
import { generateKeyPair } from '../../lib/protocol/ed25519.js';

t.test('a prefix length that is not 1 to 128 stops the start, naming the flag; nothing is made', async (t) => {
  for (const [args, env] of [
    [['--ipv6-prefix', '129'], {}],
    [['--ipv6-prefix', '64.5'], {}],
    [[], { ARCHIVE_IPV6_PREFIX: '0' }],
  ] as [string[], Record<string, string>][]) {
    const data = join(tempDir(t), 'data');
    const r = await archive(['serve', '--data', data, '--port', '0', ...args], env);
    t.not(r.code, 0, `${JSON.stringify(args)} ${JSON.stringify(env)}: exits`);
    t.match(r.stderr, /--ipv6-prefix: expected a prefix length, a whole number 1 to 128, got /);
    t.notOk(existsSync(data), 'no data directory made');
  }
});

t.test('two addresses of one /64 are one client by default, two with --ipv6-prefix 128', async (t) => {
  for (const [args, statuses] of [
    [[], [201, 429]],
    [
      ['--ipv6-prefix', '128'],
      [201, 201],
    ],
  ] as [string[], number[]][]) {
    const node = await startNodeProcess({
      dataDir: tempDir(t),
      id: 'limits',
      args: ['--trust-proxy', '127.0.0.1', '--register-limit', '1', ...args],
    });
    t.teardown(() => node.stop());
    const { constitution } = (await (await fetch(`${node.url}/v2/record`)).json()) as { constitution: unknown };
    const got: number[] = [];
    for (const [i, from] of ['2001:db8:7:7::1', '2001:db8:7:7::2'].entries()) {
      const body = { handle: `v6-${i}`, publicKey: generateKeyPair().publicKey, operatorId: `lab-${i}`, constitution };
      const r = await fetch(`${node.url}/v2/agents/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
        body: JSON.stringify(body),
      });
      got.push(r.status);
    }
    t.same(got, statuses, `${args.join(' ') || 'the default'}: ${statuses.join(', ')}`);
    await node.stop();
  }
});
