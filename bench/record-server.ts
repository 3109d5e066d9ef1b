// The server side of `npm run bench:record`: a real service (LevelDB in a temp dir, the record,
// the Koa app) and, beside it, a bare Koa route that only reads a body and verifies one Ed25519
// signature, the floor any signed write stands on. Prints both URLs as one JSON line.
import Koa from 'koa';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonBody } from '../api/body.js';
import { envelopeShape } from '../api/envelope.js';
import { startServer } from '../api/server.js';
import { openDeployment } from '../lib/service/deployment.js';
import { verifyPayload } from '../lib/protocol/ed25519.js';
import { unauthorized } from '../lib/protocol/errors.js';
import { LiveRecord } from '../lib/service/live-record.js';
import { errorMiddleware } from '../api/error-middleware.js';

const dataDir = process.argv[2]!;
const d = await openDeployment({ dataDir });
const record = await LiveRecord.open(d);
const service = await startServer(d, record, 0, '127.0.0.1', { registerLimit: null });

const bare = new Koa();
bare.use(errorMiddleware());
bare.use(async (ctx) => {
  const env = envelopeShape(await jsonBody(ctx));
  // The bodies are the bench's own reviews: {agent: {handle, publicKey}, ...}.
  const agent = env.payload.agent as { publicKey: string };
  if (!verifyPayload(agent.publicKey, env.payload, env.signature)) throw unauthorized('signature');
  ctx.status = 201;
  ctx.body = { ok: true };
});
const bareServer = createServer(bare.callback());
await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', r));
const port = (bareServer.address() as AddressInfo).port;
console.log(JSON.stringify({ service: service.url, bare: `http://127.0.0.1:${port}` }));
process.on('SIGTERM', async () => {
  await service.close();
  bareServer.close();
  await d.close();
  process.exit(0);
});
