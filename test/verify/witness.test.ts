// Witnesses (docs/log-format.md, "Witnesses"): three monitors run as witnesses (real
// `archive monitor --listen --witness-key` processes), an honest service that submits its
// checkpoints to them, and a lying service that forks the log (a copy of the same data
// directory, same log key, other entries). No witness cosigns both sides; a verifier and a
// monitor with a 2-of-3 policy refuse the fork; a restarted witness keeps its last checkpoint.
// Also the cosignature bytes, built here from the text of c2sp.org/tlog-cosignature.
import t, { type Test } from 'tap';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash, createPublicKey, generateKeyPairSync, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { startService, type TestService } from '../helpers/service.js';
import { copiedLog, register } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { parseWitnessFlag, type WitnessConfig } from '../../lib/service/witnesses.js';
import { verifyLog, verifyService } from '../../verify/verify.js';
import { fetchLog } from '../../verify/source.js';
import { monitorRound, readState } from '../../verify/monitor.js';
import { witnessPolicy } from '../../verify/witness.js';
import { addCheckpointBody, cosignatureLine, cosignaturesOn, cosignedMessage, cosignerVerifierKey, parseCosignerKey } from 'tlog-engine';

const ARCHIVE = join(process.cwd(), 'bin', 'archive');
const run = promisify(execFile);

interface WitnessProcess {
  url: string;
  vkey: string;
  state: string;
  stop(): Promise<void>;
}

