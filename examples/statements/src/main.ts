// `npm start -- --data DIR [--port P] [--host H] [--origin O]`: serves the statement log kept in
// DIR (made on first start). Prints `vkey <vkey>` (what the verifier is given) and
// `listening <url>`, then serves until SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { DEFAULT_ORIGIN, openStatementLog, statementServer } from './server.js';

const USAGE = `usage: npm start -- --data DIR [--port P] [--host H] [--origin O]
  --data    the log's data (LevelDB under DIR/db, the log key in DIR/log.key)
  --port    the port to listen on (default 0: any free port)
  --host    the address to listen on (default 127.0.0.1)
  --origin  the origin of a new log (default ${DEFAULT_ORIGIN}); an existing one keeps its own`;

function fail(message: string): never {
  console.error(`statements: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: { data?: string; port?: string; host?: string; origin?: string };
try {
  ({ values } = parseArgs({
    options: { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, origin: { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  fail((err as Error).message);
}
if (values.data === undefined) fail('--data is required');
const port = Number(values.port ?? '0');
if (!/^[0-9]{1,5}$/.test(values.port ?? '0') || port > 65535) fail(`--port: "${values.port}" is not a port number`);

let s: Awaited<ReturnType<typeof openStatementLog>>;
try {
  s = await openStatementLog(values.data, values.origin === undefined ? {} : { origin: values.origin });
} catch (err) {
  console.error(`statements: ${(err as Error).message}`);
  process.exit(1);
}
const server = statementServer(s);
server.listen(port, values.host ?? '127.0.0.1', () => {
  const a = server.address();
  const where = typeof a === 'object' && a !== null ? `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : String(a);
  console.log(`vkey ${s.vkey}`);
  console.log(`listening ${where} (entries: ${s.log.size})`);
});
server.on('error', (err) => {
  console.error(`statements: ${err.message}`);
  process.exit(1);
});

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    server.close();
    server.closeAllConnections();
    s.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`statements: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  });
}
