// `archive verify`, `archive export` and `archive proof`: the auditor's tools. Parsing and
// printing only; the checks are verify/ (which shares lib/ and log/ with the service, never api/).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { ArchiveClient } from '../lib/client/http.js';
import { AskedAhead, askAhead, fetchLog, readExport, writeExport, type LogCopy, type ServedEntry } from '../verify/source.js';
import { startWorkers } from '../verify/entry-pool.js';
import { CacheProblem, createCache, openCache, writeCache, type Cache, type CacheMark } from '../verify/cache.js';
import { SEGMENT, verifyLog, verifyService, type HeldFrom } from '../verify/verify.js';
import { fetchTilesLog, writeStaticTiles } from '../verify/tiles.js';
import { formatReport } from '../verify/report.js';
import { fetchProof, proofProblem, type ProofBundle } from '../verify/proof.js';
import { loadReplay, replayFile, saveReplay, type Resume } from '../verify/saved-state.js';
import type { SignedTreeHead } from 'tlog-engine';
import { witnessPolicy } from '../verify/witness.js';
import { describeTrust, parsePinnedKey, vkeyOf } from '../verify/log-key.js';

/**
 * Progress of one stage on stderr: on a terminal one rewritten line, else (when asked for with
 * --progress) a plain line every tenth of the way. `unit` names what is counted.
 */
function progress(stage: string, unit: string): (done: number, total: number) => void {
  let shown = -1;
  return (done, total) => {
    if (process.stderr.isTTY) {
      const width = 30;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      process.stderr.write(
        `\r${stage} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} ${unit}${done === total ? '\n' : ''}`,
      );
      return;
    }
    const tenth = Math.floor((done / Math.max(total, 1)) * 10);
    if (tenth !== shown) {
      shown = tenth;
      process.stderr.write(`${stage}: ${done} of ${total} ${unit}\n`);
    }
  };
}

/** Progress when stderr is a terminal or when asked for; none otherwise. */
const progressIf = (wanted: boolean, stage: string, unit: string) => (wanted || process.stderr.isTTY ? progress(stage, unit) : undefined);

/** The head an earlier run saved, or null when there is none yet. */
function readSavedHead(path: string | undefined): SignedTreeHead | null {
  if (path === undefined || !existsSync(path)) return null;
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof saved?.sth?.treeSize !== 'number') throw new Error(`${path}: not a saved head ({"sth": ...})`);
  return saved.sth;
}

interface VerifyArgs {
  url?: string;
  file?: string;
  tiles?: string;
  proof?: string;
  key?: string;
  state?: string;
  cache?: string;
  json: boolean;
  progress: boolean;
  witness: string[];
  'witness-quorum'?: number;
}

