// verifyService in segments (verify/verify.ts) on logs broken in the first, a middle and the last segment (a hash in the first, a
// chain link in a middle one, a signature in the last, two rules): the report a run of the whole log in one segment gives, with
// the same problems at the same seqs (test/verify/segments.test.ts: a sound log).
import t from 'tap';
import { both, forged, SEGMENT, service } from '../helpers/segments.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { fetchLog } from '../../verify/source.js';

t.test('a log broken in the first, a middle or the last segment: the same problems at the same seqs', async (t) => {
  const s = await service(t);
  const entries = (await fetchLog(new ArchiveClient(s.url))).entries;
  const n = entries.length;
  const reviews = entries.filter((e) => e.type === 'review').map((e) => e.seq);
  const papers = entries.filter((e) => e.type === 'paper' && e.subject === undefined).map((e) => e.seq);
  // The seqs to break: one in the first segment, one in a middle one, one in the last.
  const at = (seqs: number[]) => [seqs.find((q) => q < SEGMENT), seqs.find((q) => q >= SEGMENT && q < 2 * SEGMENT), seqs.at(-1)];
  const everywhere = at(Array.from({ length: n - 1 }, (_, i) => i + 1));
  t.ok(everywhere.at(-1)! >= n - SEGMENT, 'the last is in the last segment');
  // Each kind broken in one of the three, the three each broken once or more (each case is two verifications of the log, each
  // segment of a run with its own worker threads: the suite stays lean).
  for (const seq of [everywhere[0]]) {
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
