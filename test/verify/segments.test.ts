// verifyService in segments (verify/verify.ts): a run of a few entries a segment holds no more than a segment at once, and
// gives the report a run of the whole log in one segment gives, on a sound log and on logs broken in the first, a middle and
// the last segment (a hash in each; a chain link, a signature and two rules each in one), with the same problems at the same seqs.
import t, { type Test } from 'tap';
import { startService, type TestService } from '../helpers/service.js';
import { withhold, withSteward } from '../helpers/stewards.js';
import { lyingProxy, reviewedPaper } from '../helpers/verifier.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { leafInput } from '../../lib/protocol/log-entry.js';
import { stateDigest } from '../../lib/record/fold/index.js';
import { fetchLog, type ServedEntry } from '../../verify/source.js';
import { verifyService } from '../../verify/verify.js';
import { leafHash, sha256TextHex, toHex, type SignedTreeHead } from 'tlog-engine';

const SEGMENT = 7;

/** Papers reviewed, one out of view, another registration after: some forty entries. */
async function service(t: Test): Promise<TestService> {
  const s = await startService(t);
  const sam = await withSteward(s);
  const { id } = await reviewedPaper(t, s, 1);
  for (let n = 2; n <= 4; n++) await reviewedPaper(t, s, n);
  t.equal((await withhold(s, sam, id)).status, 201);
  await reviewedPaper(t, s, 5);
  return s;
}

/** A proxy serving the log with `edit` done to a copy of its entries (re-chained from `rechainFrom` when given). */
async function forged(t: Test, s: TestService, edit: (es: ServedEntry[]) => number | void): Promise<string> {
  const entries = structuredClone((await fetchLog(new ArchiveClient(s.url))).entries);
  const from = edit(entries);
  if (typeof from === 'number') {
    let prev = entries[from - 1]!.entryHash;
    for (const e of entries.slice(from)) {
      if (e.withheld === undefined) e.payloadHash = sha256TextHex(canonicalize(e.payload));
      e.prevHash = prev;
      e.entryHash = toHex(leafHash(leafInput(e)));
      prev = e.entryHash;
    }
  }
  return lyingProxy(t, s.url, (path, body) => {
    const m = /^\/v1\/log\/entries\?from=(\d+)&limit=(\d+)/.exec(path);
    if (m === null) return body;
    return JSON.stringify({ ...JSON.parse(body), entries: entries.slice(Number(m[1]), Number(m[1]) + Number(m[2])) });
  });
}

/** The run in segments and the run in one, through `url`: their reports must be equal; the segmented one is returned. */
async function both(t: Test, url: string, what: string, savedHead?: SignedTreeHead) {
  const client = new ArchiveClient(url);
  const whole = await verifyService(client, { segment: Infinity, savedHead });
  const segmented = await verifyService(client, { segment: SEGMENT, savedHead });
  t.same(segmented.report, whole.report, `${what}: the same report`);
  t.equal(stateDigest(segmented.state), stateDigest(whole.state), `${what}: the same state`);
  t.equal(whole.held, whole.report.entries, `${what}: the whole run holds every entry`);
  t.ok(segmented.held <= SEGMENT + 1, `${what}: the segmented run holds at most a segment and the genesis (${segmented.held})`);
  return segmented;
}

t.test('a sound log: the same report, state and subtrees in segments, holding a segment at once', async (t) => {
  const s = await service(t);
  const v = await both(t, s.url, 'sound');
  t.same(v.report.problems, []);
  t.ok(v.report.entries > 4 * SEGMENT, `${v.report.entries} entries`);
  t.equal(v.report.outOfView, 1, 'the paper out of view is counted');
  t.ok(
    ['credence', 'record', 'papers', 'agents'].every((r) => v.report.compared.includes(r)),
    'the served reads compared',
  );
  // A head saved at a size in a middle segment: its root is computed as the segment passes it.
  const earlier = (await fetchLog(new ArchiveClient(s.url))).sth;
  await reviewedPaper(t, s, 6);
  t.same((await both(t, s.url, 'a saved head', earlier)).report.problems, []);
  const rewritten = { ...earlier, treeSize: 2 * SEGMENT + 3 };
  t.match((await both(t, s.url, 'a saved head rewritten', rewritten)).report.problems, [{ kind: 'consistency' }]);
});

