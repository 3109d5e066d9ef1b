// The tlog-witness server (docs/engine.md, "Witnesses"): a witness of a real log, served over
// HTTP (servers.ts serveWitness, fileWitness), answered as c2sp.org/tlog-witness says: a
// checkpoint that extends the last one cosigned is cosigned; a stale one gets 409 with the size
// it holds, a fork 422, a malformed one 400, an unknown origin 404, a checkpoint not signed by
// the log key 403, a body over 64 KiB 413. Its state survives a restart. And the client side:
// Witnesses, which has a log's checkpoints cosigned, against the same server.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  TLOG_SIZE_TYPE,
  Witnesses,
  addCheckpointBody,
  checkpointPath,
  cosignaturesOn,
  loadOrCreateWitnessKey,
  parseCosignerKey,
  witnessConfig,
  type Log,
} from '../src/index.js';
import { MAX_ADD_CHECKPOINT_BODY, serveWitness } from '../src/servers.js';
import { fileWitness } from '../src/witness/endpoint.js';
import { signNote } from '../src/checkpoint.js';
import { verifyEd25519 } from '../src/client/ed25519.js';
import { logKey, memoryLog } from './helpers/serve-log.js';
import { bytes } from './helpers/text.js';
import { tempDir } from './helpers/tmp.js';

const ORIGIN = 'test.example/witnessed';

async function post(url: string, body: string): Promise<{ status: number; type: string | null; text: string }> {
  const r = await fetch(`${url}/add-checkpoint`, { method: 'POST', body });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

async function appendN(log: Log, n: number, tag: string): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => log.append(bytes(`${tag} ${i}`))));
}

/**
 * POSTs `body` on a connection of its own (kept alive unless the server closes it): the answer,
 * and whether the server closed the connection after it.
 */
function rawPost(
  url: string,
  body: Buffer,
  chunked: boolean,
): Promise<{ status: number; body: string; connection: string | undefined; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const req = request(url, {
      method: 'POST',
      agent,
      headers: chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const socket = res.socket;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = { status: res.statusCode!, body: Buffer.concat(chunks).toString(), connection: res.headers.connection };
        const done = (closed: boolean) => {
          agent.destroy();
          resolve({ ...answer, closed });
        };
        if (socket.destroyed || socket.readableEnded) return done(true);
        const timer = setTimeout(() => done(false), 2000);
        socket.once('close', () => (clearTimeout(timer), done(true)));
        socket.once('end', () => (clearTimeout(timer), done(true)));
      });
    });
    if (chunked) for (let i = 0; i < body.length; i += 4096) req.write(body.subarray(i, i + 4096));
    else req.write(body);
    req.end();
  });
}

/** The names of the valid cosignatures on `note` by `vkeys`. */
const cosigners = (note: string, vkeys: string[]) =>
  cosignaturesOn(
    note,
    vkeys.map((v) => parseCosignerKey(v)),
    verifyEd25519,
  ).map((c) => c.name);

