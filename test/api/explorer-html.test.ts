// The explorer's `html` tag (api/explorer/html.ts): every value placed in it is escaped unless it
// is markup itself; a string never passes as markup (the types refuse it, raw() is the one way).
import t from 'tap';
import { empty, html, isEmpty, join, raw, type Html } from '../../api/explorer/html.js';

const PAYLOAD = `<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;'`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;&#39;';

t.test('text placed in html is escaped, in an element and in an attribute', async (t) => {
  t.equal(html`<p>${PAYLOAD}</p>`.toString(), `<p>${ESCAPED}</p>`);
  t.equal(html`<a title="${PAYLOAD}">x</a>`.toString(), `<a title="${ESCAPED}">x</a>`);
  t.equal(html`<b>${42}</b> ${0.25}`.toString(), '<b>42</b> 0.25', 'numbers as written');
  t.equal(html`<p>plain & simple</p>`.toString(), '<p>plain & simple</p>', "the template's own text is kept as written");
});

t.test('markup placed in html is kept, text within it escaped once', async (t) => {
  const inner = html`<i>${PAYLOAD}</i>`;
  t.equal(html`<p>${inner}</p>`.toString(), `<p><i>${ESCAPED}</i></p>`);
  t.equal(html`<ul>${[html`<li>a</li>`, 'b<', 3]}</ul>`.toString(), '<ul><li>a</li>b&lt;3</ul>', 'a list: markup kept, text escaped');
  t.equal(html`<p>${empty}</p>`.toString(), '<p></p>');
  t.ok(isEmpty(empty));
  t.ok(isEmpty(html``));
  t.notOk(isEmpty(html` `));
});

t.test('join: markup kept, text and the separator escaped', async (t) => {
  t.equal(join([html`<b>1</b>`, '<2>'], ', ').toString(), '<b>1</b>, &lt;2&gt;');
  t.equal(join([html`<b>1</b>`, html`<b>2</b>`], html`<br>`).toString(), '<b>1</b><br><b>2</b>');
  t.equal(join([]).toString(), '');
});

t.test('raw: text taken as markup as it stands', async (t) => {
  t.equal(html`<style>${raw('a > b { }')}</style>`.toString(), '<style>a > b { }</style>');
});

t.test('a string is never markup: the types refuse it', async (t) => {
  // @ts-expect-error a string is not Html
  const notMarkup: Html = '<b>bold</b>';
  t.equal(typeof notMarkup, 'string');
  // @ts-expect-error nor is anything shaped like it
  const forged: Html = { toString: () => '<b>bold</b>' };
  t.equal(html`${forged as unknown as string}`.toString(), '&lt;b&gt;bold&lt;/b&gt;', 'a forged value is escaped as text');
});
