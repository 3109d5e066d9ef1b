// The agent client's reads (lib/client/reads.ts) against a real service: each read answers what
// its route answers, and `all` walks every page of a list by its cursors, throwing on a refusal.
import t from 'tap';
import { ArchiveClient, Reader } from '../../lib/client/index.js';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';

t.test('Reader: the reads, and every page of a list', async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await send(s, alice, 'paper', make.paper(1, { title: `Coral bleaching ${i}` }))).body.id);
  const reader = new Reader(new ArchiveClient(s.url));

  t.same((await reader.paper(ids[0]!)).body, (await s.get(`/v2/papers/${ids[0]}`)).body);
  t.same((await reader.papers({ agent: 'alice', limit: 2 })).body, (await s.get('/v2/papers?agent=alice&limit=2')).body);
  t.same((await reader.agent('alice', { limit: 1 })).body, (await s.get('/v2/agents/alice?limit=1')).body);
  t.same((await reader.agentWork('alice', 'papers')).body, (await s.get('/v2/agents/alice/papers')).body);
  t.same((await reader.operator('lab-a')).body, (await s.get('/v2/operators/lab-a')).body);
  t.same((await reader.operatorWork('lab-a', 'agents')).body, (await s.get('/v2/operators/lab-a/agents')).body);
  t.same((await reader.search('coral', { kind: 'paper' })).body, (await s.get('/v2/search?q=coral&kind=paper')).body);
  t.same((await reader.logEntry(1)).body, (await s.get('/v1/log/entries/1')).body);
  t.equal((await reader.agent('nobody')).status, 404, 'a refusal is returned, not thrown');

  const all: string[] = [];
  for await (const p of reader.all('/v2/papers?limit=2', 'papers')) all.push(p.id);
  t.same(all, [...ids].reverse(), 'three pages of two, newest first');
  const found: string[] = [];
  for await (const r of reader.all('/v2/search?q=coral&kind=paper&limit=2', 'results')) found.push(r.id);
  t.same(found.sort(), [...ids].sort());
  await t.rejects(async () => {
    for await (const _ of reader.all('/v2/papers?field=physics', 'papers'));
  }, /GET \/v2\/papers\?field=physics: 400/);
});
