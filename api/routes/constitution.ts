// The constitution in force (docs/api.md#the-records-reads): JSON at /v1/constitution, which
// registration acknowledges by {version, hash}, and a Markdown rendering at /constitution.md.
import { constitutionMarkdown } from '../../lib/protocol/constitution.js';
import type { Handler, ReadEnv } from '../reads/read.js';

/** The handlers of the rows of the constitution (api/reads/log.ts, api/reads/site.ts). */
export function constitutionReads({ constitution: current }: ReadEnv) {
  const json: Handler = (ctx) => {
    const c = current();
    // An enacted amendment changes the answer: caches must revalidate.
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = {
      version: c.version,
      hash: c.hash,
      articles: c.articles.map(({ id, title, entrenched, text }) => ({ id, title, entrenched, text })),
    };
  };

  const markdown: Handler = (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = constitutionMarkdown(current());
  };

  return { json, markdown };
}
