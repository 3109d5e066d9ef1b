// The second application on the log engine (examples/statements, docs/engine.md): a real
// server on port 0 over a real LevelDB, real signatures. Statements are posted, refused when
// bad (nothing written), served with heads, proofs, entries and a checkpoint, audited, checked
// by the application's own verifier (which catches tampered copies), and kept across a restart.
import t from 'tap';
import { canonicalBytes, canonicalize } from '../../lib/protocol/canonical-json.js';
import { generateKeyPair, sign } from '../../lib/protocol/ed25519.js';
import { toHex } from 'tlog-engine';
import { entryHashes } from '../../lib/protocol/log-entry.js';
import { startStatementServer } from '../../examples/statements/server.js';
import {
  consistencyHolds,
  fetchStatementLog,
  inclusionHolds,
  verifyStatementLog,
  type StatementLogCopy,
} from '../../examples/statements/verify.js';
import { tempDir } from '../helpers/tmp.js';

const alice = generateKeyPair();
const bob = generateKeyPair();
const signed = (who: typeof alice, statement: unknown) => ({
  statement,
  publicKey: who.publicKey,
  signature: sign(who.privateKey, canonicalBytes(statement)),
});

async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/statements`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

/** The copy with entry `seq` replaced, its hashes recomputed as a forger would (so the chain after it breaks). */
function forged(copy: StatementLogCopy, seq: number, payload: unknown): StatementLogCopy {
  const entries = copy.entries.map((e) => ({ ...e }));
  const e = entries[seq]!;
  const h = entryHashes(seq, e.ts, e.type, canonicalize(payload), e.prevHash);
  entries[seq] = { ...e, payload, payloadHash: h.payloadHash, entryHash: toHex(h.leafHash) };
  return { ...copy, entries };
}

t.test('a signed-statement log on the engine, end to end', async (t) => {
  const dir = tempDir(t);
  let s = await startStatementServer(dir);
  t.teardown(() => s.close());

  const answers = [];
  for (const body of [signed(alice, { claim: 'the sky is blue' }), signed(bob, ['any', 'json', 1]), signed(alice, 'plain text')]) {
    const r = await post(s.url, body);
    t.equal(r.status, 201, JSON.stringify(r.body));
    answers.push(r.body);
  }
  t.same(
    answers.map((a) => [a.seq, a.treeSize]),
    [
      [0, 1],
      [1, 2],
      [2, 3],
    ],
    'each statement is acknowledged with its seq once durable',
  );
  const early = await getJson(`${s.url}/v1/log/sth`);

  // Refusals: 4xx naming the member, and nothing written.
  const statement = { n: 1 };
  const refusals: [unknown, number, RegExp][] = [
    [{ publicKey: alice.publicKey, signature: signed(alice, statement).signature }, 400, /^statement:/],
    [{ ...signed(alice, statement), publicKey: 'nope' }, 400, /^publicKey:/],
    [{ ...signed(alice, statement), signature: 7 }, 400, /^signature:/],
    [{ ...signed(alice, statement), extra: 1 }, 400, /^extra:/],
    [{ ...signed(alice, statement), statement: { n: 2 } }, 401, /^signature: does not verify/],
    [{ ...signed(alice, statement), publicKey: bob.publicKey }, 401, /^signature:/],
  ];
  for (const [body, status, detail] of refusals) {
    const r = await post(s.url, body);
    t.equal(r.status, status, JSON.stringify(body));
    t.match(r.body.detail, detail);
  }
  t.equal((await getJson(`${s.url}/v1/log/sth`)).treeSize, 3, 'no refused statement is on the log');

  await post(s.url, signed(bob, { last: true }));
  const copy = await fetchStatementLog(s.url);
  t.equal(copy.sth.treeSize, 4);
  t.equal(copy.origin, 'statements.local');
  t.match(copy.checkpoint, /^statements\.local\n4\n/);
  t.same(
    copy.entries.map((e) => e.type),
    ['statement', 'statement', 'statement', 'statement'],
  );
  t.same((copy.entries[1]!.payload as any).statement, ['any', 'json', 1]);
  t.equal(verifyStatementLog(copy), null, "the application's verifier finds the log intact");

  for (const e of copy.entries) {
    const p = await getJson(`${s.url}/v1/log/inclusion?seq=${e.seq}&size=${copy.sth.treeSize}`);
    t.ok(inclusionHolds(e, copy.sth, p.proof), `entry ${e.seq} is included in the head`);
  }
  const c = await getJson(`${s.url}/v1/log/consistency?first=${early.treeSize}&second=${copy.sth.treeSize}`);
  t.ok(consistencyHolds(early, copy.sth, c.proof), 'the earlier head is a prefix of the later one');
  t.notOk(consistencyHolds(early, copy.sth, []), 'and an empty proof does not show it');
  t.same(await getJson(`${s.url}/v1/log/audit`), { intact: true, problem: null, treeSize: 4 }, 'the engine audits the stored log');

  // Tampered copies are caught.
  const edited = {
    ...copy,
    entries: copy.entries.map((e, i) => (i === 1 ? { ...e, payload: { ...(e.payload as object), statement: ['other'] } } : e)),
  };
  t.same(verifyStatementLog(edited), { seq: 1, detail: 'payloadHash does not recompute from the payload' }, 'an edited payload');
  const resigned = forged(copy, 3, signed(alice, { last: false }));
  t.same(
    verifyStatementLog(resigned),
    { seq: null, detail: 'the head rootHash is not the root of the entries' },
    'a validly signed entry swapped in, hashes recomputed',
  );
  const unsigned = forged(copy, 3, { ...(copy.entries[3]!.payload as object), statement: { last: false } });
  t.match(verifyStatementLog(unsigned), { seq: 3, detail: /^signature: does not verify/ }, 'a statement changed under its signature');
  const chained = forged(copy, 1, signed(bob, 'swapped'));
  t.same(
    verifyStatementLog(chained),
    { seq: 2, detail: 'prevHash is not the entry hash before it' },
    'an entry swapped in the middle breaks the chain',
  );
  t.match(verifyStatementLog({ ...copy, checkpoint: copy.checkpoint.replace('\n4\n', '\n3\n') }), { seq: null, detail: /checkpoint/ });

  // The same log after a restart, and it goes on.
  await s.close();
  s = await startStatementServer(dir);
  t.same(await getJson(`${s.url}/v1/log/sth`), copy.sth, 'reopened at its last head');
  t.equal((await post(s.url, signed(alice, { after: 'restart' }))).body.seq, 4);
  t.equal(verifyStatementLog(await fetchStatementLog(s.url)), null);
});