t.test('add-checkpoint: cosigns what extends, refuses the rest with the C2SP answers, and keeps its state', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 5, 'shared');
  // A fork: the same key and origin, the same first five entries, then others.
  const fork = await memoryLog(t, signer, ORIGIN);
  await appendN(fork, 5, 'shared');
  t.equal(fork.sth().rootHash, log.sth().rootHash, 'one tree so far');

  const dir = tempDir(t);
  const { witness: wkey } = loadOrCreateWitnessKey(join(dir, 'w.key'), 'w.test/witness');
  const state = join(dir, 'witness.json');
  const endpoint = fileWitness(wkey, [{ origin: ORIGIN, logKey: key }], state);
  const w = await serveWitness(0, '127.0.0.1', endpoint);
  t.teardown(() => new Promise((r) => w.server.close(r)));

  // The first checkpoint, from size 0.
  const first = await post(w.url, addCheckpointBody(0, [], log.checkpoint()));
  t.equal(first.status, 200, first.text);
  t.match(first.text, /^\u2014 w\.test\/witness \S+\n$/, 'one cosignature line');
  t.same(cosigners(log.checkpoint() + first.text, [wkey.vkey]), ['w.test/witness'], 'it verifies by the vkey');
  t.match(JSON.parse(readFileSync(state, 'utf8')), { logs: [{ origin: ORIGIN, treeSize: 5 }] }, 'kept before the answer');

  // The log grows: cosigned again with a consistency proof from 5.
  await appendN(log, 4, 'more');
  const proof = await log.consistencyProof(5, 9);
  const grown = await post(w.url, addCheckpointBody(5, proof, log.checkpoint()));
  t.equal(grown.status, 200, grown.text);
  const served = await fetch(`${w.url}${checkpointPath(ORIGIN)}`);
  t.equal(served.status, 200);
  t.equal(await served.text(), log.checkpoint() + grown.text, 'GET /<origin hash>/checkpoint: the last one cosigned');
  t.equal((await fetch(`${w.url}/${'0'.repeat(64)}/checkpoint`)).status, 404, 'of a log it does not follow: 404');

  // Stale: an old size that is not the one it holds.
  const stale = await post(w.url, addCheckpointBody(5, proof, log.checkpoint()));
  t.same([stale.status, stale.type, stale.text], [409, TLOG_SIZE_TYPE, '9\n'], '409 with the size it holds');
  t.equal((await post(w.url, addCheckpointBody(0, [], log.checkpoint()))).status, 409);

  // The same checkpoint again, from the size it holds: cosigned (an empty proof between equal trees).
  t.equal((await post(w.url, addCheckpointBody(9, [], log.checkpoint()))).status, 200);

  // A fork of the same size or larger: its proof from 9 does not hold.
  await appendN(fork, 6, 'forked');
  const forkProof = await fork.consistencyProof(9, 11);
  const forked = await post(w.url, addCheckpointBody(9, forkProof, fork.checkpoint()));
  t.equal(forked.status, 422, 'a fork is refused');
  t.match(forked.text, /does not extend the one of size 9/);
  t.equal((await post(w.url, addCheckpointBody(9, [], fork.checkpoint()))).status, 422, 'with no proof too');

  // Malformed: 400.
  const note = log.checkpoint();
  const malformed: [string, string][] = [
    ['a leading zero', `old 09\n\n${note}`],
    ['no blank line', 'nonsense'],
    ['a proof line that is not a hash', `old 9\nAAAA\n\n${note}`],
    ['a note with no signature', `old 9\n\n${note.slice(0, note.indexOf('\n\n') + 1)}`],
  ];
  for (const [what, body] of malformed) t.equal((await post(w.url, body)).status, 400, what);
  const above = await post(w.url, addCheckpointBody(10, [], note));
  t.same([above.status, above.text], [400, 'old size 10 is above the checkpoint size 9\n'], 'old above the size');

  // Unknown origin: 404. Not signed by the log key: 403.
  const other = generateKeyPairSync('ed25519');
  const otherRaw = new Uint8Array(other.publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
  const text = note.slice(0, note.indexOf('\n\n') + 1);
  const signOther = (m: Uint8Array) => new Uint8Array(sign(null, m, other.privateKey));
  const elsewhere = signNote(text.replace(ORIGIN, 'elsewhere.example'), 'elsewhere.example', otherRaw, signOther);
  t.equal((await post(w.url, addCheckpointBody(9, [], elsewhere))).status, 404, 'unknown origin');
  const impostor = signNote(text, ORIGIN, otherRaw, signOther);
  const forbidden = await post(w.url, addCheckpointBody(9, [], impostor));
  t.same([forbidden.status, forbidden.text], [403, 'the checkpoint is not signed by the log key\n'], 'not signed by the log key');

  // Too large, by one byte, with a length or chunked: 413 with its line once the body is read,
  // then the connection closes. A flood (over 1 MiB more) is cut once the 413 is written.
  const body = addCheckpointBody(9, [], note);
  const big = Buffer.from(body + 'x'.repeat(MAX_ADD_CHECKPOINT_BODY + 1 - Buffer.byteLength(body)));
  t.equal(big.length, 65_537);
  for (const [what, bytes, chunked] of [
    ['with a length', big, false],
    ['chunked', big, true],
    ['a flood of 2 MiB', Buffer.alloc(2 * 1024 * 1024, 'x'), true],
  ] as const) {
    const r = await rawPost(`${w.url}/add-checkpoint`, bytes, chunked);
    t.same([r.status, r.body], [413, 'the body is over 65536 bytes\n'], `${what}: 413 with its body`);
    t.equal(r.connection, 'close', `${what}: Connection: close`);
    t.ok(r.closed, `${what}: the connection is closed after the answer`);
  }
  t.equal((await fetch(`${w.url}/add-checkpoint`)).status, 405, 'GET add-checkpoint: 405');
  t.equal((await post(w.url, addCheckpointBody(9, [], note))).status, 200, 'and the witness still answers');

  // Restarted on its state file: it holds the size it cosigned.
  const again = await serveWitness(0, '127.0.0.1', fileWitness(wkey, [{ origin: ORIGIN, logKey: key }], state));
  t.teardown(() => new Promise((r) => again.server.close(r)));
  const after = await post(again.url, addCheckpointBody(0, [], log.checkpoint()));
  t.same([after.status, after.text], [409, '9\n'], 'it still holds 9');
  t.same(loadOrCreateWitnessKey(join(dir, 'w.key'), 'w.test/witness').witness.vkey, wkey.vkey, 'and its key');
});

