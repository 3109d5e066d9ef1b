// npm run bench:verify — the figure of the auditor's tools (docs/benchmarks.md): verifying a
// 1,000,000-entry export, signatures and replay included, as a multiple of its signature floor. The
// export is made here with real keys and real signatures (a genesis, 1,000 registrations, 20,000
// papers of 5 claims, then reviews spread over the claims, about ten a claim). The floor (node:crypto
// Ed25519 verifications on every core, bench/stats.ts) is measured in this process; then each code
// verifies the export in a process of its own (bench/verify-run.ts) as `archive verify --file` does:
// the code of BENCH_BASELINE when given (a commit of BENCH_REPO, default this checkout, built in a
// temporary directory from `git archive`), then this code. Each prints its time and CPU time against
// the floor's, where its CPU went, and the incremental figure: BENCH_NEW (10,000) entries verified
// from a replay saved before them (`archive verify --state`; BENCH_NEW=0 skips it).
// BENCH_ENTRIES changes the size; BENCH_EXPORT keeps the export (and its log key, in .key beside it)
// at that path and reuses it when it holds BENCH_ENTRIES entries; BENCH_PROF names a directory for
// each run's CPU profiles (node --cpu-prof, the main thread's and each worker's).
import { execFileSync, spawn } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { canonicalize } from '../lib/protocol/canonical-json.js';
import { generateKeyPair, privateKeyFromPem, privateKeyToPem, signBytes, signPayload } from '../lib/protocol/ed25519.js';
import { genesisEvent } from '../lib/protocol/genesis.js';
import { PROTOCOL, signEvent } from '../lib/protocol/service-event.js';
import { paperId } from '../lib/protocol/ids.js';
import { fromHex, headMessage, rootFromLeafHashes, toHex, type SignedTreeHead } from 'tlog-engine';
import { entryHashes, ZERO_HASH } from '../lib/protocol/log-entry.js';
import { EXPORT_FORMAT } from '../verify/source.js';
import { fmt, machine, signatureFloor } from './stats.js';
import { ARCHIVE_ENV, NODE_FLAGS } from './served.js';
import type { RunFigures } from './verify-run.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
/** Entries written since the saved replay, for the incremental figure. */
const NEW = Number(process.env.BENCH_NEW ?? 10_000);
const AGENTS = 1000;
const PAPERS = Math.min(20_000, Math.floor(ENTRIES / 50));
const CONSTITUTION = { version: '1', hash: '0'.repeat(64) };

/** What signs a head of any earlier size of the export (for the incremental figure). */
interface Made {
  logKey: KeyObject;
  leaves: Uint8Array[];
  timestamp: string;
}

