// The worked example of docs/log-format.md, checked two ways: recomputed here with nothing but
// node:crypto and JSON (as an independent verifier would), and produced by the sequencer.
import t from 'tap';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../../lib/protocol/ed25519.js';
import { MemoryStore } from 'tlog-engine';
import { RecordLog } from '../../lib/protocol/log-entry.js';
import { fixtureJson } from '../helpers/fixtures.js';

const ex = fixtureJson('log/worked-example.json');
const sha = (...parts: (Buffer | string)[]) =>
  createHash('sha256')
    .update(Buffer.concat(parts.map((p) => Buffer.from(p))))
    .digest();
const logKey = createPublicKey({ key: Buffer.from(ex.logKey, 'base64url'), format: 'der', type: 'spki' });

t.test('every hash and signature recomputes from the definitions', async (t) => {
  let prev = '0'.repeat(64);
  const leaves: Buffer[] = [];
  for (const e of ex.entries) {
    t.equal(sha(e.payload).toString('hex'), e.payloadHash, `payloadHash ${e.seq}`);
    t.equal(e.prevHash, prev, `prevHash ${e.seq}`);
    // Members in RFC 8785 order: payloadHash, prevHash, seq, ts, type.
    const leaf = JSON.stringify({ payloadHash: e.payloadHash, prevHash: e.prevHash, seq: e.seq, ts: e.ts, type: e.type });
    t.equal(leaf, e.leafInput, `leaf input ${e.seq}`);
    const entryHash = sha(Buffer.of(0), leaf);
    t.equal(entryHash.toString('hex'), e.entryHash, `entryHash ${e.seq}`);
    leaves.push(entryHash);
    prev = e.entryHash;
  }
  t.equal(sha(Buffer.of(1), leaves[0]!, leaves[1]!).toString('hex'), ex.root, 'root of the two-entry tree');
  const msg = JSON.stringify({ rootHash: ex.sth.rootHash, timestamp: ex.sth.timestamp, treeSize: ex.sth.treeSize });
  t.equal(msg, ex.sthMessage);
  t.ok(verify(null, Buffer.from(msg), logKey, Buffer.from(ex.sth.signature, 'base64url')), 'STH signature');
  const genesis = JSON.parse(ex.entries[0].payload);
  t.equal(genesis.event.logKey, ex.logKey, 'genesis names the log key');
  const [text, sigLine] = ex.checkpoint.split('\n\n');
  t.equal(`${text}\n`, `${ex.origin}\n2\n${Buffer.from(ex.root, 'hex').toString('base64')}\n`);
  const blob = Buffer.from(sigLine.split(' ')[2].trim(), 'base64');
  const raw = logKey.export({ format: 'der', type: 'spki' }).subarray(12);
  t.same(blob.subarray(0, 4), sha(`${ex.origin}\n`, Buffer.of(1), raw).subarray(0, 4), 'note key id');
  t.ok(verify(null, Buffer.from(`${text}\n`), logKey, blob.subarray(4)), 'checkpoint signature');
});

t.test('the sequencer writes exactly these entries, head and checkpoint', async (t) => {
  const key = privateKeyFromSeed(Buffer.from(ex.logKeySeedHex, 'hex'));
  let now = Date.parse('2026-11-22T09:00:00.000Z');
  const log = await RecordLog.open({
    store: new MemoryStore(),
    signer: { publicKey: rawPublicKey(key), sign: (m: Uint8Array) => signBytes(key, m) },
    origin: ex.origin,
    clock: () => now,
  });
  for (const e of ex.entries) {
    now = Date.parse(e.ts);
    await log.append(e.type, e.payload);
  }
  const got = await log.entries(0, 2);
  t.same(
    got.map(({ seq, ts, type, payload, payloadHash, prevHash, entryHash }) => ({
      seq,
      ts,
      type,
      payload,
      payloadHash,
      prevHash,
      entryHash,
    })),
    ex.entries.map(({ leafInput: _, ...e }: any) => e),
  );
  t.same(log.sth(), ex.sth);
  t.equal(log.checkpoint(), ex.checkpoint);
});
