// Failover (docs/deploy.md, "Failover"): three `archive serve` nodes on one PostgreSQL database, on
// loopback, with writers, readers and monitors running. The leader is killed (SIGKILL): a follower
// takes the lease within the lease's length and goes on, and the killed node comes back as a
// follower. Then a follower is paused (SIGSTOP) and resumed, and the leader is paused past its
// lease and resumed: another node leads meanwhile and the old leader, fenced, follows. At the end:
// every write answered 2xx is on the log exactly once, at the seq its answer named; no write
// refused for certain is; every node serves the same head and holds the same state (its digest,
// and a replay of the database's log); `archive verify` passes against every node; the monitors
// found no split view nor an inconsistent head; no node's head ever went back.
import t from 'tap';
import { join } from 'node:path';
import { generateKeyPair, logVerifier, signPayload } from '../../lib/protocol/ed25519.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { stateDigest, replayStore } from '../../lib/record/fold/index.js';
import { monitorRound, serveGossip, type Finding, type MonitorState } from '../../verify/monitor.js';
import { openPgStore, verifyHeadSignature } from 'tlog-engine';
import { recordReader } from '../../lib/protocol/log-entry.js';
import { startPostgres } from 'tlog-engine/testing';
import { startNodeProcess, type NodeProcess } from '../helpers/node-process.js';
import { archive } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const LEASE_S = 1.5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A JSON answer, read member by member by the checks below. */
const json = (r: Response): Promise<any> => r.json();

