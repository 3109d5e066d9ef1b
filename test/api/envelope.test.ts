// The checks on every signed write, through HTTP
// (docs/record.md#checks-on-every-signed-write-in-order; docs/protocol.md,
// docs/record.md#service-events-and-time): the body (64 KiB, strict JSON, content type), then the
// envelope in the spec's order, each with its own error: shape; protocol and type; agent and key
// (401), check-key scope (403); ts (400); signature (401); schema and NT text (400). Every refusal
// writes nothing.
import t, { type Test } from 'tap';
import { connect } from 'node:net';
import { generateKeyPair, sign, signPayload, verifyPayload } from '../../lib/protocol/ed25519.js';
import { refused } from '../helpers/refused.js';
import { startService, type Reply, type TestService } from '../helpers/service.js';
import { make, payloadOf, register, send } from '../helpers/agents.js';

/** POSTs bytes as they are (a string, a Buffer or a stream), with the given headers. */
async function raw(
  s: TestService,
  path: string,
  body: string | Buffer | ReadableStream,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Reply> {
  const init = { method: 'POST', headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit;
  const res = await fetch(s.url + path, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** `o` without the member `k`. */
const without = (o: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(o).filter(([m]) => m !== k));

const minutes = (s: TestService, m: number) => new Date(s.record.now() + m * 60_000).toISOString();

async function setup(t: Test) {
  const s = await startService(t);
  const alice = await register(s, 'alice');
  const bob = await register(s, 'bob');
  const check = generateKeyPair();
  t.equal((await send(s, alice, 'key.delegate', { key: check.publicKey, scope: 'reports', label: 'runner' })).status, 201);
  alice.checkKey = check;
  const paper = await send(s, bob, 'paper', make.paper(2));
  t.equal(paper.status, 201, paper.text);
  const claim: string = paper.body.claims[0];
  const signed = (payload: Record<string, any>, key = alice.privateKey) => ({ payload, signature: signPayload(key, payload) });
  const p = (extra: Record<string, unknown> = {}) => ({ ...payloadOf(s, alice, 'paper', make.paper()), ...extra });
  return { s, alice, bob, check, claim, signed, p };
}

t.test('each envelope check has its own error', async (t) => {
  const { s, alice, bob, check, claim, signed, p } = await setup(t);
  const stranger = generateKeyPair();
  const review = (extra: Record<string, unknown> = {}) => ({
    ...payloadOf(s, alice, 'review', { claim, forecast: 0.4, rationale: 'A rationale long enough to be a rationale.' }),
    ...extra,
  });
  const asCheck = { handle: 'alice', publicKey: check.publicKey };
  const reSigned = (payload: Record<string, any>) => Buffer.from(signPayload(alice.privateKey, payload), 'base64url');
  const cases: [string, string, unknown, number, RegExp][] = [
    // 1. exactly {payload, signature}
    ['an array', '/v2/papers', [], 400, /body: expected an envelope \{payload, signature\}/],
    ['null', '/v2/papers', null, 400, /body: expected an envelope/],
    ['a JSON string', '/v2/papers', '"payload"', 400, /body: expected an envelope/],
    ['an extra member', '/v2/papers', { ...signed(p()), extra: 1 }, 400, /body: unknown member "extra"/],
    ['no signature', '/v2/papers', { payload: p() }, 400, /body.signature: required/],
    ['no payload', '/v2/papers', { signature: signed(p()).signature }, 400, /body.payload: required/],
    ['payload an array', '/v2/papers', { payload: [p()], signature: signed(p()).signature }, 400, /body.payload/],
    ['signature a number', '/v2/papers', { payload: p(), signature: 7 }, 400, /body.signature/],
    // 2. protocol and type
    [
      'protocol archive/0.1',
      '/v2/papers',
      signed(p({ protocol: 'archive/0.1' })),
      400,
      /payload.protocol: expected archive\/0.2, got "archive\/0.1"/,
    ],
    ['no protocol', '/v2/papers', signed(without(p(), 'protocol')), 400, /payload.protocol/],
    ['a review at /v2/papers', '/v2/papers', signed(review()), 400, /payload.type: this endpoint takes paper, got "review"/],
    ['a paper at /v2/reviews', '/v2/reviews', signed(p()), 400, /payload.type: this endpoint takes review, got "paper"/],
    ['operator.pairing at /v2/papers', '/v2/papers', signed(p({ type: 'operator.pairing' })), 400, /payload.type/],
    ['no agent', '/v2/papers', signed(without(p(), 'agent')), 400, /payload.agent: required/],
    ['agent without a key', '/v2/papers', signed(p({ agent: { handle: 'alice' } })), 400, /payload.agent/],
    // 3. the agent and its key (401), the check key's scope (403)
    [
      'an unknown agent',
      '/v2/papers',
      signed(p({ agent: { handle: 'nobody', publicKey: alice.publicKey } })),
      401,
      /payload.agent.handle: no agent nobody on the record/,
    ],
    [
      'the handle in another case',
      '/v2/papers',
      signed(p({ agent: { handle: 'ALICE', publicKey: alice.publicKey } })),
      401,
      /payload.agent.handle/,
    ],
    [
      "a key not the agent's",
      '/v2/papers',
      signed(p({ agent: { handle: 'alice', publicKey: stranger.publicKey } }), stranger.privateKey),
      401,
      /payload.agent.publicKey: not a key of agent alice/,
    ],
    [
      "another agent's main key",
      '/v2/papers',
      signed(p({ agent: { handle: 'alice', publicKey: bob.publicKey } }), bob.privateKey),
      401,
      /payload.agent.publicKey: not a key of agent alice/,
    ],
    [
      "alice's check key as bob's",
      '/v2/reviews',
      signed(review({ agent: { handle: 'bob', publicKey: check.publicKey } }), check.privateKey),
      401,
      /payload.agent.publicKey: not a key of agent bob/,
    ],
    [
      'a check key signing a paper',
      '/v2/papers',
      signed(p({ agent: asCheck }), check.privateKey),
      403,
      /a check key may sign only check.commit, check.result and review; paper needs the main key/,
    ],
    [
      'a check key delegating',
      '/v2/keys/delegate',
      signed({ ...payloadOf(s, alice, 'key.delegate', { key: stranger.publicKey, scope: 'reports' }), agent: asCheck }, check.privateKey),
      403,
      /key.delegate needs the main key/,
    ],
    [
      'a check key revoking itself',
      '/v2/keys/revoke',
      signed({ ...payloadOf(s, alice, 'key.revoke', { key: check.publicKey }), agent: asCheck }, check.privateKey),
      403,
      /key.revoke needs the main key/,
    ],
    [
      'a check key at the doorbell',
      '/v2/agents/doorbell',
      signed({ ...payloadOf(s, alice, 'doorbell.set', { kind: 'poll' }), agent: asCheck }, check.privateKey),
      403,
      /doorbell.set needs the main key/,
    ],
    // 4. ts
    [
      'ts 11 minutes behind',
      '/v2/papers',
      signed(p({ ts: minutes(s, -11) })),
      400,
      /payload.ts: 11.0 minutes behind the service clock .*the limit is 10 minutes/,
    ],
    ['ts 11 minutes ahead', '/v2/papers', signed(p({ ts: minutes(s, 11) })), 400, /payload.ts: 11.0 minutes ahead of the service clock/],
    ['ts without Z', '/v2/papers', signed(p({ ts: minutes(s, 0).replace('Z', '') })), 400, /payload.ts: expected an ISO-8601 UTC time/],
    ['ts at hour 24', '/v2/papers', signed(p({ ts: `${minutes(s, 0).slice(0, 10)}T24:00:00Z` })), 400, /payload.ts: expected an ISO-8601/],
    ['ts a number', '/v2/papers', signed(p({ ts: s.record.now() })), 400, /payload.ts/],
    [
      'a doorbell 6 minutes behind',
      '/v2/agents/doorbell',
      signed(payloadOf(s, alice, 'doorbell.set', { kind: 'poll' }, { ts: minutes(s, -6) })),
      400,
      /payload.ts: 6.0 minutes behind .*the limit is 5 minutes/,
    ],
    // 5. the signature
    [
      'signed by another key',
      '/v2/papers',
      signed(p(), stranger.privateKey),
      401,
      /signature: does not verify with payload.agent.publicKey/,
    ],
    ['a signature of another payload', '/v2/papers', { payload: p(), signature: signed(p()).signature }, 401, /signature: does not verify/],
    [
      'signed over non-canonical JSON',
      '/v2/papers',
      ((q) => ({ payload: q, signature: sign(alice.privateKey, new TextEncoder().encode(JSON.stringify(q, null, 1))) }))(p()),
      401,
      /signature/,
    ],
    [
      'a padded signature',
      '/v2/papers',
      ((q) => ({ payload: q, signature: `${signPayload(alice.privateKey, q)}==` }))(p()),
      401,
      /signature/,
    ],
    [
      'a signature in standard base64',
      '/v2/papers',
      ((q) => ({ payload: q, signature: reSigned(q).toString('base64') }))(p()),
      401,
      /signature/,
    ],
    ['an empty signature', '/v2/papers', { payload: p(), signature: '' }, 401, /signature/],
    // 6. the schema, after a good signature
    ['a title too short', '/v2/papers', signed(p({ title: 'ab' })), 400, /payload.title: must be 3 to 200 characters/],
    ['an unknown member', '/v2/papers', signed(p({ colour: 'red' })), 400, /payload.*colour/],
    ['no claims', '/v2/papers', signed(without(p(), 'claims')), 400, /payload.*claims/],
    [
      'U+200B in a claim',
      '/v2/papers',
      signed(p({ claims: [{ text: 'A claim\u200b that holds', confidence: 0.5, test: 'A test that fails it' }] })),
      400,
      /payload.claims\[0\].text: contains U\+200B .* at position 7/,
    ],
    [
      'U+202E in the abstract',
      '/v2/papers',
      signed(p({ abstract: `An abstract \u202e${'long enough to pass the fifty character minimum '.repeat(2)}` })),
      400,
      /payload.abstract: contains U\+202E/,
    ],
    [
      'U+2066 in a review',
      '/v2/reviews',
      signed(review({ rationale: 'A rationale \u2066long enough to be a rationale.' })),
      400,
      /payload.rationale: contains U\+2066/,
    ],
  ];
  for (const [what, path, body, status, detail] of cases) await refused(t, s, what, s.post(path, body), status, detail);

  t.equal(
    (
      await send(
        s,
        alice,
        'review',
        { claim, forecast: 0.5, rationale: 'A check key may sign a review, the spec says.' },
        { checkKey: true },
      )
    ).status,
    201,
    'a check key signs a review',
  );
  const commit = await send(s, alice, 'check.commit', make.commit(claim), { checkKey: true });
  t.equal(commit.status, 201, `a check key signs a commitment (${commit.text})`);
  t.equal((await send(s, alice, 'paper', make.paper(), { ts: minutes(s, -9) })).status, 201, 'a paper 9 minutes old is fresh');
  t.equal((await send(s, alice, 'paper', make.paper(), { ts: minutes(s, 6) })).status, 201, 'a paper 6 minutes ahead is fresh');
  t.equal(
    (await send(s, alice, 'doorbell.set', { kind: 'poll' }, { ts: minutes(s, -4) })).status,
    200,
    'a doorbell 4 minutes old is fresh',
  );
});

t.test("the checks run in the spec's order: the first that fails answers", async (t) => {
  const { s, alice, check, claim, signed, p } = await setup(t);
  const stranger = generateKeyPair();
  const stale = minutes(s, -11);
  const nobody = { handle: 'nobody', publicKey: alice.publicKey };
  const asCheck = { handle: 'alice', publicKey: check.publicKey };
  const badSig = (payload: Record<string, any>) => ({ payload, signature: signPayload(stranger.privateKey, payload) });
  const review = (extra: Record<string, unknown>) => ({
    ...payloadOf(s, alice, 'review', { claim, forecast: 0.4, rationale: 'A rationale long enough to be a rationale.' }),
    ...extra,
  });
  const cases: [string, string, unknown, number, RegExp][] = [
    ['an extra member and a wrong protocol', '/v2/papers', { ...signed(p({ protocol: 'x' })), extra: 1 }, 400, /body: unknown member/],
    ['a wrong protocol and an unknown agent', '/v2/papers', signed(p({ protocol: 'x', agent: nobody })), 400, /payload.protocol/],
    ['a wrong type and an unknown agent', '/v2/papers', signed(review({ agent: nobody })), 400, /payload.type/],
    ['an unknown agent and a stale ts', '/v2/papers', signed(p({ agent: nobody, ts: stale })), 401, /payload.agent.handle/],
    [
      "a key not the agent's and a stale ts",
      '/v2/papers',
      badSig(p({ agent: { handle: 'alice', publicKey: stranger.publicKey }, ts: stale })),
      401,
      /payload.agent.publicKey/,
    ],
    ['a check key on a paper and a stale ts', '/v2/papers', badSig(p({ agent: asCheck, ts: stale })), 403, /check key/],
    ['a stale ts and a bad signature', '/v2/papers', badSig(p({ ts: stale })), 400, /payload.ts/],
    ['a stale ts and a bad schema', '/v2/papers', signed(p({ ts: stale, title: 'ab' })), 400, /^payload.ts/],
    ['a bad signature and a bad schema', '/v2/papers', badSig(p({ title: 'ab' })), 401, /signature/],
    [
      'a bad signature and NT text',
      '/v2/reviews',
      badSig(review({ rationale: 'A rationale\u200b long enough to be a rationale.' })),
      401,
      /signature/,
    ],
    // The schema comes before the record's own checks (here: a claim not on the record, 404).
    [
      'a bad schema and an unknown claim',
      '/v2/reviews',
      signed(review({ claim: 'rec:0000000000000000#C1', rationale: 'short' })),
      400,
      /payload.rationale/,
    ],
    [
      'NT text and an unknown claim',
      '/v2/reviews',
      signed(review({ claim: 'rec:0000000000000000#C1', rationale: 'A rationale\u200b long enough to be a rationale.' })),
      400,
      /U\+200B/,
    ],
  ];
  for (const [what, path, body, status, detail] of cases) await refused(t, s, what, s.post(path, body), status, detail);
  const r = await s.post('/v2/reviews', signed(review({ claim: 'rec:0000000000000000#C1' })));
  t.equal(r.status, 404, 'and the record answers only a well-formed write');
});

t.test('the payload is logged exactly as signed', async (t) => {
  const { s, alice, signed } = await setup(t);
  const payload = payloadOf(s, alice, 'paper', make.paper(1, { title: 'Ünïcödé, emoji 🧪 and "quotes"', methods: 'Line one\nline two' }));
  const envelope = signed(payload);
  // Sent with the members in another order and with whitespace: the log keeps the canonical form.
  const text =
    `{ "signature": ${JSON.stringify(envelope.signature)},\n  "payload": ` +
    `${JSON.stringify(Object.fromEntries(Object.entries(payload).reverse()), null, 2)} }`;
  const r = await raw(s, '/v2/papers', text);
  t.equal(r.status, 201, r.text);
  const e = (await s.get(`/v1/log/entries?from=${r.body.seq}&limit=1`)).body.entries[0];
  t.equal(e.type, 'paper');
  t.same(e.payload, envelope, 'the logged envelope is the one signed');
  t.ok(verifyPayload(alice.publicKey, e.payload.payload, e.payload.signature), 'and its signature verifies from the log');
});

t.test('bodies: at most 64 KiB (413 before parsing), JSON, strict, UTF-8', async (t) => {
  const { s, signed, p } = await setup(t);
  const LIMIT = 64 * 1024;
  // A valid envelope padded with whitespace to exactly the limit is taken; one byte more is not.
  const padded = (n: number) => {
    const text = JSON.stringify(signed(p()));
    return `${text.slice(0, -1)}${' '.repeat(n - Buffer.byteLength(text))}}`;
  };
  t.equal(Buffer.byteLength(padded(LIMIT)), LIMIT);
  const atLimit = await raw(s, '/v2/papers', padded(LIMIT));
  t.equal(atLimit.status, 201, `exactly 64 KiB is taken (${atLimit.text.slice(0, 200)})`);
  await refused(t, s, '64 KiB and one byte', raw(s, '/v2/papers', padded(LIMIT + 1)), 413, /body: larger than 65536 bytes \(64 KiB\)/);
  await refused(
    t,
    s,
    'over 64 KiB as text/plain (size first)',
    raw(s, '/v2/papers', 'x'.repeat(70_000), { 'content-type': 'text/plain' }),
    413,
    /64 KiB/,
  );
  await refused(
    t,
    s,
    'a registration over 64 KiB',
    raw(s, '/v2/agents/register', JSON.stringify({ handle: 'x'.repeat(70_000) })),
    413,
    /64 KiB/,
  );
  const stream = (chunks: string[]) =>
    new ReadableStream({
      start(c) {
        for (const chunk of chunks) c.enqueue(new TextEncoder().encode(chunk));
        c.close();
      },
    });
  await refused(
    t,
    s,
    'over 64 KiB, chunked (no content-length)',
    raw(s, '/v2/papers', stream(Array.from({ length: 80 }, () => 'x'.repeat(1024)))),
    413,
    /64 KiB/,
  );
  const small = JSON.stringify(signed(p()));
  const chunked = await raw(s, '/v2/papers', stream([small.slice(0, 100), small.slice(100)]));
  t.equal(chunked.status, 201, `a small chunked body is taken (${chunked.text.slice(0, 200)})`);

  const e = signed(p());
  const text = JSON.stringify(e);
  const title = JSON.stringify(e.payload.title);
  const cases: [string, string | Buffer, Record<string, string> | undefined, RegExp][] = [
    ['malformed JSON', '{"payload":', undefined, /body: invalid JSON/],
    ['an empty body', '', undefined, /body: empty/],
    [
      'a duplicate member',
      text.replace('{"payload":', `{"signature":${JSON.stringify(e.signature)},"payload":`),
      undefined,
      /body: duplicate member name "signature"/,
    ],
    [
      'a duplicate member inside the payload',
      text.replace(`"title":${title}`, `"title":${title},"title":${title}`),
      undefined,
      /body.payload: duplicate member name "title"/,
    ],
    [
      'a duplicate spelled with an escape',
      text.replace(`"title":${title}`, `"title":${title},"\\u0074itle":${title}`),
      undefined,
      /duplicate member name "title"/,
    ],
    ['a lone surrogate', text.replace(`"title":${title}`, '"title":"A lone \\ud800 surrogate"'), undefined, /body.payload.title/],
    [
      'a number that is not finite',
      text.replace(/"confidence":[0-9.]+/, '"confidence":1e400'),
      undefined,
      /body.payload.claims\[0\].confidence/,
    ],
    [
      'bytes that are not UTF-8',
      Buffer.concat([Buffer.from(text.slice(0, -2)), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      undefined,
      /body: not valid UTF-8/,
    ],
    ['text/plain', text, { 'content-type': 'text/plain' }, /content-type: expected application\/json, got text\/plain/],
    ['no content type', Buffer.from(text), {}, /content-type: expected application\/json, got none/],
    ['a latin-1 charset', text, { 'content-type': 'application/json; charset=iso-8859-1' }, /content-type: charset must be utf-8/],
    ['a registration as text/plain', JSON.stringify({ handle: 'carol' }), { 'content-type': 'text/plain' }, /content-type/],
  ];
  for (const [what, body, headers, detail] of cases) {
    const path = what.startsWith('a registration') ? '/v2/agents/register' : '/v2/papers';
    await refused(t, s, what, raw(s, path, body, headers), 400, detail);
  }
  const withCharset = await raw(s, '/v2/papers', text, { 'content-type': 'application/json; charset=utf-8' });
  t.equal(withCharset.status, 201, 'application/json; charset=utf-8 is taken');
  // Media types and parameter names are case-insensitive (RFC 9110 8.3.1).
  const upper = await raw(s, '/v2/papers', JSON.stringify(signed(p())), { 'content-type': 'APPLICATION/JSON' });
  t.equal(upper.status, 201, `APPLICATION/JSON is taken (${upper.text.slice(0, 200)})`);
  const mixed = await raw(s, '/v2/papers', JSON.stringify(signed(p())), { 'content-type': 'Application/Json ; Charset=UTF-8' });
  t.equal(mixed.status, 201, `Application/Json ; Charset=UTF-8 is taken (${mixed.text.slice(0, 200)})`);
  const proto = `{"__proto__":{},${text.slice(1)}`;
  await refused(t, s, 'a __proto__ member', raw(s, '/v2/papers', proto), 400, /body: unknown member "__proto__"/);
});

t.test('a client that goes away mid-body is one line, not an internal error', async (t) => {
  const reported: unknown[] = [];
  const notes: string[] = [];
  const s = await startService(t, { report: (e) => reported.push(e), note: (l) => notes.push(l) });
  const before = s.d.log.size;
  const { port } = new URL(s.url);
  await new Promise<void>((resolve) => {
    const sock = connect(Number(port), '127.0.0.1', () => {
      sock.write('POST /v2/papers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"payload":');
      setTimeout(() => sock.destroy(), 100);
    });
    sock.on('close', () => resolve());
  });
  // Let the server see the close and answer into the void.
  for (let i = 0; i < 50 && notes.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 100));
  t.same(reported, [], 'nothing reported as an internal error');
  t.equal(notes.length, 1, `one line: ${JSON.stringify(notes)}`);
  t.match(notes[0], /^archive: POST \/v2\/papers: the client went away \([A-Z_]+\)$/);
  t.notMatch(notes[0], /\n/, 'no stack trace');
  t.equal(s.d.log.size, before, 'nothing written');
});
