// A monitor's round: the log's head checked, proved to extend the last head saved, and compared with the heads of peer
// monitors, so that a split view is found (docs/engine.md#monitors). The gossip endpoint is served by servers.ts.
import { verifierKey } from '../checkpoint.js';
import { LogError } from '../errors.js';
import { toHex } from '../hash.js';
import type { SignedTreeHead } from '../head.js';
import { witnessed, type WitnessPolicy } from '../witness/policy.js';
import { logKeyRaw } from './ed25519.js';
import { checkpointProblem, headSigned } from './heads.js';
import { LogClient, checkedUrl, type PublishedKey } from './log-client.js';
import { MONITOR_FORMAT, type MonitorState } from './monitor-state.js';
import { consistent, type TreeHead } from './proofs.js';

/** What a round found. `ok` and `warning` keep the monitor going; the others are evidence of a log that misbehaves. */
export type Finding =
  | { kind: 'ok'; detail: string }
  | { kind: 'warning'; detail: string }
  /** The log's own heads do not hold together: a head not signed, a shrinking or rewritten log, another key. */
  | { kind: 'inconsistent'; detail: string; evidence: SignedTreeHead[] }
  /** A head refused under the witness policy: its checkpoint lacks the quorum of cosignatures. */
  | { kind: 'unwitnessed'; detail: string; evidence: string }
  /** Two heads of one log, seen by two parties, that no consistency proof reconciles. */
  | { kind: 'split'; detail: string; evidence: { url: string; sth: SignedTreeHead }[] };

/** A log key trusted by whoever runs the monitor, with the origin it names (null when only the key was given). */
export interface TrustedKey {
  key: string;
  origin: string | null;
}

export interface RoundOptions {
  /** Where the log is served; saved in the state and gossiped as is. */
  url: string;
  /** The path of the log's reads below `url` (default none: `url` is the log's URL). Monitors that gossip share it. */
  prefix?: string;
  /** Peer monitors: the URLs under which they serve GET /head. */
  peers?: string[];
  /** Witness keys and quorum a head's checkpoint must be cosigned by. */
  policy?: WitnessPolicy | null;
  /** The log key to trust. Without it: the saved state's, else the one the log publishes on the first round (trust on first use). */
  logKey?: TrustedKey;
  /** Why the key and origin the log publishes are not the trusted ones, or null when they are: replaces the default wording. */
  keyProblem?: (published: PublishedKey, trusted: TrustedKey) => string | null;
  /** How the ok finding says the key came to be trusted (default: "given", "pinned on first use", "taken from the log on first use"). */
  trust?: string;
  /** The gossip format (default MONITOR_FORMAT). */
  format?: string;
  /** Milliseconds before a read is given up (default 120000). */
  timeoutMs?: number;
}

/** The default wording of a published key that is not the trusted one. */
function keyProblemOf(published: PublishedKey, trusted: TrustedKey): string | null {
  if (published.key !== trusted.key) return `the log publishes log key ${published.key}; the trusted key is ${trusted.key}`;
  if (trusted.origin !== null && published.origin !== trusted.origin)
    return `the log publishes origin ${published.origin}; the trusted key names ${trusted.origin}`;
  return null;
}

/**
 * One round: the log's head against the trusted key, the saved head and each peer's. Returns the
 * new state to save (null when the new head must not replace the saved one) and what it found.
 * Throws LogError when the log cannot be read, or when `logKey` is not the key of the saved state.
 */
