// A monitor follows a log's signed heads: each round it fetches the head, checks its signature
// by the log key it pinned on its first round, checks that it extends the last head it saved (a
// consistency proof, fetched and verified), saves it, and compares it with the heads its peer
// monitors saw, so that two parties shown different logs (a split view) find out. Monitors
// gossip through a small HTTP endpoint of their own (docs/log-format.md, "Monitors").
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { ArchiveClient, type Served } from '../lib/client/http.js';
import { checkpointText, fromHex, openNote, toHex, verifyConsistency, type SignedTreeHead } from 'tlog-engine';
import { headSigned } from './check-log.js';
import { logVerifier } from '../lib/protocol/ed25519.js';
import { pinProblem, vkeyOf, type PinnedKey } from './log-key.js';
import { checkpointPath, witnessed, type WitnessAnswer, type WitnessPolicy, type WitnessRecord } from './witness.js';

export const GOSSIP_FORMAT = 'archive-monitor/1';

/** What a monitor keeps between rounds, and what its gossip endpoint serves. */
export interface MonitorState {
  format: typeof GOSSIP_FORMAT;
  /** The service this monitor follows. */
  url: string;
  origin: string;
  logKey: string;
  /** The latest head it verified. */
  sth: SignedTreeHead;
  checkedAt: string;
  /** As a witness (--witness-key): the last checkpoint it cosigned. */
  witness?: WitnessRecord;
}

export type Finding =
  | { kind: 'ok'; detail: string }
  | { kind: 'warning'; detail: string }
  /** The service's own heads do not hold together: a head not signed, a shrinking or rewritten log. */
  | { kind: 'inconsistent'; detail: string; evidence: SignedTreeHead[] }
  /** A head refused under the witness policy: its checkpoint lacks the quorum of cosignatures. */
  | { kind: 'unwitnessed'; detail: string; evidence: string }
  /** Two heads of one log, seen by two parties, that no consistency proof reconciles. */
  | { kind: 'split'; detail: string; evidence: { url: string; sth: SignedTreeHead }[] };

export function readState(path: string): MonitorState | null {
  if (!existsSync(path)) return null;
  const s = JSON.parse(readFileSync(path, 'utf8'));
  if (s?.format !== GOSSIP_FORMAT) throw new Error(`${path}: not a monitor state (${GOSSIP_FORMAT})`);
  return s;
}

