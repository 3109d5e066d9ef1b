// After a failed write the archive is read-only: every write answers 503 and the failure is
// reported once (the serve command exits on it, so a restart replays the log).
import t from 'tap';
import { MemoryStore } from 'tlog-engine';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';

t.test('after a failed write the archive is read-only (503) and the failure is reported', async (t) => {
  const store = new MemoryStore();
  const s = await startService(t, { store });
  const a = await register(s, 'alice');
  const stopped: unknown[] = [];
  s.record.onFailure((err) => stopped.push(err));
  store.injectFault('before-write');
  const failed = await send(s, a, 'paper', make.paper());
  t.equal(failed.status, 503, failed.text);
  t.equal(failed.body.error, 'paused');
  t.equal(stopped.length, 1, 'told once');
  const after = await send(s, a, 'paper', make.paper());
  t.equal(after.status, 503, 'every later write too');
  t.match(after.body.detail, /read-only/);
  t.equal((await s.get('/v1/log/sth')).body.treeSize, 2, 'nothing more was committed: the genesis and the registration only');
});