/** Starts `archive monitor` as a witness of `service`, and waits for its first verified head. */
async function startWitness(t: Test, service: string, dir: string, name: string): Promise<WitnessProcess> {
  const state = join(dir, `${name}.json`);
  const child: ChildProcess = spawn(ARCHIVE, [
    'monitor',
    '--url',
    service,
    '--state',
    state,
    '--listen',
    '0',
    '--witness-key',
    join(dir, `${name}.key`),
    '--witness-name',
    `${name}.test/witness`,
    '--interval',
    '3600',
  ]);
  let err = '';
  let out = '';
  const ready = new Promise<{ url: string; vkey: string }>((resolve, reject) => {
    const check = () => {
      const url = /witness: (http:\/\/\S+)\/add-checkpoint/.exec(err)?.[1];
      const vkey = /witness key[^:]*: (\S+)/.exec(err)?.[1];
      if (url !== undefined && vkey !== undefined && /ok: head/.test(out)) resolve({ url, vkey });
    };
    child.stderr!.on('data', (c) => ((err += c), check()));
    child.stdout!.on('data', (c) => ((out += c), check()));
    child.once('exit', (code) => reject(new Error(`witness ${name} exited ${code}: ${err}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  t.teardown(stop);
  return { ...(await ready), state, stop };
}

async function addCheckpoint(url: string, body: string): Promise<{ status: number; type: string | null; text: string }> {
  const r = await fetch(`${url}/add-checkpoint`, { method: 'POST', body });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

const cosigners = (note: string, keys: string[]) =>
  cosignaturesOn(
    note,
    keys.map((k) => parseCosignerKey(k)),
    (raw, m, s) => cryptoVerify(null, m, createPublicKey({ key: Buffer.concat([SPKI, raw]), format: 'der', type: 'spki' }), s),
  ).map((c) => c.name);
const SPKI = Buffer.from('302a300506032b6570032100', 'hex');

/** A signed note by a key of type 0x01 (c2sp.org/signed-note), built here by hand. */
function signNote(text: string, name: string, raw: Buffer, sign: (m: Buffer) => Buffer): string {
  const id = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.of(0x01), raw]))
    .digest()
    .subarray(0, 4);
  return `${text}\n\u2014 ${name} ${Buffer.concat([id, sign(Buffer.from(text))]).toString('base64')}\n`;
}

t.test('the cosignature/v1 bytes are the spec text', async (t) => {
  // tlog-cosignature, "Ed25519 signed message": the example, byte for byte.
  const checkpoint = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
  t.equal(
    Buffer.from(cosignedMessage(checkpoint, 1679315147)).toString('utf8'),
    'cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
  );
  // A line: "— <name> base64(key ID || u64 big-endian timestamp || Ed25519 signature)", the key ID
  // SHA-256(<name> || "\n" || 0x04 || public key)[:4], the vkey of type 0x04.
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  const name = 'witness.example.com/w1';
  const line = cosignatureLine(checkpoint, { name, rawPublicKey: raw }, 1679315147, (m) => cryptoSign(null, m, privateKey));
  const m = /^\u2014 (\S+) (\S+)\n$/.exec(line);
  t.ok(m, 'one signature line');
  t.equal(m![1], name);
  const blob = Buffer.from(m![2]!, 'base64');
  t.equal(blob.length, 4 + 8 + 64);
  const id = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.of(0x04), raw]))
    .digest()
    .subarray(0, 4);
  t.same(blob.subarray(0, 4), id, 'key ID with the 0x04 byte');
  t.equal(blob.readBigUInt64BE(4), 1679315147n, 'the timestamp, big-endian');
  const message = Buffer.from(`cosignature/v1\ntime 1679315147\n${checkpoint}`);
  t.ok(cryptoVerify(null, message, publicKey, blob.subarray(12)), 'Ed25519 over the message built from the spec');
  t.equal(cosignerVerifierKey(name, raw), `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.of(0x04), raw]).toString('base64')}`);
  // The spec's example line decodes to the example's timestamp.
  const example = Buffer.from(
    'jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==',
    'base64',
  );
  t.equal(example.readBigUInt64BE(4), 1679315147n);
  t.equal(example.length, blob.length);
});

t.test('three witnesses, an honest service and a fork: no witness cosigns both sides, a 2-of-3 policy refuses the fork', async (t) => {
  // One log, written a little, then copied: the lying service holds the same keys and prefix.
  const [dirA, dirB] = await copiedLog(t);

  // Three witnesses follow the honest log.
  const plain = await startService(t, { dataDir: dirA });
  const wdir = tempDir(t);
  const ws: WitnessProcess[] = [];
  for (const n of ['w1', 'w2', 'w3']) ws.push(await startWitness(t, plain.url, wdir, n));
  await plain.stop();
  const configs: WitnessConfig[] = ws.map((w) => parseWitnessFlag(`${w.url}=${w.vkey}`));
  const vkeys = ws.map((w) => w.vkey);
  const policy = witnessPolicy(vkeys, 2)!;

  const notes: string[] = [];
  const honest: TestService = await startService(t, { dataDir: dirA, witnessedBy: configs, witnessNote: (l) => notes.push(l) });
  await register(honest, 'bob', { operatorId: 'lab-b' });
  await honest.witnesses.tick();
  let served = (await honest.get('/v1/log/checkpoint')).text;
  t.same(cosigners(served, vkeys), ['w1.test/witness', 'w2.test/witness', 'w3.test/witness'], 'all three cosign the honest head');
  t.match(served, new RegExp(`^${honest.d.origin}\\n${honest.d.log.size}\\n`), 'the newest head');
  t.same(
    (await honest.get('/')).body.witnesses,
    configs.map((c) => ({ url: c.url, key: c.vkey })),
    'GET / names the witnesses',
  );
  // It grows: the witnesses are given a consistency proof from what they cosigned.
  await register(honest, 'carol', { operatorId: 'lab-c' });
  await honest.witnesses.tick();
  served = (await honest.get('/v1/log/checkpoint')).text;
  t.equal(cosigners(served, vkeys).length, 3, 'the grown head is cosigned too');
  const cosignedSize = honest.d.log.size;
  t.same(notes, [], 'no witness failed');

  const good = await verifyService(new ArchiveClient(honest.url), { policy });
  t.ok(good.report.ok, 'the verifier with a 2-of-3 policy accepts the honest log');
  t.same(good.report.witnessed, { treeSize: cosignedSize, cosignedBy: ['w1.test/witness', 'w2.test/witness', 'w3.test/witness'] });

  // The lying service: the same key, other entries after the shared prefix, a larger tree.
  const lying: TestService = await startService(t, { dataDir: dirB, witnessedBy: configs, witnessNote: (l) => notes.push(l) });
  for (const h of ['mallory', 'trent', 'oscar', 'peggy']) await register(lying, h, { operatorId: `lab-${h}` });
  t.equal(lying.d.logKeyString, honest.d.logKeyString, 'the same log key');
  t.ok(lying.d.log.size > cosignedSize);
  await lying.witnesses.tick();
  const forked = (await lying.get('/v1/log/checkpoint')).text;
  t.same(cosigners(forked, vkeys), [], 'no witness cosigns the fork');
  t.same(
    lying.witnesses.list().map((w) => w.cosignedSize),
    [null, null, null],
  );
  t.equal(notes.length, 3, 'each refusal logged once');
  t.match(notes[0], /does not cosign: add-checkpoint answered 422/);
  await lying.witnesses.tick();
  t.equal(notes.length, 3, 'a failure that does not change is not logged again');

  // Each witness, asked directly: 409 with the size it holds, then 422 on the fork's proof.
  const lyingNote = lying.d.log.checkpoint();
  for (const w of ws) {
    const conflict = await addCheckpoint(w.url, addCheckpointBody(0, [], lyingNote));
    t.equal(conflict.status, 409);
    t.equal(conflict.type, 'text/x.tlog.size');
    t.equal(conflict.text, `${cosignedSize}\n`);
    const proof = await lying.d.log.consistencyProof(cosignedSize, lying.d.log.size);
    const bad = await addCheckpoint(w.url, addCheckpointBody(cosignedSize, proof, lyingNote));
    t.equal(bad.status, 422, 'the fork does not extend the head it cosigned');
  }

  // The verifier and the monitor with a 2-of-3 policy refuse the fork.
  const refused = await verifyService(new ArchiveClient(lying.url), { policy });
  t.notOk(refused.report.ok);
  t.match(refused.report.problems, [
    { kind: 'witness', detail: /carries 0 valid cosignature\(s\) of the 3 trusted witnesses, fewer than the quorum of 2/ },
  ]);
  // Nor does the honest checkpoint, cosigned, pass for the fork's entries.
  const forkLog = await fetchLog(new ArchiveClient(lying.url));
  const replayed = await verifyLog(forkLog, { witness: { policy, checkpoint: served } });
  t.match(replayed.report.problems, [{ kind: 'witness', detail: /not the one they witnessed \(a fork\)/ }]);
  const policyFlags = [...vkeys.flatMap((k) => ['--witness', k]), '--witness-quorum', '2'];
  const cli = await run(ARCHIVE, ['verify', '--url', lying.url, ...policyFlags]).catch((e) => e);
  t.equal(cli.code, 1, 'archive verify exits 1 on the fork');
  t.match(cli.stdout, /PROBLEM witness: the checkpoint of size \d+ carries 0 valid cosignature/);
  const cliOk = await run(ARCHIVE, ['verify', '--url', honest.url, ...policyFlags]);
  t.match(cliOk.stdout, /the first \d+ entries are the checkpoint cosigned by w1.test\/witness, w2.test\/witness, w3.test\/witness/);
  const monitorCli = await run(ARCHIVE, ['monitor', '--url', lying.url, '--state', join(wdir, 'm.json'), '--once', ...policyFlags]).catch(
    (e) => e,
  );
  t.equal(monitorCli.code, 3, 'archive monitor --once exits 3 on an unwitnessed head');
  t.match(monitorCli.stderr, /UNWITNESSED HEAD/);
  const round = await monitorRound({ url: lying.url, peers: [], policy }, null);
  t.equal(round.state, null, 'the monitor keeps no unwitnessed head');
  t.match(round.findings, [{ kind: 'unwitnessed' }]);
  const honestRound = await monitorRound({ url: honest.url, peers: [], policy }, null);
  t.ok(honestRound.state, 'the monitor takes the witnessed head');
  t.same(
    honestRound.findings.map((f) => f.kind),
    ['ok', 'ok'],
  );

  // A restarted witness keeps its last cosigned checkpoint, and its key.
  await ws[0]!.stop();
  t.equal(readState(ws[0]!.state)!.witness!.treeSize, cosignedSize, 'persisted in the state file');
  const again = await startWitness(t, honest.url, wdir, 'w1');
  t.equal(again.vkey, ws[0]!.vkey, 'the same key');
  const after = await addCheckpoint(again.url, addCheckpointBody(0, [], lyingNote));
  t.same([after.status, after.text], [409, `${cosignedSize}\n`], 'it still holds the size it cosigned');
  const origin = createHash('sha256').update(honest.d.origin).digest('hex');
  const kept = await fetch(`${again.url}/${origin}/checkpoint`);
  t.equal(cosigners(await kept.text(), [again.vkey]).length, 1, 'and serves the checkpoint it cosigned');

  // Malformed, unknown origin, not signed by the log key.
  const w = ws[1]!;
  t.equal((await addCheckpoint(w.url, 'old 01\n\n' + honest.d.log.checkpoint())).status, 400, 'leading zero');
  t.equal((await addCheckpoint(w.url, 'nonsense')).status, 400);
  const big = honest.d.log.size;
  t.equal((await addCheckpoint(w.url, addCheckpointBody(big + 1, [], honest.d.log.checkpoint()))).status, 400, 'old above the size');
  const other = generateKeyPairSync('ed25519');
  const otherRaw = other.publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  const text = honest.d.log.checkpoint().split('\n\n')[0] + '\n';
  const unknown = signNote(text.replace(honest.d.origin, 'elsewhere.example'), 'elsewhere.example', otherRaw, (m) =>
    cryptoSign(null, m, other.privateKey),
  );
  t.equal((await addCheckpoint(w.url, addCheckpointBody(cosignedSize, [], unknown))).status, 404, 'unknown origin');
  const impostor = signNote(text, honest.d.origin, otherRaw, (m) => cryptoSign(null, m, other.privateKey));
  t.equal((await addCheckpoint(w.url, addCheckpointBody(cosignedSize, [], impostor))).status, 403, 'not signed by the log key');
  t.equal((await fetch(`${w.url}/add-checkpoint`)).status, 405);

  // Over 64 KiB, by one byte, with a length or chunked: 413 with its body, then the connection closes.
  for (const chunked of [false, true]) {
    const r = await rawPost(`${w.url}/add-checkpoint`, Buffer.alloc(64 * 1024 + 1, 'a'), chunked);
    t.equal(r.status, 413, `${chunked ? 'chunked' : 'with a length'}: 413`);
    t.equal(r.body, 'the body is over 65536 bytes\n', 'with its body');
    t.equal(r.connection, 'close', 'Connection: close');
    t.ok(r.closed, 'and the connection is closed after the answer');
  }
  t.equal((await addCheckpoint(w.url, 'nonsense')).status, 400, 'the witness answers on');
});

/** POSTs `body` over a connection of its own; the answer, and whether the server closed the connection after it. */
function rawPost(
  url: string,
  body: Buffer,
  chunked: boolean,
): Promise<{ status: number; body: string; connection: string | undefined; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    const req = httpRequest(url, {
      method: 'POST',
      agent,
      headers: chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = { status: res.statusCode!, body: Buffer.concat(chunks).toString(), connection: res.headers.connection };
        const socket = res.socket;
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
