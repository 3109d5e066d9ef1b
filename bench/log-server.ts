// The server side of `npm run bench:log`'s HTTP part: the service's own log routes
// (api/routes/log.ts, with its error middleware) over the bench's LevelDB log, in a process of
// their own. Not `archive serve`: the bench's log holds a million synthetic entries by an agent
// that was never registered, which the record cannot fold (and /v1/log/inclusion never reads the
// record). Prints `serving at <url>,` like `archive serve`.
import Koa from 'koa';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDeployment } from '../lib/service/deployment.js';
import { errorMiddleware } from '../api/error-middleware.js';
import { logRoutes } from '../api/routes/log.js';

const d = await openDeployment({ dataDir: process.argv[2]! });
const app = new Koa();
app.use(errorMiddleware());
app.use(logRoutes(d, { max: 2, windowSeconds: 60 }).routes());
const server = createServer(app.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(
  `log routes: serving ${d.log.size} entries at http://127.0.0.1:${(server.address() as AddressInfo).port}, data in ${process.argv[2]}`,
);
process.on('SIGTERM', () => {
  server.close();
  void d.close().then(() => process.exit(0));
});