/** Saves atomically: a crash leaves the old head or the new one, never half of either. */
export function writeState(path: string, s: MonitorState): void {
  // Synced, renamed, and the directory synced: a witness answers only once its cosigned checkpoint is durable.
  const fd = openSync(`${path}.tmp`, 'w');
  try {
    writeSync(fd, `${JSON.stringify(s, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(`${path}.tmp`, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

async function getJson(client: ArchiveClient, path: string): Promise<Served> {
  const r = await client.get(path);
  if (r.status !== 200 || typeof r.body !== 'object' || r.body === null) throw new Error(`GET ${client.baseUrl}${path}: ${r.status}`);
  return r.body;
}

/**
 * Whether `small` is a prefix of `large`, by a proof from `prover` (a service that holds the
 * larger tree). Equal sizes need equal roots. Returns null when no proof could be had.
 */
export async function consistent(prover: ArchiveClient, small: SignedTreeHead, large: SignedTreeHead): Promise<boolean | null> {
  if (small.treeSize === large.treeSize) return small.rootHash === large.rootHash;
  if (small.treeSize === 0) return true;
  const r = await prover.get(`/v1/log/consistency?first=${small.treeSize}&second=${large.treeSize}`);
  if (r.status !== 200 || !Array.isArray(r.body?.proof)) return null;
  try {
    return verifyConsistency(
      small.treeSize,
      large.treeSize,
      r.body.proof.map((h: string) => fromHex(h, 32)),
      fromHex(small.rootHash, 32),
      fromHex(large.rootHash, 32),
    );
  } catch {
    return false;
  }
}

/**
 * Why the C2SP checkpoint does not hold for head `sth`: 'moved' when it is of another size, a
 * reason when it is of the same size but not the same head, or not signed by the log key; null
 * when it holds.
 */
export function checkpointProblem(note: string, origin: string, logKey: string, sth: SignedTreeHead): string | null {
  const raw = Buffer.from(logKey, 'base64url').subarray(12);
  let opened;
  try {
    const verify = logVerifier(logKey);
    opened = openNote(note, { name: origin, rawPublicKey: raw }, (_key, m, sig) => verify(m, sig));
  } catch (err) {
    return `not a signed note (${(err as Error).message})`;
  }
  if (!opened.text.startsWith(`${origin}\n${sth.treeSize}\n`)) return 'moved';
  if (opened.text !== checkpointText(origin, sth.treeSize, fromHex(sth.rootHash, 32))) return "its root is not the head's";
  return opened.verified ? null : 'not signed by the log key';
}

export interface RoundOptions {
  url: string;
  peers: string[];
  /** Witness keys and quorum a head's checkpoint must be cosigned by. */
  policy?: WitnessPolicy | null;
  /** The log key pinned with --key: the service must publish it from the first round on. */
  pinned?: PinnedKey;
}

/**
 * One round: the service's head against the saved one, then against each peer's. Returns the
 * new state to save (null when the new head must not replace the saved one) and what it found.
 */
export async function monitorRound(
  opts: RoundOptions,
  saved: MonitorState | null,
  now = new Date(),
): Promise<{ state: MonitorState | null; findings: Finding[] }> {
  const client = new ArchiveClient(opts.url);
  const findings: Finding[] = [];
  const key = await getJson(client, '/v1/log/key');
  const sth: SignedTreeHead = await getJson(client, '/v1/log/sth');
  if (saved !== null && opts.pinned !== undefined && saved.logKey !== opts.pinned.key)
    throw new Error(`the state file pinned log key ${saved.logKey}; --key names ${opts.pinned.key}`);
  const logKey = saved?.logKey ?? opts.pinned?.key ?? key.key;
  const pin = pinProblem(opts.pinned ?? { key: logKey, origin: saved?.origin ?? null }, key, 'the service');
  if (pin !== null) {
    const detail = opts.pinned !== undefined ? pin : `${pin.replace(' (--key)', '')} (pinned on this monitor's first round)`;
    findings.push({ kind: 'inconsistent', detail, evidence: [sth] });
    return { state: null, findings };
  }
  if (!headSigned(sth, logKey)) {
    findings.push({ kind: 'inconsistent', detail: `the head of size ${sth.treeSize} is not signed by the log key`, evidence: [sth] });
    return { state: null, findings };
  }
  const checkpoint = await client.get('/v1/log/checkpoint');
  const note = checkpointProblem(typeof checkpoint.body === 'string' ? checkpoint.body : '', key.origin, logKey, sth);
  if (note === 'moved')
    findings.push({
      kind: 'warning',
      detail: `the checkpoint is not of the head's size ${sth.treeSize} (the log may have moved on between the two reads)`,
    });
  else if (note !== null) {
    findings.push({ kind: 'inconsistent', detail: `the checkpoint of size ${sth.treeSize}: ${note}`, evidence: [sth] });
    return { state: null, findings };
  }
  if (opts.policy) {
    // Under a witness policy the head must extend the checkpoint the quorum cosigned.
    const body = typeof checkpoint.body === 'string' ? checkpoint.body : '';
    const w = witnessed(body, { origin: key.origin, logKey }, opts.policy);
    if (!w.ok) {
      findings.push({ kind: 'unwitnessed', detail: `the head of size ${sth.treeSize} is refused: ${w.problem}`, evidence: body });
      return { state: null, findings };
    }
    const cosigned = { treeSize: w.checkpoint.treeSize, rootHash: toHex(w.checkpoint.rootHash) } as SignedTreeHead;
    if (cosigned.treeSize > sth.treeSize) {
      findings.push({
        kind: 'warning',
        detail: `the witnessed checkpoint is of size ${cosigned.treeSize}, above the head read before it (${sth.treeSize}): the log moved between the two reads`,
      });
      return { state: null, findings };
    }
    if ((await consistent(client, cosigned, sth)) !== true) {
      findings.push({
        kind: 'inconsistent',
        detail: `the head of size ${sth.treeSize} does not extend the checkpoint of size ${cosigned.treeSize} that ${w.cosignatures.length} witnesses cosigned`,
        evidence: [sth],
      });
      return { state: null, findings };
    }
    findings.push({
      kind: 'ok',
      detail: `checkpoint ${cosigned.treeSize} cosigned by ${w.cosignatures.map((c) => c.name).join(', ')} (quorum ${opts.policy.quorum})`,
    });
  }
  if (saved !== null) {
    const prev = saved.sth;
    if (sth.treeSize < prev.treeSize) {
      findings.push({
        kind: 'inconsistent',
        detail: `the log shrank from ${prev.treeSize} to ${sth.treeSize} entries`,
        evidence: [prev, sth],
      });
      return { state: null, findings };
    }
    const holds = await consistent(client, prev, sth);
    if (holds !== true) {
      findings.push({
        kind: 'inconsistent',
        detail: `the head of size ${sth.treeSize} does not extend the head of size ${prev.treeSize} saved at ${saved.checkedAt}${holds === null ? ' (the service gave no proof)' : ''}`,
        evidence: [prev, sth],
      });
      return { state: null, findings };
    }
  }
  const state: MonitorState = { format: GOSSIP_FORMAT, url: client.baseUrl, origin: key.origin, logKey, sth, checkedAt: now.toISOString() };
  const trust = `log key ${logKey} (vkey ${vkeyOf(key.origin, logKey)})`;
  const how =
    opts.pinned !== undefined ? 'pinned with --key' : saved === null ? 'taken from the service on first use' : 'pinned on first use';
  findings.push({
    kind: 'ok',
    detail: `head ${sth.treeSize} ${sth.rootHash} verified by ${trust}, ${how}${saved === null ? ' (first head)' : ` (extends ${saved.sth.treeSize})`}`,
  });
  for (const peer of opts.peers) findings.push(await comparePeer(state, peer));
  return { state, findings };
}

/** Compares our head with the one a peer monitor verified, proving one a prefix of the other. */
export async function comparePeer(ours: MonitorState, peer: string): Promise<Finding> {
  let theirs: MonitorState;
  try {
    theirs = await getJson(new ArchiveClient(peer), '/head');
  } catch (err) {
    return { kind: 'warning', detail: `peer ${peer}: ${(err as Error).message}` };
  }
  if (theirs?.format !== GOSSIP_FORMAT || theirs.logKey !== ours.logKey)
    return { kind: 'warning', detail: `peer ${peer} follows another log (key ${theirs?.logKey})` };
  if (!headSigned(theirs.sth, ours.logKey))
    return { kind: 'warning', detail: `peer ${peer} gossips a head not signed by the log key: ignored` };
  // The larger head's service proves the smaller a prefix of it.
  const [small, large] = theirs.sth.treeSize <= ours.sth.treeSize ? [theirs, ours] : [ours, theirs];
  const holds = await consistent(new ArchiveClient(large.url), small.sth, large.sth);
  const evidence = [
    { url: ours.url, sth: ours.sth },
    { url: `${theirs.url} (via peer ${peer})`, sth: theirs.sth },
  ];
  if (holds === false)
    return {
      kind: 'split',
      detail: `SPLIT VIEW: the head of size ${small.sth.treeSize} shown to ${small.url} is not a prefix of the head of size ${large.sth.treeSize} shown to ${large.url}`,
      evidence,
    };
  if (holds === null)
    return {
      kind: 'warning',
      detail: `peer ${peer}: ${large.url} gave no consistency proof from ${small.sth.treeSize} to ${large.sth.treeSize}`,
    };
  return { kind: 'ok', detail: `peer ${peer}: its head ${theirs.sth.treeSize} and ours are consistent` };
}

/** What a monitor serves as a witness (--witness-key): add-checkpoint, and its last cosigned checkpoint. */
export interface WitnessEndpoint {
  /** Answers an add-checkpoint body; persists a cosigned checkpoint before it returns. */
  add(body: string): WitnessAnswer;
  /** The last checkpoint it cosigned, or null. */
  last(): WitnessRecord | null;
}

/** Largest add-checkpoint body read: 63 proof lines and a note with 100 signatures fit well within. */
const MAX_BODY = 64 * 1024;

/**
 * What is dropped of a body over MAX_BODY before the connection is cut: a client still sending
 * when the witness answers and closes would be reset, and could lose the answer (docs/log-format.md).
 */
const MAX_DROPPED = 1024 * 1024;

/**
 * The request's body: its text; `too large` when over MAX_BODY, once the rest of it was read and
 * dropped (so the 413 reaches a client that is still sending); `flood` when even that is over
 * MAX_DROPPED, as soon as it is.
 */
function readBody(req: IncomingMessage): Promise<string | 'too large' | 'flood'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
      else if (size > MAX_BODY + MAX_DROPPED) {
        req.pause();
        resolve('flood');
      }
    });
    req.on('end', () => resolve(size > MAX_BODY ? 'too large' : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

/**
 * Serves `GET /head`: the latest head this monitor verified (404 before its first). As a
 * witness, also `POST /add-checkpoint` (c2sp.org/tlog-witness) and
 * `GET /<sha256(origin) hex>/checkpoint`.
 */
export async function serveGossip(
  port: number,
  host: string,
  current: () => MonitorState | null,
  witness?: WitnessEndpoint,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (witness !== undefined && req.url === '/add-checkpoint') {
      if (req.method !== 'POST') return reply(res, 405, 'text/plain; charset=utf-8', 'add-checkpoint takes POST\n');
      readBody(req).then(
        (body) => {
          if (body === 'too large' || body === 'flood') {
            // Answered in full, then the connection is closed; a flood is cut once the answer is written.
            res.shouldKeepAlive = false;
            if (body === 'flood') res.once('finish', () => req.socket.destroy());
            return reply(res, 413, 'text/plain; charset=utf-8', `the body is over ${MAX_BODY} bytes\n`);
          }
          let answer: WitnessAnswer;
          try {
            answer = witness.add(body);
          } catch (err) {
            // Not persisted: nothing was cosigned.
            console.error(`witness: add-checkpoint failed: ${(err as Error).message}`);
            return reply(res, 500, 'text/plain; charset=utf-8', 'the witness could not save its state\n');
          }
          reply(res, answer.status, answer.type, answer.body);
        },
        () => res.destroy(),
      );
      return;
    }
    const last = witness?.last() ?? null;
    if (req.method === 'GET' && last !== null && req.url === checkpointPath(last.origin))
      return reply(res, 200, 'text/plain; charset=utf-8', last.checkpoint);
    const state = req.method === 'GET' && req.url === '/head' ? current() : undefined;
    if (state === undefined || state === null) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'not_found', detail: state === null ? 'no head verified yet' : 'this monitor serves GET /head only' }),
      );
      return;
    }
    const { witness: _w, ...gossip } = state;
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end(JSON.stringify(gossip));
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}
