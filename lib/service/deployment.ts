// A deployment: a data directory holding the LevelDB log and the keys (docs/protocol.md#the-deployments-keys),
// or the keys only, with the log in a PostgreSQL database (docs/log-format.md).
// Opening one makes the keys and the genesis entry on first start, and on later starts checks
// that the log's genesis names this log key, origin and operator.
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import {
  isPgUrl,
  isShared,
  logSigner,
  logVerifier,
  openLevelStore,
  openPgStore,
  restartable,
  type AuditReport,
  type LeaseHolder,
  type LogStore,
  type SharedStore,
} from 'tlog-engine';
import { RECORD_FRAMING, RecordLog, recordReader } from '../protocol/log-entry.js';
import { publicKeyOf } from '../protocol/ed25519.js';
import { currentConstitution } from '../protocol/constitution.js';
import { GENESIS, genesisEvent, readGenesis } from '../protocol/genesis.js';
import { loadDeploymentKeys } from './keystore.js';
import { openWithReserve } from './storage.js';
import { eventText, signEvent } from '../protocol/service-event.js';

export const DEFAULT_ORIGIN = 'archive.local';
export const DEFAULT_OPERATOR = 'op_archive';

export interface DeploymentOptions {
  dataDir: string;
  /** The log's origin; defaults to the one in the genesis entry, or DEFAULT_ORIGIN for a new log. */
  origin?: string;
  /** The deployment's own operator id; as origin. */
  operator?: string;
  clock?: () => number;
  /** A PostgreSQL database (postgres://user@host/db) holding the log instead of LevelDB in `<dataDir>/db`. */
  storeUrl?: string;
  /** A store to use instead of LevelDB in `<dataDir>/db` (tests). */
  store?: LogStore;
  /**
   * On a shared store, the node this process is (lib/service/cluster.ts): on a new database it
   * writes the genesis only under the sequencer lease, so that nodes started at once agree.
   */
  node?: LeaseHolder & { leaseMs: number };
}

export interface Deployment {
  /** The data directory: the store, the keys, and the deployment's screening rules. */
  dataDir: string;
  /** The record's view of the log; `log.engine` is the engine's Log (its reads are what /v1/log serves). */
  log: RecordLog;
  /** The store under the log: a SharedStore when many nodes may share it (PostgreSQL). */
  store: LogStore;
  logKey: KeyObject;
  operatorKey: KeyObject;
  /** The log key's public spelling (base64url DER SPKI). */
  logKeyString: string;
  /** The operator key's public spelling. */
  operatorKeyString: string;
  origin: string;
  operator: string;
  /** The PostgreSQL database the log is in (with its password), when it is. */
  storeUrl?: string;
  audit(): Promise<AuditReport>;
  /** Runs `f` when the deployment closes, before its log does (the search index, say). */
  onClose(f: () => Promise<void>): void;
  close(): Promise<void>;
}

/** Operator ids are 2 to 80 characters (docs/payloads.md). */
const OPERATOR = /^\S{2,80}$/;
/** An origin names the log's note key (C2SP signed-note): no spaces, no '+', not empty. */
const ORIGIN = /^[^\s+]{1,255}$/;