export const verifyCommand: CommandModule<object, VerifyArgs> = {
  command: 'verify',
  describe: 'check a log: every entry, signature, head and served number (exit 0 only when all hold)',
  builder: (y) =>
    y
      .option('url', { type: 'string', describe: 'base URL of a service: fetch its log and compare its served reads' })
      .option('file', { type: 'string', describe: 'an export (archive export) to check offline' })
      .option('tiles', {
        type: 'string',
        describe: 'base URL of a C2SP tlog-tiles mirror (a static copy written by archive tiles, or the service): check it and its entries',
      })
      .option('proof', { type: 'string', describe: 'a proof bundle (archive proof) to check with --key alone' })
      .option('key', {
        type: 'string',
        describe:
          'pin the log key (the key or the vkey, as GET /v1/log/key spells them): every source must publish it and be signed by it; ' +
          'without it the key is taken from the source on first use',
      })
      .option('state', {
        type: 'string',
        describe:
          "a file holding the last head verified; the new head must extend it, and is saved there (with this run's replay in " +
          'FILE.replay, so the next run checks only new entries)',
      })
      .option('cache', {
        type: 'string',
        describe: 'an export file to resume from and keep up to date (with --url; with --state, appended to: docs/cli.md)',
      })
      .option('json', { type: 'boolean', default: false, describe: 'print the report as JSON' })
      .option('progress', {
        type: 'boolean',
        default: false,
        describe: 'show progress on stderr even when it is not a terminal (on a terminal it is always shown)',
      })
      .option('witness', {
        type: 'string',
        array: true,
        default: [],
        describe: "a trusted witness key (vkey); repeatable: the service's checkpoint must be cosigned and be the entries' (with --url)",
      })
      .option('witness-quorum', { type: 'number', describe: 'how many of the --witness keys must cosign (default: all)' })
      .check((a) => {
        if (a.witness.length > 0 && a.url === undefined) throw new Error('--witness goes with --url');
        witnessPolicy(a.witness, a['witness-quorum']);
        const given = ['url', 'file', 'tiles', 'proof'].filter((k) => (a as Record<string, unknown>)[k] !== undefined);
        if (given.length !== 1) throw new Error('give exactly one of --url, --file, --proof, --tiles');
        if (a.proof !== undefined && a.key === undefined) throw new Error('--proof needs --key (the log key)');
        if (a.cache !== undefined && a.url === undefined) throw new Error('--cache goes with --url');
        if (a.key !== undefined) parsePinnedKey(a.key);
        return true;
      }) as never,
  handler: async (args) => {
    const pinned = args.key === undefined ? undefined : parsePinnedKey(args.key);
    if (args.proof !== undefined) {
      const bundle = JSON.parse(readFileSync(args.proof, 'utf8')) as ProofBundle;
      const why = proofProblem(bundle, pinned!);
      const logKey = { key: pinned!.key, vkey: vkeyOf(pinned!.origin ?? bundle.origin, pinned!.key), pinned: true };
      if (args.json)
        console.log(
          JSON.stringify({
            ok: why === null,
            seq: bundle.entry?.seq ?? null,
            treeSize: bundle.sth?.treeSize ?? null,
            logKey,
            problem: why,
          }),
        );
      else
        console.log(
          why === null
            ? `OK: entry ${bundle.entry.seq} is in the log of size ${bundle.sth.treeSize} signed by ${describeTrust(logKey)}`
            : `PROBLEM: ${why}`,
        );
      process.exitCode = why === null ? 0 : 1;
      return;
    }
    const savedHead = readSavedHead(args.state);
    const client = args.url === undefined ? undefined : new AskedAhead(args.url);
    // An incremental run from a cache: while the saved replay loads, the head and the first new entries (from the saved head's
    // size, where the cache ends when it holds) are asked for, and the workers that will check them are started.
    if (client !== undefined && args.cache !== undefined && savedHead !== null && args.state !== undefined && args.witness.length === 0) {
      const from = savedHead.treeSize;
      askAhead(client, from, SEGMENT).then(
        (size) => size !== undefined && startWorkers(size - from),
        () => undefined,
      );
    }
    // This verifier's own replay at the saved head, when it holds (verify/saved-state.ts); not
    // under a witness policy, which checks a cosigned size against every leaf.
    const loadResume = async (): Promise<Resume | undefined> => {
      if (args.state === undefined || savedHead === null || args.witness.length > 0) return undefined;
      const loaded = await loadReplay(replayFile(args.state));
      if (loaded === null) return undefined;
      if (!('problem' in loaded) && loaded.state.size === savedHead.treeSize) return loaded;
      const why = 'problem' in loaded ? loaded.problem : `it holds ${loaded.state.size} entries, the saved head ${savedHead.treeSize}`;
      console.error(`archive verify: the saved replay ${replayFile(args.state)} is set aside, ${why}; checking every entry`);
      return undefined;
    };
    // Read once for the first attempt; again for any later one (a replay changes the state it is given).
    let first = await loadResume();
    // The replay the last attempt resumed from, if it did.
    let resumed: Resume | undefined;
    const resume = async (): Promise<Resume | undefined> => {
      const r = first ?? (await loadResume());
      first = undefined;
      resumed = r;
      return r;
    };
    let verification;
    let cacheMark: CacheMark | undefined;
    if (args.url !== undefined) {
      const run = (have?: ServedEntry[], from?: HeldFrom, cache?: (head: Pick<LogCopy, 'key' | 'sth'>) => Promise<Cache>) =>
        verifyService(client!, {
          savedHead,
          have,
          from,
          cache,
          progress: progressIf(args.progress, 'fetch', 'entries'),
          replayProgress: progressIf(args.progress, 'replay', 'entries'),
          policy: witnessPolicy(args.witness, args['witness-quorum']),
          resume,
          pinned,
        });
      const setAside = (why: string) =>
        console.error(`archive verify: the cache ${args.cache} is set aside, ${why}; fetching the entries from the service`);
      // The cache this verifier appended to at its last run, when it matches the mark kept with the replay (verify/cache.ts).
      let cache: Cache | undefined;
      const saved = first;
      let appended = false;
      if (args.cache !== undefined && saved?.cache !== undefined && saved.genesis !== undefined) {
        const c = await openCache(args.cache, saved.cache, saved.lastEntryHash);
        if ('problem' in c) setAside(c.problem);
        else cache = c;
      }
      if (cache !== undefined) {
        const held = cache;
        try {
          // The new entries are added to it segment by segment (verifyService).
          verification = await run(
            undefined,
            { seq: held.mark.entries, genesis: saved!.genesis!, older: (seq) => held.entry(seq) },
            async () => held,
          );
          // Only a run that passed adds to the cache; otherwise it is cut back to what the saved replay's mark knows.
          if (verification.report.ok) cacheMark = await held.seal(verification.log);
          else await held.undo();
          appended = true;
        } catch (err) {
          await held.undo();
          if (!(err instanceof CacheProblem)) throw err;
          setAside(err.message);
          verification = undefined;
        } finally {
          await held.close();
        }
      } else if (args.cache !== undefined && existsSync(args.cache) && saved?.cache === undefined) {
        // A cache with no mark (an export, a first run): its entries are checked as the service's would be.
        const have = (await readExport(args.cache)).entries;
        verification = await run(have);
        if (!verification.report.ok) {
          const p = verification.report.problems[0]!;
          setAside(`the run from it found a problem (${p.kind}${p.seq === null ? '' : ` at ${p.seq}`}: ${p.detail})`);
          verification = undefined;
        }
      }
      if (verification === undefined && args.cache !== undefined) {
        // Written afresh, segment by segment as the run passes them; its header names the head at the end.
        const path = args.cache;
        let fresh: Cache | undefined;
        try {
          verification = await run(undefined, undefined, async (head) => (fresh = await createCache(path, head)));
          cacheMark = await fresh!.seal(verification.log);
        } finally {
          await fresh?.close();
        }
      } else if (args.cache !== undefined && !appended) cacheMark = await writeCache(args.cache, verification!.log);
      verification ??= await run();
    } else if (args.tiles !== undefined) {
      const { log, problems: found } = await fetchTilesLog(args.tiles, progressIf(args.progress, 'fetch', 'entries'), pinned);
      verification = {
        ...(await verifyLog(log, { savedHead, found, replayProgress: progressIf(args.progress, 'replay', 'entries'), pinned })),
        log,
      };
    } else {
      const log = await readExport(args.file!, progressIf(args.progress, 'read', 'bytes'));
      verification = {
        ...(await verifyLog(log, {
          savedHead,
          replayProgress: progressIf(args.progress, 'replay', 'entries'),
          resume: await resume(),
          pinned,
        })),
        log,
      };
    }
    const { report, problems, log } = verification;
    if (args.json) console.log(JSON.stringify(report, null, 2));
    else console.log(formatReport(report, problems.counts));
    if (report.ok && args.state !== undefined) {
      writeFileSync(args.state, `${JSON.stringify({ sth: log.sth }, null, 2)}\n`);
      const last = log.entries.at(-1);
      const genesis = log.entries[0];
      const more = { genesis, ...(cacheMark === undefined || !verification.report.ok ? {} : { cache: cacheMark }) };
      // Resumed with no entry after the replay, and the same members to keep beside it: the replay saved holds already.
      const same =
        resumed !== undefined &&
        report.resumedFrom === report.entries &&
        resumed.lastEntryHash === last?.entryHash &&
        JSON.stringify([resumed.genesis, resumed.cache]) === JSON.stringify([more.genesis, more.cache]);
      if (last !== undefined && !same) saveReplay(replayFile(args.state), verification.state, verification.range, last.entryHash, more);
    }
    process.exitCode = report.ok ? 0 : 1;
  },
};

