// npm run bench:verify — the figure of the auditor's tools (docs/benchmarks.md): verifying a
// 1,000,000-entry export, signatures and replay included. The export is made here with real keys
// and real signatures (a genesis, 1,000 registrations, 20,000 papers of 5 claims, then reviews
// spread over the claims, about ten a claim), then `verifyLog` checks it as `archive verify
// --file` does: hashes and signatures on one worker thread per CPU while the main thread replays.
// Prints entries per second and the time in hashing, signature checks and replay; then the
// incremental figure: BENCH_NEW (10,000) entries verified from a replay saved before them.
// BENCH_ENTRIES changes the size.
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { canonicalize } from '../lib/protocol/canonical-json.js';
import { generateKeyPair, signBytes, signPayload } from '../lib/protocol/ed25519.js';
import { genesisEvent } from '../lib/protocol/genesis.js';
import { PROTOCOL, signEvent } from '../lib/protocol/service-event.js';
import { paperId } from '../lib/protocol/ids.js';
import { headMessage, rootFromLeafHashes, toHex, type SignedTreeHead } from 'tlog-engine';
import { entryHashes, ZERO_HASH } from '../lib/protocol/log-entry.js';
import { EXPORT_FORMAT, readExport } from '../verify/source.js';
import { verifyLog } from '../verify/verify.js';
import { loadReplay, saveReplay } from '../verify/saved-state.js';
import { fmt, machine, signatureFloor } from './stats.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
/** Entries written since the saved replay, for the incremental figure. */
const NEW = Number(process.env.BENCH_NEW ?? 10_000);
const AGENTS = 1000;
const PAPERS = Math.min(20_000, Math.floor(ENTRIES / 50));
const CONSTITUTION = { version: '1', hash: '0'.repeat(64) };

async function makeExport(path: string): Promise<(size: number) => SignedTreeHead> {
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
      `{"seq":${seq},"ts":"${ts}","type":"${type}","payloadHash":"${payloadHash}","prevHash":"${prev}","entryHash":"${entryHash}","payload":${text}}\n`,
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
  // A head of any earlier size, signed by the same log key (for the incremental figure).
  return (size) => {
    const h = { treeSize: size, rootHash: toHex(rootFromLeafHashes(leaves.slice(0, size))), timestamp: sth.timestamp };
    return { ...h, signature: Buffer.from(signBytes(logKey.privateKey, headMessage(h))).toString('base64url') };
  };
}

/** CPU seconds of this process's main thread so far (Linux: /proc/self/task/<pid>/stat), or NaN elsewhere. */
function mainThreadCpu(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

async function main(): Promise<void> {
  console.log(`machine: ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'archive-bench-verify-'));
  try {
    const path = join(dir, 'log.jsonl');
    const t0 = performance.now();
    const headAt = await makeExport(path);
    console.log(`export of ${fmt(ENTRIES)} entries made in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    const c0 = process.cpuUsage();
    const floor = await signatureFloor(5);
    const floorS = ENTRIES / floor;
    // The floor in CPU time too: the machine is shared, so the ratio of CPU time (the work done)
    // holds when other processes take the cores; on an idle machine it is the ratio of wall time.
    const fc = process.cpuUsage(c0);
    const floorCpuS = (((fc.user + fc.system) / 1e6) * ENTRIES) / (floor * 5);
    console.log(
      `signature floor: ${fmt(floor)} node:crypto Ed25519 verifications/s on ${availableParallelism()} cores: ${fmt(floorS, 1)} s for ${fmt(ENTRIES)} signatures`,
    );
    const t1 = performance.now();
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpu();
    const log = await readExport(path);
    const readMs = performance.now() - t1;
    const { report, timings } = await verifyLog(log);
    const totalS = (readMs + timings.totalMs) / 1000;
    const used = process.cpuUsage(cpu0);
    const cpuS = (used.user + used.system) / 1e6;
    const mainS = mainThreadCpu() - main0;
    console.log(`verified: ok=${report.ok}, ${report.problems.length} problems`);
    console.log(
      `  ${fmt(report.entries)} entries in ${fmt(totalS, 1)} s: ${fmt(report.entries / totalS)} entries/s, ${fmt(totalS / floorS, 2)} times the signature floor (goal: at most 1.2)`,
    );
    console.log(
      `  CPU time of the process, every thread: ${fmt(cpuS, 1)} s, ${fmt(cpuS / totalS, 2)} of ${availableParallelism()} cores; the signatures alone ${fmt(floorCpuS, 1)} s of CPU at the floor's rate, everything else ${fmt(cpuS - floorCpuS, 1)} s`,
    );
    console.log(
      `  in CPU time: ${fmt(cpuS / floorCpuS, 2)} times the CPU time of ${fmt(ENTRIES)} signature checks alone (${fmt(floorCpuS, 1)} s, measured with the floor)`,
    );
    console.log(
      `  of which the main thread (reading, handing batches to the workers, the replay): ${fmt(mainS, 1)} s; the workers and the rest: ${fmt(cpuS - mainS, 1)} s`,
    );
    console.log(`  reading and parsing the export: ${fmt(readMs / 1000, 1)} s (main thread)`);
    console.log(
      `  replay through the record, numbers included: ${fmt(timings.replayMs / 1000, 1)} s (main thread, while the workers check)`,
    );
    console.log(`  hashing (entry and payload hashes, canonical JSON): ${fmt(timings.hashMs / 1000, 1)} s of worker time`);
    console.log(`  signature checks: ${fmt(timings.signatureMs / 1000, 1)} s of worker time`);
    const cpu = readMs + timings.replayMs + timings.hashMs + timings.signatureMs;
    console.log(
      `  shares of the work: hashing ${fmt((100 * timings.hashMs) / cpu)} %, signatures ${fmt((100 * timings.signatureMs) / cpu)} %, replay ${fmt((100 * timings.replayMs) / cpu)} %, reading ${fmt((100 * readMs) / cpu)} %`,
    );
    for (const p of report.problems) console.log(`  PROBLEM ${p.kind} ${p.seq}: ${p.detail}`);

    // Incremental (`archive verify --state`): a run verified the log up to NEW entries ago and
    // saved its replay; the next run checks only the entries since (verify/saved-state.ts).
    const at = log.entries.length - NEW;
    const earlier = await verifyLog({ ...log, sth: headAt(at), entries: log.entries.slice(0, at) });
    if (!earlier.report.ok) throw new Error(`the first ${at} entries do not verify: ${JSON.stringify(earlier.report.problems)}`);
    const replay = join(dir, 'verified.json.replay');
    const ts = performance.now();
    saveReplay(replay, earlier.state, earlier.range, log.entries[at - 1]!.entryHash);
    const saveS = (performance.now() - ts) / 1000;
    const tl = performance.now();
    const resume = loadReplay(replay);
    if (resume === null || 'problem' in resume) throw new Error(`the replay does not load: ${JSON.stringify(resume)}`);
    const loadS = (performance.now() - tl) / 1000;
    const again = await verifyLog(log, { resume });
    const againS = again.timings.totalMs / 1000;
    console.log(
      `incremental: ${fmt(NEW)} new entries after a replay saved at ${fmt(at)}: ok=${again.report.ok}, ${fmt(loadS + againS, 1)} s with loading the replay (${fmt(loadS, 1)} s) against ${fmt(totalS, 1)} s for the full run: ${fmt((loadS + againS) / totalS, 2)} of it; saving the replay ${fmt(saveS, 1)} s (${fmt(statSync(replay).size / 2 ** 20)} MiB)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