/** `url` with its password, if any, left out. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password === '') return url;
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

export async function openDeployment(opts: DeploymentOptions): Promise<Deployment> {
  if (opts.operator !== undefined && !OPERATOR.test(opts.operator)) {
    throw new Error(`operator ${JSON.stringify(opts.operator)}: expected 2 to 80 characters, no spaces`);
  }
  if (opts.origin !== undefined && !ORIGIN.test(opts.origin)) {
    throw new Error(`origin ${JSON.stringify(opts.origin)}: expected 1 to 255 characters, no spaces and no '+'`);
  }
  const clock = opts.clock ?? Date.now;
  if (opts.storeUrl !== undefined && !isPgUrl(opts.storeUrl))
    throw new Error(`store ${JSON.stringify(opts.storeUrl)}: expected a PostgreSQL URL, postgres://user@host/db`);
  // Where the log is, for messages (a URL without its password).
  const where = opts.storeUrl === undefined ? join(opts.dataDir, 'db') : withoutPassword(opts.storeUrl);
  // LevelDB writes as it opens: on a full disk the reserve is given up so it can (lib/service/storage.ts).
  const store =
    opts.store ??
    (opts.storeUrl !== undefined
      ? await openPgStore(opts.storeUrl)
      : await openWithReserve(opts.dataDir, () =>
          restartable(() => openLevelStore(join(opts.dataDir, 'db'), { framing: RECORD_FRAMING })),
        ));
  try {
    let stored = await recordReader(store);
    if (stored.size === 0 && opts.node !== undefined && isShared(store)) {
      // Nodes started at once on a new database: the one that takes the lease writes the genesis.
      if (!(await leadForGenesis(store, opts.node))) stored = await recordReader(store);
    }
    // Keys are made only with a new log: a log whose key file is missing is refused, never
    // given a new key that its genesis does not name.
    const { logKey, operatorKey } = await loadDeploymentKeys(opts.dataDir, stored.size === 0);
    const logKeyString = publicKeyOf(logKey);
    let origin = opts.origin ?? DEFAULT_ORIGIN;
    let operator = opts.operator ?? DEFAULT_OPERATOR;
    if (stored.size > 0) {
      // The log was made earlier: its genesis decides origin and operator.
      let g;
      try {
        g = await readGenesis(stored);
      } catch (err) {
        throw new Error(`${where} does not hold an archive/0.2 log: ${(err as Error).message}`);
      }
      if (g.operatorKey !== publicKeyOf(operatorKey))
        throw new Error(
          `the log's genesis names operator key ${g.operatorKey}, but ${join(opts.dataDir, 'keys', 'operator.key')} is ` +
            `${publicKeyOf(operatorKey)}`,
        );
      if (g.logKey !== logKeyString)
        throw new Error(`the log's genesis names log key ${g.logKey}, but ${join(opts.dataDir, 'keys', 'log.key')} is ${logKeyString}`);
      if (opts.origin !== undefined && opts.origin !== g.origin) throw new Error(`this log's origin is ${g.origin}, not ${opts.origin}`);
      if (opts.operator !== undefined && opts.operator !== g.operator)
        throw new Error(`this log's operator is ${g.operator}, not ${opts.operator}`);
      origin = g.origin;
      operator = g.operator;
    }
    const log = await RecordLog.open({ store, signer: logSigner(logKey), origin, clock });
    if (log.size === 0) {
      const event = genesisEvent(
        new Date(clock()).toISOString(),
        logKeyString,
        publicKeyOf(operatorKey),
        operator,
        origin,
        currentConstitution(),
      );
      await log.append(GENESIS, eventText(signEvent(logKey, event)));
    }
    const closing: (() => Promise<void>)[] = [];
    return {
      dataDir: opts.dataDir,
      storeUrl: opts.storeUrl,
      log,
      store,
      logKey,
      operatorKey,
      logKeyString,
      operatorKeyString: publicKeyOf(operatorKey),
      origin,
      operator,
      audit: () => log.audit(logVerifier(logKeyString)),
      onClose: (f) => void closing.push(f),
      close: async () => {
        for (const f of closing.splice(0)) await f().catch((err) => console.error('archive: closing:', err));
        await log.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/**
 * Takes the sequencer lease of a new database as `node`, to write its genesis: true when it is
 * taken and the log is still empty; false once another node wrote a genesis (the log is not
 * empty any more). Waits for one or the other.
 */
async function leadForGenesis(store: SharedStore, node: LeaseHolder & { leaseMs: number }): Promise<boolean> {
  for (;;) {
    const got = await store.lease.acquire({ node: node.node, url: node.url }, node.leaseMs);
    if (got !== null) return got.head === null;
    if ((await store.readHead()) !== null) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
