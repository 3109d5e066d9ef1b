// Markdown as the explorer shows it (the constitution's page), rendered by `marked`: text amended by the record's governance, so
// never trusted as markup (docs/api.md#the-explorer: raw HTML as text, links only to http(s) or the site, images never loaded).
import { Marked, type Tokens } from 'marked';
import { escapeMarkup as h } from '../../lib/protocol/markup.js';
import { raw, type Html } from './html.js';

/** Where a link may go: an http(s) address, a path of this site, or a place on the page. */
const SAFE = /^(https?:\/\/|\/(?!\/)|#)/i;

const marked = new Marked({
  gfm: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return h(token.text);
    },
    heading(token: Tokens.Heading): string {
      const article = /^Article ([0-9A-Za-z]+):/.exec(token.text);
      const id = article === null ? '' : ` id="article-${h(article[1]!)}"`;
      return `<h${token.depth}${id}>${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!SAFE.test(token.href)) return text;
      const away = /^https?:/i.test(token.href) ? ' rel="nofollow noopener ugc"' : '';
      return `<a href="${h(token.href)}"${away}>${text}</a>`;
    },
    image(token: Tokens.Image): string {
      if (!SAFE.test(token.href)) return h(token.text);
      return `<a href="${h(token.href)}" rel="nofollow noopener ugc">${h(token.text === '' ? token.href : token.text)}</a>`;
    },
  },
});

/**
 * `text` (Markdown) as HTML, nothing in it taken as markup but Markdown's own: `marked` writes
 * strings, so the renderer above escapes each piece of the text it places (the one place outside
 * html.ts that does).
 */
export function markdownHtml(text: string): Html {
  return raw(marked.parse(text, { async: false }));
}
