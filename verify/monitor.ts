// `archive monitor` on the engine's monitor: what is the record's here is the log's reads under /v1/log, the gossip format and how
// --key pins the key (docs/cli.md#archive-monitor, docs/log-format.md#monitors-archive-monitor, docs/engine.md#monitors).
import type { Server } from 'node:http';
import {
  comparePeer as engineComparePeer,
  monitorRound as engineRound,
  readMonitorState,
  sha256TextHex,
  writeMonitorState,
  type Finding,
  type MonitorState as EngineState,
  type WitnessPolicy,
} from 'tlog-engine';
import { pinProblem, type PinnedKey } from './log-key.js';
import type { WitnessAnswer, WitnessRecord } from './witness.js';

export { checkpointProblem, type Finding } from 'tlog-engine';

export const GOSSIP_FORMAT = 'archive-monitor/1';

/** The prefix of the log's reads on the service. */
const LOG_PREFIX = '/v1/log';

/** What a monitor keeps between rounds, and what its gossip endpoint serves. */
export interface MonitorState extends EngineState {
  format: typeof GOSSIP_FORMAT;
}

export function readState(path: string): MonitorState | null {
  return readMonitorState(path, GOSSIP_FORMAT) as MonitorState | null;
}

/** Saves atomically: a crash leaves the old head or the new one, never half of either. */
export function writeState(path: string, s: MonitorState): void {
  writeMonitorState(path, s);
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
  if (saved !== null && opts.pinned !== undefined && saved.logKey !== opts.pinned.key)
    throw new Error(`the state file pinned log key ${saved.logKey}; --key names ${opts.pinned.key}`);
  const pinned = opts.pinned;
  const round = await engineRound(
    {
      url: opts.url,
      prefix: LOG_PREFIX,
      peers: opts.peers,
      policy: opts.policy,
      format: GOSSIP_FORMAT,
      logKey: pinned,
      keyProblem: (published, trusted) => {
        const pin = pinProblem(trusted, published, 'the service');
        if (pin === null || pinned !== undefined) return pin;
        return `${pin.replace(' (--key)', '')} (pinned on this monitor's first round)`;
      },
      trust: pinned !== undefined ? 'pinned with --key' : saved === null ? 'taken from the service on first use' : 'pinned on first use',
    },
    saved,
    now,
  );
  return round as { state: MonitorState | null; findings: Finding[] };
}

/** Compares our head with the one a peer monitor verified, proving one a prefix of the other. */
export function comparePeer(ours: MonitorState, peer: string): Promise<Finding> {
  return engineComparePeer(ours, peer, { prefix: LOG_PREFIX });
}

/** What a monitor serves as a witness (--witness-key): add-checkpoint, and its last cosigned checkpoint. */
export interface WitnessEndpoint {
  /** Answers an add-checkpoint body; persists a cosigned checkpoint before it returns. */
  add(body: string): WitnessAnswer;
  /** The last checkpoint it cosigned, or null. */
  last(): WitnessRecord | null;
}

/**
 * Serves `GET /head`: the latest head this monitor verified (404 before its first). As a
 * witness, also `POST /add-checkpoint` (c2sp.org/tlog-witness) and
 * `GET /<sha256(origin) hex>/checkpoint`. The engine's servers are loaded only here, so a round
 * alone loads no server code.
 */
export async function serveGossip(
  port: number,
  host: string,
  current: () => MonitorState | null,
  witness?: WitnessEndpoint,
): Promise<{ server: Server; url: string }> {
  const { serveGossip: engineServeGossip } = await import('tlog-engine/servers');
  return engineServeGossip(
    port,
    host,
    current,
    witness && {
      add: (body) => witness.add(body),
      cosigned: (originHash) => {
        const last = witness.last();
        return last !== null && sha256TextHex(last.origin) === originHash ? last : null;
      },
    },
  );
}