async function makeExport(path: string): Promise<Made> {
  const logKey = generateKeyPair();
  const operatorKey = generateKeyPair();
  // The entries first, to a file of their own: the header (with the head) is known only at the end.
  const body = `${path}.entries`;
  const out = createWriteStream(body);
  const lines: string[] = [];
  const flush = async () => {
    if (!out.write(lines.join(''))) await once(out, 'drain');
    lines.length = 0;
  };
  const leaves: Uint8Array[] = [];
  let prev = ZERO_HASH;
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  const entry = async (type: string, text: string) => {
    const seq = leaves.length;
    const ts = new Date(now).toISOString();
    now += 100;
    const { payloadHash, leafHash } = entryHashes(seq, ts, type, text, prev);
    const entryHash = toHex(leafHash);
    leaves.push(leafHash);
    lines.push(
      `{"seq":${seq},"ts":"${ts}","type":"${type}","payloadHash":"${payloadHash}",` +
        `"prevHash":"${prev}","entryHash":"${entryHash}","payload":${text}}\n`,
    );
    prev = entryHash;
    if (lines.length >= 4096) await flush();
  };
  const ts = () => new Date(now).toISOString();
  await entry(
    'log.genesis',
    canonicalize(
      signEvent(logKey.privateKey, genesisEvent(ts(), logKey.publicKey, operatorKey.publicKey, 'op_archive', 'bench.local', CONSTITUTION)),
    ),
  );
  const agents = Array.from({ length: AGENTS }, (_, i) => ({ handle: `agent-${i}`, ...generateKeyPair() }));
  for (const [i, a] of agents.entries())
    await entry(
      'agent.register',
      canonicalize({ handle: a.handle, publicKey: a.publicKey, operatorId: `lab-${i}`, constitution: CONSTITUTION }),
    );
  const signed = (a: (typeof agents)[number], type: string, members: object) => {
    const payload = { protocol: PROTOCOL, type, agent: { handle: a.handle, publicKey: a.publicKey }, ts: ts(), ...members };
    return canonicalize({ payload, signature: signPayload(a.privateKey, payload) });
  };
  const claims: { ref: string; author: number }[] = [];
  for (let p = 0; p < PAPERS; p++) {
    const author = p % AGENTS;
    const members = {
      title: `Paper ${p}`,
      abstract: 'An abstract of at least fifty characters for the verification benchmark.',
      field: 'ml',
      claims: Array.from({ length: 5 }, (_, i) => ({
        text: `Claim ${i} of paper ${p}`,
        confidence: 0.7,
        test: 'A replication that fails refutes it',
      })),
      builds_on: [],
    };
    const text = signed(agents[author]!, 'paper', members);
    const id = paperId(JSON.parse(text).payload);
    for (let i = 1; i <= 5; i++) claims.push({ ref: `${id}#C${i}`, author });
    await entry('paper', text);
  }
  for (let n = 0; leaves.length < ENTRIES; n++) {
    const c = claims[(n * 7919) % claims.length]!;
    const by = (c.author + 1 + (n % (AGENTS - 1))) % AGENTS;
    await entry(
      'review',
      signed(agents[by]!, 'review', {
        claim: c.ref,
        forecast: (n % 100) / 100,
        rationale: `A rationale of thirty characters at least, number ${n}.`,
      }),
    );
  }
  await flush();
  const rootHash = toHex(rootFromLeafHashes(leaves));
  const head = { treeSize: leaves.length, rootHash, timestamp: ts() };
  const sth = { ...head, signature: Buffer.from(signBytes(logKey.privateKey, headMessage(head))).toString('base64url') };
  out.end();
  await once(out, 'finish');
  writeFileSync(path, `${JSON.stringify({ format: EXPORT_FORMAT, key: { key: logKey.publicKey, origin: 'bench.local' }, sth })}\n`);
  await pipeline(createReadStream(body), createWriteStream(path, { flags: 'a' }));
  rmSync(body);
  writeFileSync(`${path}.key`, privateKeyToPem(logKey.privateKey));
  return { logKey: logKey.privateKey, leaves, timestamp: sth.timestamp };
}

/** The export at `path` made before, when it holds ENTRIES entries and its log key is beside it; else null. */
async function madeBefore(path: string): Promise<Made | null> {
  if (!existsSync(path) || !existsSync(`${path}.key`)) return null;
  const leaves: Uint8Array[] = [];
  let timestamp = '';
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (timestamp === '') {
      const header = JSON.parse(line);
      if (header.sth?.treeSize !== ENTRIES) return null;
      timestamp = header.sth.timestamp;
    } else leaves.push(fromHex(/"entryHash":"([0-9a-f]{64})"/.exec(line)![1]!, 32));
  }
  return leaves.length === ENTRIES ? { logKey: privateKeyFromPem(readFileSync(`${path}.key`, 'utf8')), leaves, timestamp } : null;
}

/** A head of size `size` of the export, signed by its log key. */
function headAt(made: Made, size: number): SignedTreeHead {
  const h = { treeSize: size, rootHash: toHex(rootFromLeafHashes(made.leaves.slice(0, size))), timestamp: made.timestamp };
  return { ...h, signature: Buffer.from(signBytes(made.logKey, headMessage(h))).toString('base64url') };
}

const HERE = fileURLToPath(new URL('..', import.meta.url));
const BASELINE = process.env.BENCH_BASELINE;
/** Where `git archive` reads BENCH_BASELINE from: this checkout, unless BENCH_REPO names another. */
const REPO = process.env.BENCH_REPO ?? join(HERE, '..');
const PROF = process.env.BENCH_PROF;

/** The code of `commit`, built in a temporary directory (its own tsc, this checkout's node_modules); its dist directory. */
function buildBaseline(commit: string, dir: string): string {
  execFileSync('sh', ['-c', `git -C ${JSON.stringify(REPO)} archive ${commit} | tar -x -C ${JSON.stringify(dir)}`]);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { stdio: 'inherit' });
  return join(dir, 'dist');
}

