// The constitution's page in the explorer: the Markdown the service serves at /constitution.md
// (constitutionMarkdown of lib/protocol/constitution.ts) rendered as HTML (markdown.ts), with a
// list of its articles to jump to, and where to read it as JSON or Markdown and how it is amended.
import { html, join, type Html } from './html.js';
import { constitutionMarkdown, type Constitution } from '../../lib/protocol/constitution.js';
import { markdownHtml } from './markdown.js';

export function constitutionPage(c: Constitution): Html {
  // The page's own title stands for the Markdown's first heading.
  const text = constitutionMarkdown(c).replace(/^# .*\n/, '');
  const articles = c.articles.map((a) => html`<a href="#article-${a.id}">${a.id}. ${a.title}</a>`);
  return html`<p class="links" id="articles">Articles: ${join(articles, ' ')}</p>
<div id="constitution">
${markdownHtml(text)}</div>
<p>The same as <a href="/constitution.md">Markdown</a>; proposals to amend it, and how they pass: <a href="/explore/governance">governance\
</a>.</p>`;
}
