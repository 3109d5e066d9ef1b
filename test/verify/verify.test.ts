// The offline verifier against a real service, and against a small lying proxy in front of it
// that alters what the service serves: an entry's text, the order of entries, a signature, the
// head, a head inconsistent with an earlier one, a served credence and a served count. Each lie
// must be caught, with the kind of problem and the entry it is at.
import t, { type Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startService, type TestService } from '../helpers/service.js';
import { houseAgent, make, register, replicate, send } from '../helpers/agents.js';
import { tempDir } from '../helpers/tmp.js';
import { lyingProxy } from '../helpers/verifier.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { generateKeyPair, privateKeyFromPem, signBytes, signPayload } from '../../lib/protocol/ed25519.js';
import { Point } from '@noble/ed25519';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { fetchLog, readExport, writeExport, type ServedEntry } from '../../verify/source.js';
import { verifyLog, verifyService } from '../../verify/verify.js';
import { fetchProof, proofProblem } from '../../verify/proof.js';
import { entryHashes, lineHashes } from '../../verify/entry-hashes.js';
import { headMessage, leafHash, sha256TextHex, toHex } from 'tlog-engine';
import { leafInput, ZERO_HASH } from '../../lib/protocol/log-entry.js';

const run = promisify(execFile);
const ARCHIVE = join(process.cwd(), 'bin', 'archive');

/** A record with something of everything: papers, receipts with cross-checks, reviews, arguments, a challenge, a doorbell. */
async function busyService(t: Test): Promise<TestService> {
  const s = await startService(t);
  const house = await houseAgent(s, 'house');
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  const bob = await register(s, 'bob', { operatorId: 'lab-b' });
  const carol = await register(s, 'carol', { operatorId: 'lab-c' });
  const paper = await send(s, alice, 'paper', make.paper(2));
  const [c1, c2] = paper.body.claims as [string, string];
  await replicate(t, s, house, c1, 'confirmed');
  await replicate(t, s, bob, c1, 'failed', true);
  await replicate(t, s, carol, c2, 'confirmed');
  await send(s, carol, 'review', { claim: c1, forecast: 0.3, rationale: 'The effect looks too large for the sample size used.' });
  const arg = await send(s, bob, 'argument.file', make.argument(c2));
  await send(s, house, 'argument.check', { argument: arg.body.id, holds: true, note: 'The gap is real; the step is not justified.' });
  await send(s, carol, 'challenge.propose', { claim: c2, brief: 'Re-run the main table with a fresh seed and report the spread.' });
  await send(s, bob, 'doorbell.set', { kind: 'webhook', cadence: 'daily', url: 'https://bob.example.org/wake' });
  // A steward appointed by the operator key, who pauses and resumes a surface.
  const key = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'operator.key'), 'utf8'));
  const appoint = { protocol: PROTOCOL, type: 'steward.appoint', steward: 'carol', ts: new Date(s.record.now()).toISOString() };
  t.equal((await s.post('/v2/stewards', { payload: appoint, signature: signPayload(key, appoint) })).status, 201);
  for (const paused of [true, false])
    t.equal((await send(s, carol, 'switch.set', { switch: 'challenges', paused, reason: 'A check of the challenge board.' })).status, 200);
  return s;
}

/** Rewrites the entries of a /v1/log/entries page. */
const onEntries = (edit: (entries: ServedEntry[]) => void) => (path: string, body: string) => {
  if (!path.startsWith('/v1/log/entries')) return body;
  const page = JSON.parse(body);
  edit(page.entries);
  return JSON.stringify(page);
};

/** Re-forms entries from `from` on so that their hashes and links recompute (a careful liar). */
function rechain(entries: ServedEntry[], from: number): void {
  let prev = from === 0 ? ZERO_HASH : entries[from - 1]!.entryHash;
  for (let i = from; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.withheld === undefined) e.payloadHash = sha256TextHex(canonicalize(e.payload));
    e.prevHash = prev;
    e.entryHash = toHex(leafHash(leafInput(e)));
    prev = e.entryHash;
  }
}