t.test(
  'three nodes: the leader killed, a follower paused, the leader paused past its lease; nothing acknowledged lost, no fork',
  async (t) => {
    const pgs = await startPostgres(t);
    const storeUrl = await pgs.createDatabase();
    const base = tempDir(t);
    const args = ['--lease', String(LEASE_S), '--poll', '0.2', '--register-limit', '100000', '--min-seq-wait', '3'];
    const dirs = { n1: join(base, 'n1'), n2: join(base, 'n2'), n3: join(base, 'n3') };
    const start = (id: 'n1' | 'n2' | 'n3') =>
      startNodeProcess({ storeUrl, dataDir: dirs[id], id, keysFrom: id === 'n1' ? undefined : dirs.n1, args });
    const nodes = new Map<string, NodeProcess>();
    nodes.set('n1', await start('n1'));
    for (const n of await Promise.all([start('n2'), start('n3')])) nodes.set(n.id, n);
    t.teardown(() => Promise.all([...nodes.values()].map((n) => n.stop())));
    const paused = new Set<string>();
    const live = () => [...nodes.values()].filter((n) => n.child.exitCode === null && n.child.signalCode === null && !paused.has(n.id));
    const pick = () => {
      const l = live();
      return l[Math.floor(Math.random() * l.length)]!;
    };
    const nodeInfo = async (n: NodeProcess) => json(await fetch(`${n.url}/v1/node`, { signal: AbortSignal.timeout(2000) }));
    t.match(await nodeInfo(nodes.get('n1')!), { role: 'leader' });
    const keyInfo = await json(await fetch(`${nodes.get('n1')!.url}/v1/log/key`));
    const verifyHead = logVerifier(keyInfo.key);

    // Agents, registered through a follower.
    const constitution = await json(await fetch(`${nodes.get('n2')!.url}/v1/constitution`));
    const agents = await Promise.all(
      ['w1', 'w2', 'w3', 'w4'].map(async (handle) => {
        const k = generateKeyPair();
        const r = await fetch(`${nodes.get('n2')!.url}/v2/agents/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            handle,
            publicKey: k.publicKey,
            constitution: { version: constitution.version, hash: constitution.hash },
          }),
        });
        t.equal(r.status, 201, `${handle} registered`);
        return { handle, ...k };
      }),
    );

    // Writers: papers to any node that is not paused (a pause may begin while one waits: the
    // answer may then not come in time, an unknown outcome).
    interface Sent {
      abstract: string;
      status: number;
      seq?: number;
      detail?: string;
    }
    const sent: Sent[] = [];
    let ownReads = 0;
    let ownReadsSeen = 0;
    let writing = true;
    const writer = async (a: (typeof agents)[number]) => {
      for (let i = 0; writing; i++) {
        const abstract = `An abstract of a paper written by ${a.handle} during the failover test, number ${i}, ${Math.random()}.`;
        const payload = {
          protocol: PROTOCOL,
          type: 'paper',
          agent: { handle: a.handle, publicKey: a.publicKey },
          ts: new Date().toISOString(),
          title: `Paper ${i} by ${a.handle}`,
          abstract,
          field: 'ml',
          claims: [{ text: 'The claim holds', confidence: 0.7, test: 'A result that would refute it' }],
          builds_on: [],
        };
        const node = pick();
        try {
          const r = await fetch(`${node.url}/v2/papers`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ payload, signature: signPayload(a.privateKey, payload) }),
            signal: AbortSignal.timeout(4000),
          });
          const body = await json(r).catch(() => ({}));
          sent.push({ abstract, status: r.status, seq: body.seq, detail: body.detail });
          if (r.status === 201) {
            // Read your write on another node.
            const other = pick();
            const back = await fetch(`${other.url}/v2/papers/${body.id}`, {
              headers: { 'min-seq': String(body.seq) },
              signal: AbortSignal.timeout(4000),
            }).catch(() => null);
            // (No answer: that node was paused meanwhile.)
            if (back !== null) {
              ownReads++;
              if (back.status === 200) ownReadsSeen++;
            }
          }
        } catch {
          sent.push({ abstract, status: 0 });
        }
        await sleep(10);
      }
    };

    // Readers: heads from every node, signed, and never smaller than what that node served before.
    const served = new Map<string, number>();
    const badHeads: string[] = [];
    let reads = 0;
    let reading = true;
    // One reader per node, one request at a time, so that the order of its answers is the node's.
    const reader = async (id: string) => {
      while (reading) {
        const n = nodes.get(id)!;
        if (!live().includes(n)) {
          await sleep(20);
          continue;
        }
        try {
          const sth = await json(await fetch(`${n.url}/v1/log/sth`, { signal: AbortSignal.timeout(2000) }));
          reads++;
          if (!verifyHeadSignature(sth, verifyHead)) badHeads.push(`${n.id}: a head not signed by the log key`);
          if (sth.treeSize < (served.get(n.url) ?? 0))
            badHeads.push(`${n.id}: its head went back from ${served.get(n.url)} to ${sth.treeSize}`);
          served.set(n.url, sth.treeSize);
        } catch {
          // a node killed or paused meanwhile
        }
        await sleep(20);
      }
    };

    // A monitor per node, gossiping with the others.
    const findings: Finding[] = [];
    const monitors = new Map<string, MonitorState | null>([...nodes.keys()].map((id) => [id, null]));
    const gossip = await Promise.all(
      [...nodes.keys()].map(async (id) => ({ id, ...(await serveGossip(0, '127.0.0.1', () => monitors.get(id) ?? null)) })),
    );
    t.teardown(() => Promise.all(gossip.map((g) => new Promise((r) => g.server.close(r)))));
    let monitoring = true;
    const monitor = async (id: string) => {
      while (monitoring) {
        const n = nodes.get(id)!;
        if (live().includes(n)) {
          try {
            const peers = gossip.filter((g) => g.id !== id).map((g) => g.url);
            const round = await monitorRound({ url: n.url, peers }, monitors.get(id) ?? null);
            findings.push(...round.findings);
            if (round.state !== null) monitors.set(id, round.state);
          } catch {
            // a node killed or paused during the round
          }
        }
        await sleep(150);
      }
    };

    const running = [...agents.map(writer), ...[...nodes.keys()].map(reader), ...[...nodes.keys()].map(monitor)];
    // However the scenario ends, the writers, readers and monitors stop (a failure fails fast).
    try {
      await sleep(1500);

      // 1. The leader is killed: a follower leads within the lease's length, and writes go on.
      const leaderOf = async () => {
        for (const n of live()) if ((await nodeInfo(n).catch(() => null))?.role === 'leader') return n;
        return null;
      };
      const first = (await leaderOf())!;
      t.equal(first.id, 'n1');
      const killedAt = Date.now();
      first.child.kill('SIGKILL');
      await first.exited;
      let next: NodeProcess | null = null;
      while (next === null && Date.now() - killedAt < 15_000) {
        next = await leaderOf();
        if (next === null) await sleep(50);
      }
      const failover = Date.now() - killedAt;
      t.ok(next !== null, 'a follower leads');
      t.ok(failover < 10_000, `within 10 s: ${failover} ms (lease ${LEASE_S} s)`);
      // The killed node comes back, following.
      nodes.set('n1', await start('n1'));
      t.match(await nodeInfo(nodes.get('n1')!), { role: 'follower' });
      await sleep(1000);

      // 2. A follower paused and resumed: it catches up.
      const follower = live().find((n) => n !== next)!;
      paused.add(follower.id);
      follower.child.kill('SIGSTOP');
      await sleep(2000);
      follower.child.kill('SIGCONT');
      paused.delete(follower.id);
      await sleep(800);

      // 3. The leader paused past its lease: another node leads; resumed, the old one follows.
      const since = next!.lines.length;
      paused.add(next!.id);
      next!.child.kill('SIGSTOP');
      await sleep(LEASE_S * 1000 + 1500);
      const third = await leaderOf();
      t.ok(third !== null && third !== next, `another node leads while ${next!.id} is paused`);
      next!.child.kill('SIGCONT');
      paused.delete(next!.id);
      await next!.line(/this node no longer leads/, 10_000, since);
      t.pass(`${next!.id}, resumed, follows`);
      await sleep(1000);
    } finally {
      writing = false;
      reading = false;
      monitoring = false;
      await Promise.all(running);
    }

    // Every node converges on the same head and state.
    const all = [...nodes.values()];
    let infos: { treeSize: number; applied: number; role: string }[] = [];
    for (let i = 0; i < 200; i++) {
      infos = await Promise.all(all.map(nodeInfo));
      if (infos.every((x) => x.treeSize === infos[0]!.treeSize && x.applied === x.treeSize)) break;
      await sleep(50);
    }
    const size = infos[0]!.treeSize;
    t.ok(
      infos.every((x) => x.treeSize === size && x.applied === size),
      `every node holds and applied ${size} entries: ${JSON.stringify(infos)}`,
    );
    t.equal(infos.filter((x) => x.role === 'leader').length, 1, 'one leader');
    const heads = await Promise.all(all.map(async (n) => (await fetch(`${n.url}/v1/log/sth`)).text()));
    t.ok(
      heads.every((h) => h === heads[0]),
      'the same signed head on every node',
    );
    const digests = await Promise.all(
      all.map(async (n) => {
        const from = n.lines.length;
        n.child.kill('SIGUSR2');
        const m = await n.line(/^archive: state at entry (\d+) of (\d+): sha256 ([0-9a-f]{64})$/, 10_000, from);
        return { size: Number(m[1]), digest: m[3]! };
      }),
    );
    const store = await openPgStore(storeUrl);
    const reader0 = await recordReader(store);
    const replayed = stateDigest(await replayStore(reader0, reader0.size));
    await store.close();
    t.equal(reader0.size, size, 'the database holds that head');
    for (const [i, d] of digests.entries()) t.same(d, { size, digest: replayed }, `${all[i]!.id}: the state of a replay of the log`);

    // Every write answered 2xx is on the log once, at its seq; none refused for certain is.
    const entries: { seq: number; payload: { payload?: { abstract?: string } } }[] = [];
    for (let from = 0; from < size; from += 1000)
      entries.push(...(await json(await fetch(`${all[0]!.url}/v1/log/entries?from=${from}&limit=1000`))).entries);
    const at = new Map<string, number[]>();
    for (const e of entries) {
      const abstract = e.payload.payload?.abstract;
      if (abstract !== undefined) at.set(abstract, [...(at.get(abstract) ?? []), e.seq]);
    }
    const taken = sent.filter((s) => s.status === 201);
    const refused = sent.filter((s) => s.status >= 400 && !/may (or may not )?be on the log/.test(s.detail ?? ''));
    t.ok(
      taken.length > 50,
      `${taken.length} writes taken, ${refused.length} refused, ${sent.length - taken.length - refused.length} of unknown outcome`,
    );
    t.same(
      taken.filter((s) => at.get(s.abstract)?.length !== 1 || at.get(s.abstract)![0] !== s.seq).map((s) => [s.seq, at.get(s.abstract)]),
      [],
      'every write taken is on the log once, at the seq its answer named',
    );
    t.same(
      refused.filter((s) => at.has(s.abstract)).map((s) => [s.status, s.detail]),
      [],
      'no write refused for certain is on the log',
    );
    t.ok(ownReads > 0 && ownReadsSeen === ownReads, `every write read back on another node with Min-Seq (${ownReadsSeen} of ${ownReads})`);
    t.ok(reads > 50, `${reads} heads read`);
    t.same(badHeads, [], 'every head read was signed, and no node’s head went back');
    t.same(
      findings.filter((f) => f.kind === 'split' || f.kind === 'inconsistent'),
      [],
      'the monitors saw no split view and no inconsistent head',
    );
    t.ok(findings.filter((f) => f.kind === 'ok').length > 20, 'the monitors ran');

    // archive verify, against every node.
    const runs = await Promise.all(all.map((n) => archive(['verify', '--url', n.url])));
    for (const [i, r] of runs.entries())
      t.equal(r.code, 0, `archive verify --url ${all[i]!.id}: ${r.stdout.slice(-300)}${r.stderr.slice(-500)}`);
  },
);
