// `npm start -- --data DIR [--port P] [--host H] [--name NAME]`: serves the checksum database
// kept in DIR (made on first start). Prints `vkey <name>+<key ID>+<key>` (what a Go client is
// given, as in GOSUMDB) and `listening <url>`, then serves until SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { openSumDB, DEFAULT_NAME } from './db.js';
import { sumdbServer } from './server.js';

const USAGE = `usage: npm start -- --data DIR [--port P] [--host H] [--name NAME]
  --data  the database's directory (LevelDB under DIR/db, the note key in DIR/note.key)
  --port  the port to listen on (default 0: any free port)
  --host  the address to listen on (default 127.0.0.1)
  --name  the server name of a new database's note key (default ${DEFAULT_NAME}); an existing one keeps its own`;

function fail(message: string): never {
  console.error(`sumdb: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: { data?: string; port?: string; host?: string; name?: string };
try {
  ({ values } = parseArgs({
    options: { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  fail((err as Error).message);
}
if (values.data === undefined) fail('--data is required');
const port = Number(values.port ?? '0');
if (!/^[0-9]{1,5}$/.test(values.port ?? '0') || port > 65535) fail(`--port: "${values.port}" is not a port number`);

let db: Awaited<ReturnType<typeof openSumDB>>;
try {
  db = await openSumDB(values.data, values.name === undefined ? {} : { name: values.name });
} catch (err) {
  console.error(`sumdb: ${(err as Error).message}`);
  process.exit(1);
}
const server = sumdbServer(db);
server.listen(port, values.host ?? '127.0.0.1', () => {
  const a = server.address();
  const where = typeof a === 'object' && a !== null ? `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : String(a);
  console.log(`vkey ${db.key.vkey}`);
  console.log(`listening ${where} (records: ${db.log.size})`);
});
server.on('error', (err) => {
  console.error(`sumdb: ${err.message}`);
  process.exit(1);
});

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    server.close();
    server.closeAllConnections();
    db.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`sumdb: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  });
}