async function verifyThrough(url: string, savedHead: any = null) {
  const client = new ArchiveClient(url);
  return verifyLog(await fetchLog(client), { client, savedHead });
}

const kinds = (r: { problems: { kind: string }[] }) => r.problems.map((p) => p.kind).sort();

t.test('an honest service verifies: entries, signatures, head, seeds and draws, and every number it serves', async (t) => {
  const s = await busyService(t);
  const { report } = await verifyThrough(s.url);
  t.same(report.problems, [], 'no problem');
  t.equal(report.ok, true);
  t.equal(report.entries, s.d.log.size);
  t.ok(
    report.withheld >= 2,
    `entries served with fields withheld are counted (${report.withheld}): outputs not yet revealed, the doorbell's address`,
  );
  t.same(report.compared, ['credence', 'record', 'frontier', 'governance', 'challenges', 'receipts', 'arguments', 'papers', 'agents']);

  // The same offline, from an export, and a proof of one entry with nothing but the log key.
  const dir = tempDir(t);
  const file = join(dir, 'log.jsonl');
  await writeExport(file, await fetchLog(new ArchiveClient(s.url)));
  const offline = await verifyLog(await readExport(file));
  t.same(offline.report.problems, [], 'the export verifies offline');
  // An export's lines of the served shape are hashed as they are, without parsing: the same hashes
  // as the parsed entry's, for every line.
  const lines = readFileSync(file, 'utf8').split('\n');
  const body = lines.slice(1).filter((l) => l !== '');
  const fast = body.filter((l, seq) => {
    const h = lineHashes(l, seq);
    if (h === null) return false;
    const { leaf, text, payloadOk, problems } = entryHashes(JSON.parse(l) as ServedEntry, seq);
    t.same({ leaf, text, payloadOk, problems }, { leaf: h.leaf, text: h.text, payloadOk: h.payloadOk, problems: h.problems });
    return true;
  });
  t.ok(fast.length >= body.length - offline.report.withheld, `${fast.length} of ${body.length} lines hashed as they are`);
  // A payload written otherwise (with spaces) is parsed and canonicalized: its hash holds.
  const paperAt = lines.findIndex((l) => l.includes('"type":"paper"'));
  const paperLine = JSON.parse(lines[paperAt]!) as ServedEntry;
  const respaced = [...lines];
  respaced[paperAt] = JSON.stringify(paperLine, null, 1).replace(/\n/g, '');
  t.equal(lineHashes(respaced[paperAt]!, paperLine.seq), null, 'that line is not of the served shape');
  writeFileSync(file, respaced.join('\n'));
  t.same((await verifyLog(await readExport(file))).report.problems, [], 'a payload written otherwise but the same value verifies');
  // A text altered where it stays canonical is caught as well.
  const retitled = [...lines];
  retitled[paperAt] = lines[paperAt]!.replace(/"title":"/, '"title":"A better ');
  t.not(lineHashes(retitled[paperAt]!, paperLine.seq), null, 'that line is hashed as it is');
  writeFileSync(file, retitled.join('\n'));
  const altered = (await verifyLog(await readExport(file))).report.problems;
  t.ok(
    altered.some(
      (p) =>
        p.kind === 'hash' && p.seq === paperLine.seq && /payloadHash does not recompute from the payload served \(paper\)/.test(p.detail),
    ),
    'an altered title',
  );
  // An export's entries reach the checks as the lines of the file: a line altered there is caught,
  // a number beyond what JSON's doubles hold as well (its payload has no canonical JSON).
  const at = lines.findIndex((l) => l.includes('"type":"review"'));
  const seq = (JSON.parse(lines[at]!) as ServedEntry).seq;
  lines[at] = lines[at]!.replace(/"forecast":[0-9.]+/, '"forecast":1e400');
  writeFileSync(file, lines.join('\n'));
  const problems = (await verifyLog(await readExport(file))).report.problems;
  t.ok(
    problems.some(
      (p) =>
        p.kind === 'hash' &&
        p.seq === seq &&
        /payloadHash does not recompute: the payload served has no canonical JSON .*not a finite number/.test(p.detail),
    ),
    'a number out of range: a problem of its entry (hash), not a failed run',
  );
  t.ok(
    problems.some((p) => p.kind === 'rules' && p.seq === seq),
    'and the replay refuses it',
  );
  const bundle = await fetchProof(new ArchiveClient(s.url), 3);
  t.equal(proofProblem(bundle, { key: s.d.logKeyString, origin: null }), null, 'the proof bundle verifies with the log key');
  t.match(
    proofProblem({ ...bundle, entry: { ...bundle.entry, ts: '2031-01-01T00:00:00.000Z' } }, { key: s.d.logKeyString, origin: null }),
    /entryHash does not recompute/,
  );
  t.match(
    proofProblem(bundle, { key: (await fetchProof(new ArchiveClient(s.url), 0)).entry.payload.event.operatorKey, origin: null }),
    /not signed by the pinned key/,
    'another key: refused',
  );
});

t.test('a lying proxy is caught, lie by lie', async (t) => {
  const s = await busyService(t);
  const entries = (await fetchLog(new ArchiveClient(s.url))).entries;
  const paperSeq = entries.find((e) => e.type === 'paper')!.seq;
  const reviewSeq = entries.find((e) => e.type === 'review')!.seq;

  // An entry's text altered: its payload no longer gives its payloadHash.
  let url = await lyingProxy(
    t,
    s.url,
    onEntries((es) => (es[paperSeq]!.payload.payload.title = 'A better title')),
  );
  let r = (await verifyThrough(url)).report;
  t.match(r.problems, [{ kind: 'hash', seq: paperSeq, detail: /payloadHash does not recompute/ }], 'altered text');
  t.equal(r.ok, false);

  // Two entries swapped: seq order and links break at the first.
  url = await lyingProxy(
    t,
    s.url,
    onEntries((es) => ([es[reviewSeq], es[reviewSeq + 1]] = [es[reviewSeq + 1]!, es[reviewSeq]!])),
  );
  r = (await verifyThrough(url)).report;
  t.match(
    r.problems.find((p) => p.kind === 'chain'),
    { seq: reviewSeq, detail: /served with seq/ },
    'reordered entries',
  );

  // A forged signature, with every hash after it recomputed so the chain holds: the signature
  // fails at that entry, and the signed head no longer matches the entries.
  url = await lyingProxy(
    t,
    s.url,
    onEntries((es) => {
      es[reviewSeq]!.payload.payload.forecast = 0.99;
      rechain(es, reviewSeq);
    }),
  );
  r = (await verifyThrough(url)).report;
  t.same(kinds(r), ['head', 'numbers', 'signature'], 'signature, head, and the numbers the forged forecast would give');
  t.match(
    r.problems.find((p) => p.kind === 'signature'),
    { seq: reviewSeq, detail: /review: signature does not verify/ },
  );
  t.match(
    r.problems.find((p) => p.kind === 'head'),
    { seq: null, detail: /is not the root of the entries/ },
  );

  // A head that does not match the entries (and is not the log key's signature).
  url = await lyingProxy(t, s.url, (path, body) =>
    path === '/v1/log/sth' ? JSON.stringify({ ...JSON.parse(body), rootHash: 'ab'.repeat(32) }) : body,
  );
  r = (await verifyThrough(url)).report;
  t.same(kinds(r), ['head'], 'a head that does not match');
  t.match(r.problems[0]!.detail, /not signed by the log key/);

  // A served credence the log does not support, and a served count.
  url = await lyingProxy(t, s.url, (path, body) => {
    if (path !== '/v2/credence') return body;
    const b = JSON.parse(body);
    b.claims[0].credence = 0.99;
    return JSON.stringify(b);
  });
  r = (await verifyThrough(url)).report;
  t.match(r.problems, [
    { kind: 'numbers', detail: /GET \/v2\/credence: claim rec:[0-9a-f]{16}#C1: credence: served 0.99, the log gives 0\.\d+/ },
  ]);
  url = await lyingProxy(t, s.url, (path, body) => (path === '/v2/record' ? JSON.stringify({ ...JSON.parse(body), receipts: 7 }) : body));
  r = (await verifyThrough(url)).report;
  t.match(r.problems, [{ kind: 'numbers', detail: /GET \/v2\/record: receipts: served 7, the log gives 3/ }]);

  // A paper's text hidden, under its own id, as if a steward had withheld it when none did:
  // the replay goes through, and the hiding is caught at that entry.
  const paperId = [...s.record.state.papers.keys()][0]!;
  url = await lyingProxy(
    t,
    s.url,
    onEntries((es) => {
      const e = es[paperSeq]!;
      e.payload.payload.title = null;
      e.withheld = ['payload.title'];
      e.subject = paperId;
    }),
  );
  r = (await verifyThrough(url)).report;
  t.match(
    r.problems,
    [
      {
        kind: 'rules',
        seq: paperSeq,
        detail: `served with its text withheld as ${paperId}, but the record holds no item out of view at this entry`,
      },
    ],
    'text hidden that the record does not withhold',
  );
});

t.test('pages served short: the copy asks again from where each ends, and is the whole log', async (t) => {
  const s = await startService(t);
  for (const h of ['alice', 'bob', 'carol', 'dave']) await register(s, h, { operatorId: `lab-${h}` });
  const log = await fetchLog(new ArchiveClient(s.url));
  t.ok(log.entries.length >= 5, `${log.entries.length} entries`);
  t.same((await fetchLog(new ArchiveClient(s.url), { page: 2 })).entries, log.entries, 'pages of two, several asked for at once');
  // Served two a page: the pages asked for after a page served short start too late (asked for three a page) or too early.
  const short = await lyingProxy(
    t,
    s.url,
    onEntries((es) => es.splice(2)),
  );
  t.same((await fetchLog(new ArchiveClient(short))).entries, log.entries, 'a page served short');
  t.same((await fetchLog(new ArchiveClient(short), { page: 3 })).entries, log.entries, 'every page served short');
});

t.test(
  'a key with a small-order part, registered or delegated, is refused by the replay though the workers check keys first',
  async (t) => {
    const s = await startService(t);
    const alice = await register(s, 'alice', { operatorId: 'lab-a' });
    const check = generateKeyPair();
    t.equal((await send(s, alice, 'key.delegate', { key: check.publicKey, scope: 'reports', label: 'the runner' })).status, 201);
    const log = await fetchLog(new ArchiveClient(s.url));
    // Each key plus a point of order 8: canonical, of the curve, not of small order, and not in the prime-order subgroup.
    const t8 = Point.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
    const mixed = (spelling: string): string => {
      const der = Buffer.from(spelling, 'base64url');
      const p = Point.fromBytes(der.subarray(12)).add(t8);
      return Buffer.concat([der.subarray(0, 12), p.toBytes()]).toString('base64url');
    };
    const liar = (edit: (e: ServedEntry) => void, type: string) => {
      const copy = structuredClone(log);
      const seq = copy.entries.findIndex((e) => e.type === type);
      edit(copy.entries[seq]!);
      rechain(copy.entries, seq);
      return { copy, seq };
    };
    const refused = 'point is not torsion-free (has a small-order component)';
    const reg = liar((e) => (e.payload.publicKey = mixed(e.payload.publicKey)), 'agent.register');
    // The delegation is signed: its signature no longer verifies, and the replay refuses the key all the same.
    const del = liar((e) => (e.payload.payload.key = mixed(e.payload.payload.key)), 'key.delegate');
    // The three at once: they share the workers (verify/entry-pool.ts), and each gets its own batches' results.
    const [honest, registered, delegated] = await Promise.all([log, reg.copy, del.copy].map((l) => verifyLog(l)));
    t.same(honest!.report.problems, [], 'the honest log verifies');
    for (const r of [registered!, delegated!])
      t.ok(
        r.report.problems.some((p) => p.kind === 'head' && /is not the root of the entries/.test(p.detail)),
        'its leaves are its own: the rechained entries no longer give the signed head',
      );
    t.ok(
      registered!.report.problems.some(
        (p) => p.kind === 'rules' && p.seq === reg.seq && p.detail === `agent.register: bad_request: publicKey: ${refused}`,
      ),
      'a registered key',
    );
    t.ok(
      delegated!.report.problems.some(
        (p) => p.kind === 'rules' && p.seq === del.seq && p.detail === `key.delegate: bad_request: payload.key: ${refused}`,
      ),
      'a delegated key',
    );
  },
);

t.test('a head inconsistent with one seen before is caught; a consistent one is not', async (t) => {
  const s = await busyService(t);
  const logKey = privateKeyFromPem(readFileSync(join(s.dataDir, 'keys', 'log.key'), 'utf8'));
  const honest = (await fetchLog(new ArchiveClient(s.url))).sth;
  // A head the log key once signed for size 5 with another root: a split view, or a rewrite.
  const other = { treeSize: 5, rootHash: 'cd'.repeat(32), timestamp: new Date().toISOString() };
  const forged = { ...other, signature: Buffer.from(signBytes(logKey, headMessage(other))).toString('base64url') };
  let r = (await verifyThrough(s.url, forged)).report;
  t.match(r.problems, [{ kind: 'consistency', detail: /do not give the saved head's root at size 5/ }]);
  // The honest earlier head of a shorter log is extended: the proof is fetched and checks.
  await send(s, await register(s, 'dave', { operatorId: 'lab-d' }), 'paper', make.paper(1));
  r = (await verifyThrough(s.url, honest)).report;
  t.same(r.problems, [], 'the later head extends the earlier one');
  t.match(
    (await verifyThrough(s.url, { ...honest, treeSize: honest.treeSize + 50 })).report.problems,
    [{ kind: 'consistency' }],
    'a larger earlier head',
  );
});

t.test('archive verify, export and proof on the command line: exit 0 only when everything holds', async (t) => {
  const s = await busyService(t);
  const dir = tempDir(t);
  const state = join(dir, 'head.json');
  const ok = await run(ARCHIVE, ['verify', '--url', s.url, '--json', '--state', state]);
  const report = JSON.parse(ok.stdout);
  t.equal(report.ok, true, 'exit 0 with ok');
  t.same(JSON.parse(readFileSync(state, 'utf8')).sth.treeSize, report.treeSize, 'the head is saved');
  const liar = await lyingProxy(t, s.url, (path, body) =>
    path === '/v2/record' ? JSON.stringify({ ...JSON.parse(body), claims: 40 }) : body,
  );
  const file = join(dir, 'log.jsonl');
  const proofFile = join(dir, 'proof.json');
  // Each a process of its own: the independent ones at once.
  const [text, bad, usage] = await Promise.all([
    run(ARCHIVE, ['verify', '--url', s.url, '--state', state]),
    run(ARCHIVE, ['verify', '--url', liar, '--json']).catch((e) => e),
    run(ARCHIVE, ['verify', '--url', s.url, '--file', file]).catch((e) => e),
    run(ARCHIVE, ['export', '--url', s.url, '--out', file]),
    run(ARCHIVE, ['proof', '--url', s.url, '--seq', '2', '--out', proofFile]),
  ]);
  t.match(text.stdout, /OK: every entry, signature, head and number checked holds/);
  t.equal(bad.code, 1, 'exit 1 when something does not hold');
  t.match(JSON.parse(bad.stdout), { ok: false, problems: [{ kind: 'numbers' }] });
  t.equal(usage.code, 1);
  t.match(usage.stderr, /give exactly one of --url, --file, --proof/);
  const [offline, proof] = await Promise.all([
    run(ARCHIVE, ['verify', '--file', file, '--json']),
    run(ARCHIVE, ['verify', '--proof', proofFile, '--key', s.d.logKeyString]),
  ]);
  t.equal(JSON.parse(offline.stdout).ok, true, 'the export verifies offline');
  t.match(proof.stdout, /OK: entry 2 is in the log of size \d+/);
});

t.test('a service that takes writes while it is verified: the new entries are fetched and checked again', async (t) => {
  const s = await busyService(t);
  const dave = await register(s, 'dave', { operatorId: 'lab-d' });
  // The first time the credence is read, a paper lands first: the reads are of a later head.
  let wrote = false;
  const server = createServer(async (req, res) => {
    if (req.url === '/v2/credence' && !wrote) {
      wrote = true;
      await send(s, dave, 'paper', make.paper(2));
    }
    const upstream = await fetch(s.url + req.url!);
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const before = s.d.log.size;
  const v = await verifyService(new ArchiveClient(url));
  t.ok(wrote, 'a write landed during the verification');
  t.same(v.report.problems, [], 'verified at the later head');
  t.equal(v.report.treeSize, before + 1, 'which includes the new paper');
});

t.test("a list longer than a page: the service's cursor is taken as it is, and a next page left out is caught", async (t) => {
  const s = await startService(t);
  const alice = await register(s, 'alice', { operatorId: 'lab-a' });
  for (let i = 0; i < 51; i++) t.equal((await send(s, alice, 'paper', make.paper(1))).status, 201);
  t.type((await s.get('/v2/papers')).body.next, 'string', 'GET /v2/papers has a next page');
  const v = await verifyService(new ArchiveClient(s.url));
  t.same(v.report.problems, [], 'the served cursor stands where the replay has one');
  t.ok(v.report.compared.includes('papers'));

  // A service that says there is no next page when there is one.
  const url = await lyingProxy(t, s.url, (path, body) =>
    path === '/v2/papers' ? JSON.stringify({ ...JSON.parse(body), next: null }) : body,
  );
  const lied = await verifyService(new ArchiveClient(url));
  t.match(lied.report.problems, [
    { kind: 'numbers', detail: /^GET \/v2\/papers: next: served null, the log gives \(the cursor of a next page\)$/ },
  ]);
});

t.test('the served reads are asked for several at once, and their problems are reported in the order of the reads', async (t) => {
  const s = await busyService(t);
  // A proxy that holds its answer to /v2/credence back, so that reads asked after it are answered first, and lies in two reads:
  // the credence of a claim (read first) and a count of /v2/record (read second).
  let inFlight = 0;
  let most = 0;
  const server = createServer(async (req, res) => {
    const path = req.url!;
    const read = path.startsWith('/v2/');
    if (read) most = Math.max(most, ++inFlight);
    const upstream = await fetch(s.url + path);
    let body = await upstream.text();
    if (path === '/v2/credence') {
      await new Promise((r) => setTimeout(r, 300));
      const b = JSON.parse(body);
      b.claims[0].credence = 0.99;
      body = JSON.stringify(b);
    }
    if (path === '/v2/record') body = JSON.stringify({ ...JSON.parse(body), receipts: 7 });
    if (read) inFlight--;
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const v = await verifyThrough(url);
  t.ok(most > 1, `served reads were in flight at once (at most ${most})`);
  t.match(v.report.problems, [{ kind: 'numbers', detail: /^GET \/v2\/credence: claim rec:[0-9a-f]{16}#C1: credence: served 0\.99/ }]);
  t.equal(v.problems.counts.get('numbers'), 2, 'both lies are counted');
  t.same(v.report.compared, ['credence', 'record', 'frontier', 'governance', 'challenges', 'receipts', 'arguments', 'papers', 'agents']);
});