/** Verifies the export with the code of `dist` in a process of its own (bench/verify-run.ts). */
async function run(name: string, dist: string, path: string, headFile: string | undefined): Promise<RunFigures> {
  const prof = PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(PROF, name.replace(/[^A-Za-z0-9.-]/g, '-'))}`];
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, ...prof, join(HERE, 'bench/verify-run.js'), dist, path, ...(headFile === undefined ? [] : [headFile])],
    { stdio: ['ignore', 'pipe', 'inherit'], env: ARCHIVE_ENV },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [status] = (await once(child, 'exit')) as [number | null];
  if (status !== 0) throw new Error(`${name}: the verification exited with ${status}`);
  return JSON.parse(out.trim().split('\n').pop()!) as RunFigures;
}

function report(name: string, r: RunFigures, floorS: number, floorCpuS: number): void {
  const totalS = r.readS + r.verifyS;
  console.log(`${name}: verified ok=${r.ok}, ${r.problems.length} problems`);
  for (const p of r.problems.slice(0, 10)) console.log(`  PROBLEM ${p}`);
  console.log(
    `  ${fmt(r.entries)} entries in ${fmt(totalS, 1)} s: ${fmt(r.entries / totalS)} entries/s, ${fmt(totalS / floorS, 2)} times the ` +
      `signature floor in wall time`,
  );
  console.log(
    `  in CPU time: ${fmt(r.cpuS / floorCpuS, 2)} times the CPU time of ${fmt(r.entries)} signature checks alone (${fmt(r.cpuS, 1)} s ` +
      `of every thread against ${fmt(floorCpuS, 1)} s; goal: at most 1.2); everything else ${fmt(r.cpuS - floorCpuS, 1)} s, ` +
      `${fmt(((r.cpuS - floorCpuS) / r.entries) * 1e6, 1)} µs an entry`,
  );
  console.log(
    `  the main thread (reading, handing batches to the workers, the replay): ${fmt(r.mainS, 1)} s of CPU; the workers and the rest: ` +
      `${fmt(r.cpuS - r.mainS, 1)} s`,
  );
  console.log(
    `  reading the export: ${fmt(r.readS, 1)} s; replay through the record, numbers included: ${fmt(r.replayS, 1)} s (main thread, wall)`,
  );
  console.log(`  hashing: ${fmt(r.hashS, 1)} s, signature checks: ${fmt(r.signatureS, 1)} s (worker time, summed)`);
  const inc = r.incremental;
  if (inc !== undefined)
    console.log(
      `  incremental: ${fmt(r.entries - inc.at)} new entries after a replay saved at ${fmt(inc.at)}: ok=${inc.ok}, ` +
        `${fmt(inc.loadS + inc.verifyS, 1)} s with loading the replay (${fmt(inc.loadS, 1)} s; ${fmt(inc.cpuS, 1)} s of CPU) against ` +
        `${fmt(totalS, 1)} s for the full run: ${fmt((inc.loadS + inc.verifyS) / totalS, 2)} of it; saving the replay ` +
        `${fmt(inc.saveS, 1)} s (${fmt(inc.savedMiB)} MiB)`,
    );
}

async function main(): Promise<void> {
  console.log(`machine: ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'archive-bench-verify-'));
  try {
    const path = process.env.BENCH_EXPORT ?? join(dir, 'log.jsonl');
    const t0 = performance.now();
    let made = await madeBefore(path);
    if (made === null) {
      made = await makeExport(path);
      console.log(`export of ${fmt(ENTRIES)} entries made in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    } else console.log(`export of ${fmt(ENTRIES)} entries read back from ${path} in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    const headFile = NEW > 0 && NEW < ENTRIES ? join(dir, 'head.json') : undefined;
    if (headFile !== undefined) writeFileSync(headFile, JSON.stringify(headAt(made, ENTRIES - NEW)));
    made = null;
    const codes: { name: string; dist: string }[] = [];
    if (BASELINE !== undefined) {
      const at = join(dir, 'baseline');
      mkdirSync(at);
      codes.push({ name: `the code of ${BASELINE}`, dist: buildBaseline(BASELINE, at) });
    }
    codes.push({ name: 'this code', dist: HERE });
    const c0 = process.cpuUsage();
    const floor = await signatureFloor(5);
    const floorS = ENTRIES / floor;
    // The floor in CPU time too: the machine is shared, so the ratio of CPU time (the work done)
    // holds when other processes take the cores; on an idle machine it is the ratio of wall time.
    const fc = process.cpuUsage(c0);
    const floorCpuS = (((fc.user + fc.system) / 1e6) * ENTRIES) / (floor * 5);
    console.log(
      `signature floor: ${fmt(floor)} node:crypto Ed25519 verifications/s on ${availableParallelism()} cores: ${fmt(floorS, 1)} s for ` +
        `${fmt(ENTRIES)} signatures, ${fmt(floorCpuS, 1)} s of CPU`,
    );
    for (const c of codes) report(c.name, await run(c.name, c.dist, path, headFile), floorS, floorCpuS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
