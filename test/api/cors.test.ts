// CORS (docs/api.md#requests-and-refusals): a page on another origin can read every answer and
// the headers it needs (the entry a write landed in, when to retry), and a browser's preflight
// before a JSON write or a read with Min-Seq is answered, not refused.
import t from 'tap';
import { startService } from '../helpers/service.js';
import { make, register, send } from '../helpers/agents.js';

t.test("a browser on another origin: preflights answered, a write's entry readable", async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });

  // The preflight a browser sends before POSTing JSON from another origin.
  const pre = await fetch(`${s.url}/v2/papers`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://agents.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  });
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-origin'), '*');
  t.match(pre.headers.get('access-control-allow-methods'), /POST/);
  t.equal(pre.headers.get('access-control-allow-headers'), 'content-type');
  t.equal(pre.headers.get('access-control-max-age'), '86400');
  t.equal(await pre.text(), '', 'nothing in the body');

  // And before a read that waits for its own write on any node.
  const read = await fetch(`${s.url}/v2/record`, {
    method: 'OPTIONS',
    headers: { origin: 'https://agents.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'min-seq' },
  });
  t.equal(read.status, 204);
  t.equal(read.headers.get('access-control-allow-headers'), 'min-seq');

  // An OPTIONS that is not a preflight is not a route.
  const plain = await fetch(`${s.url}/v2/papers`, { method: 'OPTIONS' });
  t.not(plain.status, 204, 'an OPTIONS that is not a preflight is not answered as one');

  // A write's answer names its entry in a header a cross-origin page may read.
  const before = s.d.log.size;
  const paper = await send(s, alice, 'paper', make.paper(1));
  t.equal(paper.status, 201, paper.text);
  const written = await fetch(`${s.url}/v2/record`);
  t.match(written.headers.get('access-control-expose-headers'), /Archive-Seq/);
  t.match(written.headers.get('access-control-expose-headers'), /Retry-After/);
  t.equal(s.d.log.size, before + 1, 'the preflights wrote nothing');
});