export async function monitorRound(
  opts: RoundOptions,
  saved: MonitorState | null,
  now = new Date(),
): Promise<{ state: MonitorState | null; findings: Finding[] }> {
  const url = checkedUrl(opts.url);
  const prefix = opts.prefix ?? '';
  const client = new LogClient(`${url}${prefix}`, { timeoutMs: opts.timeoutMs });
  const findings: Finding[] = [];
  const key = await client.key();
  const sth = await client.sth();
  if (saved !== null && opts.logKey !== undefined && saved.logKey !== opts.logKey.key)
    throw new LogError('bad_argument', `the saved state trusts log key ${saved.logKey}; the key given is ${opts.logKey.key}`);
  const logKey = saved?.logKey ?? opts.logKey?.key ?? key.key;
  const trusted = opts.logKey ?? { key: logKey, origin: saved?.origin ?? null };
  const keyProblem = (opts.keyProblem ?? keyProblemOf)(key, trusted);
  if (keyProblem !== null) {
    findings.push({ kind: 'inconsistent', detail: keyProblem, evidence: [sth] });
    return { state: null, findings };
  }
  if (!headSigned(sth, logKey)) {
    findings.push({ kind: 'inconsistent', detail: `the head of size ${sth.treeSize} is not signed by the log key`, evidence: [sth] });
    return { state: null, findings };
  }
  const note = (await client.text('checkpoint')).text;
  const problem = checkpointProblem(note, key.origin, logKey, sth);
  if (problem === 'moved')
    findings.push({
      kind: 'warning',
      detail: `the checkpoint is not of the head's size ${sth.treeSize} (the log may have moved on between the two reads)`,
    });
  else if (problem !== null) {
    findings.push({ kind: 'inconsistent', detail: `the checkpoint of size ${sth.treeSize}: ${problem}`, evidence: [sth] });
    return { state: null, findings };
  }
  if (opts.policy) {
    // Under a witness policy the head must extend the checkpoint the quorum cosigned.
    const w = witnessed(note, { origin: key.origin, logKey }, opts.policy);
    if (!w.ok) {
      findings.push({ kind: 'unwitnessed', detail: `the head of size ${sth.treeSize} is refused: ${w.problem}`, evidence: note });
      return { state: null, findings };
    }
    const cosigned: TreeHead = { treeSize: w.checkpoint.treeSize, rootHash: toHex(w.checkpoint.rootHash) };
    if (cosigned.treeSize > sth.treeSize) {
      findings.push({
        kind: 'warning',
        detail:
          `the witnessed checkpoint is of size ${cosigned.treeSize}, above the head read before it (${sth.treeSize}): the log ` +
          `moved between the two reads`,
      });
      return { state: null, findings };
    }
    if ((await consistent(client, cosigned, sth)) !== true) {
      findings.push({
        kind: 'inconsistent',
        detail:
          `the head of size ${sth.treeSize} does not extend the checkpoint of size ${cosigned.treeSize} that ` +
          `${w.cosignatures.length} witnesses cosigned`,
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
        detail:
          `the head of size ${sth.treeSize} does not extend the head of size ${prev.treeSize} saved at ` +
          `${saved.checkedAt}${holds === null ? ' (the service gave no proof)' : ''}`,
        evidence: [prev, sth],
      });
      return { state: null, findings };
    }
  }
  const format = opts.format ?? MONITOR_FORMAT;
  const state: MonitorState = { format, url, origin: key.origin, logKey, sth, checkedAt: now.toISOString() };
  const trust =
    opts.trust ?? (opts.logKey !== undefined ? 'given' : saved === null ? 'taken from the log on first use' : 'pinned on first use');
  findings.push({
    kind: 'ok',
    detail:
      `head ${sth.treeSize} ${sth.rootHash} verified by log key ${logKey} (vkey ${verifierKey(key.origin, logKeyRaw(logKey))}), ` +
      `${trust}${saved === null ? ' (first head)' : ` (extends ${saved.sth.treeSize})`}`,
  });
  for (const peer of opts.peers ?? []) findings.push(await comparePeer(state, peer, { prefix, timeoutMs: opts.timeoutMs }));
  return { state, findings };
}

/** GET `url` as JSON; throws LogError('unavailable') unless the answer is 200 with a JSON object. */
async function getObject(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  let r: Response;
  try {
    r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new LogError('unavailable', `GET ${url}: ${(err as Error).message}`, { cause: err });
  }
  const body = (await r.json().catch(() => null)) as unknown;
  if (r.status !== 200 || typeof body !== 'object' || body === null) throw new LogError('unavailable', `GET ${url}: ${r.status}`);
  return body as Record<string, unknown>;
}

/**
 * Compares our head with the one a peer monitor verified (its GET /head), proving the smaller a
 * prefix of the larger by the log that shows the larger. A split when no proof reconciles them;
 * a warning when the peer cannot be read, follows another log, or no proof could be had.
 */
export async function comparePeer(ours: MonitorState, peer: string, opts: { prefix?: string; timeoutMs?: number } = {}): Promise<Finding> {
  let theirs: MonitorState;
  try {
    theirs = (await getObject(`${checkedUrl(peer)}/head`, opts.timeoutMs ?? 120_000)) as unknown as MonitorState;
  } catch (err) {
    return { kind: 'warning', detail: `peer ${peer}: ${(err as Error).message}` };
  }
  if (theirs.format !== ours.format || theirs.logKey !== ours.logKey)
    return { kind: 'warning', detail: `peer ${peer} follows another log (key ${theirs.logKey})` };
  if (typeof theirs.sth !== 'object' || theirs.sth === null || !headSigned(theirs.sth, ours.logKey))
    return { kind: 'warning', detail: `peer ${peer} gossips a head not signed by the log key: ignored` };
  // The larger head's log proves the smaller a prefix of it.
  const [small, large] = theirs.sth.treeSize <= ours.sth.treeSize ? [theirs, ours] : [ours, theirs];
  let holds: boolean | null;
  try {
    holds = await consistent(new LogClient(`${checkedUrl(large.url)}${opts.prefix ?? ''}`, opts), small.sth, large.sth);
  } catch {
    holds = null; // the peer's url is not one
  }
  const evidence = [
    { url: ours.url, sth: ours.sth },
    { url: `${theirs.url} (via peer ${peer})`, sth: theirs.sth },
  ];
  if (holds === false)
    return {
      kind: 'split',
      detail:
        `SPLIT VIEW: the head of size ${small.sth.treeSize} shown to ${small.url} is not a prefix of the head of size ` +
        `${large.sth.treeSize} shown to ${large.url}`,
      evidence,
    };
  if (holds === null)
    return {
      kind: 'warning',
      detail: `peer ${peer}: ${large.url} gave no consistency proof from ${small.sth.treeSize} to ${large.sth.treeSize}`,
    };
  return { kind: 'ok', detail: `peer ${peer}: its head ${theirs.sth.treeSize} and ours are consistent` };
}
