// `node dist/examples/statements/main.js <data-dir> [port]`: serves a statement log.
import { startStatementServer } from './server.js';

const [dataDir, port] = process.argv.slice(2);
if (dataDir === undefined) {
  console.error('usage: node dist/examples/statements/main.js <data-dir> [port]');
  process.exit(2);
}
const s = await startStatementServer(dataDir, Number(port ?? 0));
console.log(`statements: serving ${dataDir} at ${s.url}`);
process.once('SIGINT', () => void s.close().then(() => process.exit(0)));
