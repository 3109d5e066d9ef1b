// The segmented verifier's tests (test/verify/segments*.test.ts): a small service, a lying proxy serving a forged copy of its
// log, and the two runs, in segments and in one, whose reports must be equal.
import type { Test } from 'tap';
import { startService, type TestService } from './service.js';
import { withhold, withSteward } from './stewards.js';
import { lyingProxy, reviewedPaper } from './verifier.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { canonicalize } from '../../lib/protocol/canonical-json.js';
import { leafInput } from '../../lib/protocol/log-entry.js';
import { stateDigest } from '../../lib/record/fold/index.js';
import { fetchLog, type ServedEntry } from '../../verify/source.js';
import { verifyService } from '../../verify/verify.js';
import { leafHash, sha256TextHex, toHex, type SignedTreeHead } from 'tlog-engine';

export const SEGMENT = 10;

/** Papers reviewed, one out of view, another registration after: some forty entries. */
export async function service(t: Test): Promise<TestService> {
  const s = await startService(t);
  const sam = await withSteward(s);
  const { id } = await reviewedPaper(t, s, 1);
  for (let n = 2; n <= 4; n++) await reviewedPaper(t, s, n);
  t.equal((await withhold(s, sam, id)).status, 201);
  await reviewedPaper(t, s, 5);
  return s;
}

/** A proxy serving the log with `edit` done to a copy of its entries (re-chained from `rechainFrom` when given). */
export async function forged(t: Test, s: TestService, edit: (es: ServedEntry[]) => number | void): Promise<string> {
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
export async function both(t: Test, url: string, what: string, savedHead?: SignedTreeHead) {
  const client = new ArchiveClient(url);
  const whole = await verifyService(client, { segment: Infinity, savedHead });
  const segmented = await verifyService(client, { segment: SEGMENT, savedHead });
  t.same(segmented.report, whole.report, `${what}: the same report`);
  t.equal(stateDigest(segmented.state), stateDigest(whole.state), `${what}: the same state`);
  t.equal(whole.held, whole.report.entries, `${what}: the whole run holds every entry`);
  t.ok(segmented.held <= SEGMENT + 1, `${what}: the segmented run holds at most a segment and the genesis (${segmented.held})`);
  return segmented;
}
