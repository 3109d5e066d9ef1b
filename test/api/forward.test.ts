// A write forwarded by a node that does not lead (docs/deploy.md#writes-reads-and-reading-your-own-writes), over real
// sockets to a real HTTP server standing for the leader: the leader's answer relayed as it came, with Archive-Leader;
// one connection kept for write after write; a new leader's URL taken at once; a leader that cannot be reached
// (nothing logged), or that takes the write and does not answer (it may be logged), each a 503 saying which.
import t, { type Test } from 'tap';
import Koa from 'koa';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMiddleware } from '../../api/error-middleware.js';
import { forwardWrites, type NodeRole } from '../../api/forward.js';
import { SELF_CLIENT_HEADER, SELF_TOKEN_HEADER } from '../../api/client-address.js';
import { type Answer, BATCH_PATH, BATCH_TYPE, decodeFrames, encodeAnswers } from '../../api/forward-batch.js';

/** An HTTP server on loopback answering with `answer`; the connections it took and the requests it saw. */
async function leaderServer(answer: (req: IncomingMessage, body: string, res: ServerResponse, raw: Buffer) => void) {
  const seen = { connections: 0, requests: [] as { path: string; headers: IncomingMessage['headers']; body: string }[] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString();
      seen.requests.push({ path: req.url ?? '', headers: req.headers, body });
      answer(req, body, res, raw);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', () => seen.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

/** A node that does not lead, forwarding POST /v2/papers to whatever `role.leaderUrl` names. */
async function follower(t: Test, leaderUrl: () => string | null, opts = { waitMs: 300, timeoutMs: 500 }) {
  const role: NodeRole = {
    node: 'b',
    leading: false,
    get leaderUrl() {
      return leaderUrl();
    },
    leader: async () => leaderUrl(),
    secret: 'the-nodes-secret',
  };
  const app = new Koa();
  app.use(errorMiddleware(() => undefined));
  app.use(forwardWrites(role, new Set(['/v2/papers']), opts));
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => close(server));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (body: string) => {
    const res = await fetch(`${url}/v2/papers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as { error: string; detail: string } };
  };
}

t.test('the leader’s answer is relayed as it came, over one connection kept for write after write', async (t) => {
  const leader = await leaderServer((_req, body, res) => {
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'archive-seq': '41', 'x-other': 'not relayed' });
    res.end(JSON.stringify({ seq: 41, echo: body }));
  });
  t.teardown(() => close(leader.server));
  const post = await follower(t, () => leader.url);
  for (let i = 0; i < 5; i++) {
    const body = JSON.stringify({ n: i, text: 'é'.repeat(10) });
    const r = await post(body);
    t.equal(r.status, 201);
    t.same(JSON.parse(r.text), { seq: 41, echo: body }, 'the body as the leader gave it, the write’s bytes as they came');
    t.equal(r.headers.get('archive-seq'), '41');
    t.equal(r.headers.get('archive-leader'), leader.url);
    t.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    t.equal(r.headers.get('x-other'), null, 'only the headers a client reads');
  }
  t.equal(leader.seen.requests.length, 5);
  t.equal(leader.seen.connections, 1, 'one connection to the leader for five writes in turn');
  const [first] = leader.seen.requests;
  t.equal(first!.path, '/v2/papers');
  t.equal(first!.headers[SELF_CLIENT_HEADER], '127.0.0.1', 'the client named by the address the follower saw');
  t.equal(first!.headers[SELF_TOKEN_HEADER], 'the-nodes-secret');

  // A refusal comes back as it was given.
  const refusing = await leaderServer((_req, _body, res) => {
    res.writeHead(409, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: 'conflict', detail: 'already logged' }));
  });
  t.teardown(() => close(refusing.server));
  const post2 = await follower(t, () => refusing.url);
  const r = await post2('{}');
  t.equal(r.status, 409);
  t.same(r.json(), { error: 'conflict', detail: 'already logged' });
});

t.test('when the lease moves, the next write goes to the new leader', async (t) => {
  const answer = (seq: number) => (_req: IncomingMessage, _body: string, res: ServerResponse) => {
    res.writeHead(201, { 'content-type': 'application/json', 'archive-seq': String(seq) });
    res.end(JSON.stringify({ seq }));
  };
  const [one, two] = [await leaderServer(answer(1)), await leaderServer(answer(2))];
  t.teardown(() => Promise.all([close(one.server), close(two.server)]));
  let current = one.url;
  const post = await follower(t, () => current);
  t.equal((await post('{}')).headers.get('archive-seq'), '1');
  current = two.url;
  const r = await post('{}');
  t.equal(r.headers.get('archive-seq'), '2');
  t.equal(r.headers.get('archive-leader'), two.url);
  current = one.url;
  t.equal((await post('{}')).headers.get('archive-seq'), '1', 'and back');
  t.same([one.seen.requests.length, two.seen.requests.length], [2, 1]);
});

t.test('a leader that cannot be reached: 503, nothing of the write was logged', async (t) => {
  const gone = await leaderServer(() => undefined);
  const url = gone.url;
  await close(gone.server);
  const post = await follower(t, () => url);
  const r = await post('{}');
  t.equal(r.status, 503);
  t.equal(r.json().error, 'unavailable');
  t.match(r.json().detail, `the node that leads (${url}) cannot be reached: nothing of this write was logged; retry`);
  t.equal(r.headers.get('retry-after'), '1');

  const none = await follower(t, () => null);
  const n = await none('{}');
  t.equal(n.status, 503);
  t.match(n.json().detail, /^no node holds the sequencer lease .*nothing of this write was logged; retry$/);
});

t.test('a leader that takes the write and does not answer, or drops it: 503, it may be on the log', async (t) => {
  const silent = await leaderServer(() => undefined);
  t.teardown(() => close(silent.server));
  const post = await follower(t, () => silent.url);
  const started = Date.now();
  const r = await post('{}');
  t.equal(r.status, 503);
  t.equal(r.json().error, 'unavailable');
  t.match(r.json().detail, `the node that leads (${silent.url}) did not answer: this write may or may not be on the log`);
  t.ok(Date.now() - started >= 450, 'after the timeout');
  t.equal(silent.seen.requests.length, 1, 'the write reached it');

  const dropping = await leaderServer((req) => req.socket.destroy());
  t.teardown(() => close(dropping.server));
  const post2 = await follower(t, () => dropping.url);
  const d = await post2('{}');
  t.equal(d.status, 503);
  t.match(d.json().detail, 'did not answer: this write may or may not be on the log');
});

/** A stand-in leader that takes batches (api/forward-batch.ts): each write answered 201 with its own seq and its bytes, after 5 ms. */
let next = 100;
function batchAnswer(req: IncomingMessage, body: string, res: ServerResponse, raw: Buffer) {
  const one = (b: Buffer): Answer => {
    const seq = next++;
    return {
      status: 201,
      headers: { 'content-type': 'application/json; charset=utf-8', 'archive-seq': String(seq) },
      body: Buffer.from(JSON.stringify({ seq, echo: b.toString() })),
    };
  };
  setTimeout(() => {
    if (req.url === BATCH_PATH) {
      t.equal(req.headers[SELF_TOKEN_HEADER], 'the-nodes-secret', 'a batch carries the nodes’ secret');
      const frames = decodeFrames(raw, 'write');
      res.writeHead(200, { 'content-type': BATCH_TYPE });
      res.end(encodeAnswers(frames.map((f) => one(f.body))));
    } else {
      const a = one(Buffer.from(body));
      res.writeHead(a.status, a.headers);
      res.end(a.body);
    }
  }, 5);
}

t.test('writes that come together go in fewer exchanges, each client answered with its own', async (t) => {
  const leader = await leaderServer(batchAnswer);
  t.teardown(() => close(leader.server));
  const post = await follower(t, () => leader.url);
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => post(JSON.stringify({ n: i }))));
  for (const [i, r] of replies.entries()) {
    t.equal(r.status, 201);
    const body = JSON.parse(r.text) as { seq: number; echo: string };
    t.equal(body.echo, JSON.stringify({ n: i }), 'its own answer');
    t.equal(r.headers.get('archive-seq'), String(body.seq));
    t.equal(r.headers.get('archive-leader'), leader.url);
  }
  t.equal(new Set(replies.map((r) => r.headers.get('archive-seq'))).size, 20);
  t.ok(leader.seen.requests.length < 20, `${leader.seen.requests.length} exchanges for 20 writes`);
  t.ok(leader.seen.requests.some((r) => r.path === BATCH_PATH));
  const lone = await post('{"alone":true}');
  t.equal(leader.seen.requests.at(-1)!.path, '/v2/papers', 'a write that comes alone goes alone, to its own path');
  t.equal(JSON.parse(lone.text).echo, '{"alone":true}');
});

t.test('a leader of the code before batches (404 on the route): each write of the batch goes alone', async (t) => {
  const leader = await leaderServer((req, body, res) => {
    if (req.url === BATCH_PATH) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found', detail: `no such endpoint: POST ${BATCH_PATH}` }));
      return;
    }
    setTimeout(() => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: body }));
    }, 5);
  });
  t.teardown(() => close(leader.server));
  const post = await follower(t, () => leader.url);
  const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => post(JSON.stringify({ n: i }))));
  t.same(
    replies.map((r) => [r.status, JSON.parse(r.text).echo]),
    replies.map((_, i) => [201, JSON.stringify({ n: i })]),
  );
  t.ok(
    leader.seen.requests.some((r) => r.path === BATCH_PATH),
    'a batch was tried',
  );
});

t.test('a batch that fails as a whole: each of its writes answered as a single write that failed so', async (t) => {
  const gone = await leaderServer(() => undefined);
  const url = gone.url;
  await close(gone.server);
  const post = await follower(t, () => url);
  for (const r of await Promise.all(Array.from({ length: 10 }, () => post('{}')))) {
    t.equal(r.status, 503);
    t.equal(r.json().detail, `the node that leads (${url}) cannot be reached: nothing of this write was logged; retry`);
    t.equal(r.headers.get('retry-after'), '1');
  }

  const silent = await leaderServer(() => undefined);
  t.teardown(() => close(silent.server));
  const post2 = await follower(t, () => silent.url);
  const replies = await Promise.all(Array.from({ length: 10 }, () => post2('{}')));
  for (const r of replies) {
    t.equal(r.status, 503);
    t.match(r.json().detail, `the node that leads (${silent.url}) did not answer: this write may or may not be on the log`);
  }
  t.ok(silent.seen.requests.length < 10, 'they went in batches');

  // An answer that does not frame as many answers as writes: none can tell what was logged.
  const short = await leaderServer((req, _body, res) => {
    res.writeHead(req.url === BATCH_PATH ? 200 : 201, { 'content-type': BATCH_TYPE });
    res.end(encodeAnswers([{ status: 201, headers: {}, body: Buffer.from('{}') }]));
  });
  t.teardown(() => close(short.server));
  const post3 = await follower(t, () => short.url);
  const statuses = (await Promise.all(Array.from({ length: 10 }, () => post3('{}')))).map((r) => [r.status, r.text]);
  t.ok(
    statuses.some(([s, text]) => s === 503 && String(text).includes('may or may not be on the log')),
    'a batch answered short: 503, may be on the log',
  );
});
