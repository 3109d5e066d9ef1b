// Entry 0 of every log: the genesis event, signed by the log key, naming the log key, the
// operator key (which signs pairing requests and exercises the reserved powers), the
// deployment's operator id and the log's origin, so a verifier that trusts entry 0 can check
// every later head and event.
import type { RecordReader } from './log-entry.js';
import { PROTOCOL, verifyEvent, type ServiceEvent, type SignedEvent } from './service-event.js';

export const GENESIS = 'log.genesis';

export interface GenesisEvent extends ServiceEvent {
  type: typeof GENESIS;
  logKey: string;
  operatorKey: string;
  operator: string;
  origin: string;
  /** The constitution in force at genesis, which the first agents acknowledge. */
  constitution: { version: string; hash: string };
}

export function genesisEvent(
  ts: string,
  logKey: string,
  operatorKey: string,
  operator: string,
  origin: string,
  constitution: { version: string; hash: string },
): GenesisEvent {
  return {
    protocol: PROTOCOL,
    type: GENESIS,
    ts,
    logKey,
    operatorKey,
    operator,
    origin,
    constitution: { version: constitution.version, hash: constitution.hash },
  };
}

/** Reads entry 0's payload as a genesis event signed by the key it names; throws otherwise. */
export function parseGenesis(type: string, payloadText: string): SignedEvent<GenesisEvent> {
  let logged: SignedEvent<GenesisEvent>;
  try {
    logged = JSON.parse(payloadText) as SignedEvent<GenesisEvent>;
  } catch {
    throw new Error('entry 0 is not a genesis event (its payload is not JSON)');
  }
  const e = logged?.event;
  if (type !== GENESIS || e?.type !== GENESIS || e.protocol !== PROTOCOL) throw new Error('entry 0 is not a genesis event');
  for (const m of ['logKey', 'operatorKey', 'operator', 'origin', 'ts'] as const) {
    if (typeof e[m] !== 'string') throw new Error(`genesis event: ${m} missing`);
  }
  if (typeof e.constitution?.version !== 'string' || typeof e.constitution.hash !== 'string')
    throw new Error('genesis event: constitution missing');
  if (!verifyEvent(e.logKey, logged)) throw new Error('genesis event: signature does not verify with the key it names');
  return logged;
}

/** Entry 0 of the log `reader` reads as its genesis event; throws as parseGenesis does. */
export async function readGenesis(reader: RecordReader): Promise<GenesisEvent> {
  const [first] = await reader.records(0, 1);
  return parseGenesis(first?.type ?? '', first?.payload ?? '').event;
}
