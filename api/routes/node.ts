// GET /v1/node (docs/api.md, "This node"): which node answered, whether it leads, where the leader
// takes writes, and how far this node has the log and has folded it into its state. For load
// balancers' health checks and for operators comparing nodes (docs/deploy.md).
import Router from '@koa/router';
import type { RecordLog } from '../../lib/protocol/log-entry.js';
import { params } from '../params.js';
import type { NodeRole } from '../forward.js';

export function nodeRoutes(log: RecordLog, applied: () => number, role: NodeRole | undefined): Router {
  const router = new Router();
  router.get('/v1/node', (ctx) => {
    params(ctx, []);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body =
      role === undefined
        ? { node: null, role: 'alone', leader: null, treeSize: log.size, applied: applied() }
        : {
            node: role.node,
            role: role.leading ? 'leader' : 'follower',
            leader: role.leaderUrl,
            treeSize: log.size,
            applied: applied(),
          };
  });
  return router;
}