interface ExportArgs {
  url: string;
  out: string;
}

export const exportCommand: CommandModule<object, ExportArgs> = {
  command: 'export',
  describe: "write a service's log to a file: the key and signed head, then one entry a line (what verify --file reads)",
  builder: (y) =>
    y
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service' })
      .option('out', { type: 'string', demandOption: true, describe: 'the file to write' }) as never,
  handler: async (args) => {
    const log = await fetchLog(new ArchiveClient(args.url), { progress: progress('fetch', 'entries') });
    await writeExport(args.out, log);
    console.log(JSON.stringify({ out: args.out, treeSize: log.sth.treeSize, rootHash: log.sth.rootHash }));
  },
};

interface ProofArgs {
  url: string;
  seq: number;
  out?: string;
}

export const proofCommand: CommandModule<object, ProofArgs> = {
  command: 'proof',
  describe: 'an offline proof bundle for one entry: the entry, its inclusion proof, the signed head',
  builder: (y) =>
    y
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service' })
      .option('seq', { type: 'number', demandOption: true, describe: 'the entry' })
      .option('out', { type: 'string', describe: 'write the bundle here (default: standard output)' }) as never,
  handler: async (args) => {
    if (!Number.isSafeInteger(args.seq) || args.seq < 0) throw new Error(`--seq: expected an integer at least 0, got ${args.seq}`);
    const bundle = await fetchProof(new ArchiveClient(args.url), args.seq);
    const text = `${JSON.stringify(bundle, null, 2)}\n`;
    if (args.out === undefined) {
      process.stdout.write(text);
      return;
    }
    writeFileSync(args.out, text);
    // What it wrote, as export does: the entry, the head its proof ends at, and the key to check it with.
    console.log(
      JSON.stringify({
        out: args.out,
        seq: bundle.entry.seq,
        treeSize: bundle.sth.treeSize,
        rootHash: bundle.sth.rootHash,
        origin: bundle.origin,
        check: `archive verify --proof ${args.out} --key <the log key>`,
      }),
    );
  },
};

interface TilesArgs {
  url: string;
  out: string;
}

export const tilesCommand: CommandModule<object, TilesArgs> = {
  command: 'tiles',
  describe: "write or update a static copy of a service's log as C2SP tlog-tiles, which any web server can serve",
  builder: (y) =>
    y
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service' })
      .option('out', { type: 'string', demandOption: true, describe: 'the directory of the copy (its files go under v1/log/)' }) as never,
  handler: async (args) => {
    const { treeSize, written } = await writeStaticTiles(args.url, args.out);
    console.log(JSON.stringify({ out: args.out, treeSize, written: written.length, files: written }));
  },
};
