// The constitution in force (docs/api.md#the-records-reads): JSON at /v1/constitution, which
// registration acknowledges by {version, hash}, and a Markdown rendering at /constitution.md.
import Router from '@koa/router';
import { constitutionMarkdown, type Constitution } from '../../lib/protocol/constitution.js';
import { params } from '../params.js';

/** `current` names the constitution in force now (it changes when an amendment is enacted). */
export function constitutionRoutes(current: () => Constitution): Router {
  const router = new Router();

  router.get('/v1/constitution', (ctx) => {
    params(ctx, []);
    const c = current();
    // An enacted amendment changes the answer: caches must revalidate.
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = {
      version: c.version,
      hash: c.hash,
      articles: c.articles.map(({ id, title, entrenched, text }) => ({ id, title, entrenched, text })),
    };
  });

  router.get('/constitution.md', (ctx) => {
    params(ctx, []);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = constitutionMarkdown(current());
  });

  return router;
}
