// `npm start -- --data DIR [--port P] [--host H] [--origin O]`: serves the key directory kept in
// DIR (made on first start). Prints `vkey <vkey>` (what clients check answers with) and
// `listening <url>`, then serves until SIGINT or SIGTERM, when it writes its snapshot and stops.
import { parseArgs } from 'node:util';
import { DEFAULT_ORIGIN, openKeyDir } from './keydir.js';
import { keydirServer } from './server.js';

const USAGE = `usage: npm start -- --data DIR [--port P] [--host H] [--origin O]
  --data    the directory's data (LevelDB under DIR/db, the log key in DIR/log.key, DIR/state.snapshot)
  --port    the port to listen on (default 0: any free port)
  --host    the address to listen on (default 127.0.0.1)
  --origin  the origin of a new directory's log (default ${DEFAULT_ORIGIN}); an existing one keeps its own`;

function fail(message: string): never {
  console.error(`keydir: ${message}\n${USAGE}`);
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

let dir: Awaited<ReturnType<typeof openKeyDir>>;
try {
  dir = await openKeyDir(values.data, values.origin === undefined ? {} : { origin: values.origin });
} catch (err) {
  console.error(`keydir: ${(err as Error).message}`);
  process.exit(1);
}
const server = keydirServer(dir);
server.listen(port, values.host ?? '127.0.0.1', () => {
  const a = server.address();
  const where = typeof a === 'object' && a !== null ? `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : String(a);
  console.log(`vkey ${dir.vkey}`);
  console.log(`listening ${where} (entries: ${dir.log.size})`);
});
server.on('error', (err) => {
  console.error(`keydir: ${err.message}`);
  process.exit(1);
});

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    server.close();
    server.closeAllConnections();
    dir.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`keydir: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  });
}
