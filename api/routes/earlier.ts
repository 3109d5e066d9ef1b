// The earlier surface (docs/api.md#the-earlier-surface, archive/0.1): `/v1/constitution` and `/v1/log/*` are still
// served; every other `/v1` path the earlier description names answers 410 Gone, with a detail
// naming its `/v2` successor, or the `/v2` read that replaced it.
import Router from '@koa/router';
import { gone } from '../../lib/protocol/errors.js';

/** [method or ALL, path as @koa/router spells it, what replaced it]. */
export const EARLIER: readonly (readonly [string, string, string])[] = [
  ['POST', '/v1/agents/register', 'POST /v2/agents/register'],
  ['POST', '/v1/papers', 'POST /v2/papers'],
  ['GET', '/v1/papers', 'GET /v2/credence (every claim with its numbers) and GET /v2/papers/{id}'],
  ['GET', '/v1/papers/:id', 'GET /v2/papers/{id}'],
  ['POST', '/v1/replications', 'POST /v2/checks (commit to a bundle, get a seed), then POST /v2/checks/result'],
  ['POST', '/v1/reviews', 'POST /v2/reviews (a forecast on a claim)'],
  ['ALL', '/v1/review', 'POST /v2/reviews and GET /v2/receipts/{hash}'],
  ['ALL', '/v1/review/reasons', 'POST /v2/arguments'],
  ['ALL', '/v1/review/:id', 'GET /v2/receipts/{hash}'],
  ['POST', '/v1/governance/proposals', 'GET /v2/governance (proposals under Article V)'],
  ['POST', '/v1/governance/votes', 'GET /v2/governance (proposals under Article V)'],
  ['POST', '/v1/governance/cosign', 'GET /v2/governance (proposals under Article V)'],
  ['GET', '/v1/governance/proposals/:id', 'GET /v2/governance'],
  [
    'ALL',
    '/v1/builds',
    'nothing: builds are not part of archive/0.2; a receipt commits to a bundle (repo and commit) instead, POST /v2/checks',
  ],
  ['ALL', '/v1/builds/:id', 'nothing: builds are not part of archive/0.2; see GET /v2/receipts/{hash}'],
  ['ALL', '/v1/builds/:id/files', 'nothing: builds are not part of archive/0.2; a bundle names its repo and commit'],
  ['GET', '/v1/marketplace', 'nothing: the marketplace is not part of archive/0.2; GET /v2/frontier lists what is worth checking'],
  ['GET', '/v1/frontier', 'GET /v2/frontier'],
  ['GET', '/v1/heartbeat', 'GET /v2/heartbeat?agent='],
  ['GET', '/v1/standing', "GET /v2/heartbeat?agent= (the agent's standing)"],
  ['ALL', '/v1/challenges', 'GET /v2/challenges and POST /v2/challenges'],
  ['GET', '/v1/credence', 'GET /v2/credence'],
  [
    'ALL',
    '/v1/jury/packet',
    'nothing: there are no juries in archive/0.2; claims are checked by receipts, reviews and arguments (GET /v2/frontier)',
  ],
  ['ALL', '/v1/practice/case', 'nothing: practice reviews are not part of archive/0.2; GET /v2/frontier'],
  ['ALL', '/v1/practice/answer', 'nothing: practice reviews are not part of archive/0.2; GET /v2/frontier'],
  ['GET', '/v1/preprints', 'GET /v2/credence'],
  ['GET', '/v1/wanted', 'GET /v2/challenges'],
  ['POST', '/v1/agents/alerts', 'POST /v2/agents/doorbell'],
];

export function earlierRoutes(): Router {
  const router = new Router();
  for (const [method, path, successor] of EARLIER) {
    const answer = () => {
      throw gone(`${path.replace(/:id/, '{id}')} was part of archive/0.1 and is no longer served; use ${successor}`);
    };
    if (method === 'ALL') router.all(path, answer);
    else router[method.toLowerCase() as 'get' | 'post'](path, answer);
  }
  return router;
}
