// `archive verify --url --state FILE --cache CACHE` (verify/cache.ts): the first run writes the cache, an
// export with its header padded; the next run appends the new entries (the earlier bytes untouched),
// reads older entries from it only as the served reads need them, and keeps an export `--file` reads.
// A cache that does not match what the saved replay knows of it is set aside with a line, and the run
// verifies from the service, writing the cache afresh.
import t, { type Test } from 'tap';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { archive } from '../helpers/cli.js';
import { startService, type TestService } from '../helpers/service.js';
import { restore, withhold, withSteward } from '../helpers/stewards.js';
import { tempDir } from '../helpers/tmp.js';
import { lyingProxy, reviewedPaper } from '../helpers/verifier.js';
import { fetchLog, readExport } from '../../verify/source.js';
import { ArchiveClient } from '../../lib/client/http.js';
import { HEADER_BYTES } from '../../verify/cache.js';

const writes = async (t: Test, s: TestService, n: number): Promise<string> => (await reviewedPaper(t, s, n)).id;

/** The entry hashes of an export, and its head's size. */
async function exported(file: string): Promise<{ size: number; hashes: string[] }> {
  const log = await readExport(file);
  return { size: log.sth.treeSize, hashes: log.entries.map((e) => e.entryHash) };
}

/** What the service serves: its head's size and entry hashes. */
async function served(s: TestService): Promise<{ size: number; hashes: string[] }> {
  const log = await fetchLog(new ArchiveClient(s.url));
  return { size: log.sth.treeSize, hashes: log.entries.map((e) => e.entryHash) };
}

