// A second application on the log engine (docs/engine.md, "The example"): a log of signed
// statements. It supplies one entry type and its rule (rule.ts) and one write route; the
// engine gives it the log (durable appends, heads, checkpoints, tiles, proofs, the audit) and
// the log's routes (api/routes/log.ts), mounted as the record mounts them. Nothing in log/ is
// particular to it.
import Router from '@koa/router';
import Koa from 'koa';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jsonBody } from '../../api/body.js';
import { errorMiddleware } from '../../api/error-middleware.js';
import { logRoutes, type ServedLog } from '../../api/routes/log.js';
import { logSigner, logVerifier, publicKeyOf } from '../../lib/protocol/ed25519.js';
import { ArchiveError } from '../../lib/protocol/errors.js';
import { loadOrCreateKey } from '../../lib/service/keystore.js';
import { LogError, openLevelStore, restartable, storeReader } from 'tlog-engine';
import { RECORD_FRAMING, RecordLog } from '../../lib/protocol/log-entry.js';
import { admitStatement, STATEMENT } from './rule.js';

export const STATEMENTS_ORIGIN = 'statements.local';

/** The statement log of a data directory: `<dataDir>/db` (LevelDB) and `<dataDir>/keys/log.key`. */
export interface StatementLog extends ServedLog {
  log: RecordLog;
  close(): Promise<void>;
}

export async function openStatementLog(dataDir: string, opts: { origin?: string; clock?: () => number } = {}): Promise<StatementLog> {
  const store = await restartable(() => openLevelStore(join(dataDir, 'db'), { framing: RECORD_FRAMING }));
  try {
    // The key is made only with a new log, as the record's deployment does (lib/service/keystore.ts).
    const isNew = (await storeReader(store)).size === 0;
    await mkdir(join(dataDir, 'keys'), { recursive: true, mode: 0o700 });
    const logKey = await loadOrCreateKey(join(dataDir, 'keys', 'log.key'), isNew);
    const logKeyString = publicKeyOf(logKey);
    const origin = opts.origin ?? STATEMENTS_ORIGIN;
    const log = await RecordLog.open({ store, signer: logSigner(logKey), origin, ...(opts.clock ? { clock: opts.clock } : {}) });
    return { log, logKeyString, origin, audit: () => log.audit(logVerifier(logKeyString)), close: () => log.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** The application's HTTP service: the engine's log routes and POST /statements. */
export function statementApp(s: StatementLog): Koa {
  const app = new Koa();
  app.use(errorMiddleware());
  app.use(logRoutes(s, { max: 10, windowSeconds: 60 }).routes());
  const router = new Router();
  router.post('/statements', async (ctx) => {
    const payload = admitStatement(await jsonBody(ctx));
    let appended;
    try {
      appended = await s.log.append(STATEMENT, payload);
    } catch (err) {
      if (err instanceof LogError && (err.code === 'failed' || err.code === 'closed')) {
        throw new ArchiveError('paused', 'the log cannot write: nothing of this statement was logged', { cause: err });
      }
      throw err;
    }
    ctx.status = 201;
    ctx.body = appended;
  });
  app.use(router.routes());
  return app;
}

/** Serves the statement log of `dataDir` on `port` (0: any free port) of `host`. */
export async function startStatementServer(
  dataDir: string,
  port = 0,
  host = '127.0.0.1',
): Promise<{ url: string; statements: StatementLog; close(): Promise<void> }> {
  const statements = await openStatementLog(dataDir);
  const server = createServer(statementApp(statements).callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}`,
    statements,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await statements.close();
    },
  };
}
