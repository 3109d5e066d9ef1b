// GET /v1/node (docs/api.md, "This node"): which node answered, whether it leads, where the leader
// takes writes, and how far this node has the log and has folded it into its state. For load
// balancers' health checks and for operators comparing nodes (docs/deploy.md).
import type { Handler, ReadEnv } from '../reads/read.js';

/** The handler of the row of GET /v1/node (api/reads/log.ts). */
export function nodeReads({ d, applied, role }: ReadEnv) {
  const log = d.log;
  const node: Handler = (ctx) => {
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
  };
  return { node };
}