t.test('a log broken in the first, a middle or the last segment: the same problems at the same seqs', async (t) => {
  const s = await service(t);
  const entries = (await fetchLog(new ArchiveClient(s.url))).entries;
  const n = entries.length;
  const reviews = entries.filter((e) => e.type === 'review').map((e) => e.seq);
  const papers = entries.filter((e) => e.type === 'paper' && e.subject === undefined).map((e) => e.seq);
  // The seqs to break: one in the first segment, one in a middle one, one in the last.
  const at = (seqs: number[]) => [seqs.find((q) => q < SEGMENT), seqs.find((q) => q >= 2 * SEGMENT && q < 3 * SEGMENT), seqs.at(-1)];
  const everywhere = at(Array.from({ length: n - 1 }, (_, i) => i + 1));
  t.ok(everywhere.at(-1)! >= n - SEGMENT, 'the last is in the last segment');
  // A hash broken in each of the three; each other kind in one of them (each run is two verifications: the suite stays lean).
  for (const seq of everywhere) {
    const hash = await both(t, await forged(t, s, (es) => void (es[seq!]!.ts = '2031-01-01T00:00:00.000Z')), `a hash at ${seq}`);
    t.ok(
      hash.report.problems.some((p) => p.kind === 'hash' && p.seq === seq && /entryHash does not recompute/.test(p.detail)),
      `a hash at ${seq}`,
    );
  }
  for (const seq of [everywhere[1]]) {
    const link = await both(t, await forged(t, s, (es) => void (es[seq!]!.prevHash = 'ab'.repeat(32))), `a chain link at ${seq}`);
    t.ok(
      link.report.problems.some((p) => p.kind === 'chain' && p.seq === seq),
      `a chain link at ${seq}`,
    );
  }
  for (const seq of at(reviews).slice(2)) {
    t.not(seq, undefined, 'a review there');
    const forgedReview = await forged(t, s, (es) => {
      es[seq!]!.payload.payload.forecast = 0.99;
      return seq!;
    });
    const v = await both(t, forgedReview, `a signature at ${seq}`);
    t.match(
      v.report.problems.find((p) => p.kind === 'signature'),
      { seq, detail: /review: signature does not verify/ },
    );
  }
  // A rule: a paper's text hidden under its id when the record holds it in view (the out-of-view check at the end), and a
  // registration of a handle taken (the replay refuses it and stops there).
  for (const seq of at(papers)
    .filter((q) => q !== undefined)
    .slice(-1)) {
    const url = await forged(t, s, (es) => {
      const e = es[seq!]!;
      e.payload.payload.title = null;
      e.withheld = ['payload.title'];
      // Under the paper's own id (its claims' refs name it), so that the replay goes through.
      e.subject = (es[seq! + 1]!.payload.payload.claim as string).split('#')[0];
    });
    const v = await both(t, url, `a paper hidden at ${seq}`);
    t.match(v.report.problems, [
      { kind: 'rules', seq, detail: /served with its text withheld as rec:[0-9a-f]+, but the record holds no item/ },
    ]);
  }
  const registrations = entries.filter((e) => e.type === 'agent.register').map((e) => e.seq);
  for (const seq of at(registrations.slice(1))
    .filter((q) => q !== undefined)
    .slice(0, 1)) {
    const url = await forged(t, s, (es) => {
      es[seq!]!.payload.handle = es[registrations[0]!]!.payload.handle;
      return seq!;
    });
    const v = await both(t, url, `a handle taken at ${seq}`);
    t.match(
      v.report.problems.find((p) => p.kind === 'rules'),
      { seq },
    );
  }
});