t.test('Witnesses: a log has its checkpoints cosigned; a fork of it is refused, and said so once', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await appendN(log, 3, 'shared');
  const fork = await memoryLog(t, signer, ORIGIN);
  await appendN(fork, 3, 'shared');
  const dir = tempDir(t);
  const ws = await Promise.all(
    ['w1', 'w2'].map(async (n) => {
      const { witness } = loadOrCreateWitnessKey(join(dir, `${n}.key`), `${n}.test/witness`);
      const server = await serveWitness(0, '127.0.0.1', fileWitness(witness, [{ origin: ORIGIN, logKey: key }], join(dir, `${n}.json`)));
      t.teardown(() => new Promise((r) => server.server.close(r)));
      return { vkey: witness.vkey, config: witnessConfig(`${server.url}/`, witness.vkey) };
    }),
  );
  const vkeys = ws.map((w) => w.vkey);
  const notes: string[] = [];
  const honest = new Witnesses(
    log,
    ws.map((w) => w.config),
    { intervalMs: 0, note: (l) => notes.push(l) },
  );
  t.equal(honest.checkpoint(), log.checkpoint(), 'before a round: the log’s own');
  await honest.tick();
  t.same(cosigners(honest.checkpoint(), vkeys), ['w1.test/witness', 'w2.test/witness'], 'both cosign');
  t.same(
    honest.list().map((w) => w.cosignedSize),
    [3, 3],
  );
  await appendN(log, 2, 'more');
  await honest.tick();
  t.match(honest.checkpoint(), new RegExp(`^${ORIGIN}\\n5\\n`), 'the grown checkpoint');
  t.equal(cosigners(honest.checkpoint(), vkeys).length, 2, 'cosigned from the size they held, with a proof');
  t.same(notes, [], 'nothing failed');

  await appendN(fork, 4, 'forked');
  const lying = new Witnesses(
    fork,
    ws.map((w) => w.config),
    { intervalMs: 0, note: (l) => notes.push(l) },
  );
  await lying.tick();
  t.equal(lying.checkpoint(), fork.checkpoint(), 'no cosignature: the fork’s own checkpoint');
  t.same(
    lying.list().map((w) => w.cosignedSize),
    [null, null],
  );
  t.equal(notes.length, 2);
  t.match(notes[0], /^witness http:\S+ does not cosign: add-checkpoint answered 422/, 'the 409 is followed, then the 422 said');
  await lying.tick();
  t.equal(notes.length, 2, 'a failure that does not change is said once');
});
