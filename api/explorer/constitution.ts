// The constitution's page in the explorer: the Markdown the service serves at /constitution.md
// (constitutionMarkdown of lib/protocol/constitution.ts) rendered as HTML (markdown.ts), with a
// list of its articles to jump to, and where to read it as JSON or Markdown and how it is amended.
import { escapeMarkup as h } from '../../lib/protocol/markup.js';
import { constitutionMarkdown, type Constitution } from '../../lib/protocol/constitution.js';
import { markdownHtml } from './markdown.js';

export function constitutionPage(c: Constitution): string {
  // The page's own title stands for the Markdown's first heading.
  const text = constitutionMarkdown(c).replace(/^# .*\n/, '');
  const articles = c.articles.map((a) => `<a href="#article-${h(a.id)}">${h(a.id)}. ${h(a.title)}</a>`);
  return `<p class="links" id="articles">Articles: ${articles.join(' ')}</p>
<div id="constitution">
${markdownHtml(text)}</div>
<p>The same as <a href="/constitution.md">Markdown</a>; proposals to amend it, and how they pass: <a href="/explore/governance">governance</a>.</p>`;
}
