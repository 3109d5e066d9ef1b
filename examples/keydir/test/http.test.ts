// The directory's HTTP contract (README, "The HTTP contract"): a real server on port 0 over a
// real LevelDB, real Ed25519 keys. Every status and body; every refusal writes nothing; racing
// rotations of one name, one of which passes; a log that cannot write answers 503 and recovers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateLogKey, logSigner, MemoryStore, openLog } from 'tlog-engine';
import { signStatement, verifyHistory, verifyLookup } from '../src/client.js';
import { KeyDir } from '../src/keydir.js';
import { call, first, holder, post, rotation, serve, start, tempDir, treeSize } from './helpers.js';

const ALICE = 'alice@example.org';
const BOB = 'bob@example.org';

describe('the HTTP contract', async () => {
  const s = await start(tempDir());
  const vkey = s.dir.vkey;
  const [a1, a2, a3, b1] = [holder(), holder(), holder(), holder()];
  let boundAt = '';

  test('POST /keys: a first binding, signed by its own key, is 201 once durable', async () => {
    const r = await post(s.url, first(ALICE, a1));
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body), ['name', 'publicKey', 'seq', 'time']);
    assert.equal(r.body.name, ALICE);
    assert.equal(r.body.publicKey, a1.publicKey);
    assert.equal(r.body.seq, 0);
    assert.match(r.body.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    boundAt = r.body.time;
    assert.equal(r.headers.get('location'), `/keys/${ALICE}`);
    assert.equal(await treeSize(s.url), 1, 'the checkpoint holds it when the answer comes');
    assert.equal((await post(s.url, first(BOB, b1))).body.seq, 1);
  });

  test('GET /keys/<name>: the key, the entry that set it, its proof and the checkpoint', async () => {
    const r = await call(s.url, `/keys/${ALICE}`);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ['checkpoint', 'entry', 'name', 'proof', 'publicKey', 'seq']);
    assert.equal(r.body.publicKey, a1.publicKey);
    assert.equal(r.body.seq, 0);
    const entry = JSON.parse(r.body.entry);
    assert.deepEqual(Object.keys(entry), ['name', 'publicKey', 'prev', 'signature', 'time']);
    const { signature } = first(ALICE, a1); // Ed25519 signatures are deterministic
    assert.deepEqual(
      entry,
      { name: ALICE, publicKey: a1.publicKey, prev: null, signature, time: boundAt },
      'the statement posted, and when',
    );
    assert.match(r.body.checkpoint, /^keydir\.localhost\n2\n[A-Za-z0-9+/]{43}=\n\n— keydir\.localhost \S+\n$/);
    assert.equal(r.body.proof.length, 1, 'one sibling in a tree of two');
    assert.equal(verifyLookup(r.body, { vkey, name: ALICE }).publicKey, a1.publicKey);
    const escaped = await call(s.url, `/keys/${encodeURIComponent(ALICE)}`);
    assert.deepEqual(escaped.body, r.body, 'the name may be percent-encoded');
  });

  test('a rotation signed by the current key replaces it; the history shows both', async () => {
    const r = await post(s.url, rotation(ALICE, a2, 0, a1));
    assert.equal(r.status, 201);
    assert.equal(r.body.seq, 2);
    const now = await call(s.url, `/keys/${ALICE}`);
    assert.equal(now.body.publicKey, a2.publicKey);
    assert.equal(now.body.seq, 2);
    assert.equal(JSON.parse(now.body.entry).prev, 0);
    assert.equal(verifyLookup(now.body, { vkey, name: ALICE }).publicKey, a2.publicKey);
    const h = await call(s.url, `/keys/${ALICE}/history`);
    assert.equal(h.status, 200);
    assert.deepEqual(Object.keys(h.body), ['name', 'checkpoint', 'bindings']);
    assert.deepEqual(
      h.body.bindings.map((b: { seq: number }) => b.seq),
      [0, 2],
    );
    assert.deepEqual(
      verifyHistory(h.body, { vkey, name: ALICE }).map((b) => [b.seq, b.publicKey, b.prev]),
      [
        [0, a1.publicKey, null],
        [2, a2.publicKey, 0],
      ],
    );
  });

  test('400 {error, detail} naming the field, and nothing written', async () => {
    const good = rotation(ALICE, a3, 2, a2);
    const cases: [string, { body?: unknown; raw?: string }, RegExp][] = [
      ['not JSON', { raw: '{"name":' }, /^body: not JSON$/],
      ['not an object', { body: [good] }, /^body: expected a JSON object/],
      ['an unknown member', { body: { ...good, extra: 1 } }, /^extra: unexpected member$/],
      ['no name', { body: { ...good, name: undefined } }, /^name: required, a string$/],
      ['a name in upper case', { body: { ...good, name: 'Alice@example.org' } }, /^name: "Alice@example\.org" is not a lower-case handle/],
      ['a name without a domain', { body: { ...good, name: 'alice' } }, /^name: /],
      ['no key', { body: { ...good, publicKey: undefined } }, /^publicKey: required, a string$/],
      ['a short key', { body: { ...good, publicKey: good.publicKey.slice(1) } }, /^publicKey: expected a 32-byte Ed25519 key/],
      ['a padded key', { body: { ...good, publicKey: `${good.publicKey}=` } }, /^publicKey: /],
      ['prev negative', { body: { ...good, prev: -1 } }, /^prev: the seq of the entry/],
      ['prev a string', { body: { ...good, prev: '2' } }, /^prev: /],
      ['prev null', { body: { ...good, prev: null } }, /^prev: /],
      ['prev a fraction', { body: { ...good, prev: 1.5 } }, /^prev: /],
      ['no signature', { body: { ...good, signature: undefined } }, /^signature: required, a string$/],
      [
        'a signature in standard base64',
        { body: { ...good, signature: Buffer.from(good.signature, 'base64url').toString('base64') } },
        /^signature: /,
      ],
    ];
    for (const [what, init, detail] of cases) {
      const r = await call(s.url, '/keys', init.raw !== undefined ? { raw: init.raw } : { body: init.body });
      assert.equal(r.status, 400, what);
      assert.equal(r.body.error, 'bad_request', what);
      assert.match(r.body.detail, detail, what);
    }
    const bad = await call(s.url, '/keys/ALICE@example.org');
    assert.deepEqual([bad.status, bad.body.error], [400, 'bad_request']);
    assert.match(bad.body.detail, /^name: /);
    assert.equal(await treeSize(s.url), 3, 'nothing was written');
  });

  test('403: a first binding not signed by its own key, a rotation not signed by the current key', async () => {
    const stranger = holder();
    const notOwn = signStatement(stranger.privateKey, { name: 'carol@example.org', publicKey: a3.publicKey });
    const r1 = await post(s.url, notOwn);
    assert.equal(r1.status, 403);
    assert.equal(r1.body.error, 'forbidden');
    assert.match(r1.body.detail, /^signature: a first binding is signed by its own key/);
    for (const by of [a3, a1, stranger]) {
      const r = await post(s.url, rotation(ALICE, a3, 2, by));
      assert.equal(r.status, 403, 'the new key, a former key, a stranger');
      assert.match(r.body.detail, /^signature: a rotation is signed by the key alice@example\.org holds now \(set by entry 2\)/);
    }
    const tampered = { ...rotation(ALICE, a3, 2, a2), publicKey: stranger.publicKey };
    assert.equal((await post(s.url, tampered)).status, 403, 'a signed rotation with its key swapped');
    assert.equal((await call(s.url, '/keys/carol@example.org')).status, 404);
    assert.equal((await call(s.url, `/keys/${ALICE}`)).body.publicKey, a2.publicKey, 'the key is unchanged');
    assert.equal(await treeSize(s.url), 3);
  });

  test('409: a name already bound, a replay, a stale prev, a prev for an unbound name', async () => {
    const again = await post(s.url, first(ALICE, a1));
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, {
      error: 'exists',
      detail: 'name: alice@example.org is bound by entry 2; a rotation names it as prev',
      current: 2,
    });
    assert.equal((await post(s.url, first(ALICE, holder()))).body.error, 'exists', 'whoever asks');
    const replay = await post(s.url, rotation(ALICE, a2, 0, a1));
    assert.equal(replay.status, 409);
    assert.deepEqual(replay.body, { error: 'stale', detail: 'prev: 0 is not the entry that binds alice@example.org now (2)', current: 2 });
    const ahead = await post(s.url, rotation(ALICE, a3, 7, a2));
    assert.deepEqual([ahead.status, ahead.body.error], [409, 'stale']);
    const unbound = await post(s.url, signStatement(a3.privateKey, { name: 'dave@example.org', publicKey: a3.publicKey, prev: 0 }));
    assert.deepEqual(unbound.body, {
      error: 'stale',
      detail: 'prev: dave@example.org has no binding to replace; a first binding has no prev',
    });
    assert.equal(await treeSize(s.url), 3);
  });

  test('404, 405, 413, and GET /checkpoint', async () => {
    const none = await call(s.url, '/keys/nobody@example.org');
    assert.deepEqual([none.status, none.body], [404, { error: 'not_found', detail: 'name: no key is bound to nobody@example.org' }]);
    assert.equal((await call(s.url, '/keys/nobody@example.org/history')).status, 404);
    const path = await call(s.url, '/nothing/here');
    assert.deepEqual([path.status, path.body.error, path.body.detail], [404, 'not_found', 'path: no route /nothing/here']);
    const list = await call(s.url, '/keys');
    assert.deepEqual([list.status, list.body.error, list.headers.get('allow')], [405, 'method_not_allowed', 'POST']);
    const del = await call(s.url, `/keys/${ALICE}`, { method: 'DELETE' });
    assert.deepEqual([del.status, del.headers.get('allow')], [405, 'GET']);
    assert.match(del.body.detail, /^method: DELETE is not one of GET$/);
    const big = await call(s.url, '/keys', { raw: JSON.stringify({ ...first('big@example.org', a3), pad: 'x'.repeat(5000) }) });
    assert.deepEqual([big.status, big.body], [413, { error: 'too_large', detail: 'body: at most 4096 bytes' }]);
    const cp = await call(s.url, '/checkpoint');
    assert.equal(cp.status, 200);
    assert.match(cp.headers.get('content-type')!, /^text\/plain/);
    assert.match(cp.body, /^keydir\.localhost\n3\n/);
    assert.equal(await treeSize(s.url), 3);
  });

  test('racing rotations of one name: exactly one passes, the others are 409 stale', async () => {
    const racers = Array.from({ length: 8 }, () => holder());
    const answers = await Promise.all(racers.map((to) => post(s.url, rotation(ALICE, to, 2, a2))));
    const passed = answers.filter((r) => r.status === 201);
    assert.equal(passed.length, 1);
    assert.deepEqual(
      answers.filter((r) => r.status !== 201).map((r) => [r.status, r.body.error, r.body.current]),
      Array.from({ length: 7 }, () => [409, 'stale', passed[0]!.body.seq]),
    );
    const winner = passed[0]!.body.publicKey;
    const h = verifyHistory((await call(s.url, `/keys/${ALICE}/history`)).body, { vkey, name: ALICE });
    assert.deepEqual(
      h.map((b) => b.publicKey),
      [a1.publicKey, a2.publicKey, winner],
    );
    const firsts = await Promise.all(racers.map((h) => post(s.url, first('eve@example.org', h))));
    assert.deepEqual(firsts.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409], 'and racing first bindings');
    assert.equal(await treeSize(s.url), 5);
  });
});

test('a log that cannot write: 503, nothing logged, and the next binding recovers', async () => {
  const store = new MemoryStore();
  const h = holder();
  const log = await openLog({ store, signer: logSigner(generateLogKey()), origin: 'keydir.test' });
  const s = await serve(await KeyDir.open({ log }));
  assert.equal((await post(s.url, first(ALICE, h))).status, 201);
  store.injectFault('before-write');
  const failed = await post(s.url, first(BOB, h));
  assert.equal(failed.status, 503);
  assert.equal(failed.body.error, 'unavailable');
  assert.match(failed.body.detail, /^the log cannot write now, nothing was logged/);
  assert.equal((await call(s.url, `/keys/${BOB}`)).status, 404);
  const again = await post(s.url, first(BOB, h));
  assert.equal(again.status, 201, 'the log recovered, the state was rebuilt');
  assert.equal(again.body.seq, 1, 'in the place of the write that failed');
  assert.equal(verifyLookup((await call(s.url, `/keys/${BOB}`)).body, { vkey: s.dir.vkey, name: BOB }).seq, 1);
});