t.test('a second run appends the new entries to the cache, its earlier bytes untouched, and the cache stays an export', async (t) => {
  const s = await startService(t);
  const sam = await withSteward(s);
  const paper = await writes(t, s, 1);
  const dir = tempDir(t);
  const state = join(dir, 'verified.json');
  const cache = join(dir, 'log.jsonl');
  const args = ['verify', '--url', s.url, '--state', state, '--cache', cache];
  const first = await archive(args);
  t.equal(first.code, 0, first.stdout + first.stderr);
  const before = readFileSync(cache);
  t.equal(before.indexOf(10), HEADER_BYTES - 1, 'the header line is padded');
  t.same(await exported(cache), await served(s));

  // An item of the first run's entries goes out of view: the second run fetches its entry again and checks it is served so.
  t.equal((await withhold(s, sam, paper)).status, 201);
  await writes(t, s, 2);
  // A service that serves the paper's entry whole still (the older entries are not fetched otherwise) is caught.
  const seq = (await fetchLog(new ArchiveClient(s.url))).entries.find((e) => e.subject === paper)!.seq;
  const liar = await lyingProxy(t, s.url, (path, body) => {
    if (!path.startsWith(`/v1/log/entries?from=${seq}&`)) return body;
    // The entry as the first run cached it, before the paper went out of view.
    return JSON.stringify({ ...JSON.parse(body), entries: [JSON.parse(before.toString('utf8').split('\n')[seq + 1]!)] });
  });
  const lying = await archive(['verify', '--url', liar, '--state', state, '--cache', cache]);
  t.equal(lying.code, 1, lying.stdout + lying.stderr);
  t.match(lying.stdout, new RegExp(`PROBLEM rules .*${seq}.*the record holds ${paper} out of view at this entry; it is served whole`));
  t.ok(readFileSync(cache).equals(before), 'a run that fails leaves the cache as it was');
  const second = await archive(args);
  t.equal(second.code, 0, second.stdout + second.stderr);
  t.match(second.stdout, /resumed from this verifier's replay saved at \d+ entries/);
  t.equal(second.stderr, '', 'nothing set aside');
  const after = readFileSync(cache);
  t.ok(after.length > before.length, 'the cache grew');
  t.ok(after.subarray(HEADER_BYTES, before.length).equals(before.subarray(HEADER_BYTES)), 'its earlier entries are the same bytes');
  t.same(await exported(cache), await served(s), 'its header names the new head');

  const verified = (await served(s)).size;
  t.equal((await restore(s, sam, paper)).status, 201);
  // The third run through a proxy that notes each read: of the entries, only the new ones are fetched (and the paper's, back in view).
  const paths: string[] = [];
  const noted = await lyingProxy(t, s.url, (path, body) => {
    paths.push(path);
    return body;
  });
  const third = await archive(['verify', '--url', noted, '--state', state, '--cache', cache]);
  t.equal(third.code, 0, third.stdout + third.stderr);
  t.same(await exported(cache), await served(s));
  const froms = paths.flatMap((p) => /^\/v1\/log\/entries\?from=(\d+)&limit=(\d+)/.exec(p) ?? []).filter((_, i) => i % 3 !== 0);
  const pages = Array.from({ length: froms.length / 2 }, (_, i) => ({ from: Number(froms[2 * i]), limit: Number(froms[2 * i + 1]) }));
  t.ok(pages.length > 0, 'the new entries were fetched');
  t.same(
    pages.filter((r) => r.from < verified && !(r.from === seq && r.limit === 1)),
    [],
    `no entry before the ${verified} verified is fetched but the paper's (${seq}): ${JSON.stringify(pages)}`,
  );
  const offline = await archive(['verify', '--file', cache]);
  t.equal(offline.code, 0, offline.stdout + offline.stderr);
  t.match(offline.stdout, /^OK: /m, 'the cache verifies as an export');
});

t.test('a cache changed, cut short, or of another log is set aside; the run verifies from the service', async (t) => {
  const s = await startService(t);
  await writes(t, s, 1);
  const other = await startService(t);
  await writes(t, other, 1);
  await writes(t, other, 2);
  const dir = tempDir(t);
  const state = join(dir, 'verified.json');
  const cache = join(dir, 'log.jsonl');
  const args = ['verify', '--url', s.url, '--state', state, '--cache', cache];
  t.equal((await archive(args)).code, 0);
  const otherCache = join(dir, 'other.jsonl');
  t.equal((await archive(['verify', '--url', other.url, '--state', join(dir, 'other.json'), '--cache', otherCache])).code, 0);

  const damages: [string, () => void, RegExp][] = [
    [
      'a byte changed',
      () => {
        const b = readFileSync(cache);
        const at = b.lastIndexOf('"ts":"') + 8;
        b[at] = b[at] === 0x31 ? 0x32 : 0x31;
        writeFileSync(cache, b);
      },
      /its block of entries 0 on \(bytes 4096 on\) is not the one verified/,
    ],
    ['cut short', () => truncateSync(cache, readFileSync(cache).length - 10), /it holds \d+ bytes, \d+ when it was last verified/],
    ["another log's", () => writeFileSync(cache, readFileSync(otherCache)), /it holds \d+ bytes, \d+ when it was last verified/],
  ];
  for (const [what, damage, why] of damages) {
    await writes(t, s, 3 + damages.findIndex((d) => d[0] === what));
    damage();
    const r = await archive(args);
    t.equal(r.code, 0, `${what}: ${r.stdout}${r.stderr}`);
    t.match(r.stderr, new RegExp(`the cache ${cache} is set aside, ${why.source}; fetching the entries from the service`), what);
    t.match(r.stdout, /^OK: /m);
    t.match(r.stdout, /resumed from/, `${what}: the saved replay still holds`);
    t.same(await exported(cache), await served(s), `${what}: the cache is written afresh`);
  }
  // With no saved state, a cache of another log is read whole: the run from it fails, so it is set aside and the run repeated.
  const lone = await archive(['verify', '--url', s.url, '--cache', otherCache]);
  t.equal(lone.code, 0, lone.stdout + lone.stderr);
  t.match(
    lone.stderr,
    /the cache .*other\.jsonl is set aside, the run from it found a problem \(signature at 0: .*\); fetching the entries/,
  );
  t.same(await exported(otherCache), await served(s), "the cache is now this log's");

  // And the next run appends to the cache written afresh.
  await writes(t, s, 9);
  const next = await archive(args);
  t.equal(next.code, 0);
  t.equal(next.stderr, '');
  t.same(await exported(cache), await served(s));
});
