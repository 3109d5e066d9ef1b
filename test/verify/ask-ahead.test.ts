// An incremental run asks for the head and the first pages of new entries while it loads its saved replay (verify/source.ts
// askAhead): the run's fetch then takes those answers, asking the service for none of them again, and holds the same copy.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService } from '../helpers/service.js';
import { register } from '../helpers/agents.js';
import { AskedAhead, askAhead, fetchLog } from '../../verify/source.js';
import { ArchiveClient } from '../../lib/client/http.js';

t.test('the key, the head and the new pages asked for ahead are each asked of the service once, and the copy is the same', async (t) => {
  const s = await startService(t);
  for (const name of ['alice', 'bob', 'carol']) await register(s, name, { operatorId: `lab-${name}` });
  const asked: string[] = [];
  const server = createServer(async (req, res) => {
    asked.push(req.url!);
    const upstream = await fetch(s.url + req.url!);
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const plain = await fetchLog(new ArchiveClient(s.url));
  const size = plain.sth.treeSize;
  const from = { seq: 2, genesis: plain.entries[0]! };
  const client = new AskedAhead(url);
  t.equal(await askAhead(client, from.seq, 500_000), size, 'askAhead gives the head size');
  const copy = await fetchLog(client, { from, until: from.seq + 500_000 });
  t.same(
    [...asked].sort(),
    [`/v1/log/entries?from=2&limit=${size - 2}`, '/v1/log/key', '/v1/log/sth'],
    'the key, the head and the page, each asked once: the fetch asked the service for nothing more',
  );
  t.same(copy.entries.slice(2), plain.entries.slice(2), 'the same entries');
  t.same(copy.sth, plain.sth);
  // Asked ahead once: a second fetch asks the service again.
  await fetchLog(client, { from, until: from.seq + 500_000 });
  t.equal(asked.length, 6);
});
